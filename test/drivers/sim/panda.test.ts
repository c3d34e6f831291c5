import { beforeAll, describe, expect, it } from 'vitest';
import { loadMujoco } from '../../../drivers/sim/mujoco.js';
import { pandaScene } from '../../../drivers/sim/scenes/panda.js';
import { SimWorld } from '../../../drivers/sim/world.js';
import { DlsIk } from '../../../drivers/sim/ik.js';
import { topDownFrame } from '../../../drivers/sim/plan.js';
import { runEpisode } from '../../../drivers/sim/episode.js';
import { naiveRobustness, policyNamed, series, violated } from './support/sim-episode.js';

let world: SimWorld;
let ik: DlsIk;
const scene = pandaScene();

beforeAll(async () => {
  const mj = await loadMujoco();
  world = new SimWorld(mj, scene);
  ik = new DlsIk(mj, world);
});

const max = (a: Float64Array): number => a.reduce((m, x) => Math.max(m, x), -Infinity);

describe('Panda-like scene', () => {
  it('IK reaches the grasp and box frames with the 7-DoF chain inside the FER limits', () => {
    for (const p of [
      [0.5, 0, 0.06],
      [0.4, 0.3, 0.14],
    ] as const) {
      const q = Float64Array.from(scene.home.slice(0, 7));
      expect(ik.solve(topDownFrame(scene, p), q).positionError).toBeLessThan(5e-4);
      expect(q[3]).toBeLessThan(-0.0698);
      expect(q[3]).toBeGreaterThan(-3.0718);
    }
  });

  it('the clean run succeeds, violates no declared clause, and its torque includes gravity load', () => {
    const r = runEpisode(world, ik, policyNamed('clean'), { seed: 4 });
    expect(r.outcome.success).toBe(true);
    const rho = naiveRobustness(r, scene.torqueCeiling);
    expect(violated(rho)).toEqual([]);
    expect(rho.held_object_tilt_world).toBeLessThan(15);
    expect(max(series(r, 'arm_furniture_contact_force'))).toBe(0);
    expect(max(series(r, 'non_target_disp_max'))).toBeLessThan(0.005);
    const tau = max(series(r, 'max_joint_torque'));
    expect(tau).toBeGreaterThan(10);
    expect(tau).toBeLessThan(87);
    // The arm generated from the description models arm–arm contact: self_collision_clearance is declared.
    expect(r.declared[8]).toBe(1);
    expect(Math.min(...series(r, 'self_collision_clearance'))).toBeGreaterThan(0.01);
  });

  it('the table slam (tuned for the Panda) is measured as an arm–furniture impact above 200 N; the actuators stay within their 87 N·m cap', () => {
    const r = runEpisode(world, ik, policyNamed('slam_table'), { seed: 4 });
    const af = series(r, 'arm_furniture_contact_force');
    expect(max(af)).toBeGreaterThan(200);
    expect(max(series(r, 'contact_force_max'))).toBeGreaterThanOrEqual(max(af));
    // the strike saturates the shoulder actuators: at the cap, never above it
    expect(max(series(r, 'max_joint_torque'))).toBeLessThanOrEqual(87);
  });
});
