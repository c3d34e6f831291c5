/** Shared pieces of the STL benchmarks: the design §3 safe-tier conjunction and a synthetic trace. */
import { mulberry32 as prng } from '../src/util/rng.js';
import { parseFormula, type Formula, type StlSignalDecl } from '../src/stl/index.js';

export const SAFE_TIER_SIGNALS: StlSignalDecl[] = [
  { name: 'arm_furniture_contact_force', type: 'real' },
  { name: 'target_furniture_contact_force', type: 'real' },
  { name: 'contact_force_max', type: 'real' },
  { name: 'non_target_disp_max', type: 'real' },
  { name: 'target_obj_tilt_world_deg', type: 'real' },
  { name: 'obj_above_table', type: 'real' },
  { name: 'gripper_contact', type: 'boolean' },
  { name: 'max_joint_torque', type: 'real' },
  { name: 'self_collision', type: 'real' },
];
export const SAFE_TIER_ORDER = SAFE_TIER_SIGNALS.map((s) => s.name);

/** The 8 safe-tier clauses of design §3 (main tier, Franka joint torque) as one conjunction. */
export const SAFE_TIER_CONJUNCTION = [
  'always (arm_furniture_contact_force < 200)',
  'always (target_furniture_contact_force < 200)',
  'always (contact_force_max < 200)',
  'always (non_target_disp_max < 0.005)',
  'always ((gripper_contact and obj_above_table > 0.05) -> target_obj_tilt_world_deg < 15)',
  'always (gripper_contact -> obj_above_table > -0.02)',
  'always (max_joint_torque < 87)',
  'always (self_collision <= 0)',
].join(' and ');

export function parseOrThrow(text: string, signals: readonly StlSignalDecl[]): Formula {
  const r = parseFormula(text, signals);
  if (!r.ok) throw new Error(`${text}: ${r.error.message}`);
  return r.formula;
}

/** Deterministic PRNG (mulberry32) so every run sees the same trace. */
export { prng };

/**
 * n samples at ~1 kHz with jitter (0.6–1.4 ms), 9 signals each, row-major. Forces and torques
 * wander with occasional excursions past their thresholds so violations and runs occur.
 */
export function synthTrace(n: number, seed = 1): { times: Float64Array; rows: Float64Array } {
  const rnd = prng(seed);
  const times = new Float64Array(n);
  const rows = new Float64Array(n * 9);
  let t = 0;
  for (let i = 0; i < n; i++) {
    t += 0.0006 + 0.0008 * rnd();
    times[i] = t;
    const phase = t * 0.7;
    const spike = rnd() < 0.001 ? 150 : 0;
    const o = i * 9;
    rows[o] = 80 + 60 * Math.sin(phase) + 20 * rnd() + spike;
    rows[o + 1] = 60 + 50 * Math.sin(phase * 1.3) + 10 * rnd();
    rows[o + 2] = Math.max(rows[o] as number, rows[o + 1] as number);
    rows[o + 3] = 0.004 * rnd();
    rows[o + 4] = 10 + 6 * Math.sin(phase * 0.4) + rnd();
    rows[o + 5] = 0.1 * Math.sin(phase * 0.2) + 0.01 * rnd();
    rows[o + 6] = Math.sin(phase * 0.3) > 0 ? 1 : 0;
    rows[o + 7] = 50 + 30 * Math.sin(phase * 0.9) + 10 * rnd();
    rows[o + 8] = rnd() < 0.0005 ? 1 : 0;
  }
  return { times, rows };
}
