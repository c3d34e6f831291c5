/**
 * QP in OSQP form:  minimise ½ x'Px + q'x  subject to  l ≤ Ax ≤ u.
 *
 * Bounds with |value| ≥ {@link INFINITE_BOUND} (or ±Infinity) mean "no bound" — the shared
 * generator writes 1e30 for one-sided rows. A row with l = u is an equality.
 */
export const INFINITE_BOUND = 1e20;

/** Compressed sparse column matrix; row indices within a column ascending. */
export interface CscMatrix {
  readonly rows: number;
  readonly cols: number;
  /** length cols + 1 */
  readonly colPtr: Int32Array;
  /** length nnz */
  readonly rowIndex: Int32Array;
  /** length nnz */
  readonly values: Float64Array;
}

/**
 * Optional hint about the stage layout. `chunk` is the layout of `gen-chunk-qp.mjs` and of the
 * chunk-level CBF filter: x = [u_0..u_{H-1} (n each), ξ_0..ξ_{H-1}], stage k = (u_k, ξ_k).
 * `stages` assigns every variable a stage index explicitly.
 */
export type StageHint =
  | { readonly kind: 'chunk'; readonly horizon: number; readonly joints: number }
  | { readonly kind: 'stages'; readonly stageOfVariable: Int32Array };

export interface QpProblem {
  /** number of variables */
  readonly n: number;
  /** number of constraint rows */
  readonly m: number;
  /** n × n, upper triangle (entries below the diagonal are rejected by the solver) */
  readonly P: CscMatrix;
  readonly q: Float64Array;
  /** m × n */
  readonly A: CscMatrix;
  readonly l: Float64Array;
  readonly u: Float64Array;
  readonly stageHint?: StageHint;
}

export type QpStatus = 'solved' | 'infeasible' | 'max-iterations' | 'time-limit' | 'numerical-error';

interface QpResultFields {
  /** ½x'Px + q'x at the returned x (unscaled) */
  readonly objective: number;
  readonly iterations: number;
  /** max over rows of how far Ax lies outside [l, u] (unscaled, absolute) */
  readonly maxViolation: number;
  /** ‖primal residual‖∞ of the interior-point iterate (includes slacks), unscaled */
  readonly primalResidual: number;
  /** ‖Px + q + A'y‖∞, unscaled */
  readonly dualResidual: number;
  /** mean complementarity s'z / (number of inequality bounds), unscaled */
  readonly complementarity: number;
  /** primal solution (length n); owned by the solver and overwritten by the next solve */
  readonly x: Float64Array;
  /** constraint multipliers in OSQP's sign convention (y > 0 at an active upper bound); length m */
  readonly y: Float64Array;
  /**
   * True when x, y are the verified active-set polish of the interior point's iterate (the optimum
   * of the equality-constrained QP on the guessed active rows, checked against every row, the
   * multipliers' signs and stationarity); false when they are the interior point's own iterate.
   */
  readonly polished: boolean;
}

/** The outcome of a solve. `x`/`y` hold the last iterate also when the solve failed. */
export type QpResult =
  | (QpResultFields & { readonly status: 'solved' })
  | (QpResultFields & { readonly status: 'infeasible'; readonly reason: string })
  | (QpResultFields & { readonly status: 'max-iterations'; readonly reason: string })
  | (QpResultFields & { readonly status: 'time-limit'; readonly reason: string })
  | (QpResultFields & { readonly status: 'numerical-error'; readonly reason: string });

export interface QpSolveOptions {
  /** iteration cap (default 50) */
  readonly maxIterations?: number;
  /**
   * Time cap supplied from outside (the core never reads a clock): called once per iteration;
   * returning true stops the solve with status 'time-limit'.
   */
  readonly deadline?: () => boolean;
  /**
   * Primal starting point (length n), e.g. the previous chunk's solution shifted by the executed
   * steps. Slacks and multipliers are then started close to it; without it the solve starts cold.
   */
  readonly warmStart?: Float64Array;
  /**
   * Multipliers y (length m, OSQP sign as in the result) to start from, with `warmStart`: e.g. the
   * previous solve of a problem that differs only in some rows' values (SQP re-linearisation).
   */
  readonly warmStartDual?: Float64Array;
  /**
   * Active-set polish (default false). true: once the iterate passes the convergence test with the
   * tolerances × 1e3, solve the equality-constrained QP on the guessed active rows (with up to two
   * active-set corrections) and return it if it passes the convergence test on the whole problem,
   * its rows met to 1e-3 of the primal tolerance (else the interior point goes on). It pays at tight
   * tolerances (1e-9: ~12 % fewer iterations on the generator's QPs), not at the chunk filter's 1e-6
   * on its degenerate CBF rows (more CPU than it saves; bench/RESULTS.md "Active-set polish").
   */
  readonly polish?: boolean;
  /**
   * With `warmStart` and `warmStartDual`: before the first interior-point step, polish once with the
   * active set of the solve that gave the multipliers (rows with y ≠ 0) — in an SQP whose rounds
   * keep their active set the round is then solved by that factorisation (default false).
   */
  readonly polishFromWarmStart?: boolean;
  /**
   * Continue from the iterate the previous solve stopped at instead of starting anew — e.g. the same
   * problem at a tighter tolerance after a loose solve. The problem must be the one last solved,
   * unchanged since (its scaled data are reused, not reloaded); `warmStart`/`warmStartDual` are
   * ignored. Without a previous solve that loaded its data, or after a polished one (its point is
   * not an interior iterate), or for another problem object than the one loaded: status
   * 'numerical-error'.
   */
  readonly resume?: boolean;
  /** absolute tolerance on residuals and complementarity (default 1e-9) */
  readonly epsAbs?: number;
  /** relative tolerance (default 1e-9) */
  readonly epsRel?: number;
}

/**
 * A solve-options object a caller keeps and rewrites between solves (a filter's rounds): every
 * field of QpSolveOptions present from creation, undefined where unset.
 */
export type ReusableQpSolveOptions = { [K in QpSolveOptionName]: QpSolveOptions[K] | undefined };

/** The fields of QpSolveOptions (a key union of its own: mapping over it copies no `?`/`readonly`). */
type QpSolveOptionName = keyof QpSolveOptions;

/**
 * `init` as a ReusableQpSolveOptions with every field, always in one order. An options object that
 * gains fields as it is reused (a warm start, `resume`, a deadline) takes a new hidden class on some
 * paths, and V8 throws away `QpSolver.solve`'s optimised code the first time it sees one it had not
 * seen (with the group assembly's, normal-equations.ts, the fragile pilot's first bent chunk took
 * 25–32 ms instead of ~13).
 */
export function reusableSolveOptions(init: QpSolveOptions): ReusableQpSolveOptions {
  return {
    maxIterations: init.maxIterations,
    epsAbs: init.epsAbs,
    epsRel: init.epsRel,
    deadline: init.deadline,
    warmStart: init.warmStart,
    warmStartDual: init.warmStartDual,
    polish: init.polish,
    polishFromWarmStart: init.polishFromWarmStart,
    resume: init.resume,
  };
}
