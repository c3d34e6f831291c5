/**
 * Several barrier models over the same joints as one (e.g. the distance capsules and the held
 * object's orientation): their pairs side by side, in order, each model writing straight into its
 * rows of the caller's buffers (subarray views, no copies). h returns the minimum over all pairs
 * (NaN if any is NaN).
 */
import type { BarrierModel } from './cbf-types.js';

export class BarrierStack implements BarrierModel {
  readonly joints: number;
  readonly pairs: number;
  /** First pair row of each model. */
  private readonly offsets: number[];

  constructor(readonly models: readonly BarrierModel[]) {
    if (models.length === 0) throw new RangeError('BarrierStack needs at least one model');
    this.joints = models[0]!.joints;
    for (const m of models)
      if (m.joints !== this.joints)
        throw new RangeError(`BarrierStack: models over ${this.joints} and ${m.joints} joints`);
    this.offsets = [];
    let at = 0;
    for (const m of models) {
      this.offsets.push(at);
      at += m.pairs;
    }
    this.pairs = at;
  }

  h(q: Float64Array, out: Float64Array): number {
    let min = Infinity;
    for (let i = 0; i < this.models.length; i++) {
      const m = this.models[i]!;
      const o = this.offsets[i]!;
      const v = m.h(q, out.subarray(o, o + m.pairs));
      if (v < min || v !== v) min = v;
    }
    return min;
  }

  gradient(q: Float64Array, hOut: Float64Array, grad: Float64Array): void {
    const n = this.joints;
    for (let i = 0; i < this.models.length; i++) {
      const m = this.models[i]!;
      const o = this.offsets[i]!;
      m.gradient(q, hOut.subarray(o, o + m.pairs), grad.subarray(o * n, (o + m.pairs) * n));
    }
  }
}
