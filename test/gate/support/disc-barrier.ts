/**
 * A point robot in the plane (2 joints = x, y) and one disc obstacle of radius `r` at the origin,
 * written from the definition h(q) = |q| − r, with its gradient q/|q| — the chunk-filter tests' toy
 * barrier (first linearisation, round-1 cap, loose rounds).
 */
import type { BarrierModel } from '../../../src/gate/cbf-types.js';

export function discBarrier(r: number): BarrierModel {
  return {
    joints: 2,
    pairs: 1,
    h(q, out) {
      return (out[0] = Math.hypot(q[0]!, q[1]!) - r);
    },
    gradient(q, hOut, grad) {
      const d = Math.hypot(q[0]!, q[1]!);
      hOut[0] = d - r;
      grad[0] = q[0]! / d;
      grad[1] = q[1]! / d;
    },
  };
}
