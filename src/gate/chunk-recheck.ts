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

/**
 * Acceleration rows |u_k − 2u_{k−1} + u_{k−2}| ≤ a_max·dt² (CbfFilterConfig.maxAcceleration), with
 * u_{−1} = q0 and u_{−2} = `qPrev`; without `qPrev` the first row's is not checked.
 */
export interface RecheckAcceleration {
  /** a_max·dt² per joint (rad). */
  readonly step: ArrayLike<number>;
  readonly qPrev: ArrayLike<number> | null;
}

/**
 * Shortfall of an acceleration row (rad per step²) the re-check accepts: the QP's residual at its
 * tolerance, which clamping into the motion bounds cannot remove from a second difference. 1e-6 rad
 * is under a thousandth of an STS3215 encoder step; the rows protect actuators, not clearance.
 */
export const ACCELERATION_ROW_TOLERANCE = 1e-6;

export interface RecheckBounds {
  readonly qmin: readonly number[];
  readonly qmax: readonly number[];
  /** Per-joint motion bound of one row from the previous one (rad; maxSpeed · dt). */
  readonly dq: ArrayLike<number>;
  /** −δ: the smallest h accepted. */
  readonly hFloor: number;
  /** 1 − γ. */
  readonly decay: number;
  /** Acceleration rows, when the filter bounds acceleration. */
  readonly acceleration?: RecheckAcceleration | null;
}

/**
 * Where the barrier's values are taken from or written to instead of the scratch: `h0`, h(q0)
 * already evaluated (q0 and the obstacles do not change within a filter call); `into`, per-row
 * buffers that receive h and its gradient (the filter's QP linearises there next).
 */
export interface RecheckEvaluation {
  readonly h0?: Float64Array;
  readonly into?: { readonly hStep: readonly Float64Array[]; readonly gStep: readonly Float64Array[] } | null;
}

/**
 * Re-check chunk `u` (`horizon` rows of barrier.joints columns) from the present position `q0`
 * into `out`; returns `out`.
 */
export function recheckChunk(
  barrier: BarrierModel,
  u: ArrayLike<number>,
  horizon: number,
  q0: ArrayLike<number>,
  b: RecheckBounds,
  s: RecheckScratch,
  out: Recheck,
  e?: RecheckEvaluation,
): Recheck {
  const n = barrier.joints;
  const m = barrier.pairs;
  const decay = b.decay;
  const acc = b.acceleration ?? null;
  const into = e?.into ?? null;
  let hard = true;
  let violation = 0;
  let minH = Infinity;
  let minStep = -1;
  out.boundStep = -1;
  out.boundJoint = -1;
  if (e?.h0 !== undefined) s.hPrev.set(e.h0);
  else {
    for (let j = 0; j < n; j++) s.step[j] = q0[j]!;
    barrier.h(s.step, s.hPrev);
  }
  for (let k = 0; k < horizon; k++) {
    for (let j = 0; j < n; j++) {
      const v = u[k * n + j]!;
      const prev = k === 0 ? q0[j]! : u[(k - 1) * n + j]!;
      let ok = v >= b.qmin[j]! && v <= b.qmax[j]! && Math.abs(v - prev) <= b.dq[j]! + 1e-9;
      if (ok && acc !== null && (k > 0 || acc.qPrev !== null)) {
        const older = k === 0 ? acc.qPrev![j]! : k === 1 ? q0[j]! : u[(k - 2) * n + j]!;
        ok = Math.abs(v - 2 * prev + older) <= acc.step[j]! + ACCELERATION_ROW_TOLERANCE;
      }
      if (!ok) {
        if (hard) {
          out.boundStep = k;
          out.boundJoint = j;
        }
        hard = false;
      }
      s.step[j] = v;
    }
    let hq = s.hq;
    if (into === null) barrier.h(s.step, hq);
    else {
      hq = into.hStep[k]!;
      barrier.gradient(s.step, hq, into.gStep[k]!);
    }
    let hk = Infinity;
    for (let p = 0; p < m; p++) {
      const v = hq[p]!;
      if (v < hk || v !== v) hk = v;
      const short = decay * s.hPrev[p]! - v;
      if (short > violation || short !== short) violation = short !== short ? Infinity : short;
      s.hPrev[p] = v;
    }
    if (hk < minH || hk !== hk) {
      minH = hk;
      minStep = k;
    }
  }
  out.minH = minH;
  out.minHStep = minStep;
  out.hard = hard && minH >= b.hFloor;
  out.violation = violation;
  return out;
}
