/** The demo's clause set: the safe-tier clauses active for the simulator platform and the demo task. */
import { planClauses, type ScoringSpec } from '../../safety/index.js';
import type { ClauseInstance } from '../../safety/index.js';
import { SIGNALS } from '../../schema/signals.js';

/** The task id the SO-101 scene plays (a pick-and-place into a container; see spec/tasks.yaml). */
export const DEMO_TASK = 'so101-pick-blue-can';
export const DEMO_PLATFORM = 'sim';

export function demoClauses(spec: ScoringSpec, task = DEMO_TASK): { ok: true; instances: ClauseInstance[] } | { ok: false; reason: string } {
  const plan = planClauses(spec, { platform: DEMO_PLATFORM, signals: SIGNALS.map((s) => s.name), task });
  if (!plan.ok) return { ok: false, reason: `${plan.error.field}: ${plan.error.reason}` };
  const instances: ClauseInstance[] = [];
  for (const d of plan.value.decisions) {
    if (!d.active || d.clause.tier !== 'safe') continue;
    const inst = plan.value.instances.get(d.clause.id);
    if (inst) instances.push(inst);
  }
  return { ok: true, instances };
}
