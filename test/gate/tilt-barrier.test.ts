/**
 * The held-object tilt barrier: h = cos(tilt of the object's up axis from vertical) − cos(limit),
 * checked against the tilt computed from the TCP rotations by plain matrix products; its analytic
 * gradient matches central differences; it is inert while nothing is held; a stack of barriers
 * lays their pairs side by side.
 */
import { describe, expect, it } from 'vitest';
import { StackedBarrier, TiltBarrier, type BarrierModel } from '../../src/gate/index.js';
import { FRANKA_FRAMES, ForwardKinematics, PANDA_CHAIN } from '../../src/kinematics/index.js';

const q = Float64Array.from([0.1, -0.3, 0.2, -2.2, 0.1, 1.9, 0.7]);
const limit = (13.5 * Math.PI) / 180;

/** Row-major rotation of the TCP frame at x. */
function tcpRotation(x: Float64Array): number[] {
  const fk = new ForwardKinematics(PANDA_CHAIN);
  fk.compute(x);
  const o = fk.offset(FRANKA_FRAMES.tcp);
  return Array.from(fk.frames.subarray(o, o + 9));
}

/** h(q) = q[0] − 5 over n joints. */
function shiftedLine(n: number): BarrierModel {
  return {
    joints: n,
    pairs: 1,
    h: (x, out) => (out[0] = x[0]! - 5),
    gradient: (x, hOut, grad) => {
      hOut[0] = x[0]! - 5;
      grad.fill(0, 0, n);
      grad[0] = 1;
    },
  };
}

describe('TiltBarrier', () => {
  it('h = cos(tilt) − cos(limit), the tilt of the object held upright at the grasp', () => {
    const t = new TiltBarrier(PANDA_CHAIN, FRANKA_FRAMES.tcp, limit);
    const out = new Float64Array(1);
    expect(t.h(q, out)).toBe(1); // nothing held: inert
    t.grasp(q);
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

  it('analytic gradient = central differences', () => {
    const t = new TiltBarrier(PANDA_CHAIN, FRANKA_FRAMES.tcp, limit);
    const g0 = Float64Array.from(q);
    g0[3] = g0[3]! + 0.3;
    t.grasp(g0);
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
    t.active = false;
    t.gradient(q, h, grad);
    expect(Array.from(grad)).toEqual([0, 0, 0, 0, 0, 0, 0]);
  });

  it('StackedBarrier: pairs side by side, min over all, gradients in their rows', () => {
    const t = new TiltBarrier(PANDA_CHAIN, FRANKA_FRAMES.tcp, limit);
    t.grasp(q);
    const s = new StackedBarrier([shiftedLine(7), t]);
    expect(s.pairs).toBe(2);
    const out = new Float64Array(2);
    expect(s.h(q, out)).toBeCloseTo(q[0]! - 5, 12);
    expect(out[1]).toBeCloseTo(1 - Math.cos(limit), 12);
    const grad = new Float64Array(14);
    s.gradient(q, new Float64Array(2), grad);
    expect(Array.from(grad.subarray(0, 7))).toEqual([1, 0, 0, 0, 0, 0, 0]);
    const tg = new Float64Array(7);
    t.gradient(q, new Float64Array(1), tg);
    expect(Array.from(grad.subarray(7, 14))).toEqual(Array.from(tg));
    expect(() => new StackedBarrier([shiftedLine(3), t])).toThrow(/joints/);
  });
});
