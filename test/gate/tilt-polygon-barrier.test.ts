/**
 * The held object's tilt cone as a polygon of half-spaces (TiltPolygonBarrier). The chain: joint 1
 * (pan) about world z, joint 2 (tilt) about the panned x-axis (cos q1, sin q1, 0), tool z-axis =
 * world z at q = 0. Rotating ẑ by q2 about that axis gives, by hand,
 *   b = (sin q1 sin q2, −cos q1 sin q2, cos q2),
 * and with reference ẑ the faces' normals are +x, +y, −x, −y (4 faces; e1 = x̂, e2 = ẑ × x̂ = ŷ), so
 *   h = L (s − b·n_i) = L (s − sin q1 sin q2), L (s + cos q1 sin q2), L (s + sin q1 sin q2), L (s − cos q1 sin q2)
 * with s = sin θ_max · cos(π/4).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChunkCbfFilter, DEFAULT_CBF_WEIGHTS, type CbfFilterConfig } from '../../src/gate/index.js';
import { TiltPolygonBarrier } from '../../src/gate/orientation-barrier.js';
import { ForwardKinematics, PANDA_CHAIN, FRANKA_FRAMES, SO101_DESCRIPTION } from '../../src/kinematics/index.js';
import { activeSetSolverFactory } from './support/active-set-qp.js';
import { PAN_TILT_CHAIN, PAN_TILT_TOOL } from './support/pan-tilt.js';

const CHAIN = PAN_TILT_CHAIN;
const TOOL = PAN_TILT_TOOL;
const L = 10;
const THETA = (6.75 * Math.PI) / 180;
const S = Math.sin(THETA) * Math.cos(Math.PI / 4);

const held = (faces = 4): TiltPolygonBarrier => {
  const b = new TiltPolygonBarrier(new ForwardKinematics(CHAIN), TOOL, THETA, L, faces);
  b.captureReference([0, 0]);
  return b;
};

/** Central differences of every pair against the analytic gradient at q. */
function expectGradientMatches(b: TiltPolygonBarrier, q: Float64Array): void {
  const n = b.joints,
    m = b.pairs;
  const h = new Float64Array(m),
    hp = new Float64Array(m),
    hm = new Float64Array(m);
  const g = new Float64Array(m * n);
  b.gradient(q, h, g);
  const eps = 1e-6;
  for (let j = 0; j < n; j++) {
    const qp = Float64Array.from(q),
      qm = Float64Array.from(q);
    qp[j]! += eps;
    qm[j]! -= eps;
    b.h(qp, hp);
    b.h(qm, hm);
    for (let i = 0; i < m; i++) expect(g[i * n + j]!).toBeCloseTo((hp[i]! - hm[i]!) / (2 * eps), 6);
  }
}

describe('TiltPolygonBarrier', () => {
  it('h per face is L (s − b·n_i) with b from the hand formula, for any pan and tilt', () => {
    const b = held();
    const h = new Float64Array(4);
    fc.assert(
      fc.property(
        fc.double({ min: -3, max: 3, noNaN: true }),
        fc.double({ min: -1.5, max: 1.5, noNaN: true }),
        (q1, q2) => {
          const min = b.h(Float64Array.of(q1, q2), h);
          const bx = Math.sin(q1) * Math.sin(q2),
            by = -Math.cos(q1) * Math.sin(q2);
          const want = [L * (S - bx), L * (S - by), L * (S + bx), L * (S + by)];
          // min is the smallest face as computed (h), and that is the hand formula's smallest within
          // rounding: the two sides round differently (seed 416824384: 1 ulp apart)
          return (
            want.every((w, i) => Math.abs(h[i]! - w) < 1e-12) &&
            min === Math.min(...h) &&
            Math.abs(min - Math.min(...want)) < 1e-12
          );
        },
      ),
    );
  });

  it('all faces met ⇒ tilt ≤ θ_max; along a face normal it allows asin(s); upright is L·s on every face', () => {
    const b = held();
    const h = new Float64Array(4);
    expect(Array.from((b.h(Float64Array.of(0.4, 0), h), h))).toEqual(new Array(4).fill(L * S));
    fc.assert(
      fc.property(
        fc.double({ min: -3, max: 3, noNaN: true }),
        fc.double({ min: -1.5, max: 1.5, noNaN: true }),
        (q1, q2) => b.h(Float64Array.of(q1, q2), h) < 0 || Math.abs(q2) <= THETA + 1e-12,
      ),
    );
    // pan 0: the tool tilts towards −y, straight at face 3 (normal −y): h_3 = L (s − sin q2) = 0 at q2 = asin s
    expect(b.h(Float64Array.of(0, Math.asin(S)), h)).toBeCloseTo(0, 12);
    expect(h[3]).toBeCloseTo(0, 12);
    // pan π/4: between two faces, the polygon's corner — tilts up to θ_max itself
    expect(b.h(Float64Array.of(Math.PI / 4, THETA), h)).toBeCloseTo(0, 12);
  });

  it('gradients match central differences (pan-tilt, the Panda, the SO-101 with a captured tilted reference)', () => {
    expectGradientMatches(held(), Float64Array.of(0.7, 0.3));
    expectGradientMatches(held(6), Float64Array.of(-1.1, -0.2));
    const panda = new TiltPolygonBarrier(new ForwardKinematics(PANDA_CHAIN), FRANKA_FRAMES.tcp, THETA, L);
    panda.captureReference([0, -0.3, 0, -2.2, 0, 2.0, 0.8]);
    expectGradientMatches(panda, Float64Array.of(0.2, -0.1, 0.1, -2.0, 0.3, 1.8, 0.5));
    const so = SO101_DESCRIPTION;
    const tcp = so.endEffectors.gripper!.tcp.frame;
    const so101 = new TiltPolygonBarrier(new ForwardKinematics(so.chain), tcp, THETA, L);
    so101.captureReference([0.1, -0.5, 0.8, 1.0, 0.2, 0.3]);
    expectGradientMatches(so101, Float64Array.of(0.3, -0.3, 0.6, 1.2, 1.2, 0.1));
  });

  it('not enabled (nothing held): L·s on every face with zero gradient', () => {
    const b = new TiltPolygonBarrier(new ForwardKinematics(CHAIN), TOOL, THETA, L);
    const h = new Float64Array(4);
    const g = new Float64Array(8).fill(9);
    expect(b.h(Float64Array.of(0, 1.2), h)).toBeCloseTo(L * S, 15);
    b.gradient(Float64Array.of(0, 1.2), h, g);
    expect(Array.from(g)).toEqual(new Array(8).fill(0));
    expect(() => new TiltPolygonBarrier(new ForwardKinematics(CHAIN), TOOL, THETA, L, 2)).toThrow(/faces/);
  });

  it('in the chunk CBF it bends a chunk that tips the tool from upright — where the cone form has no gradient', () => {
    const config: CbfFilterConfig = {
      ...DEFAULT_CBF_WEIGHTS,
      qmin: [-3, -3],
      qmax: [3, 3],
      maxSpeed: [2, 2],
      maxRounds: 3,
      slackTolerance: 1e-6,
      cbfTolerance: 1e-6,
      maxIterations: 100,
    };
    // 20 steps from upright: pan 0 → 1 rad, tilt 0 → 0.5 rad (28.6°, past the 6.75° limit)
    const u0 = new Float64Array(40);
    for (let k = 0; k < 20; k++) {
      u0[2 * k] = (k + 1) / 20;
      u0[2 * k + 1] = (0.5 * (k + 1)) / 20;
    }
    const f = new ChunkCbfFilter(held(), activeSetSolverFactory, config);
    const o = f.filter(u0, 20, [0, 0], 0.05);
    expect(o.status, o.detail).toBe('filtered');
    for (let k = 0; k < 20; k++) expect(Math.abs(o.targets[2 * k + 1]!)).toBeLessThanOrEqual(THETA + 1e-9);
  });
});
