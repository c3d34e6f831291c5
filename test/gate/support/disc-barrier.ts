/**
 * A point robot in the plane (2 joints = x, y) and one disc obstacle of radius `r` at the origin,
 * written from the definition h(q) = |q| − r, with its gradient q/|q| — the chunk-filter tests' toy
 * barrier (first linearisation, round-1 cap, loose rounds).
 */
import { DEFAULT_CBF_WEIGHTS } from '../../../src/gate/index.js';
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

/**
 * A straight chunk for the point robot: from (x0, y) in steps of 0.095 along +x, `horizon` rows
 * (the first row one step from x0) — through the disc when |y| < r.
 */
export function discLine(x0: number, y: number, horizon: number): Float64Array {
  const u = new Float64Array(2 * horizon);
  for (let k = 0; k < horizon; k++) {
    u[2 * k] = x0 + 0.095 * (k + 1);
    u[2 * k + 1] = y;
  }
  return u;
}

/**
 * The chunk-filter tests' common configuration for the point robot (everything but maxRounds): the
 * default weights, a ±5 box, 1 unit/s (0.1 per step at dt 0.1), 0.1 mm barrier-condition tolerance,
 * 40 interior-point iterations.
 */
export const DISC_FILTER_CONFIG = {
  ...DEFAULT_CBF_WEIGHTS,
  qmin: [-5, -5],
  qmax: [5, 5],
  maxSpeed: [1, 1],
  slackTolerance: 1e-6,
  cbfTolerance: 1e-4,
  maxIterations: 40,
};
