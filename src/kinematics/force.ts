import { length3, TF } from './transform.js';
import type { ForwardKinematics } from './chain.js';

/**
 * Joint-torque residual → Cartesian force at a point (the TCP), by the damped pseudo-inverse of Jᵀ:
 * F = (J·Jᵀ + λI)⁻¹·J·r with J the 3 × n positional Jacobian of the first n joints. λ (m²) keeps
 * the estimate bounded near singular poses. Uses the FK's last computed state; no allocation.
 */
export class PointForceEstimator {
  readonly force = new Float64Array(3);
  private readonly Jfull: Float64Array;
  private readonly A = new Float64Array(9);
  private readonly b = new Float64Array(3);

  constructor(
    readonly fk: ForwardKinematics,
    readonly frame: number,
    readonly joints: number,
    public damping: number,
  ) {
    this.Jfull = new Float64Array(3 * fk.joints);
  }

  /** |F| (N) for residual torques r (N·m, length ≥ joints; a missing one gives NaN); F itself is left in `force`. */
  estimate(residual: ArrayLike<number>): number {
    const fk = this.fk,
      n = this.joints,
      N = fk.joints,
      J = this.Jfull;
    const o = TF * this.frame;
    fk.pointJacobian(J, this.frame, fk.frames[o + 9]!, fk.frames[o + 10]!, fk.frames[o + 11]!);
    const A = this.A,
      b = this.b;
    for (let r = 0; r < 3; r++) {
      let s = 0;
      for (let j = 0; j < n; j++) s += J[r * N + j]! * (residual[j] ?? NaN);
      b[r] = s;
      for (let c = 0; c < 3; c++) {
        let a = r === c ? this.damping : 0;
        for (let j = 0; j < n; j++) a += J[r * N + j]! * J[c * N + j]!;
        A[r * 3 + c] = a;
      }
    }
    solve3(A, b, this.force);
    return length3(this.force[0]!, this.force[1]!, this.force[2]!);
  }
}

/** Solve A·x = b for a 3×3 A by Cramer's rule. */
export function solve3(A: Float64Array, b: Float64Array, x: Float64Array): void {
  const a = A[0]!,
    bb = A[1]!,
    c = A[2]!,
    d = A[3]!,
    e = A[4]!,
    f = A[5]!,
    g = A[6]!,
    h = A[7]!,
    i = A[8]!;
  const det = a * (e * i - f * h) - bb * (d * i - f * g) + c * (d * h - e * g);
  const b0 = b[0]!,
    b1 = b[1]!,
    b2 = b[2]!;
  x[0] = (b0 * (e * i - f * h) - bb * (b1 * i - f * b2) + c * (b1 * h - e * b2)) / det;
  x[1] = (a * (b1 * i - f * b2) - b0 * (d * i - f * g) + c * (d * b2 - b1 * g)) / det;
  x[2] = (a * (e * b2 - b1 * h) - bb * (d * b2 - b1 * g) + b0 * (d * h - e * g)) / det;
}
