/**
 * A planar 2-link arm (link lengths L1, L2, joint angles q1, q2) and a disc obstacle: an independent
 * barrier model for the filter tests, with analytic gradients. Pairs: (tip, disc), (link-2 midpoint, disc).
 */
import type { BarrierModel } from '../../../src/gate/index.js';

export class PlanarArmDisc implements BarrierModel {
  readonly joints = 2;
  readonly pairs = 2;
  constructor(
    readonly L1: number,
    readonly L2: number,
    public cx: number,
    public cy: number,
    public r: number,
    public dSafe: number,
  ) {}

  /** Point at fraction f along link 2 (f = 1: tip) and its Jacobian ∂p/∂q (2×2, row-major). */
  point(q: ArrayLike<number>, f: number, jac?: Float64Array): [number, number] {
    const q1 = q[0]!,
      q12 = q[0]! + q[1]!;
    const x = this.L1 * Math.cos(q1) + f * this.L2 * Math.cos(q12);
    const y = this.L1 * Math.sin(q1) + f * this.L2 * Math.sin(q12);
    if (jac) {
      jac[0] = -this.L1 * Math.sin(q1) - f * this.L2 * Math.sin(q12);
      jac[1] = -f * this.L2 * Math.sin(q12);
      jac[2] = this.L1 * Math.cos(q1) + f * this.L2 * Math.cos(q12);
      jac[3] = f * this.L2 * Math.cos(q12);
    }
    return [x, y];
  }

  pairH(q: ArrayLike<number>, p: number): number {
    const [x, y] = this.point(q, p === 0 ? 1 : 0.5);
    return Math.hypot(x - this.cx, y - this.cy) - this.r - this.dSafe;
  }

  h(q: Float64Array, out: Float64Array): number {
    out[0] = this.pairH(q, 0);
    out[1] = this.pairH(q, 1);
    return Math.min(out[0], out[1]);
  }

  private readonly jac = new Float64Array(4);
  gradient(q: Float64Array, hOut: Float64Array, grad: Float64Array): void {
    for (let p = 0; p < 2; p++) {
      const [x, y] = this.point(q, p === 0 ? 1 : 0.5, this.jac);
      const dx = x - this.cx,
        dy = y - this.cy;
      const d = Math.hypot(dx, dy);
      hOut[p] = d - this.r - this.dSafe;
      grad[2 * p] = (dx * this.jac[0]! + dy * this.jac[2]!) / d;
      grad[2 * p + 1] = (dx * this.jac[1]! + dy * this.jac[3]!) / d;
    }
  }
}

/** A straight joint-space sweep from a to b over H steps (step k at fraction (k+1)/H). */
export function sweep(a: readonly number[], b: readonly number[], H: number): Float64Array {
  const n = a.length;
  const out = new Float64Array(H * n);
  for (let k = 0; k < H; k++) for (let j = 0; j < n; j++) out[k * n + j] = a[j]! + ((k + 1) / H) * (b[j]! - a[j]!);
  return out;
}
