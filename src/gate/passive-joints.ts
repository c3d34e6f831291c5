/**
 * A barrier over a chunk that carries more columns than the barrier model has joints: a Panda
 * chunk is 7 arm joints plus the gripper's finger opening, and no environment capsule depends on
 * the opening. The extra trailing columns pass through: h ignores them and their gradient is 0, so
 * the filter leaves them at the nominal (their joint limits and motion bounds still apply).
 */
import type { BarrierModel } from './cbf-types.js';

export class PassiveJointsBarrier implements BarrierModel {
  readonly joints: number;
  readonly pairs: number;
  private readonly q: Float64Array;
  private readonly innerGrad: Float64Array;

  constructor(
    readonly inner: BarrierModel,
    /** Trailing columns the barrier does not depend on. */
    readonly passive: number,
  ) {
    if (!(Number.isInteger(passive) && passive >= 0)) throw new RangeError(`PassiveJointsBarrier: passive must be a non-negative integer, got ${passive}`);
    this.joints = inner.joints + passive;
    this.pairs = inner.pairs;
    this.q = new Float64Array(inner.joints);
    this.innerGrad = new Float64Array(inner.pairs * inner.joints);
  }

  h(q: Float64Array, out: Float64Array): number {
    for (let j = 0; j < this.inner.joints; j++) this.q[j] = q[j]!;
    return this.inner.h(this.q, out);
  }

  gradient(q: Float64Array, hOut: Float64Array, grad: Float64Array): void {
    const n = this.inner.joints;
    for (let j = 0; j < n; j++) this.q[j] = q[j]!;
    this.inner.gradient(this.q, hOut, this.innerGrad);
    for (let p = 0; p < this.pairs; p++) {
      for (let j = 0; j < n; j++) grad[p * this.joints + j] = this.innerGrad[p * n + j]!;
      for (let j = n; j < this.joints; j++) grad[p * this.joints + j] = 0;
    }
  }
}
