/**
 * The bounding-sphere broad phase of the self pairs (CapsuleModel.pairLowerBound, used by
 * minSelfDistance and minimumClearance): it may only skip pairs that cannot be the minimum, so the
 * minimum and its pair must equal a naive loop over every pair's exact distance.
 */
import { describe, expect, it } from 'vitest';
import { minimumClearance, type Clearance } from '../../src/kinematics/obstacles.js';
import { CapsuleModel, PANDA_DESCRIPTION, SO101_DESCRIPTION, selfCollisionModel } from '../../src/kinematics/index.js';
import { capsuleCapsuleDistance } from '../../src/kinematics/distance.js';
import { mulberry32 } from '../../src/util/rng.js';

/** Every checked pair's distance from the capsules' world endpoints, and the first pair giving the minimum. */
function naiveMinimum(m: CapsuleModel): { distance: number; pair: number } {
  let best = Infinity;
  let pair = -1;
  for (let p = 0; p < m.selfPairs.length / 2; p++) {
    const i = m.selfPairs[2 * p]!;
    const j = m.selfPairs[2 * p + 1]!;
    const d = capsuleCapsuleDistance(m.world, 6 * i, 6 * i + 3, m.radii[i]!, m.world, 6 * j, 6 * j + 3, m.radii[j]!);
    if (d < best) {
      best = d;
      pair = p;
    }
  }
  return { distance: best, pair };
}

const NO_OBSTACLES = { planes: new Float64Array(0), spheres: new Float64Array(0), box: null };

describe('self-pair broad phase', () => {
  for (const [name, desc, ee] of [
    ['Panda + franka_hand', PANDA_DESCRIPTION, 'franka_hand'],
    ['SO-101 + gripper', SO101_DESCRIPTION, 'gripper'],
  ] as const) {
    it(`${name}: the same minimum and pair as every pair's exact distance, over 500 random configurations`, () => {
      const m = new CapsuleModel(selfCollisionModel(desc, ee));
      const rand = mulberry32(15);
      const joints = desc.chain.joints;
      const q = new Float64Array(joints.length);
      const c: Clearance = { distance: 0, kind: 'none', capsule: -1, other: -1 };
      let skipped = 0;
      for (let t = 0; t < 500; t++) {
        joints.forEach((j, k) => (q[k] = j.lower + rand() * (j.upper - j.lower)));
        m.update(q);
        const ref = naiveMinimum(m);
        for (let p = 0; p < m.pairCount; p++) {
          const lb = m.pairLowerBound(p);
          expect(lb).toBeLessThanOrEqual(m.pairDistance(p));
          if (lb >= ref.distance) skipped++;
          // the square-root-free test says the same for the minimum, a penetration and a random level
          for (const best of [ref.distance, -0.05, rand() * 0.5 - 0.1])
            expect(m.pairCannotBeBelow(p, best)).toBe(lb >= best);
        }
        expect(m.minSelfDistance()).toBe(ref.distance);
        expect(m.nearestPair).toBe(ref.pair);
        minimumClearance(m, NO_OBSTACLES, true, c);
        expect(c.distance).toBe(ref.distance);
        expect([c.capsule, c.other]).toEqual([m.selfPairs[2 * ref.pair], m.selfPairs[2 * ref.pair + 1]]);
      }
      // the test exercises skipping: most pairs are far from the nearest one
      expect(skipped).toBeGreaterThan(500 * m.pairCount * 0.3);
    });
  }

  it('a NaN joint position skips nothing and reads NaN, never clear', () => {
    const m = new CapsuleModel(selfCollisionModel(SO101_DESCRIPTION, 'gripper'));
    m.update([0, NaN, 0.5, 1.2, 1.57, 1.75]);
    expect(m.minSelfDistance()).toBeNaN();
    const c: Clearance = { distance: 0, kind: 'none', capsule: -1, other: -1 };
    expect(minimumClearance(m, NO_OBSTACLES, true, c).distance).toBeNaN();
  });
});
