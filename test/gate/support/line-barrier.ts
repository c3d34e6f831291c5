import type { BarrierModel } from '../../../src/gate/index.js';

/** One joint, one pair, h(q) = q with gradient 1: barrier rows whose numbers can be checked by hand. */
export const LINE_BARRIER: BarrierModel = {
  joints: 1,
  pairs: 1,
  h: (q, out) => ((out[0] = q[0]!), q[0]!),
  gradient: (q, hOut, grad) => {
    hOut[0] = q[0]!;
    grad[0] = 1;
  },
};
