/**
 * The safe-tier clauses that apply to a task on a platform (design §3, §5) and the MonitorBank over
 * them: what every live entry point (SO-101 run, Franka node, Franka replay) starts from.
 */
import {
  applicability,
  instantiateClause,
  resolveTaskTags,
  type ClauseApplicability,
  type ClauseInstance,
  type ScoringSpec,
} from '../safety/index.js';
import type { PlatformProfile } from '../schema/platform.js';
import { MonitorBank } from './monitor-bank.js';

export interface SafeMonitorPlan {
  profile: PlatformProfile;
  /** Every clause with whether it applies and why (for the startup report). */
  decisions: ClauseApplicability[];
  /** The applicable safe-tier clauses, in the bank's order. */
  active: ClauseApplicability[];
  /** The active clauses' numbers (τ, severe, warn) and where they came from, in the bank's order. */
  instances: ClauseInstance[];
  bank: MonitorBank;
}

/**
 * Throws an Error naming an unknown platform or task. `declared` gives the signals the platform
 * (or its calibration) provides; `minSampleInterval` sizes the monitors' buffers (MonitorBank).
 */
export function planSafeMonitors(
  spec: ScoringSpec,
  platform: string,
  task: string,
  declared: (profile: PlatformProfile) => ReadonlySet<string>,
  options: { minSampleInterval?: number } = {},
): SafeMonitorPlan {
  const profile = spec.platforms.get(platform);
  if (!profile) throw new Error(`unknown platform '${platform}' (known: ${[...spec.platforms.keys()].join(', ')})`);
  const resolved = resolveTaskTags(spec.tasks, { task }, spec.library.tags);
  if (!resolved.ok) throw new Error(`task '${task}': ${resolved.error}`);
  const decisions = applicability(spec.library, resolved.value, declared(profile));
  const active = decisions.filter((d) => d.active && d.clause.tier === 'safe');
  const instances = active.map((d) => instantiateClause(d.clause, { platform: profile, tags: resolved.value.tags }));
  const bank = MonitorBank.fromClauses(instances, options);
  return { profile, decisions, active, instances, bank };
}
