/**
 * The self-collision barrier's capsule model (issue 15): arm links as their environment capsules,
 * the end effector as its published volumes, pairs of different links not on the allowed list.
 * The checked pairs are compared with a list written from that rule by hand for the Panda; the
 * barrier pair's gradient with central differences; the folds of the demo's self_collision policy
 * with the published numbers in bench/RESULTS.md.
 */
import { describe, expect, it } from 'vitest';
import { CapsuleBarrier } from '../../src/gate/index.js';
import { CapsuleModel, PANDA_DESCRIPTION, SO101_DESCRIPTION, selfCollisionModel } from '../../src/kinematics/index.js';
import { capsuleCapsuleDistance } from '../../src/kinematics/distance.js';

const PANDA_HOME = [0, -0.3, 0, -2.2, 0, 1.9, 0.79];
const PANDA_FOLD = [0, -0.3, 0, -2.2, 0, 0.02, 2.7];
const SO101_HOME = [0, -0.7, 0.5, 1.2, 1.57, 1.75];
const SO101_FOLD = [0, 0.3, 1.2, 1.55, 1.57, 1.75];

describe('selfCollisionModel', () => {
  it('Panda: exactly the link pairs the rule names (by hand from the MoveIt allowed list)', () => {
    const m = new CapsuleModel(selfCollisionModel(PANDA_DESCRIPTION, 'franka_hand'));
    const pairs = new Set<string>();
    for (let p = 0; p < m.pairCount; p++) {
      const [a, b] = m.pairName(p).split('–') as [string, string];
      pairs.add([a.replace(/#\d+$/, ''), b.replace(/#\d+$/, '')].sort().join('/'));
    }
    // Links 0…6 as capsules (no link7 capsule) and the hand's two volumes. Of the non-adjacent link
    // pairs 0/2…4/6, MoveIt's never-pairs 0/2 0/3 0/4 1/3 1/4 2/4 2/6 3/5 3/6 4/6 are allowed, which
    // leaves 0/5 0/6 1/5 1/6 2/5; the hand is allowed with link3/4/6/7, which leaves link0/1/2/5.
    const want = ['link0/link5', 'link0/link6', 'link1/link5', 'link1/link6', 'link2/link5'].concat(
      ['link0', 'link1', 'link2', 'link5'].map((l) => `hand/${l}`),
    );
    expect([...pairs].sort()).toEqual(want.sort());
    expect(m.pairCount).toBe(5 + 4 * 2); // five link pairs; each hand volume against four links
  });

  it('the folds are caught (negative clearance), home is clear; the distance is the capsules’ own', () => {
    const panda = new CapsuleModel(selfCollisionModel(PANDA_DESCRIPTION, 'franka_hand'));
    panda.update(PANDA_HOME);
    expect(panda.minSelfDistance()).toBeGreaterThan(0.05);
    panda.update(PANDA_FOLD);
    const d = panda.minSelfDistance();
    expect(d).toBeLessThan(-0.03);
    expect(panda.pairName(panda.nearestPair)).toMatch(/^link5–hand#\d$/);
    // the same number from the capsule endpoints, independently of the pair bookkeeping
    const i = panda.selfPairs[2 * panda.nearestPair]!,
      j = panda.selfPairs[2 * panda.nearestPair + 1]!;
    const w = panda.world;
    expect(capsuleCapsuleDistance(w, 6 * i, 6 * i + 3, panda.radii[i]!, w, 6 * j, 6 * j + 3, panda.radii[j]!)).toBe(d);
    const so101 = new CapsuleModel(selfCollisionModel(SO101_DESCRIPTION, 'gripper'));
    so101.update(SO101_HOME);
    expect(so101.minSelfDistance()).toBeGreaterThan(0.02);
    so101.update(SO101_FOLD);
    expect(so101.minSelfDistance()).toBeLessThan(-0.01);
    expect(so101.pairCount).toBeLessThan(150); // one capsule per arm link: tens of pairs, not armModel's thousands
  });

  it('the CBF self pair: gradient matches central differences (both arms, away from a tie)', () => {
    for (const [desc, ee, q] of [
      [PANDA_DESCRIPTION, 'franka_hand', [0.1, -0.3, 0.1, -2.2, 0.2, 0.5, 2.2]],
      [SO101_DESCRIPTION, 'gripper', [0.1, -0.2, 0.9, 1.4, 1.2, 1.0]],
    ] as const) {
      const b = new CapsuleBarrier(new CapsuleModel(selfCollisionModel(desc, ee)), [], 0.01, { includeSelf: true });
      const n = b.joints;
      const qv = Float64Array.from(q);
      const h = new Float64Array(1),
        g = new Float64Array(n),
        t = new Float64Array(1);
      b.gradient(qv, h, g);
      expect(b.h(qv, t)).toBe(h[0]);
      const eps = 1e-6;
      for (let j = 0; j < n; j++) {
        const qp = Float64Array.from(qv),
          qm = Float64Array.from(qv);
        qp[j]! += eps;
        qm[j]! -= eps;
        expect(g[j]!).toBeCloseTo((b.h(qp, t) - b.h(qm, t)) / (2 * eps), 6);
      }
    }
  });
});
