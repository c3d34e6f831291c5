/**
 * What the online gate needs to monitor a run: for each active clause, its parsed episode formula
 * and numbers. The gate builds `new OnlineMonitor(m.formula, MONITOR_SIGNAL_ORDER)` and pushes
 * frames with `fillMonitorValues`.
 */
import { TRANSPORT_HEIGHT_M } from '../schema/derived.js';
import { SIGNALS, SIGNAL_COUNT } from '../schema/signals.js';
import { parseFormula, type Formula } from '../stl/index.js';
import type { ClauseTier, DepthKind } from './clause.js';
import type { ClausePlan } from './plan.js';
import { STL_SIGNALS } from './stl-bridge.js';

export interface ClauseMonitorSpec {
  readonly clauseId: string;
  readonly tier: ClauseTier;
  readonly tierName: string;
  /** Instantiated STL text, e.g. `always (contact_force_max < 200)`. */
  readonly text: string;
  readonly formula: Formula;
  readonly tau: number;
  readonly severe: number | undefined;
  readonly warn: number | undefined;
  readonly depth: DepthKind;
}

/** Schema signals in SIGNALS order, then derived ones: the value layout of fillMonitorValues. */
export const MONITOR_SIGNAL_ORDER: readonly string[] = STL_SIGNALS.map((s) => s.name);

/** Active clauses of a plan (safe and report-only), parsed for the online monitor. */
export function monitorSpecs(plan: ClausePlan): ClauseMonitorSpec[] {
  const out: ClauseMonitorSpec[] = [];
  for (const d of plan.decisions) {
    if (!d.active) continue;
    const inst = plan.instances.get(d.clause.id)!;
    const r = parseFormula(inst.formula, STL_SIGNALS);
    if (!r.ok) throw new Error(`clause ${d.clause.id}: '${inst.formula}': ${r.error.message}`); // validated on load
    out.push({
      clauseId: d.clause.id,
      tier: d.clause.tier,
      tierName: inst.tierName,
      text: inst.formula,
      formula: r.formula,
      tau: inst.tau,
      severe: inst.severe,
      warn: inst.warn,
      depth: inst.depth,
    });
  }
  return out;
}

const GRIP = SIGNALS.findIndex((s) => s.name === 'gripper_contact');
const HEIGHT = SIGNALS.findIndex((s) => s.name === 'obj_above_table');

/**
 * Copy a frame's schema values (SIGNALS-indexed) into `out` (MONITOR_SIGNAL_ORDER layout) and
 * compute the derived booleans. No allocation: for the per-sample path.
 */
export function fillMonitorValues(frameValues: ArrayLike<number>, out: Float64Array): void {
  for (let i = 0; i < SIGNAL_COUNT; i++) out[i] = frameValues[i]!;
  // DERIVED_SIGNALS[0] is in_transport (asserted by the test suite)
  out[SIGNAL_COUNT] = frameValues[GRIP]! >= 0.5 && frameValues[HEIGHT]! > TRANSPORT_HEIGHT_M ? 1 : 0;
}
