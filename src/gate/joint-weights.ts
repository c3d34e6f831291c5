/**
 * A weighted joint-space distance for the chunk CBF filter without touching its QP (issue 15): the
 * filter minimises Σ‖u − u_nom‖² + λΣ‖Δu‖² in whatever coordinates it is given, so filtering in
 * scaled coordinates x_j = s_j·q_j minimises Σ_j s_j²(u_j − u_nom,j)² (+ the same smoothness) in
 * joint space — exactly, not approximately: the barrier is evaluated at q = x/s with its gradient
 * divided by s, and the joint limits and speed bounds are scaled with the coordinates.
 *
 * What it is for: the held object's tilt faces have the same gradient through every joint whose
 * axis is parallel to the tilt (a shoulder turns the tool as much as the wrist does), so the
 * unweighted filter spread a tilt correction over the Panda's shoulder, elbow and wrist and
 * dropped the carried target 3–5 cm into the box wall. With the shoulder and elbow joints costing
 * more (a radian of theirs moves the tool about 0.5 m × the angle, one of the wrist's 0.2 m × it)
 * the correction is made at the wrist. Pure: no clock, no I/O.
 */
import type { CbfOutcome } from './cbf-filter.js';
import type { BarrierModel, ChunkFilter } from './cbf-types.js';

/** A barrier over scaled coordinates x = s·q (for a filter that works in them). */
export class ScaledBarrier implements BarrierModel {
  readonly joints: number;
  readonly pairs: number;
  private readonly q: Float64Array;

  constructor(
    readonly inner: BarrierModel,
    readonly scale: readonly number[],
  ) {
    if (scale.length !== inner.joints || !scale.every((s) => s > 0 && s < Infinity))
      throw new RangeError(`scaled barrier: need ${inner.joints} finite scales > 0, got ${scale.join(', ')}`);
    this.joints = inner.joints;
    this.pairs = inner.pairs;
    this.q = new Float64Array(inner.joints);
  }

  h(x: Float64Array, out: Float64Array): number {
    for (let j = 0; j < this.joints; j++) this.q[j] = x[j]! / this.scale[j]!;
    return this.inner.h(this.q, out);
  }

  gradient(x: Float64Array, hOut: Float64Array, grad: Float64Array): void {
    const n = this.joints;
    for (let j = 0; j < n; j++) this.q[j] = x[j]! / this.scale[j]!;
    this.inner.gradient(this.q, hOut, grad);
    // ∂h/∂x_j = ∂h/∂q_j / s_j
    for (let p = 0; p < this.pairs; p++)
      for (let j = 0; j < n; j++) grad[p * n + j] = grad[p * n + j]! / this.scale[j]!;
  }
}

/**
 * A chunk filter in joint units around one that works in scaled coordinates (built on a
 * {@link ScaledBarrier} with limits and speed bounds scaled by the same factors): scales the
 * nominal chunk and q0 in, the filtered chunk out; the modification is in joint units.
 * Allocates only when the chunk size changes.
 */
export class ScaledChunkFilter implements ChunkFilter {
  private buf = new Float64Array(0);
  private out = new Float64Array(0);
  private readonly q0: Float64Array;

  constructor(
    readonly inner: ChunkFilter,
    readonly scale: readonly number[],
  ) {
    if (!scale.every((s) => s > 0 && s < Infinity))
      throw new RangeError(`scaled chunk filter: scales must be finite and > 0, got ${scale.join(', ')}`);
    this.q0 = new Float64Array(scale.length);
  }

  filter(
    nominal: Float64Array,
    horizon: number,
    q0: ArrayLike<number>,
    dt: number,
    deadline?: () => boolean,
  ): CbfOutcome {
    const s = this.scale;
    const n = s.length;
    const size = horizon * n;
    // a mis-shaped chunk: the inner filter's own shape check refuses it (scaling would hide it)
    if (nominal.length !== size) return this.inner.filter(nominal, horizon, q0, dt, deadline);
    if (this.buf.length !== size) {
      this.buf = new Float64Array(size);
      this.out = new Float64Array(size);
    }
    for (let c = 0; c < size; c++) this.buf[c] = (nominal[c] ?? NaN) * s[c % n]!;
    for (let j = 0; j < n; j++) this.q0[j] = (q0[j] ?? NaN) * s[j]!;
    const o = this.inner.filter(this.buf, horizon, this.q0, dt, deadline);
    if (o.status === 'filtered') {
      let mod = 0;
      for (let c = 0; c < size; c++) {
        this.out[c] = o.targets[c]! / s[c % n]!;
        mod = Math.max(mod, Math.abs(this.out[c]! - nominal[c]!));
      }
      o.targets = this.out;
      o.modification = mod;
    } else if (o.status === 'unchanged') o.targets = nominal;
    // (refused: the inner filter's empty targets stay)
    return o;
  }
}
