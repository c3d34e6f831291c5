/** BarrierStack: several barrier models over the same joints as one, their pairs side by side. */
import { describe, expect, it } from 'vitest';
import { BarrierStack, OrientationBarrier, type BarrierModel } from '../../src/gate/index.js';
import { FRANKA_FRAMES, ForwardKinematics, PANDA_CHAIN } from '../../src/kinematics/index.js';

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

/** Two pairs over n joints, by hand: h0 = q1 + 1, h1 = NaN when q1 < −10 else 2·q1. */
function twoPairs(n: number): BarrierModel {
  return {
    joints: n,
    pairs: 2,
    h(x, out) {
      out[0] = x[1]! + 1;
      out[1] = x[1]! < -10 ? NaN : 2 * x[1]!;
      return Math.min(out[0], out[1]);
    },
    gradient(x, hOut, grad) {
      this.h(x, hOut);
      grad.fill(0, 0, 2 * n);
      grad[1] = 1;
      grad[n + 1] = 2;
    },
  };
}

describe('BarrierStack', () => {
  const q = Float64Array.from([0.1, -0.3, 0.2, -2.2, 0.1, 1.9, 0.7]);
  const limit = (13.5 * Math.PI) / 180;

  it('pairs side by side, min over all, gradients in their rows (distance stand-in + held-object tilt)', () => {
    const t = new OrientationBarrier(new ForwardKinematics(PANDA_CHAIN), FRANKA_FRAMES.tcp, limit, 1);
    t.captureReference(q);
    const s = new BarrierStack([shiftedLine(7), t]);
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
  });

  it('a multi-pair model keeps its rows in order after the ones before it; a NaN pair makes h NaN', () => {
    const s = new BarrierStack([shiftedLine(3), twoPairs(3)]);
    expect(s.pairs).toBe(3);
    const out = new Float64Array(3);
    expect(s.h(Float64Array.of(7, 4, 0), out)).toBe(2); // 7 − 5 = 2, 4 + 1 = 5, 8
    expect(Array.from(out)).toEqual([2, 5, 8]);
    const hOut = new Float64Array(3);
    const grad = new Float64Array(9).fill(NaN);
    s.gradient(Float64Array.of(7, 4, 0), hOut, grad);
    expect(Array.from(hOut)).toEqual([2, 5, 8]);
    expect(Array.from(grad)).toEqual([1, 0, 0, 0, 1, 0, 0, 2, 0]);
    expect(s.h(Float64Array.of(7, -11, 0), out)).toBeNaN();
  });

  it('refuses an empty stack and models over different joint counts', () => {
    expect(() => new BarrierStack([])).toThrow(/at least one/);
    expect(() => new BarrierStack([shiftedLine(3), shiftedLine(7)])).toThrow(/joints/);
  });
});
