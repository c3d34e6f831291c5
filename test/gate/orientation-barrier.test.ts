/**
 * The held-object tilt constraint of the chunk CBF. The chain: joint 1 about the world z-axis,
 * joint 2 about the (rotated) x-axis, tool frame whose z-axis is world z at q = 0 — so the tool
 * tilts from vertical by exactly |q2| whatever q1 is: b_z·ẑ = cos q2, and
 * h = L (cos q2 − cos θ_max), ∂h/∂q1 = 0, ∂h/∂q2 = −L sin q2 (by hand).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChunkCbfFilter, DEFAULT_CBF_WEIGHTS, type CbfFilterConfig } from '../../src/gate/index.js';
import { BarrierStack } from '../../src/gate/barrier-stack.js';
import { OrientationBarrier } from '../../src/gate/orientation-barrier.js';
import { FRANKA_FRAMES, ForwardKinematics, PANDA_CHAIN } from '../../src/kinematics/index.js';
import { activeSetSolverFactory } from './support/active-set-qp.js';
import { PAN_TILT_CHAIN, PAN_TILT_TOOL } from './support/pan-tilt.js';

const CHAIN = PAN_TILT_CHAIN;
const TOOL = PAN_TILT_TOOL;
const L = 0.05;
const THETA = ((15 - 1.5) * Math.PI) / 180; // held_object_tilt_world: τ − ε = 13.5°

const barrier = (): OrientationBarrier => {
  const b = new OrientationBarrier(new ForwardKinematics(CHAIN), TOOL, THETA, L);
  b.enabled = true;
  return b;
};

describe('OrientationBarrier', () => {
  it('h = L (cos q2 − cos θ_max) and its gradient (0, −L sin q2), for any pan', () => {
    const b = barrier();
    const h = new Float64Array(1);
    const g = new Float64Array(2);
    fc.assert(
      fc.property(
        fc.double({ min: -3, max: 3, noNaN: true }),
        fc.double({ min: -1.5, max: 1.5, noNaN: true }),
        (q1, q2) => {
          const q = Float64Array.of(q1, q2);
          const v = b.h(q, h);
          b.gradient(q, h, g);
          return (
            Math.abs(v - L * (Math.cos(q2) - Math.cos(THETA))) < 1e-12 &&
            Math.abs(h[0]! - v) < 1e-15 &&
            Math.abs(g[0]!) < 1e-12 &&
            Math.abs(g[1]! + L * Math.sin(q2)) < 1e-12
          );
        },
      ),
    );
  });

  it('the reference is the tool axis at the grasp: captured tilted, h there is L (1 − cos θ_max)', () => {
    const b = new OrientationBarrier(new ForwardKinematics(CHAIN), TOOL, THETA, L);
    b.captureReference([0.3, 0.4]);
    expect(b.enabled).toBe(true);
    const h = new Float64Array(1);
    expect(b.h(Float64Array.of(0.3, 0.4), h)).toBeCloseTo(L * (1 - Math.cos(THETA)), 12);
    // tilting back to vertical is a 0.4 rad tilt from the reference: outside θ_max
    expect(b.h(Float64Array.of(0.3, 0), h)).toBeCloseTo(L * (Math.cos(0.4) - Math.cos(THETA)), 12);
    // turning about the vertical (pan) does not tilt what was vertical at the grasp
    expect(b.h(Float64Array.of(1.3, 0.4), h)).toBeCloseTo(L * (1 - Math.cos(THETA)), 12);
    // the gradient still matches central differences of h at a tilted pose
    const g = new Float64Array(2);
    const q = Float64Array.of(0.7, 0.55);
    b.gradient(q, h, g);
    const eps = 1e-6;
    for (let j = 0; j < 2; j++) {
      const qp = Float64Array.from(q),
        qm = Float64Array.from(q);
      qp[j]! += eps;
      qm[j]! -= eps;
      expect(g[j]!).toBeCloseTo((b.h(qp, h) - b.h(qm, h)) / (2 * eps), 7);
    }
  });

  it('disabled (nothing held): a constant non-negative h with zero gradient', () => {
    const b = new OrientationBarrier(new ForwardKinematics(CHAIN), TOOL, THETA, L);
    const h = new Float64Array(1);
    const g = Float64Array.of(9, 9);
    expect(b.h(Float64Array.of(0, 1.2), h)).toBeCloseTo(L * (1 - Math.cos(THETA)), 15);
    b.gradient(Float64Array.of(0, 1.2), h, g);
    expect(Array.from(g)).toEqual([0, 0]);
    const fixed = new OrientationBarrier(new ForwardKinematics(CHAIN), TOOL, THETA, L, 1);
    expect(fixed.h(Float64Array.of(0, 1.2), h)).toBe(1);
    g.fill(9);
    fixed.gradient(Float64Array.of(0, 1.2), h, g);
    expect([h[0], ...Array.from(g)]).toEqual([1, 0, 0]);
    fixed.enabled = true;
    expect(fixed.h(Float64Array.of(0, 0.3), h)).toBeCloseTo(L * (Math.cos(0.3) - Math.cos(THETA)), 15); // only the idle value differs
    expect(() => new OrientationBarrier(new ForwardKinematics(CHAIN), TOOL, THETA, L, -0.1)).toThrow(/idle h/);
    expect(() => new OrientationBarrier(new ForwardKinematics(CHAIN), TOOL, THETA, L, NaN)).toThrow(/idle h/);
  });
});

describe('the chunk CBF with the orientation constraint', () => {
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
  /** 20 steps: pan 0 → 1 rad, tilt 0 → 0.5 rad (28.6°, past the 13.5° limit). */
  const nominal = (): Float64Array => {
    const u = new Float64Array(40);
    for (let k = 0; k < 20; k++) {
      u[2 * k] = (k + 1) / 20;
      u[2 * k + 1] = (0.5 * (k + 1)) / 20;
    }
    return u;
  };

  it('bends a chunk that would tip the held object so the tool stays within θ_max, keeping the pan motion', () => {
    const f = new ChunkCbfFilter(barrier(), activeSetSolverFactory, config);
    const u0 = nominal();
    const o = f.filter(u0, 20, [0, 0], 0.05);
    expect(o.status, o.detail).toBe('filtered');
    const u = o.targets.slice();
    for (let k = 0; k < 20; k++) expect(Math.abs(u[2 * k + 1]!)).toBeLessThanOrEqual(THETA + 1e-9);
    // the tilt ends at the limit, not at 0: minimally modified
    expect(u[39]!).toBeGreaterThan(THETA - 0.02);
    // The pan is not in the constraint (∂h/∂q1 = 0); it moves only by Eq. A.3's smoothness term λ‖u_k − u_{k−1}‖²,
    // which in a filtered chunk also rounds off the nominal's own ramp (most at the free end): far less than the tilt.
    let pan = 0;
    for (let k = 0; k < 20; k++) pan = Math.max(pan, Math.abs(u[2 * k]! - u0[2 * k]!));
    expect(pan).toBeLessThan(0.1);
    expect(pan).toBeLessThan(0.5 * (u0[39]! - u[39]!));
  });

  it('passes the same chunk unchanged while nothing is held; stacked with another barrier, both pairs count', () => {
    const free = new OrientationBarrier(new ForwardKinematics(CHAIN), TOOL, THETA, L);
    const u0 = nominal();
    expect(new ChunkCbfFilter(free, activeSetSolverFactory, config).filter(u0, 20, [0, 0], 0.05).status).toBe(
      'unchanged',
    );
    // stacked with a second orientation pair of a looser limit: the tighter one still binds
    const loose = new OrientationBarrier(new ForwardKinematics(CHAIN), TOOL, 0.4, L);
    loose.enabled = true;
    const stack = new BarrierStack([loose, barrier()]);
    expect(stack.pairs).toBe(2);
    const h = new Float64Array(2);
    expect(stack.h(Float64Array.of(0, 0.3), h)).toBeCloseTo(L * (Math.cos(0.3) - Math.cos(THETA)), 12);
    expect(h[0]).toBeCloseTo(L * (Math.cos(0.3) - Math.cos(0.4)), 12);
    const o = new ChunkCbfFilter(stack, activeSetSolverFactory, config).filter(u0, 20, [0, 0], 0.05);
    expect(o.status, o.detail).toBe('filtered');
    for (let k = 0; k < 20; k++) expect(Math.abs(o.targets[2 * k + 1]!)).toBeLessThanOrEqual(THETA + 1e-9);
  });
});

/**
 * On the Panda's TCP with lever 1 and idle h 1 (the fragile-obstacle scenario's setting): h = cos(tilt of the
 * object's up axis from vertical) − cos(limit), checked against the tilt computed from the TCP
 * rotations by plain matrix products; the analytic gradient matches central differences.
 */
describe('OrientationBarrier on the Panda TCP, lever 1, idle h 1', () => {
  const q = Float64Array.from([0.1, -0.3, 0.2, -2.2, 0.1, 1.9, 0.7]);
  const limit = (13.5 * Math.PI) / 180;
  const panda = (): OrientationBarrier =>
    new OrientationBarrier(new ForwardKinematics(PANDA_CHAIN), FRANKA_FRAMES.tcp, limit, 1, 1);

  /** Row-major rotation of the TCP frame at x. */
  function tcpRotation(x: Float64Array): number[] {
    const fk = new ForwardKinematics(PANDA_CHAIN);
    fk.compute(x);
    const o = fk.offset(FRANKA_FRAMES.tcp);
    return Array.from(fk.frames.subarray(o, o + 9));
  }

  it('h = cos(tilt) − cos(limit), the tilt of the object held upright at the grasp', () => {
    const t = panda();
    const out = new Float64Array(1);
    expect(t.h(q, out)).toBe(1); // nothing held: inert
    t.captureReference(q);
    expect(t.h(q, out)).toBeCloseTo(1 - Math.cos(limit), 12);
    const q2 = Float64Array.from(q);
    q2[5] = q2[5]! + 0.2;
    q2[3] = q2[3]! - 0.1;
    // object up in the TCP frame: c = R1ᵀ ẑ (third row of R1); in the world after the move: R2 c.
    const R1 = tcpRotation(q);
    const R2 = tcpRotation(q2);
    const c = [R1[6]!, R1[7]!, R1[8]!];
    const upZ = R2[6]! * c[0]! + R2[7]! * c[1]! + R2[8]! * c[2]!;
    expect(t.h(q2, out)).toBeCloseTo(upZ - Math.cos(limit), 12);
    expect(upZ).toBeLessThan(Math.cos(0.05)); // the move really tilts it
  });

  it('analytic gradient = central differences; zero once released', () => {
    const t = panda();
    const g0 = Float64Array.from(q);
    g0[3] = g0[3]! + 0.3;
    t.captureReference(g0);
    const h = new Float64Array(1);
    const grad = new Float64Array(7);
    t.gradient(q, h, grad);
    const eps = 1e-6;
    for (let j = 0; j < 7; j++) {
      const p = Float64Array.from(q);
      const m = Float64Array.from(q);
      p[j] = p[j]! + eps;
      m[j] = m[j]! - eps;
      const fd = (t.h(p, new Float64Array(1)) - t.h(m, new Float64Array(1))) / (2 * eps);
      expect(grad[j]).toBeCloseTo(fd, 7);
    }
    expect(Math.max(...Array.from(grad, Math.abs))).toBeGreaterThan(0.05);
    t.enabled = false;
    t.gradient(q, h, grad);
    expect(Array.from(grad)).toEqual([0, 0, 0, 0, 0, 0, 0]);
  });
});
