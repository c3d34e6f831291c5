/** PassiveJointsBarrier: trailing chunk columns the barrier does not depend on pass through. */
import { describe, expect, it } from 'vitest';
import type { BarrierModel } from '../../src/gate/cbf-types.js';
import { PassiveJointsBarrier } from '../../src/gate/passive-joints.js';

/** Two pairs over two joints, written from the definition: h0 = q0 + 2q1 − 1, h1 = q0·q1. */
const inner: BarrierModel = {
  joints: 2,
  pairs: 2,
  h(q, out) {
    out[0] = q[0]! + 2 * q[1]! - 1;
    out[1] = q[0]! * q[1]!;
    return Math.min(out[0], out[1]);
  },
  gradient(q, hOut, grad) {
    this.h(q, hOut);
    grad.set([1, 2, q[1]!, q[0]!]);
  },
};

describe('PassiveJointsBarrier', () => {
  it('h ignores the passive columns; their gradient is 0 and the others are the inner barrier\'s, re-strided', () => {
    const b = new PassiveJointsBarrier(inner, 1);
    expect(b.joints).toBe(3);
    expect(b.pairs).toBe(2);
    const h = new Float64Array(2);
    expect(b.h(Float64Array.from([0.5, 2, 99]), h)).toBe(1); // h0 = 3.5, h1 = 1
    expect(Array.from(h)).toEqual([3.5, 1]);
    expect(b.h(Float64Array.from([0.5, 2, -7]), h)).toBe(1);
    const grad = new Float64Array(6).fill(NaN);
    b.gradient(Float64Array.from([0.5, 2, 99]), h, grad);
    expect(Array.from(grad)).toEqual([1, 2, 0, 2, 0.5, 0]);
    expect(Array.from(h)).toEqual([3.5, 1]);
  });

  it('refuses a negative or fractional passive count', () => {
    expect(() => new PassiveJointsBarrier(inner, -1)).toThrow(/non-negative integer/);
    expect(() => new PassiveJointsBarrier(inner, 0.5)).toThrow(/non-negative integer/);
  });
});
