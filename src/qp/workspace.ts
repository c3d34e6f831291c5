/**
 * The interior point's memory: one {@link QpWorkspace} per solver, allocated once per shape, so a
 * solve allocates nothing.
 *
 * Every per-row vector lives in `rows`, one Float64Array, slot k at [k·m, (k+1)·m); code reaches a
 * row vector only as `rows[SLOT * m + i]` (no other view exists). The hot loops index it directly
 * because V8 reloads a typed array's base and length on every access inside a loop that stores, so
 * a loop over 17 separate arrays ran about twice as slow as the same loop over one (measured on
 * this machine).
 */

// --- row-vector slots (index into QpWorkspace.rows in units of m) ---
// scaled data of the current problem (problem-data.ts)
/** scaled lower / upper bound (equality rows: both the scaled value) */
export const R_LO = 0;
export const R_HI = 1;
/** 1 where the row has a finite lower (upper) inequality bound, else 0: keeps hot loops branch-free */
export const R_HASL = 2;
export const R_HASU = 3;
/** 1/E: unscaling factor of row residuals */
export const R_INVE = 4;
// iterate: slacks and multipliers of the lower and upper bounds, equality multipliers, A·x
export const R_SL = 5;
export const R_ZL = 6;
export const R_SU = 7;
export const R_ZU = 8;
export const R_YE = 9;
export const R_AX = 10;
// Newton direction: dsL, dzL, dsU, dzU are consecutive (a Gondzio trial saves and restores them as one block)
export const R_DSL = 11;
export const R_DZL = 12;
export const R_DSU = 13;
export const R_DZU = 14;
export const R_ADX = 15;
export const R_DYE = 16;
// per-iteration work
/** primal residuals of the lower / upper bound (equality residual in R_RPL) */
export const R_RPL = 17;
export const R_RPU = 18;
/** λ = zL − zU + yE */
export const R_LAM = 19;
/** 1/s where the bound exists, 0 otherwise */
export const R_INVSL = 20;
export const R_INVSU = 21;
/** row weights W of the normal matrix */
export const R_W = 22;
/** complementarity right-hand sides s∘z − target */
export const R_RCL = 23;
export const R_RCU = 24;
/** reduced right-hand side of the normal equations, per row */
export const R_G = 25;
/** zero primal residuals of a centrality corrector */
export const R_ZEROROWS = 26;
/** the Mehrotra direction's dsL, dzL, dsU, dzU (consecutive, as R_DSL..R_DZU), A·dx and dyE during a Gondzio trial */
export const R_KEEP_DSL = 27;
export const R_KEEP_ADX = 31;
export const R_KEEP_DYE = 32;
export const ROW_VECTORS = 33;

/** how a row is bounded (QpWorkspace.rowKind) */
export const ROW_FREE = 0;
export const ROW_LOWER = 1;
export const ROW_UPPER = 2;
export const ROW_BOTH = 3;
export const ROW_EQUAL = 4;

/**
 * The solver's state. Scalars that travel between the steps of an iteration are fields (set to a
 * non-integer at construction so V8 keeps them as doubles), so the hot path boxes no numbers.
 */
export class QpWorkspace {
  readonly n: number;
  readonly m: number;
  /** every per-row vector, slot by slot (see the R_* slots) */
  readonly rows: Float64Array;

  // scaled problem data (problem-data.ts)
  /** P's values (upper triangle, CSC order) */
  readonly Pv: Float64Array;
  /** A's values in CSC order (A'·r) and row by row in rowView order (A·v, normal-matrix assembly) */
  readonly Av: Float64Array;
  readonly rowValues: Float64Array;
  readonly qs: Float64Array;
  readonly rowKind: Uint8Array;
  /** equality rows (l = u), the first eqCount entries */
  readonly eqRows: Int32Array;
  eqCount = 0;
  /** number of finite inequality bounds */
  nBounds = 0;
  /** 1/(c·D): unscaling factor of dual residuals, per variable */
  readonly dualUnscale: Float64Array;

  // per-variable vectors
  readonly x: Float64Array;
  readonly dx: Float64Array;
  /** P·x (and P·dx in refinement and the unboundedness test) */
  readonly px: Float64Array;
  /** A'λ */
  readonly atl: Float64Array;
  /** dual residual P x + q − A'λ */
  readonly rd: Float64Array;
  /** right-hand side A'g of the normal equations, and refinement's correction */
  readonly rhs: Float64Array;
  /** zero dual residual of a centrality corrector */
  readonly zeroVars: Float64Array;
  /** dx of the Mehrotra direction while a Gondzio corrector is tried on top of it */
  readonly keepDx: Float64Array;

  // scalars between steps
  /** largest row weight of the last factorisation */
  maxWeight = 0.5;
  /** from residuals(): unscaled ‖primal residual‖∞ and ‖Ax‖∞, scaled s'z */
  primRes = 0.5;
  axNorm = 0.5;
  gap = 0.5;
  /** from a direction: largest feasible step, and Σ ds dz (affine gap polynomial) */
  stepMax = 0.5;
  gapCurve = 0.5;
  /** σμ of the current corrector */
  sigmaMu = 0.5;

  constructor(n: number, m: number, pNonzeros: number, aNonzeros: number) {
    this.n = n;
    this.m = m;
    this.rows = new Float64Array(ROW_VECTORS * m);
    this.Pv = new Float64Array(pNonzeros);
    this.Av = new Float64Array(aNonzeros);
    this.rowValues = new Float64Array(aNonzeros);
    this.qs = new Float64Array(n);
    this.rowKind = new Uint8Array(m);
    this.eqRows = new Int32Array(m);
    this.dualUnscale = new Float64Array(n);
    this.x = new Float64Array(n);
    this.dx = new Float64Array(n);
    this.px = new Float64Array(n);
    this.atl = new Float64Array(n);
    this.rd = new Float64Array(n);
    this.rhs = new Float64Array(n);
    this.zeroVars = new Float64Array(n);
    this.keepDx = new Float64Array(n);
  }
}
