/**
 * Several barrier models over the same joints as one (e.g. the distance capsules and the held
 * object's orientation): their pairs side by side, in order. Each model writes into its own
 * preallocated rows, which are copied into the caller's buffers at the model's offset: nothing is
 * allocated per call (subarray views of the caller's buffers were, and their garbage put the
 * filter's calls in the path of the collector while the episode around it allocated). h returns
 * the minimum over all pairs (NaN if any is NaN).
 */
import type { BarrierModel } from './cbf-types.js';

export class BarrierStack implements BarrierModel {
  readonly joints: number;
  readonly pairs: number;
  /** First pair row of each model. */
  private readonly offsets: number[];
  /** Each model's own h and gradient rows. */
  private readonly hRows: Float64Array[];
  private readonly gradRows: Float64Array[];

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
    this.hRows = models.map((m) => new Float64Array(m.pairs));
    this.gradRows = models.map((m) => new Float64Array(m.pairs * m.joints));
  }

  h(q: Float64Array, out: Float64Array): number {
    let min = Infinity;
    for (let i = 0; i < this.models.length; i++) {
      const m = this.models[i]!;
      const o = this.offsets[i]!;
      const rows = this.hRows[i]!;
      const v = m.h(q, rows);
      out.set(rows, o);
      if (v < min || v !== v) min = v;
    }
    return min;
  }

  gradient(q: Float64Array, hOut: Float64Array, grad: Float64Array): void {
    const n = this.joints;
    for (let i = 0; i < this.models.length; i++) {
      const m = this.models[i]!;
      const o = this.offsets[i]!;
      const rows = this.hRows[i]!;
      const gradRows = this.gradRows[i]!;
      m.gradient(q, rows, gradRows);
      hOut.set(rows, o);
      grad.set(gradRows, o * n);
    }
  }
}
