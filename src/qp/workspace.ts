import { multiplyRows, multiplySymmetric, multiplyTransposed } from './kernels.js';
import type { RowView } from './structure.js';
import type { CscMatrix } from './types.js';

/*
 * Slots of QpWorkspace.rows: every per-row vector lives in one Float64Array, slot k at
 * [k·m, (k+1)·m), and is reached only that way (there are no per-vector views). Code indexes the
 * array with offsets it computes once per call (`const oSL = R_SL * m`, never `R_SL * m` inside a
 * loop: these are imported module bindings), because V8 reloads a typed array's base and length on
 * every access inside a loop that stores, so a loop over 17 separate arrays ran about twice as slow
 * as the same loop over one (measured on this machine; bench/RESULTS.md "QP solver split").
 */
export const R_SL = 0;
export const R_ZL = 1;
export const R_SU = 2;
export const R_ZU = 3;
export const R_DSL = 4;
export const R_DZL = 5;
export const R_DSU = 6;
export const R_DZU = 7;
export const R_RCL = 8;
export const R_RCU = 9;
export const R_INVSL = 10;
export const R_INVSU = 11;
export const R_HASL = 12;
export const R_HASU = 13;
export const R_RPL = 14;
export const R_RPU = 15;
export const R_ADX = 16;
export const R_G = 17;
export const R_AX = 18;
export const R_LO = 19;
export const R_HI = 20;
export const R_YE = 21;
export const R_DYE = 22;
export const R_W = 23;
export const R_ZEROROWS = 24;
export const R_LAM = 25;
export const R_INVE = 26;
/** the Mehrotra direction's dsL, dzL, dsU, dzU (consecutive, as R_DSL..R_DZU), A·dx and dyE during a Gondzio trial */
export const R_KEEP_DSL = 27;
export const R_KEEP_ADX = 31;
export const R_KEEP_DYE = 32;
const ROW_VECTORS = 33;

/** kind of a row's bounds (QpWorkspace.rowKind) */
export const ROW_FREE = 0;
export const ROW_LOWER = 1;
export const ROW_UPPER = 2;
export const ROW_BOTH = 3;
export const ROW_EQUAL = 4;

/**
 * Everything one solver shape computes with, allocated once: the scaled problem data, the iterate,
 * the Newton direction and the work vectors, plus the scalars the iteration steps pass to each
 * other (fields, so the hot path boxes no numbers). The per-row vectors are owned by `rows` and
 * reached through their R_* slot offsets only; the per-variable vectors are fields.
 */
export class QpWorkspace {
  readonly n: number;
  readonly m: number;
  /** patterns of P (upper triangle) and A, and A by rows */
  readonly P: CscMatrix;
  readonly A: CscMatrix;
  readonly rowsOfA: RowView;
  /** all per-row vectors, slot by slot (see R_*) */
  readonly rows: Float64Array;

  // scaled data
  readonly Pv: Float64Array;
  readonly Av: Float64Array;
  /** A's scaled values row by row (rowsOfA order), for gathers and the normal matrix */
  readonly rowValues: Float64Array;
  /**
   * A's entries in the rows that have a bound (every row but ROW_FREE), column by column in A's
   * order: pattern (boundedColPtr, boundedRowIndex) and scaled values. Products A'r whose r is zero
   * on every free row (the multipliers λ, the reduced right-hand side g: a free row has s = 1, z = 0
   * and 1/s weight 0) skip the free rows' terms — each is ±0, so the sums are the same to the bit.
   * The chunk CBF's screen frees 10–40 % of its rows. Rebuilt by loadScaledData.
   */
  readonly boundedColPtr: Int32Array;
  readonly boundedRowIndex: Int32Array;
  readonly boundedValues: Float64Array;
  /** the bounded rows' pattern as a matrix (its `values` are boundedValues) */
  private readonly boundedA: CscMatrix;
  readonly qs: Float64Array;
  readonly rowKind: Uint8Array;
  /** equality rows (l = u), the first eqCount entries */
  readonly eqRows: Int32Array;
  eqCount = 0;
  /** number of finite inequality bounds */
  nBounds = 0;
  /** 1/(c·D) per variable: unscaling factor of dual residuals, per solve */
  readonly dualUnscale: Float64Array;

  // per-variable vectors
  readonly x: Float64Array;
  readonly dx: Float64Array;
  readonly px: Float64Array;
  readonly atl: Float64Array;
  readonly rd: Float64Array;
  readonly rhs: Float64Array;
  readonly perm: Float64Array;
  readonly zeroVars: Float64Array;
  /** dx of the Mehrotra direction while a Gondzio corrector is tried on top of it (the row parts are slots R_KEEP_*) */
  readonly keep: Float64Array;

  /** largest row weight of the last factorisation */
  maxWeight = 0;
  /** from residuals(): unscaled ‖primal residual‖∞ and ‖Ax‖∞, scaled s'z */
  primRes = 0.5;
  axNorm = 0.5;
  gap = 0.5;
  /** from a Newton direction: largest feasible step, and Σ ds dz (affine gap polynomial) */
  stepMax = 0.5;
  gapCurve = 0.5;
  /** σμ of the current corrector */
  sigmaMu = 0.5;

  constructor(P: CscMatrix, A: CscMatrix, rowsOfA: RowView) {
    const n = P.cols;
    const m = A.rows;
    this.n = n;
    this.m = m;
    this.P = P;
    this.A = A;
    this.rowsOfA = rowsOfA;
    this.rows = new Float64Array(ROW_VECTORS * m);
    const annz = A.colPtr[n]!;
    this.Pv = new Float64Array(P.colPtr[n]!);
    this.Av = new Float64Array(annz);
    this.rowValues = new Float64Array(annz);
    this.boundedColPtr = new Int32Array(n + 1);
    this.boundedRowIndex = new Int32Array(annz);
    this.boundedValues = new Float64Array(annz);
    this.boundedA = {
      rows: m,
      cols: n,
      colPtr: this.boundedColPtr,
      rowIndex: this.boundedRowIndex,
      values: this.boundedValues,
    };
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
    this.perm = new Float64Array(n);
    this.zeroVars = new Float64Array(n);
    this.keep = new Float64Array(n);
  }

  /** row slot `outSlot` = Ā v (row-major copy of Ā: gathers, no scatter) */
  multiplyA(v: Float64Array, outSlot: number): void {
    multiplyRows(this.m, this.rowsOfA, this.rowValues, v, this.rows, outSlot * this.m);
  }

  /** out = P̄ v with the upper-triangle storage of P̄ */
  multiplyP(v: Float64Array, outVars: Float64Array): void {
    multiplySymmetric(this.P, this.Pv, v, outVars);
  }

  /** out = Ā' r, r the row slot `inSlot`, which must be zero on every free row (the bounded rows' terms only) */
  multiplyAT(inSlot: number, outVars: Float64Array): void {
    multiplyTransposed(this.boundedA, this.boundedValues, this.rows, inSlot * this.m, outVars);
  }
}
