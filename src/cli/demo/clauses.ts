/** The demo's clause set: the safe-tier clauses active for the simulator platform and the demo task. */
import { planClauses, type ScoringSpec } from '../../safety/index.js';
import type { ClauseInstance } from '../../safety/index.js';
import { SIGNALS } from '../../schema/signals.js';

/**
 * The task the scenes play: a pick-and-place of an open (spillable) cup into a container, so every
 * safe-tier clause family applies (spec/tasks.yaml).
 */
export const DEMO_TASK = 'sim-pick-cup-into-box';
/** The platform profile of a scene: the SO-101 scene carries the servo's torque ceiling (spec/platforms.yaml). */
export function demoPlatform(sceneId: string): string {
  return sceneId === 'so101' ? 'sim-so101' : 'sim';
}

/** `signals`: what the scene provides (default every schema signal). */
export function demoClauses(
  spec: ScoringSpec,
  platform: string,
  task = DEMO_TASK,
  signals: readonly string[] = SIGNALS.map((s) => s.name),
): { ok: true; instances: ClauseInstance[] } | { ok: false; reason: string } {
  const plan = planClauses(spec, { platform, signals: [...signals], task });
  if (!plan.ok) return { ok: false, reason: `${plan.error.field}: ${plan.error.reason}` };
  const instances: ClauseInstance[] = [];
  for (const d of plan.value.decisions) {
    if (!d.active || d.clause.tier !== 'safe') continue;
    const inst = plan.value.instances.get(d.clause.id);
    if (inst) instances.push(inst);
  }
  return { ok: true, instances };
}
