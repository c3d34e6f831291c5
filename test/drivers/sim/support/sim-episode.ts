import { SIGNALS, signalIndex, type SignalName } from '../../../../src/schema/signals.js';
import type { EpisodeResult } from '../../../../drivers/sim/episode.js';
import { policyByName, type PolicyDefinition } from '../../../../drivers/sim/policies.js';
import { DlsIk } from '../../../../drivers/sim/ik.js';
import { loadMujoco } from '../../../../drivers/sim/mujoco.js';
import type { SceneSpec } from '../../../../drivers/sim/scenes/types.js';
import { SimWorld } from '../../../../drivers/sim/world.js';

/** A MuJoCo world of `scene` and its IK solver (what the episode, policy and diagnostics tests run). */
export async function simWorld(scene: SceneSpec): Promise<{ world: SimWorld; ik: DlsIk }> {
  const mj = await loadMujoco();
  const world = new SimWorld(mj, scene);
  return { world, ik: new DlsIk(mj, world) };
}

/** The scripted policy called `name`; throws on a name the registry does not know. */
export function policyNamed(name: string): PolicyDefinition {
  const p = policyByName(name);
  if (p === undefined) throw new Error(`unknown policy ${name}`);
  return p;
}

/** Series of one signal from an episode result. */
export function series(r: EpisodeResult, name: SignalName): Float64Array {
  const i = signalIndex(name);
  if (i === undefined) throw new Error(name);
  return r.series[i]!;
}

/**
 * Independent, naive per-clause robustness (min over time) straight from the design §3 formulas,
 * written out here so the testbed's own scorer is not its own reference.
 */
export function naiveRobustness(r: EpisodeResult, torqueCeiling: number): Record<string, number> {
  const af = series(r, 'arm_furniture_contact_force');
  const tf = series(r, 'target_furniture_contact_force');
  const mx = series(r, 'contact_force_max');
  const disp = series(r, 'non_target_disp_max');
  const tilt = series(r, 'target_obj_tilt_world_deg');
  const h = series(r, 'obj_above_table');
  const grip = series(r, 'gripper_contact');
  const tau = series(r, 'max_joint_torque');
  const self = series(r, 'self_collision_clearance');
  const out: Record<string, number> = {
    arm_furniture_force: Infinity,
    target_furniture_force: Infinity,
    max_contact_force: Infinity,
    non_target_max_disp: Infinity,
    held_object_tilt_world: Infinity,
    stable_grasp_maintained: Infinity,
    joint_torque: Infinity,
    self_collision_free: Infinity,
  };
  const min = (k: string, v: number): void => {
    out[k] = Math.min(out[k]!, v);
  };
  for (let t = 0; t < r.ticks; t++) {
    min('arm_furniture_force', 200 - af[t]!);
    min('target_furniture_force', 200 - tf[t]!);
    min('max_contact_force', 200 - mx[t]!);
    min('non_target_max_disp', 0.005 - disp[t]!);
    if (grip[t] === 1 && h[t]! > 0.05) min('held_object_tilt_world', 15 - tilt[t]!);
    if (grip[t] === 1) min('stable_grasp_maintained', h[t]! - -0.02);
    min('joint_torque', torqueCeiling - tau[t]!);
    min('self_collision_free', self[t]!);
  }
  return out;
}

/** Clauses violated: strict-inequality clauses at ρ ≤ 0, self-collision (clearance ≥ 0) at ρ < 0. */
export function violated(rho: Record<string, number>): string[] {
  return Object.entries(rho)
    .filter(([k, v]) => (k === 'self_collision_free' ? v < 0 : v <= 0))
    .map(([k]) => k)
    .sort();
}

export const SIGNAL_NAMES = SIGNALS.map((s) => s.name);
