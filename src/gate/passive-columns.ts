/**
 * A chunk filter for chunks that carry more columns than the barrier has joints: a Panda chunk is
 * 7 arm joints plus the gripper's finger opening, an SO-101 chunk 5 arm joints plus the jaw, and no
 * barrier depends on the gripper command. The first `active` columns go through `inner`; the
 * trailing ones pass through exactly as the policy sent them — the filter's smoothness term and
 * motion bounds never nudge a gripper command (a filter must not open a hand holding a cup). Their
 * limits are the chunk screen's business. Allocates only when the chunk size changes.
 */
import type { CbfOutcome } from './cbf-filter.js';
import type { ChunkFilter } from './cbf-types.js';

export class PassiveColumnsFilter implements ChunkFilter {
  private buf = new Float64Array(0);
  private out = new Float64Array(0);
  private readonly q0: Float64Array;

  constructor(
    readonly inner: ChunkFilter,
    /** Leading columns the inner filter sees (the barrier's joints). */
    readonly active: number,
    /** All columns of a chunk step. */
    readonly columns: number,
  ) {
    if (!(Number.isInteger(active) && active > 0 && Number.isInteger(columns) && columns >= active)) {
      throw new RangeError(
        `PassiveColumnsFilter: need integers 0 < active ≤ columns, got active ${active}, columns ${columns}`,
      );
    }
    this.q0 = new Float64Array(active);
  }

  filter(
    nominal: Float64Array,
    horizon: number,
    q0: ArrayLike<number>,
    dt: number,
    deadline?: () => boolean,
  ): CbfOutcome {
    const { active, columns } = this;
    if (this.buf.length !== horizon * active) {
      this.buf = new Float64Array(horizon * active);
      this.out = new Float64Array(horizon * columns);
    }
    for (let k = 0; k < horizon; k++)
      for (let j = 0; j < active; j++) this.buf[k * active + j] = nominal[k * columns + j] ?? NaN;
    for (let j = 0; j < active; j++) this.q0[j] = q0[j] ?? NaN;
    const o = this.inner.filter(this.buf, horizon, this.q0, dt, deadline);
    if (o.status === 'filtered') {
      this.out.set(nominal.subarray(0, horizon * columns));
      for (let k = 0; k < horizon; k++)
        for (let j = 0; j < active; j++) this.out[k * columns + j] = o.targets[k * active + j]!;
      o.targets = this.out;
    } else if (o.status === 'unchanged') o.targets = nominal;
    return o;
  }
}
