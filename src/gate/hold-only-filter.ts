/**
 * The gate's hold-only mode on the chunk path: the nominal chunk is checked against the barrier —
 * h ≥ 0 on the nonlinear h at every step, joint limits and per-step motion bounds — and executed
 * unchanged, or refused ('unsafe': the gate holds). It never modifies a chunk: what the chunk-level
 * CBF adds over it is the detour. Same contract as ChunkCbfFilter.
 */
import type { CbfOutcome } from './cbf-filter.js';
import type { BarrierModel, ChunkFilter } from './cbf-types.js';

export interface HoldOnlyConfig {
  readonly qmin: readonly number[];
  readonly qmax: readonly number[];
  /** Per-joint speed limit (rad/s): one step may move joint j by at most maxSpeed[j]·dt. */
  readonly maxSpeed: readonly number[];
}

export class HoldOnlyFilter implements ChunkFilter {
  private readonly q: Float64Array;
  private readonly hq: Float64Array;
  readonly outcome: CbfOutcome = {
    status: 'unchanged',
    targets: new Float64Array(0),
    slackUsed: 0,
    modification: 0,
    minH: Infinity,
    minHStep: -1,
    cbfViolation: 0,
    rounds: 0,
    iterations: 0,
    detail: '',
  };

  constructor(
    readonly barrier: BarrierModel,
    readonly config: HoldOnlyConfig,
  ) {
    const n = barrier.joints;
    for (const [name, arr] of [
      ['qmin', config.qmin],
      ['qmax', config.qmax],
      ['maxSpeed', config.maxSpeed],
    ] as const) {
      if (arr.length !== n)
        throw new RangeError(`hold-only check: ${name} has ${arr.length} entries, the barrier model ${n} joints`);
    }
    this.q = new Float64Array(n);
    this.hq = new Float64Array(barrier.pairs);
  }

  filter(nominal: Float64Array, horizon: number, q0: ArrayLike<number>, dt: number): CbfOutcome {
    const o = this.outcome;
    const n = this.barrier.joints;
    const cfg = this.config;
    o.targets = nominal;
    o.detail = '';
    o.minH = Infinity;
    o.minHStep = -1;
    if (nominal.length !== horizon * n)
      return this.fail('solver-failure', `chunk has ${nominal.length} targets, expected ${horizon}×${n}`);
    for (let k = -1; k < horizon; k++) {
      for (let j = 0; j < n; j++) {
        const v = k < 0 ? (q0[j] ?? NaN) : nominal[k * n + j]!;
        if (k >= 0) {
          const prev = k === 0 ? (q0[j] ?? NaN) : nominal[(k - 1) * n + j]!;
          if (!(v >= cfg.qmin[j]! && v <= cfg.qmax[j]!))
            return this.fail('unsafe', `step ${k}: joint ${j} = ${fmt(v)} beyond its limits`);
          if (!(Math.abs(v - prev) <= cfg.maxSpeed[j]! * dt + 1e-9))
            return this.fail(
              'unsafe',
              `step ${k}: joint ${j} moves ${fmt(Math.abs(v - prev))} rad, more than its motion bound`,
            );
        }
        this.q[j] = v;
      }
      const h = this.barrier.h(this.q, this.hq);
      if (h < o.minH || h !== h) {
        o.minH = h;
        o.minHStep = k;
      }
      if (!(h >= 0))
        return this.fail(
          'unsafe',
          k < 0
            ? `present position already inside the safety distance (h = ${fmt(h)})`
            : `the chunk enters the safety distance at step ${k} (h = ${fmt(h)})`,
        );
    }
    o.status = 'unchanged';
    return o;
  }

  private fail(status: 'unsafe' | 'solver-failure', detail: string): CbfOutcome {
    const o = this.outcome;
    o.status = status;
    o.detail = detail;
    o.targets = EMPTY;
    return o;
  }
}

const EMPTY = new Float64Array(0);

function fmt(x: number): string {
  return Number.isFinite(x) ? x.toPrecision(4) : String(x);
}
