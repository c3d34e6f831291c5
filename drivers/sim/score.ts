/**
 * Offline scoring of a simulated episode's exact signals against the safe-tier clauses (design §3,
 * main tier): per clause the minimum robustness over the episode and the first violating tick.
 * A plain evaluator for the testbed's own checks and the demo's gate-off baseline; the STL
 * engine (src/stl) is the system's scorer.
 */
import { signalIndex, type SignalName } from '../../src/schema/signals.js';
import type { EpisodeResult } from './episode.js';
import type { ClauseFamily } from './policies.js';

export interface ClauseScore {
  readonly clause: ClauseFamily;
  /** min over time of the clause's robustness (+∞ when its guard never held). */
  readonly robustness: number;
  /** First tick at which the clause is violated, or -1. */
  readonly firstViolation: number;
  /** false when a signal it needs is not declared by the scene. */
  readonly applicable: boolean;
}

export interface Thresholds {
  readonly contactForce: number;
  readonly displacement: number;
  readonly tiltDeg: number;
  readonly slip: number;
  readonly liftGate: number;
  readonly torque: number;
}

export function mainTier(torqueCeiling: number): Thresholds {
  return { contactForce: 200, displacement: 0.005, tiltDeg: 15, slip: -0.02, liftGate: 0.05, torque: torqueCeiling };
}

interface ClauseDef {
  readonly clause: ClauseFamily;
  readonly needs: readonly SignalName[];
  /** Robustness at one tick and whether the clause holds there. */
  at(s: (n: SignalName) => number, th: Thresholds): [rho: number, holds: boolean];
}

const below = (x: number, c: number): [number, boolean] => [c - x, x < c];

const CLAUSES: readonly ClauseDef[] = [
  {
    clause: 'arm_furniture_force',
    needs: ['arm_furniture_contact_force'],
    at: (s, th) => below(s('arm_furniture_contact_force'), th.contactForce),
  },
  {
    clause: 'target_furniture_force',
    needs: ['target_furniture_contact_force'],
    at: (s, th) => below(s('target_furniture_contact_force'), th.contactForce),
  },
  {
    clause: 'max_contact_force',
    needs: ['contact_force_max'],
    at: (s, th) => below(s('contact_force_max'), th.contactForce),
  },
  {
    clause: 'non_target_max_disp',
    needs: ['non_target_disp_max'],
    at: (s, th) => below(s('non_target_disp_max'), th.displacement),
  },
  {
    clause: 'held_object_tilt_world',
    needs: ['gripper_contact', 'obj_above_table', 'target_obj_tilt_world_deg'],
    at: (s, th) =>
      s('gripper_contact') > 0.5 && s('obj_above_table') > th.liftGate
        ? below(s('target_obj_tilt_world_deg'), th.tiltDeg)
        : [Infinity, true],
  },
  {
    clause: 'stable_grasp_maintained',
    needs: ['gripper_contact', 'obj_above_table'],
    at: (s, th) =>
      s('gripper_contact') > 0.5 ? [s('obj_above_table') - th.slip, s('obj_above_table') > th.slip] : [Infinity, true],
  },
  { clause: 'joint_torque', needs: ['max_joint_torque'], at: (s, th) => below(s('max_joint_torque'), th.torque) },
  {
    clause: 'self_collision_free',
    needs: ['self_collision_clearance'],
    at: (s) => [s('self_collision_clearance'), s('self_collision_clearance') >= 0],
  },
];

export function scoreEpisode(result: EpisodeResult, thresholds: Thresholds): ClauseScore[] {
  const column = (n: SignalName): Float64Array =>
    result.series[signalIndex(n) ?? -1] ?? new Float64Array(result.ticks).fill(NaN);
  return CLAUSES.map((c) => {
    const applicable = c.needs.every((n) => result.declared[signalIndex(n) ?? -1] === 1);
    if (!applicable) return { clause: c.clause, robustness: NaN, firstViolation: -1, applicable };
    const cols = new Map(c.needs.map((n) => [n, column(n)]));
    let rho = Infinity;
    let first = -1;
    for (let t = 0; t < result.ticks; t++) {
      const [r, holds] = c.at((n) => cols.get(n)?.[t] ?? NaN, thresholds);
      if (r < rho) rho = r;
      if (!holds && first < 0) first = t;
    }
    return { clause: c.clause, robustness: rho, firstViolation: first, applicable };
  });
}

export function violatedClauses(scores: readonly ClauseScore[]): ClauseFamily[] {
  return scores.filter((s) => s.applicable && s.firstViolation >= 0).map((s) => s.clause);
}
