/**
 * descriptionBarrier: the pairs it builds from one robot description — one per obstacle group, the
 * self pair, the tilt faces — with every distance pair at its clearance + the planning margin.
 */
import { describe, expect, it } from 'vitest';
import {
  CapsuleBarrier,
  TILT_LEVER,
  TILT_PLANNING_MARGIN,
  descriptionBarrier,
  obstacleGroups,
} from '../../src/gate/index.js';
import {
  CapsuleModel,
  PANDA_DESCRIPTION,
  armModel,
  SO101_DESCRIPTION,
  SO101_MODEL,
  selfCollisionModel,
} from '../../src/kinematics/index.js';
import { mulberry32 } from '../../src/util/index.js';

const PANDA_HOME = Float64Array.of(0, -0.3, 0, -2.2, 0, 1.9, 0.79);

describe('descriptionBarrier', () => {
  const groups = obstacleGroups({
    planes: Float64Array.of(0, 0, 1, 0),
    spheres: Float64Array.of(0.5, 0, 0.3, 0.05),
    box: null,
  });
  const o = { groups, dSafe: 0.02, planningMargin: 0.003, selfClearance: 0.02 };

  it('pairs: obstacle groups, then self, then the faces; distances at clearance + δ; faces at L·s while nothing is held', () => {
    const d = descriptionBarrier(PANDA_DESCRIPTION, 'franka_hand', {
      ...o,
      heldTilt: { objectLimit: 0.2, pivotGain: 2, faces: 4, margin: TILT_PLANNING_MARGIN },
    });
    expect(d.barrier.pairs).toBe(2 + 1 + 4);
    expect(d.barrier.joints).toBe(7);
    const h = new Float64Array(7);
    d.barrier.h(PANDA_HOME, h);
    // the self pair is the self-collision model's nearest distance less (clearance + δ)
    const m = new CapsuleModel(selfCollisionModel(PANDA_DESCRIPTION, 'franka_hand'));
    m.update(PANDA_HOME);
    expect(h[2]).toBeCloseTo(m.minSelfDistance() - 0.023, 12);
    expect(d.distance.dSafe).toBeCloseTo(0.023, 15);
    // tool limit 0.2 / 2 = 0.1 rad planned 0.5° inside; 4 faces: s = sin(0.1 − α) · cos(π/4), and
    // the lever makes δ the angle α at the limit: L = δ / ((sin 0.1 − sin(0.1 − α)) cos(π/4))
    const a = TILT_PLANNING_MARGIN;
    const c = Math.cos(Math.PI / 4);
    const L = 0.003 / ((Math.sin(0.1) - Math.sin(0.1 - a)) * c);
    for (let i = 3; i < 7; i++) expect(h[i]).toBeCloseTo(L * Math.sin(0.1 - a) * c, 12);
    // without a planning margin, or without a tilt margin: the limit itself at TILT_LEVER
    for (const [planningMargin, margin] of [
      [0, TILT_PLANNING_MARGIN],
      [0.003, undefined],
    ] as const) {
      const d0 = descriptionBarrier(PANDA_DESCRIPTION, 'franka_hand', {
        ...o,
        planningMargin,
        heldTilt: { objectLimit: 0.2, pivotGain: 2, faces: 4, ...(margin === undefined ? {} : { margin }) },
      });
      d0.barrier.h(PANDA_HOME, h);
      for (let i = 3; i < 7; i++) expect(h[i]).toBeCloseTo(TILT_LEVER * Math.sin(0.1) * c, 12);
    }
  });

  it('without self and tilt it is the distance barrier alone; a bad margin is refused', () => {
    const d = descriptionBarrier(PANDA_DESCRIPTION, 'franka_hand', { ...o, selfClearance: null, heldTilt: null });
    expect(d.barrier).toBe(d.distance);
    expect(d.self).toBeNull();
    expect(d.tilt).toBeNull();
    expect(() =>
      descriptionBarrier(PANDA_DESCRIPTION, 'franka_hand', { ...o, planningMargin: -1, heldTilt: null }),
    ).toThrow(/planning margin/);
  });

  it("a calibration's own environment capsules replace the description's for the obstacle pairs; another chain is refused", () => {
    const one = { name: 'tip', frame: 5, a: [0, 0, 0], b: [0, 0, 0], radius: 0.5, environment: true } as const;
    const own = { chain: SO101_DESCRIPTION.chain, capsules: [one], ignorePairs: [] };
    const d = descriptionBarrier(SO101_DESCRIPTION, 'gripper', { ...o, heldTilt: null, environment: own });
    const q = new Float64Array(6);
    const h = new Float64Array(d.barrier.pairs);
    d.barrier.h(q, h);
    // the obstacle pairs are the 0.5 m sphere's clearances (to z = 0 and to the 5 cm sphere at
    // 0.5, 0, 0.3), not the description's capsules'
    const m = new CapsuleModel(own);
    m.update(q);
    const [x, y, z] = [m.world[0]!, m.world[1]!, m.world[2]!];
    const want = [z - 0.5 - 0.023, Math.hypot(x - 0.5, y, z - 0.3) - 0.05 - 0.5 - 0.023].sort((a, b) => a - b);
    const got = [h[0]!, h[1]!].sort((a, b) => a - b);
    expect(got[0]).toBeCloseTo(want[0]!, 12);
    expect(got[1]).toBeCloseTo(want[1]!, 12);
    const plain = descriptionBarrier(SO101_DESCRIPTION, 'gripper', { ...o, heldTilt: null });
    const hp = new Float64Array(plain.barrier.pairs);
    plain.barrier.h(q, hp);
    expect(hp[0]).not.toBeCloseTo(h[0]!, 3);
    expect(() =>
      descriptionBarrier(PANDA_DESCRIPTION, 'franka_hand', { ...o, heldTilt: null, environment: SO101_MODEL }),
    ).toThrow(/another chain \(so101\)/);
  });
  it("the obstacle pairs transform only the environment capsules: values and gradients equal the whole arm model's", () => {
    for (const [desc, ee, envCount] of [
      [SO101_DESCRIPTION, 'gripper', 5],
      [PANDA_DESCRIPTION, 'franka_hand', 8],
    ] as const) {
      const d = descriptionBarrier(desc, ee, { ...o, selfClearance: null, heldTilt: null });
      // the SO-101's arm model has 166 capsules, 161 of them published self volumes the obstacle
      // pairs never use
      expect(d.distance.model.count).toBe(envCount);
      expect(d.distance.model.pairCount).toBe(0);
      const whole = new CapsuleBarrier(new CapsuleModel(armModel(desc, ee)), groups, o.dSafe + o.planningMargin);
      expect(whole.model.count).toBeGreaterThan(envCount);
      const n = desc.chain.joints.length;
      const rand = mulberry32(desc.id.length * 7919);
      const q = new Float64Array(n);
      const [h1, h2] = [new Float64Array(groups.length), new Float64Array(groups.length)];
      const [g1, g2] = [new Float64Array(groups.length * n), new Float64Array(groups.length * n)];
      for (let t = 0; t < 200; t++) {
        desc.chain.joints.forEach((j, i) => {
          q[i] = j.lower + (j.upper - j.lower) * rand();
        });
        d.distance.gradient(q, h1, g1);
        whole.gradient(q, h2, g2);
        expect(Array.from(h1)).toEqual(Array.from(h2));
        expect(Array.from(g1)).toEqual(Array.from(g2));
      }
    }
  });
});
