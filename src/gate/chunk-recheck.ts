/**
 * The exact re-check of a chunk on the nonlinear barrier (design §6): joint limits, per-step motion
 * bounds from the present position, h ≥ −δ at every row, and the discrete barrier condition
 * h(u_k) ≥ (1−γ)h(u_{k−1}). ChunkCbfFilter runs it on the nominal chunk and on every round's
 * result; the off-thread chunk path (src/runtime/off-thread-chunk-path.ts) runs it again on the
 * control thread, from the joint state and obstacles present when a chunk filtered elsewhere is
 * committed. O(H · pairs) barrier evaluations, no QP; writes into the given scratch and result, no
 * allocation. Pure.
 */
import type { BarrierModel } from './cbf-types.js';

/** Buffers a re-check writes into: `hq` and `hPrev` of length pairs, `step` of length joints. */
export interface RecheckScratch {
  readonly hq: Float64Array;
  readonly hPrev: Float64Array;
  readonly step: Float64Array;
}

export function recheckScratch(barrier: BarrierModel): RecheckScratch {
  return {
    hq: new Float64Array(barrier.pairs),
    hPrev: new Float64Array(barrier.pairs),
    step: new Float64Array(barrier.joints),
  };
}

/** The outcome of one re-check (overwritten by the next). */
export interface Recheck {
  /** Joint limits, motion bounds (with 1e-9 rad for rounding) and h ≥ −δ held at every row. */
  hard: boolean;
  /** max over rows and pairs of (1−γ)h_p(u_{k−1}) − h_p(u_k), clipped at 0 (m); Infinity when not a number. */
  violation: number;
  /** min over rows and pairs of h (m); its row (−1 before the first row). */
  minH: number;
  minHStep: number;
  /** The first row and joint outside its limits or motion bound (−1: none). */
  boundStep: number;
  boundJoint: number;
}

export function newRecheck(): Recheck {
  return { hard: true, violation: 0, minH: Infinity, minHStep: -1, boundStep: -1, boundJoint: -1 };
}

export interface RecheckBounds {
  readonly qmin: readonly number[];
  readonly qmax: readonly number[];
  /** Per-joint motion bound of one row from the previous one (rad; maxSpeed · dt). */
  readonly dq: ArrayLike<number>;
  /** −δ: the smallest h accepted. */
  readonly hFloor: number;
  /** 1 − γ. */
  readonly decay: number;
}

/**
 * Re-check chunk `u` (`horizon` rows of barrier.joints columns) from the present position `q0`
 * into `out`; returns `out`.
 */
export function recheckChunk(
  barrier: BarrierModel,
  u: ArrayLike<number>,
  horizon: number,
  q0: Float64Array,
  b: RecheckBounds,
  s: RecheckScratch,
  out: Recheck,
): Recheck {
  const n = barrier.joints;
  const m = barrier.pairs;
  const decay = b.decay;
  let hard = true;
  let violation = 0;
  let minH = Infinity;
  let minStep = -1;
  out.boundStep = -1;
  out.boundJoint = -1;
  barrier.h(q0, s.hPrev);
  for (let k = 0; k < horizon; k++) {
    for (let j = 0; j < n; j++) {
      const v = u[k * n + j]!;
      const prev = k === 0 ? q0[j]! : u[(k - 1) * n + j]!;
      if (!(v >= b.qmin[j]! && v <= b.qmax[j]! && Math.abs(v - prev) <= b.dq[j]! + 1e-9)) {
        if (hard) {
          out.boundStep = k;
          out.boundJoint = j;
        }
        hard = false;
      }
      s.step[j] = v;
    }
    const hk = barrier.h(s.step, s.hq);
    if (hk < minH || hk !== hk) {
      minH = hk;
      minStep = k;
    }
    for (let p = 0; p < m; p++) {
      const short = decay * s.hPrev[p]! - s.hq[p]!;
      if (short > violation || short !== short) violation = short !== short ? Infinity : short;
      s.hPrev[p] = s.hq[p]!;
    }
  }
  out.minH = minH;
  out.minHStep = minStep;
  out.hard = hard && minH >= b.hFloor;
  out.violation = violation;
  return out;
}
