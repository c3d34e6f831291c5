/**
 * The gate's hold-only mode on the chunk path: the nominal chunk is checked against the barrier —
 * h ≥ 0 on the nonlinear h at every step, joint limits and per-step motion bounds — and executed
 * unchanged, or refused ('unsafe': the gate holds). It never modifies a chunk: what the chunk-level
 * CBF adds over it is the detour. Same contract as ChunkCbfFilter.
 */
import type { CbfOutcome } from './cbf-filter.js';
import type { BarrierModel, ChunkFilter } from './cbf-types.js';
import { checkJointLimits, fmt, newOutcome, refuse, startChunk, type JointLimitConfig } from './filter-common.js';

/** The joint limits and per-step motion bounds the chunk is checked against. */
export type HoldOnlyConfig = JointLimitConfig;

export class HoldOnlyFilter implements ChunkFilter {
  private readonly q: Float64Array;
  private readonly hq: Float64Array;
  readonly outcome: CbfOutcome = newOutcome();

  constructor(
    readonly barrier: BarrierModel,
    readonly config: HoldOnlyConfig,
  ) {
    const n = barrier.joints;
    checkJointLimits('hold-only check', config, n);
    this.q = new Float64Array(n);
    this.hq = new Float64Array(barrier.pairs);
  }

  filter(nominal: Float64Array, horizon: number, q0: ArrayLike<number>, dt: number): CbfOutcome {
    const o = this.outcome;
    const n = this.barrier.joints;
    const cfg = this.config;
    if (startChunk(o, nominal, horizon, n)) return o;
    for (let k = -1; k < horizon; k++) {
      for (let j = 0; j < n; j++) {
        const v = k < 0 ? (q0[j] ?? NaN) : nominal[k * n + j]!;
        if (k >= 0) {
          const prev = k === 0 ? (q0[j] ?? NaN) : nominal[(k - 1) * n + j]!;
          if (!(v >= cfg.qmin[j]! && v <= cfg.qmax[j]!))
            return refuse(this.outcome, 'unsafe', `step ${k}: joint ${j} = ${fmt(v)} beyond its limits`);
          if (!(Math.abs(v - prev) <= cfg.maxSpeed[j]! * dt + 1e-9))
            return refuse(
              this.outcome,
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
        return refuse(
          this.outcome,
          'unsafe',
          k < 0
            ? `present position already inside the safety distance (h = ${fmt(h)})`
            : `the chunk enters the safety distance at step ${k} (h = ${fmt(h)})`,
        );
    }
    o.status = 'unchanged';
    return o;
  }
}
