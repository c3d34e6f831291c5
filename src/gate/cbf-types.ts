/**
 * The small interfaces the chunk CBF filter is built against: a barrier model (h per pair and its
 * gradient) and a QP solver (the OSQP-form solver of src/qp, or any with the same contract).
 */
import type { QpProblem, QpResult, QpSolveOptions } from '../qp/types.js';
import type { CbfOutcome } from './cbf-filter.js';

/**
 * A vector barrier over joint positions: one h_p(q) per robot–obstacle pair (m), > 0 safe.
 * The filter's safety condition is min_p h_p ≥ 0 at every step. Implementations write into the
 * given arrays and must not allocate.
 */
export interface BarrierModel {
  readonly joints: number;
  readonly pairs: number;
  /** h_p(q) into out (length pairs); returns min_p h_p(q). */
  h(q: Float64Array, out: Float64Array): number;
  /** h_p(q) into hOut and ∂h_p/∂q into grad (pairs × joints, row-major). */
  gradient(q: Float64Array, hOut: Float64Array, grad: Float64Array): void;
}

/** A solver bound to one problem shape; it reads the problem's current values on every solve. */
export interface BoundQpSolver {
  solve(options: QpSolveOptions): QpResult;
}

/** Creates a solver for a problem (preallocating for its shape). */
export type QpSolverFactory = (problem: QpProblem) => BoundQpSolver;

/**
 * What the chunk path filters a chunk with: the chunk-level CBF (ChunkCbfFilter), or a comparison
 * filter with the same contract (the action-wise baseline, the hold-only check). `filter` returns
 * the outcome object it owns (overwritten by the next call). `qPrev` (optional): the position one
 * step before q0, for a filter that bounds acceleration (ChunkCbfFilter with maxAcceleration).
 */
export interface ChunkFilter {
  filter(
    nominal: Float64Array,
    horizon: number,
    q0: ArrayLike<number>,
    dt: number,
    deadline?: () => boolean,
    qPrev?: ArrayLike<number>,
  ): CbfOutcome;
}
