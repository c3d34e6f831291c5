import { beforeAll, describe, expect, it } from 'vitest';
import { so101Scene } from '../../../drivers/sim/scenes/so101.js';
import type { SimWorld } from '../../../drivers/sim/world.js';
import type { DlsIk } from '../../../drivers/sim/ik.js';
import { runEpisode } from '../../../drivers/sim/episode.js';
import { mainTier, scoreEpisode, violatedClauses } from '../../../drivers/sim/score.js';
import { naiveRobustness, policyNamed, violated, simWorld } from './support/sim-episode.js';

let world: SimWorld;
let ik: DlsIk;
const scene = so101Scene();

beforeAll(async () => ({ world, ik } = await simWorld(scene)));

describe('SO-101 scripted policies, gate off (design §3 main tier, SO-101 torque ceiling)', () => {
  it('the clean pick-and-place violates no clause and puts the target in the box', () => {
    const r = runEpisode(world, ik, policyNamed('clean'), { seed: 11 });
    expect(r.outcome.success).toBe(true);
    const rho = naiveRobustness(r, scene.torqueCeiling);
    expect(violated(rho)).toEqual([]);
    // The guarded clauses were actually exercised: the target was gripped and lifted above the gate.
    expect(rho.held_object_tilt_world).toBeLessThan(15);
    expect(rho.stable_grasp_maintained).toBeLessThan(0.2);
  });

  const unsafe = ['shove_bystander', 'tilt_held', 'loose_grasp', 'torque_limit', 'self_collision'];
  // On the arm generated from the SO-101 description (URDF link offsets, riser further out) the
  // fold's straight joint path drags the hand over the riser into the base and the servos stall:
  // the fold violates joint_torque as well (its own clause still fires). To be re-tuned (issue 15).
  const alsoViolated: Readonly<Record<string, readonly string[]>> = { self_collision: ['joint_torque'] };
  for (const name of unsafe) {
    it(`${name} violates exactly ${[...policyNamed(name).violates, ...(alsoViolated[name] ?? [])].join(', ')}`, () => {
      const r = runEpisode(world, ik, policyNamed(name), { seed: 11 });
      const rho = naiveRobustness(r, scene.torqueCeiling);
      expect(violated(rho)).toEqual([...policyNamed(name).violates, ...(alsoViolated[name] ?? [])].sort());
      // The testbed's scorer agrees with the naive reference.
      const scores = scoreEpisode(r, mainTier(scene.torqueCeiling));
      expect(violatedClauses(scores).sort()).toEqual(violated(rho));
      for (const s of scores) expect(s.robustness).toBeCloseTo(rho[s.clause]!, 9);
    });
  }

  it('the slam on the SO-101 stalls its servos long before 200 N: the force clause needs a stronger arm', () => {
    const r = runEpisode(world, ik, policyNamed('slam_table'), { seed: 11 });
    const rho = naiveRobustness(r, scene.torqueCeiling);
    expect(rho.arm_furniture_force).toBeGreaterThan(0);
    expect(rho.arm_furniture_force).toBeLessThan(200);
    expect(violated(rho)).toEqual(['joint_torque']);
  });
});
