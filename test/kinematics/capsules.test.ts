import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  Barrier,
  CapsuleModel,
  FR3_MODEL,
  SO101_MODEL,
  SO101_FRAMES,
  type ArmModelSpec,
  type ObstacleSet,
} from '../../src/kinematics/index.js';

/** A planar 3-link arm (1 m links along x, joints about z) whose last link can fold back onto the first. */
const FOLDING: ArmModelSpec = {
  chain: {
    name: 'folding',
    joints: [
      { name: 'j1', parent: 0, xyz: [0, 0, 0], rpy: [0, 0, 0], lower: -3, upper: 3 },
      { name: 'j2', parent: 1, xyz: [1, 0, 0], rpy: [0, 0, 0], lower: -3.2, upper: 3.2 },
      { name: 'j3', parent: 2, xyz: [1, 0, 0], rpy: [0, 0, 0], lower: -3.2, upper: 3.2 },
    ],
    fixedFrames: [],
  },
  capsules: [
    { name: 'l1', frame: 1, a: [0, 0, 0], b: [1, 0, 0], radius: 0.1, environment: true },
    { name: 'l2', frame: 2, a: [0, 0, 0], b: [1, 0, 0], radius: 0.1, environment: true },
    { name: 'l3', frame: 3, a: [0, 0, 0], b: [1, 0, 0], radius: 0.1, environment: true },
  ],
  ignorePairs: [],
};

describe('capsule model and self-collision', () => {
  it('skips adjacent links and counts contacts between the others', () => {
    const m = new CapsuleModel(FOLDING);
    expect(m.pairCount).toBe(1); // only l1–l3
    m.update([0, 0, 0]);
    expect(m.selfCollisionCount()).toBe(0);
    expect(m.minSelfDistance()).toBeCloseTo(1 - 0.2, 12);
    // Fold j2 and j3 by 90° each: l3 comes back parallel to l1 at 1 m... then at 150°+150° it crosses l1.
    m.update([0, (5 * Math.PI) / 6, (5 * Math.PI) / 6]);
    expect(m.selfCollisionCount()).toBe(1);
  });
  it('ignorePairs removes a pair and unknown names are refused', () => {
    expect(new CapsuleModel({ ...FOLDING, ignorePairs: [['l3', 'l1']] }).pairCount).toBe(0);
    expect(() => new CapsuleModel({ ...FOLDING, ignorePairs: [['l1', 'nope']] })).toThrow(/nope/);
  });
  it('the SO-101 at mid-range and the FR3 at its ready pose are free of self-collision', () => {
    const so = new CapsuleModel(SO101_MODEL);
    so.update([0, 0, 0, 0, 0, 0]);
    expect(so.selfCollisionCount()).toBe(0);
    const fr3 = new CapsuleModel(FR3_MODEL);
    fr3.update([0, -Math.PI / 4, 0, (-3 * Math.PI) / 4, 0, Math.PI / 2, Math.PI / 4]);
    expect(fr3.selfCollisionCount()).toBe(0);
  });
});

describe('barrier h(q) = min distance − d_safe', () => {
  const table = (z: number): ObstacleSet => ({
    planes: Float64Array.from([0, 0, 1, z]),
    spheres: new Float64Array(0),
    box: null,
  });

  it('against a table plane the gradient equals nᵀ·J(p) at the lowest capsule point (analytic reference)', () => {
    const m = new CapsuleModel(SO101_MODEL);
    const b = new Barrier(m, table(0), 0.02, { includeSelf: false });
    const q = [0.2, 0.9, 0.3, 0.9, 0.1, 0.2]; // reaching down towards the table
    const grad = new Float64Array(6);
    const h = b.gradient(q, grad);
    expect(b.clearance.kind).toBe('plane');
    const c = b.clearance.capsule;
    m.update(q);
    const w = m.world;
    const end = w[6 * c + 2]! <= w[6 * c + 5]! ? 0 : 3;
    expect(h).toBeCloseTo(w[6 * c + end + 2]! - m.radii[c]! - 0.02, 12);
    const J = new Float64Array(18);
    m.fk.pointJacobian(J, SO101_MODEL.capsules[c]!.frame, w[6 * c + end]!, w[6 * c + end + 1]!, w[6 * c + end + 2]!);
    for (let j = 0; j < 6; j++) expect(grad[j]).toBeCloseTo(J[12 + j]!, 6);
  });

  it('gradient predicts h to first order for self-collision and sphere terms', () => {
    const m = new CapsuleModel(SO101_MODEL);
    m.update([0, 0, 0, 0, 0, 0]);
    const tcp = m.fk.offset(SO101_FRAMES.tcp);
    const obstacles: ObstacleSet = {
      planes: new Float64Array(0),
      spheres: Float64Array.from([m.fk.frames[tcp + 9]! + 0.05, 0.02, m.fk.frames[tcp + 11]!, 0.03]),
      box: Float64Array.from([-0.5, -0.5, -0.1, 0.6, 0.5, 0.6]),
    };
    const b = new Barrier(m, obstacles, 0.01, { includeSelf: true });
    const grad = new Float64Array(6);
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 6, maxLength: 6 }),
        fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 6, maxLength: 6 }),
        (q, dir) => {
          const h0 = b.gradient(q, grad);
          const kind = b.clearance.kind,
            cap = b.clearance.capsule,
            other = b.clearance.other;
          const eps = 1e-5;
          const q1 = q.map((v, i) => v + eps * dir[i]!);
          const h1 = b.value(q1);
          // Only meaningful while the same term stays active.
          fc.pre(b.clearance.kind === kind && b.clearance.capsule === cap && b.clearance.other === other);
          const predicted = h0 + eps * dir.reduce((s, d, i) => s + d * grad[i]!, 0);
          expect(Math.abs(h1 - predicted)).toBeLessThan(1e-8);
        },
      ),
      { numRuns: 100 },
    );
  });
});
