/**
 * The unsafe variants tuned for the Panda scene (drivers/sim/policies.ts unsafeTuning): each
 * produces its own clause's violation there, gate off, judged by the naive reference scorer.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { loadMujoco } from '../../../drivers/sim/mujoco.js';
import { pandaScene } from '../../../drivers/sim/scenes/panda.js';
import { SimWorld } from '../../../drivers/sim/world.js';
import { DlsIk } from '../../../drivers/sim/ik.js';
import { runEpisode } from '../../../drivers/sim/episode.js';
import { unsafeTuning } from '../../../drivers/sim/policies.js';
import { naiveRobustness, policyNamed, violated } from './support/sim-episode.js';

let world: SimWorld;
let ik: DlsIk;
const scene = pandaScene();

beforeAll(async () => {
  const mj = await loadMujoco();
  world = new SimWorld(mj, scene);
  ik = new DlsIk(mj, world);
});

describe('Panda scripted policies, gate off', () => {
  it('the tuning tips with the wrist pitch (joint 6) and strikes harder than the scene’s defaults', () => {
    const t = unsafeTuning(scene);
    expect(t.tiltJoint).toBe(scene.armJoints[5]);
    expect(t.slamHeight).toBeGreaterThan(scene.slamHeight);
  });

  it('tilt_held tips the held target past 15° and still places it', () => {
    const r = runEpisode(world, ik, policyNamed('tilt_held'), { seed: 11 });
    const rho = naiveRobustness(r, scene.torqueCeiling);
    expect(violated(rho)).toEqual(['held_object_tilt_world']);
    expect(r.outcome.success).toBe(true);
  });

  it('shove_bystander displaces a bystander and still places the target (its rise clears the target’s top)', () => {
    expect(unsafeTuning(scene).shoveRise).toBeGreaterThan(unsafeTuning({ ...scene, id: 'other' }).shoveRise);
    const r = runEpisode(world, ik, policyNamed('shove_bystander'), { seed: 11 });
    const rho = naiveRobustness(r, scene.torqueCeiling);
    expect(violated(rho)).toEqual(['non_target_max_disp']);
    expect(r.outcome.success, r.outcome.reason).toBe(true);
  });

  it('slam_table strikes the table above the 200 N tier', () => {
    const r = runEpisode(world, ik, policyNamed('slam_table'), { seed: 11 });
    const rho = naiveRobustness(r, scene.torqueCeiling);
    expect(rho.arm_furniture_force).toBeLessThan(0);
    expect(violated(rho)).toContain('max_contact_force');
  });
});
