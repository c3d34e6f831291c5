import { ArmguardError } from '../util/errors.js';
import { BlockTridiagonal } from './block-tridiagonal.js';
import { RuizScaling } from './scaling.js';
import { detectStructure, rowView } from './structure.js';
import type { QpStructure, RowView } from './structure.js';
import { INFINITE_BOUND } from './types.js';
import { copyPattern, samePattern, validateCsc } from './csc.js';
import { multiplyRows, multiplySymmetric, multiplyTransposed } from './kernels.js';
import type { CscMatrix, QpProblem, QpResult, QpSolveOptions, QpStatus } from './types.js';

/**
 * Every per-row vector lives in one Float64Array (rowData), slot k at [k·m, (k+1)·m). The fields
 * below are views of it for the cold code; the hot loops index rowData directly, because V8 reloads
 * a typed array's base and length on every access inside a loop that stores, so a loop over 17
 * separate arrays ran about twice as slow as the same loop over one (measured on this machine).
 */
const R_SL = 0;
const R_ZL = 1;
const R_SU = 2;
const R_ZU = 3;
const R_DSL = 4;
const R_DZL = 5;
const R_DSU = 6;
const R_DZU = 7;
const R_RCL = 8;
const R_RCU = 9;
const R_INVSL = 10;
const R_INVSU = 11;
const R_HASL = 12;
const R_HASU = 13;
const R_RPL = 14;
const R_RPU = 15;
const R_ADX = 16;
const R_G = 17;
const R_AX = 18;
const R_LO = 19;
const R_HI = 20;
const R_YE = 21;
const R_DYE = 22;
const R_W = 23;
const R_ZEROROWS = 24;
const R_LAM = 25;
const R_INVE = 26;
/** the Mehrotra direction's dsL, dzL, dsU, dzU (consecutive, as R_DSL..R_DZU), A·dx and dyE during a Gondzio trial */
const R_KEEP_DSL = 27;
const R_KEEP_ADX = 31;
const R_KEEP_DYE = 32;
const ROW_VECTORS = 33;

const ROW_FREE = 0;
const ROW_LOWER = 1;
const ROW_UPPER = 2;
const ROW_BOTH = 3;
const ROW_EQUAL = 4;

/** equality rows enter the normal matrix with weight 1/EQ_REG (regularised KKT, scaled space) */
const EQ_REG = 1e-9;
/** primal regularisation of the normal matrix (scaled space) */
const PRIMAL_REG = 1e-11;
/** fraction of the way to the boundary a step may go */
const STEP_TO_BOUNDARY = 0.995;
const DEFAULT_MAX_ITERATIONS = 50;
/**
 * Ruiz passes. The interior point is invariant to variable scaling from its x = 0 start and fairly
 * insensitive to row scaling; on the generator's sequences 0, 1, 2, 3, 5, 10 and 15 passes all
 * converged, 2 as fast as any, and each pass costs a sweep over P and A per solve.
 */
const RUIZ_ITERATIONS = 2;
/** refine Newton directions only once some row weight z/s exceeds this (scaled) */
const REFINE_ABOVE_WEIGHT = 1e6;
/** Gondzio centrality correctors per iteration (tried only when the step is short) */
const GONDZIO_CORRECTORS = 2;
const GONDZIO_BETA_MIN = 0.1;
const GONDZIO_BETA_MAX = 10;
/** a second refinement pass once weights exceed this (the last iterations before convergence) */
const REFINE_TWICE_ABOVE_WEIGHT = 1e10;
const DEFAULT_EPS = 1e-9;
/** relative tolerance of the primal infeasibility certificate */
const EPS_INFEASIBLE = 1e-8;

interface MutableResult {
  status: QpStatus;
  reason: string;
  objective: number;
  iterations: number;
  maxViolation: number;
  primalResidual: number;
  dualResidual: number;
  complementarity: number;
  x: Float64Array;
  y: Float64Array;
}

const NO_OPTIONS: QpSolveOptions = {};

/** complementarity right-hand side of a Newton direction */
const PREDICTOR = 0;
const CORRECTOR = 1;
const CENTRALITY = 2;

/** Gondzio's target change of a complementarity product v: into [lo, hi], large ones by at most hi */
function centralityTarget(v: number, lo: number, hi: number): number {
  if (v < lo) return lo - v;
  if (v > hi) return Math.max(hi - v, -hi);
  return 0;
}
/** slack floor of the starting point (scaled space), cold and warm */
const COLD_SLACK_FLOOR = 1;
const WARM_SLACK_FLOOR = 1e-2;
/** multiplier floor of a dual warm start and of the centred start (scaled); 1e-1 and 1e-2 needed more iterations on SQP rounds */
const WARM_DUAL_FLOOR = 1e-3;
/**
 * Without a dual warm start, multipliers start at z = CENTRED_PRODUCT·floor/s (at least
 * WARM_DUAL_FLOOR), so every complementarity product starts equal instead of z = 1 (s·z = s, spread
 * over orders of magnitude). On the generator's --seq 20 problems (cold, 4 pairs) 10.35 instead of
 * 11.4 iterations per solve; in the chunk filter (primal warm start) 13 % fewer iterations in all
 * and 22 instead of 29 for the 99th-percentile chunk. 0.5 and 1 were slightly worse, 0.1 and below
 * much worse in the filter.
 */
const CENTRED_PRODUCT = 0.3;

function isLowerFinite(v: number): boolean {
  return v > -INFINITE_BOUND;
}
function isUpperFinite(v: number): boolean {
  return v < INFINITE_BOUND;
}

/**
 * Primal-dual interior-point solver (Mehrotra predictor-corrector) for one problem shape (the
 * sparsity patterns of P and A). All memory is allocated here; {@link QpSolver.solve} allocates
 * nothing and returns a result object owned by the solver (overwritten by the next solve).
 *
 * Each Newton system is reduced to the normal equations (P + A'WA) dx = r, whose matrix is
 * block-tridiagonal in the detected stage order and is factorised with {@link BlockTridiagonal}.
 * Inequalities l ≤ a'x, a'x ≤ u get their own slack and multiplier; equality rows enter through a
 * regularised (quasi-definite) KKT elimination with weight 1/EQ_REG.
 */
export class QpSolver {
  readonly n: number;
  readonly m: number;
  readonly structure: QpStructure;

  private readonly P: CscMatrix;
  private readonly A: CscMatrix;
  private readonly rows: RowView;
  private readonly kkt: BlockTridiagonal;
  private readonly scaling: RuizScaling;
  /** P nnz → offset in kkt.values */
  private readonly pTarget: Int32Array;
  /** per row, where each product a_r a_c (r ≥ c in row order) lands in kkt.values */
  private readonly rowPairStart: Int32Array;
  private readonly pairTarget: Int32Array;
  /** kkt offset of every diagonal element, by variable */
  private readonly diagTarget: Int32Array;

  // scaled data
  private readonly Pv: Float64Array;
  private readonly Av: Float64Array;
  private readonly qs: Float64Array;
  private readonly lo: Float64Array;
  private readonly hi: Float64Array;
  private readonly rowKind: Uint8Array;
  /** 1 where the row has a finite lower (upper) inequality bound, else 0: keeps hot loops branch-free */
  private readonly hasL: Float64Array;
  private readonly hasU: Float64Array;
  /** equality rows (l = u), the first eqCount entries */
  private readonly eqRows: Int32Array;
  private eqCount = 0;
  /** number of finite inequality bounds */
  private nBounds = 0;
  /** 1/s where the bound exists, 0 otherwise (per iteration) */
  private readonly invSL: Float64Array;
  private readonly invSU: Float64Array;
  /** 1/E (rows) and 1/(c·D) (variables): unscaling factors of residuals, per solve */
  private readonly invE: Float64Array;
  private readonly dualUnscale: Float64Array;
  // iterate (scaled)
  private readonly x: Float64Array;
  private readonly sL: Float64Array;
  private readonly zL: Float64Array;
  private readonly sU: Float64Array;
  private readonly zU: Float64Array;
  private readonly yE: Float64Array;
  // direction
  private readonly dx: Float64Array;
  private readonly dsL: Float64Array;
  private readonly dzL: Float64Array;
  private readonly dsU: Float64Array;
  private readonly dzU: Float64Array;
  private readonly dyE: Float64Array;
  // work
  private readonly ax: Float64Array;
  private readonly px: Float64Array;
  private readonly atl: Float64Array;
  private readonly rd: Float64Array;
  private readonly rpL: Float64Array;
  private readonly rpU: Float64Array;
  private readonly rcL: Float64Array;
  private readonly rcU: Float64Array;
  private readonly w: Float64Array;
  private readonly g: Float64Array;
  private readonly adx: Float64Array;
  private readonly rhs: Float64Array;
  private readonly perm: Float64Array;
  private readonly lam: Float64Array;
  private readonly zeroRows: Float64Array;
  private readonly zeroVars: Float64Array;
  /** dx of the Mehrotra direction while a Gondzio corrector is tried on top of it (the row parts are rowData slots R_KEEP_*) */
  private readonly keep: Float64Array;
  private readonly out: MutableResult;
  /** largest row weight of the last factorisation */
  private maxWeight = 0;
  /** from residuals(): unscaled ‖primal residual‖∞ and ‖Ax‖∞, scaled s'z */
  private primRes = 0.5;
  private axNorm = 0.5;
  private gap = 0.5;
  /** from direction(): largest feasible step, and Σ ds dz (affine gap polynomial) */
  private stepMax = 0.5;
  private gapCurve = 0.5;
  /** σμ of the current corrector */
  private sigmaMu = 0.5;
  /** all per-row vectors, slot by slot (see R_*) */
  private readonly rowData: Float64Array;
  /** A's values row by row (rowView order), for assembling the normal matrix */
  private readonly rowValues: Float64Array;

  constructor(shape: Pick<QpProblem, 'n' | 'm' | 'P' | 'A' | 'stageHint'>) {
    const { n, m } = shape;
    if (!Number.isInteger(n) || n < 0 || !Number.isInteger(m) || m < 0) throw new ArmguardError(`QP dimensions n=${n}, m=${m} must be non-negative integers`);
    validateCsc('P', shape.P, n, n, true);
    validateCsc('A', shape.A, m, n, false);
    this.n = n;
    this.m = m;
    this.P = copyPattern(shape.P);
    this.A = copyPattern(shape.A);
    this.rows = rowView(this.A);
    this.structure = detectStructure({ P: this.P, A: this.A, stageHint: shape.stageHint }, this.rows);
    const st = this.structure;
    this.kkt = new BlockTridiagonal(st.stageStart);
    this.scaling = new RuizScaling(n, m, RUIZ_ITERATIONS);

    const pnnz = this.P.colPtr[n]!;
    this.pTarget = new Int32Array(pnnz);
    for (let j = 0; j < n; j++) {
      for (let t = this.P.colPtr[j]!; t < this.P.colPtr[j + 1]!; t++) {
        this.pTarget[t] = this.kkt.offsetOf(st.positionOf[this.P.rowIndex[t]!]!, st.positionOf[j]!, st.stageOfPosition);
      }
    }
    this.diagTarget = new Int32Array(n);
    for (let j = 0; j < n; j++) this.diagTarget[j] = this.kkt.offsetOf(st.positionOf[j]!, st.positionOf[j]!, st.stageOfPosition);
    const rs = this.rows.rowStart;
    this.rowPairStart = new Int32Array(m + 1);
    for (let i = 0; i < m; i++) {
      const k = rs[i + 1]! - rs[i]!;
      this.rowPairStart[i + 1] = this.rowPairStart[i]! + (k * (k + 1)) / 2;
    }
    const npairs = this.rowPairStart[m]!;
    this.pairTarget = new Int32Array(npairs);
    let at = 0;
    for (let i = 0; i < m; i++) {
      for (let e1 = rs[i]!; e1 < rs[i + 1]!; e1++) {
        for (let e2 = rs[i]!; e2 <= e1; e2++) {
          const off = this.kkt.offsetOf(st.positionOf[this.rows.column[e1]!]!, st.positionOf[this.rows.column[e2]!]!, st.stageOfPosition);
          if (off < 0) throw new ArmguardError(`internal: row ${i} of A does not fit the stage structure`);
          this.pairTarget[at] = off;
          at++;
        }
      }
    }
    this.rowData = new Float64Array(ROW_VECTORS * m);
    const row = (slot: number): Float64Array => this.rowData.subarray(slot * m, (slot + 1) * m);
    this.sL = row(R_SL);
    this.zL = row(R_ZL);
    this.sU = row(R_SU);
    this.zU = row(R_ZU);
    this.dsL = row(R_DSL);
    this.dzL = row(R_DZL);
    this.dsU = row(R_DSU);
    this.dzU = row(R_DZU);
    this.rcL = row(R_RCL);
    this.rcU = row(R_RCU);
    this.invSL = row(R_INVSL);
    this.invSU = row(R_INVSU);
    this.hasL = row(R_HASL);
    this.hasU = row(R_HASU);
    this.rpL = row(R_RPL);
    this.rpU = row(R_RPU);
    this.adx = row(R_ADX);
    this.g = row(R_G);
    this.ax = row(R_AX);
    this.lo = row(R_LO);
    this.hi = row(R_HI);
    this.yE = row(R_YE);
    this.dyE = row(R_DYE);
    this.w = row(R_W);
    this.zeroRows = row(R_ZEROROWS);
    this.lam = row(R_LAM);
    this.invE = row(R_INVE);
    this.Pv = new Float64Array(pnnz);
    this.Av = new Float64Array(this.A.colPtr[n]!);
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
    this.rowValues = new Float64Array(this.A.colPtr[n]!);
    this.zeroVars = new Float64Array(n);
    this.keep = new Float64Array(n);
    this.out = {
      status: 'numerical-error',
      reason: 'not solved yet',
      objective: NaN,
      iterations: 0,
      maxViolation: NaN,
      primalResidual: NaN,
      dualResidual: NaN,
      complementarity: NaN,
      x: new Float64Array(n),
      y: new Float64Array(m),
    };
  }

  /** True if `problem` has this solver's shape (dimensions and sparsity patterns of P and A). */
  accepts(problem: Pick<QpProblem, 'n' | 'm' | 'P' | 'A'>): boolean {
    return problem.n === this.n && problem.m === this.m && samePattern(problem.P, this.P) && samePattern(problem.A, this.A);
  }

  /**
   * Solves `problem`, which must have this solver's shape (else throws: that is a wiring error,
   * not data). Bad data (NaN/∞ in P, q, A; NaN bounds; q, l or u too short) gives status 'numerical-error', l > u gives
   * 'infeasible'. The returned object is reused by the next call.
   */
  solve(problem: QpProblem, options: QpSolveOptions = NO_OPTIONS): QpResult {
    if (!this.accepts(problem)) throw new ArmguardError('QP does not have the shape this solver was built for (n, m or sparsity of P/A differ)');
    const maxIterations = options.maxIterations ?? DEFAULT_MAX_ITERATIONS;
    const epsAbs = options.epsAbs ?? DEFAULT_EPS;
    const epsRel = options.epsRel ?? DEFAULT_EPS;
    const deadline = options.deadline;
    const { n, m, out } = this;
    out.iterations = 0;

    const bad = this.loadData(problem);
    if (bad !== undefined) return this.finish(problem, bad.status, bad.reason);
    this.initialise(options.warmStart, options.warmStartDual);

    const { x, yE, lo, hi, invE, dualUnscale } = this;
    const c = this.scaling.c;
    const nBounds = this.nBounds;
    let boundsNorm = 0;
    for (let i = 0; i < m; i++) boundsNorm = Math.max(boundsNorm, Math.abs(lo[i]! * invE[i]!), Math.abs(hi[i]! * invE[i]!));

    let previousPrimRes = Infinity;
    for (let iter = 0; ; iter++) {
      out.iterations = iter;
      this.residuals();
      // convergence, in unscaled terms
      const primRes = this.primRes;
      const axNorm = this.axNorm;
      const gap = this.gap;
      let dualRes = 0;
      let dualScale = 0;
      for (let j = 0; j < n; j++) {
        const s = dualUnscale[j]!;
        dualRes = Math.max(dualRes, Math.abs(this.rd[j]! * s));
        dualScale = Math.max(dualScale, Math.abs(this.px[j]! * s), Math.abs(this.atl[j]! * s), Math.abs(this.qs[j]! * s));
      }
      const mu = nBounds > 0 ? gap / nBounds : 0;
      let objScaled = 0;
      for (let j = 0; j < n; j++) objScaled += x[j]! * (0.5 * this.px[j]! + this.qs[j]!);
      const objective = objScaled / c;
      out.primalResidual = primRes;
      out.dualResidual = dualRes;
      out.complementarity = mu / c;
      if (
        primRes <= epsAbs + epsRel * Math.max(axNorm, boundsNorm) &&
        dualRes <= epsAbs + epsRel * dualScale &&
        gap / c <= epsAbs + epsRel * Math.abs(objective)
      ) {
        return this.finish(problem, 'solved', '');
      }
      if (!Number.isFinite(primRes + dualRes + gap)) return this.finish(problem, 'numerical-error', 'iterate became non-finite');
      // a converging primal residual rules out a primal certificate; check when it stalls
      const stalled = primRes > epsAbs && primRes > 0.5 * previousPrimRes;
      previousPrimRes = primRes;
      if (stalled && this.certifiesInfeasible()) return this.finish(problem, 'infeasible', 'primal infeasibility certificate: A\'y ≈ 0 with u\'y₊ + l\'y₋ < 0');
      if (!(iter < maxIterations)) return this.finish(problem, 'max-iterations', 'iteration cap reached before convergence');
      if (deadline !== undefined && deadline()) return this.finish(problem, 'time-limit', 'deadline reached before convergence');

      if (!this.factorise()) return this.finish(problem, 'numerical-error', 'normal-equation factorisation failed (non-finite values)');
      // predictor (affine scaling) direction
      this.direction(PREDICTOR);
      const alphaAff = this.stepMax;
      // the affine direction's complementarity: Σ(s + α ds)(z + α dz) = (1 − α)·gap + α²·Σ ds dz
      const gapAff = (1 - alphaAff) * gap + alphaAff * alphaAff * this.gapCurve;
      const muAff = nBounds > 0 ? gapAff / nBounds : 0;
      const ratio = mu > 0 ? Math.max(0, muAff / mu) : 0;
      // never aim below a tenth of the tolerated gap: deeper centring only inflates z/s and
      // the normal equations' conditioning without improving the answer
      const muFloor = nBounds > 0 ? (0.1 * c * (epsAbs + epsRel * Math.abs(objective))) / nBounds : 0;
      const sigmaMu = Math.max(ratio * ratio * ratio * mu, muFloor);
      // corrector (Mehrotra): centring plus second-order term of the affine step
      this.sigmaMu = sigmaMu;
      this.direction(CORRECTOR);
      for (let k = 0; k < GONDZIO_CORRECTORS && this.stepMax < 0.9; k++) if (!this.centralityCorrector()) break;
      if (this.maxWeight > REFINE_ABOVE_WEIGHT) {
        const steps = this.maxWeight > REFINE_TWICE_ABOVE_WEIGHT ? 2 : 1;
        for (let k = 0; k < steps; k++) this.refine();
        this.updateStepMax();
      }
      const alpha = Math.min(1, STEP_TO_BOUNDARY * this.stepMax);
      if (!(alpha > 0)) return this.finish(problem, 'numerical-error', 'step length collapsed to zero');
      if (iter % 4 === 3 && this.certifiesUnbounded()) return this.finish(problem, 'infeasible', 'dual infeasible (unbounded below): direction d with Pd ≈ 0, q\'d < 0, Ad within the bounds\' recession cone');
      for (let j = 0; j < n; j++) x[j]! += alpha * this.dx[j]!;
      const D = this.rowData;
      for (let i = 0; i < m; i++) {
        D[R_AX * m + i]! += alpha * D[R_ADX * m + i]!;
        D[R_SL * m + i]! += alpha * D[R_DSL * m + i]!;
        D[R_ZL * m + i]! += alpha * D[R_DZL * m + i]!;
        D[R_SU * m + i]! += alpha * D[R_DSU * m + i]!;
        D[R_ZU * m + i]! += alpha * D[R_DZU * m + i]!;
      }
      for (let k = 0; k < this.eqCount; k++) {
        const i = this.eqRows[k]!;
        yE[i]! += alpha * this.dyE[i]!;
      }
    }
  }

  /** Copies and scales the problem data; returns a failure if the data are unusable. */
  private loadData(problem: QpProblem): { status: QpStatus; reason: string } | undefined {
    const { n, m, Pv, Av, qs, lo, hi, rowKind } = this;
    if (problem.q.length < n) return { status: 'numerical-error', reason: `q has ${problem.q.length} entries, expected ${n}` };
    if (problem.l.length < m) return { status: 'numerical-error', reason: `l has ${problem.l.length} entries, expected ${m}` };
    if (problem.u.length < m) return { status: 'numerical-error', reason: `u has ${problem.u.length} entries, expected ${m}` };
    const pnnz = Pv.length;
    const pVals = problem.P.values;
    for (let t = 0; t < pnnz; t++) {
      const v = pVals[t]!;
      if (!Number.isFinite(v)) return { status: 'numerical-error', reason: `P has a non-finite value at entry ${t}` };
      Pv[t] = v;
    }
    const aVals = problem.A.values;
    for (let t = 0; t < Av.length; t++) {
      const v = aVals[t]!;
      if (!Number.isFinite(v)) return { status: 'numerical-error', reason: `A has a non-finite value at entry ${t}` };
      Av[t] = v;
    }
    for (let j = 0; j < n; j++) {
      const v = problem.q[j]!;
      if (!Number.isFinite(v)) return { status: 'numerical-error', reason: `q[${j}] is not finite` };
      qs[j] = v;
    }
    for (let i = 0; i < m; i++) {
      const l = problem.l[i]!;
      const u = problem.u[i]!;
      if (Number.isNaN(l) || Number.isNaN(u)) return { status: 'numerical-error', reason: `bound of row ${i} is NaN` };
      if (l > u) return { status: 'infeasible', reason: `row ${i} has l > u` };
    }
    this.scaling.equilibrate(this.P, Pv, this.A, Av, qs);
    const { cscIndex } = this.rows;
    for (let e = 0; e < cscIndex.length; e++) this.rowValues[e] = Av[cscIndex[e]!]!;
    const { E, D, c } = this.scaling;
    let eqCount = 0;
    let nBounds = 0;
    for (let i = 0; i < m; i++) {
      const l = problem.l[i]!;
      const u = problem.u[i]!;
      const hasL = isLowerFinite(l);
      const hasU = isUpperFinite(u);
      this.invE[i] = 1 / E[i]!;
      if (hasL && hasU && u - l <= 1e-12 * Math.max(1, Math.abs(l), Math.abs(u))) {
        rowKind[i] = ROW_EQUAL;
        lo[i] = 0.5 * (l + u) * E[i]!;
        hi[i] = lo[i]!;
        this.hasL[i] = 0;
        this.hasU[i] = 0;
        this.eqRows[eqCount++] = i;
      } else {
        rowKind[i] = hasL ? (hasU ? ROW_BOTH : ROW_LOWER) : hasU ? ROW_UPPER : ROW_FREE;
        lo[i] = hasL ? l * E[i]! : 0;
        hi[i] = hasU ? u * E[i]! : 0;
        this.hasL[i] = hasL ? 1 : 0;
        this.hasU[i] = hasU ? 1 : 0;
        nBounds += (hasL ? 1 : 0) + (hasU ? 1 : 0);
      }
    }
    this.eqCount = eqCount;
    this.nBounds = nBounds;
    for (let j = 0; j < n; j++) this.dualUnscale[j] = 1 / (c * D[j]!);
    return undefined;
  }

  /**
   * Starting point: x from the warm start or 0 (in scaled space); slacks pushed at least `floor`
   * into the interior; multipliers centred on the slacks (CENTRED_PRODUCT), or from the dual warm
   * start pushed at least WARM_DUAL_FLOOR into the interior. (A least-squares start and other floors were tried on the
   * generator's sequences and needed more iterations.)
   */
  private initialise(warm: Float64Array | undefined, warmDual: Float64Array | undefined): void {
    const { n, m, x, sL, zL, sU, zU, yE, lo, hi, ax } = this;
    const D = this.scaling.D;
    if (warm !== undefined && warm.length === n) for (let j = 0; j < n; j++) x[j] = Number.isFinite(warm[j]!) ? warm[j]! / D[j]! : 0;
    else x.fill(0);
    this.multiplyA(x, ax);
    const floor = warm !== undefined ? WARM_SLACK_FLOOR : COLD_SLACK_FLOOR;
    const { hasL, hasU } = this;
    const dual = warm !== undefined && warmDual !== undefined && warmDual.length === m;
    const E = this.scaling.E;
    const c = this.scaling.c;
    // a missing bound gets s = 1, z = 0 (and zero steps), so it drops out of every formula
    for (let i = 0; i < m; i++) {
      const r = ax[i]!;
      sL[i] = hasL[i]! > 0 ? Math.max(r - lo[i]!, floor) : 1;
      sU[i] = hasU[i]! > 0 ? Math.max(hi[i]! - r, floor) : 1;
      if (dual) {
        // y = −(zL − zU)·E/c in the result's sign convention
        const lam = Number.isFinite(warmDual[i]!) ? (-warmDual[i]! * c) / E[i]! : 0;
        zL[i] = hasL[i]! * Math.max(lam, WARM_DUAL_FLOOR);
        zU[i] = hasU[i]! * Math.max(-lam, WARM_DUAL_FLOOR);
      } else {
        // centred: every bound starts with the same product s·z = CENTRED_PRODUCT·floor
        zL[i] = hasL[i]! * Math.max(WARM_DUAL_FLOOR, (CENTRED_PRODUCT * floor) / sL[i]!);
        zU[i] = hasU[i]! * Math.max(WARM_DUAL_FLOOR, (CENTRED_PRODUCT * floor) / sU[i]!);
      }
      yE[i] = 0;
    }
  }

  /** out = Ā v (row-major copy of Ā: gathers, no scatter) */
  private multiplyA(v: Float64Array, outRows: Float64Array): void {
    multiplyRows(this.m, this.rows, this.rowValues, v, outRows);
  }

  /** out = P̄ v with the upper-triangle storage of P̄ */
  private multiplyP(v: Float64Array, outVars: Float64Array): void {
    multiplySymmetric(this.P, this.Pv, v, outVars);
  }

  private multiplyAT(rowsIn: Float64Array, outVars: Float64Array): void {
    multiplyTransposed(this.A, this.Av, rowsIn, outVars);
  }

  /**
   * px, atl = A'λ, rd = Px + q − A'λ, rpL/rpU (primal residuals; equality residual in rpL). ax = Ax
   * is kept up to date by initialise() and every step (ax += α·A dx), not recomputed.
   */
  private residuals(): void {
    const { n, m, x, px, lam, lo, ax, rpL, invE } = this;
    this.multiplyP(x, px);
    let primRes = 0;
    let axNorm = 0;
    let gap = 0;
    const D = this.rowData;
    for (let i = 0; i < m; i++) {
      const a = D[R_AX * m + i]!;
      const ie = D[R_INVE * m + i]!;
      const sl = D[R_SL * m + i]!;
      const su = D[R_SU * m + i]!;
      const zl = D[R_ZL * m + i]!;
      const zu = D[R_ZU * m + i]!;
      D[R_LAM * m + i] = zl - zu + D[R_YE * m + i]!;
      const rl = D[R_HASL * m + i]! * (a - D[R_LO * m + i]! - sl);
      const ru = D[R_HASU * m + i]! * (D[R_HI * m + i]! - a - su);
      D[R_RPL * m + i] = rl;
      D[R_RPU * m + i] = ru;
      axNorm = Math.max(axNorm, Math.abs(a * ie));
      primRes = Math.max(primRes, Math.abs(rl * ie), Math.abs(ru * ie));
      gap += sl * zl + su * zu;
    }
    for (let k = 0; k < this.eqCount; k++) {
      const i = this.eqRows[k]!;
      const r = ax[i]! - lo[i]!;
      rpL[i] = r;
      primRes = Math.max(primRes, Math.abs(r * invE[i]!));
    }
    this.primRes = primRes;
    this.axNorm = axNorm;
    this.gap = gap;
    this.multiplyAT(lam, this.atl);
    for (let j = 0; j < n; j++) this.rd[j] = px[j]! + this.qs[j]! - this.atl[j]!;
  }



  /** Row weights W of the current iterate, then P + A'WA factorised. */
  private factorise(): boolean {
    const { m, w } = this;
    const D = this.rowData;
    let maxWeight = 0;
    for (let i = 0; i < m; i++) {
      const il = D[R_HASL * m + i]! / D[R_SL * m + i]!;
      const iu = D[R_HASU * m + i]! / D[R_SU * m + i]!;
      D[R_INVSL * m + i] = il;
      D[R_INVSU * m + i] = iu;
      const wi = D[R_ZL * m + i]! * il + D[R_ZU * m + i]! * iu;
      D[R_W * m + i] = wi;
      if (wi > maxWeight) maxWeight = wi;
    }
    for (let k = 0; k < this.eqCount; k++) w[this.eqRows[k]!] = 1 / EQ_REG;
    if (this.eqCount > 0 && 1 / EQ_REG > maxWeight) maxWeight = 1 / EQ_REG;
    this.maxWeight = maxWeight;
    return this.factoriseWith(w);
  }


  /** Assembles P + A'WA (+ regularisation) in stage order and factorises it. */
  private factoriseWith(w: Float64Array): boolean {
    const { m, kkt, Pv, pTarget, rowPairStart, pairTarget, rowValues } = this;
    const rowStart = this.rows.rowStart;
    const M = kkt.values;
    M.fill(0);
    for (let t = 0; t < Pv.length; t++) M[pTarget[t]!]! += Pv[t]!;
    for (let j = 0; j < this.n; j++) M[this.diagTarget[j]!]! += PRIMAL_REG;
    for (let i = 0; i < m; i++) {
      const wi = w[i]!;
      if (wi === 0) continue;
      let p = rowPairStart[i]!;
      const e0 = rowStart[i]!;
      const e1 = rowStart[i + 1]!;
      for (let a = e0; a < e1; a++) {
        const va = wi * rowValues[a]!;
        for (let b = e0; b <= a; b++) M[pairTarget[p++]!]! += va * rowValues[b]!;
      }
    }
    return kkt.factorize();
  }

  /**
   * Newton direction for complementarity targets rcL/rcU (s∘z − target): solves the normal
   * equations and recovers slack and multiplier steps (refinement is applied by the caller to the
   * final direction only).
   */
  private direction(mode: number): void {
    const { n, m, g, w, rhs, perm, adx, rpL } = this;
    const { order } = this.structure;
    const D = this.rowData;
    // a centrality corrector has zero primal/dual residuals on the right-hand side
    const withResiduals = mode !== CENTRALITY;
    const oRpL = (withResiduals ? R_RPL : R_ZEROROWS) * m;
    const oRpU = (withResiduals ? R_RPU : R_ZEROROWS) * m;
    const rd = withResiduals ? this.rd : this.zeroVars;
    // complementarity targets rc = s∘z − target, fused with the reduced right-hand side g
    if (mode === CENTRALITY) {
      for (let i = 0; i < m; i++) D[R_G * m + i] = D[R_RCL * m + i]! * D[R_INVSL * m + i]! - D[R_RCU * m + i]! * D[R_INVSU * m + i]!;
    } else {
      const corrector = mode === CORRECTOR;
      const sigmaMu = corrector ? this.sigmaMu : 0;
      for (let i = 0; i < m; i++) {
        const zl = D[R_ZL * m + i]!;
        const zu = D[R_ZU * m + i]!;
        let cl = D[R_SL * m + i]! * zl;
        let cu = D[R_SU * m + i]! * zu;
        if (corrector) {
          cl += D[R_DSL * m + i]! * D[R_DZL * m + i]! - sigmaMu;
          cu += D[R_DSU * m + i]! * D[R_DZU * m + i]! - sigmaMu;
        }
        D[R_RCL * m + i] = cl;
        D[R_RCU * m + i] = cu;
        D[R_G * m + i] = (cl + zl * D[oRpL + i]!) * D[R_INVSL * m + i]! - (cu + zu * D[oRpU + i]!) * D[R_INVSU * m + i]!;
      }
    }
    for (let k = 0; k < this.eqCount; k++) {
      const i = this.eqRows[k]!;
      g[i] = rpL[i]! / EQ_REG;
    }
    this.multiplyAT(g, rhs);
    for (let p = 0; p < n; p++) {
      const j = order[p]!;
      perm[p] = -rd[j]! - rhs[j]!;
    }
    this.kkt.solveInPlace(perm);
    for (let p = 0; p < n; p++) this.dx[order[p]!] = perm[p]!;
    this.multiplyA(this.dx, adx);
    // recover slack and multiplier steps; fused: step to the boundary and Σ ds∘dz (the affine gap's
    // curvature; its slope Σ(s∘dz + z∘ds) = −Σ rc holds by construction)
    let alpha = 1;
    let curve = 0;
    for (let i = 0; i < m; i++) {
      const a = D[R_ADX * m + i]!;
      const sl = D[R_SL * m + i]!;
      const su = D[R_SU * m + i]!;
      const zl = D[R_ZL * m + i]!;
      const zu = D[R_ZU * m + i]!;
      const dl = D[R_HASL * m + i]! * (a + D[oRpL + i]!);
      const du = D[R_HASU * m + i]! * (D[oRpU + i]! - a);
      const el = -(D[R_RCL * m + i]! + zl * dl) * D[R_INVSL * m + i]!;
      const eu = -(D[R_RCU * m + i]! + zu * du) * D[R_INVSU * m + i]!;
      D[R_DSL * m + i] = dl;
      D[R_DZL * m + i] = el;
      D[R_DSU * m + i] = du;
      D[R_DZU * m + i] = eu;
      if (alpha * dl < -sl) alpha = -sl / dl;
      if (alpha * el < -zl) alpha = -zl / el;
      if (alpha * du < -su) alpha = -su / du;
      if (alpha * eu < -zu) alpha = -zu / eu;
      curve += dl * el + du * eu;
    }
    this.stepMax = alpha;
    this.gapCurve = curve;
    for (let k = 0; k < this.eqCount; k++) {
      const i = this.eqRows[k]!;
      this.dyE[i] = -(w[i]! * adx[i]! + g[i]!);
    }
  }



  /**
   * Gondzio's multiple-centrality corrector: products s_i z_i that the current direction would
   * leave far outside [β_min, β_max]·σμ (at a somewhat longer trial step) are pulled back by an extra
   * solve with the same factor and zero residuals. Kept (true, stepMax updated) only if it
   * lengthens the step. Scalars travel through fields so the hot path boxes no numbers. Cures the stalls Mehrotra's direction shows on degenerate
   * (non-strictly complementary) slack/CBF pairs.
   */
  private centralityCorrector(): boolean {
    const { n, m, keep, dx } = this;
    const D = this.rowData;
    const alpha = this.stepMax;
    const sigmaMu = this.sigmaMu;
    const trial = Math.min(1, 1.5 * alpha + 0.1);
    const lo = GONDZIO_BETA_MIN * sigmaMu;
    const hi = GONDZIO_BETA_MAX * sigmaMu;
    for (let i = 0; i < m; i++) {
      D[R_RCL * m + i] = -centralityTarget((D[R_SL * m + i]! + trial * D[R_DSL * m + i]!) * (D[R_ZL * m + i]! + trial * D[R_DZL * m + i]!), lo, hi);
      D[R_RCU * m + i] = -centralityTarget((D[R_SU * m + i]! + trial * D[R_DSU * m + i]!) * (D[R_ZU * m + i]! + trial * D[R_DZU * m + i]!), lo, hi);
    }
    // the Mehrotra direction (dx, ds, dz, A·dx, dyE) is kept while the corrector is tried on top of it
    keep.set(dx);
    D.copyWithin(R_KEEP_DSL * m, R_DSL * m, (R_DZU + 1) * m);
    D.copyWithin(R_KEEP_ADX * m, R_ADX * m, (R_ADX + 1) * m);
    D.copyWithin(R_KEEP_DYE * m, R_DYE * m, (R_DYE + 1) * m);
    this.direction(CENTRALITY);
    for (let j = 0; j < n; j++) dx[j]! += keep[j]!;
    for (let i = 0; i < 4 * m; i++) D[R_DSL * m + i]! += D[R_KEEP_DSL * m + i]!;
    for (let i = 0; i < m; i++) {
      D[R_ADX * m + i]! += D[R_KEEP_ADX * m + i]!;
      D[R_DYE * m + i]! += D[R_KEEP_DYE * m + i]!;
    }
    this.updateStepMax();
    if (this.stepMax >= 1.01 * alpha) return true;
    this.stepMax = alpha;
    dx.set(keep);
    D.copyWithin(R_DSL * m, R_KEEP_DSL * m, (R_KEEP_DSL + 4) * m);
    D.copyWithin(R_ADX * m, R_KEEP_ADX * m, (R_KEEP_ADX + 1) * m);
    D.copyWithin(R_DYE * m, R_KEEP_DYE * m, (R_KEEP_DYE + 1) * m);
    return false;
  }


  /**
   * Iterative refinement on the full Newton system. The slack and complementarity equations hold
   * exactly by construction; only stationarity P dx − A'dλ = −rd carries the error of the
   * ill-conditioned normal equations (weights z/s → ∞ near the solution). Its residual is computed
   * from the actual dλ and corrected with one more solve with the same factor.
   */
  private refine(): void {
    const { n, m, zL, zU, w, rhs, perm, adx, lam, invSL, invSU, hasL, hasU, dsL, dzL, dsU, dzU, dyE } = this;
    const { order } = this.structure;
    for (let i = 0; i < m; i++) lam[i] = dzL[i]! - dzU[i]! + dyE[i]!;
    this.multiplyAT(lam, rhs);
    this.multiplyP(this.dx, this.px);
    for (let p = 0; p < n; p++) {
      const j = order[p]!;
      perm[p] = -this.rd[j]! - this.px[j]! + rhs[j]!;
    }
    this.kkt.solveInPlace(perm);
    for (let p = 0; p < n; p++) rhs[order[p]!] = perm[p]!;
    for (let j = 0; j < n; j++) this.dx[j]! += rhs[j]!;
    const adc = this.g;
    this.multiplyA(rhs, adc);
    for (let i = 0; i < m; i++) {
      const da = adc[i]!;
      adx[i]! += da;
      dsL[i]! += hasL[i]! * da;
      dzL[i]! -= zL[i]! * invSL[i]! * da;
      dsU[i]! -= hasU[i]! * da;
      dzU[i]! += zU[i]! * invSU[i]! * da;
    }
    for (let k = 0; k < this.eqCount; k++) {
      const i = this.eqRows[k]!;
      dyE[i]! -= w[i]! * adc[i]!;
    }
  }


  /** Largest α ≤ 1 keeping all slacks and multipliers non-negative along the current direction. */
  private updateStepMax(): void {
    const m = this.m;
    const D = this.rowData;
    let alpha = 1;
    for (let i = 0; i < m; i++) {
      const sl = D[R_SL * m + i]!;
      const zl = D[R_ZL * m + i]!;
      const su = D[R_SU * m + i]!;
      const zu = D[R_ZU * m + i]!;
      const dl = D[R_DSL * m + i]!;
      const el = D[R_DZL * m + i]!;
      const du = D[R_DSU * m + i]!;
      const eu = D[R_DZU * m + i]!;
      if (alpha * dl < -sl) alpha = -sl / dl;
      if (alpha * el < -zl) alpha = -zl / el;
      if (alpha * du < -su) alpha = -su / du;
      if (alpha * eu < -zu) alpha = -zu / eu;
    }
    this.stepMax = alpha;
  }



  /**
   * Farkas certificate on the current multipliers y = −λ (OSQP sign): ‖A'y‖∞ small relative to
   * ‖y‖∞ while u'y₊ + l'y₋ < 0, with y₊ = 0 on rows without an upper bound (and y₋ likewise).
   */
  private certifiesInfeasible(): boolean {
    const { m, n, lam, rowKind, lo, hi, A, Av } = this;
    const E = this.scaling.E;
    const D = this.scaling.D;
    let yNorm = 0;
    for (let i = 0; i < m; i++) yNorm = Math.max(yNorm, Math.abs(lam[i]! * E[i]!));
    if (!(yNorm > 0)) return false;
    let support = 0;
    for (let i = 0; i < m; i++) {
      const y = -lam[i]! * E[i]!; // unscaled up to the common factor 1/c
      const kind = rowKind[i]!;
      if (y > 0) {
        if (kind === ROW_UPPER || kind === ROW_BOTH || kind === ROW_EQUAL) support += y * (hi[i]! / E[i]!);
        else if (y > EPS_INFEASIBLE * yNorm) return false;
      } else if (y < 0) {
        if (kind === ROW_LOWER || kind === ROW_BOTH || kind === ROW_EQUAL) support += y * (lo[i]! / E[i]!);
        else if (-y > EPS_INFEASIBLE * yNorm) return false;
      }
    }
    if (!(support < -EPS_INFEASIBLE * yNorm)) return false;
    // ‖A'y‖∞ in unscaled terms: (A'y)_j = (Ā'λ̄)_j / D_j (up to 1/c)
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let t = A.colPtr[j]!; t < A.colPtr[j + 1]!; t++) s += Av[t]! * lam[A.rowIndex[t]!]!;
      if (Math.abs(s / D[j]!) > EPS_INFEASIBLE * yNorm) return false;
    }
    return true;
  }

  /**
   * Dual infeasibility certificate (OSQP's test) on the Newton direction d = dx: ‖Pd‖∞ and the
   * bound-violating part of Ad small relative to ‖d‖∞ while q'd < 0, all in unscaled terms.
   */
  private certifiesUnbounded(): boolean {
    const { n, m, dx, px, adx, rowKind, qs } = this;
    const { D, E, c } = this.scaling;
    let dNorm = 0;
    for (let j = 0; j < n; j++) dNorm = Math.max(dNorm, Math.abs(dx[j]! * D[j]!));
    if (!(dNorm > 0)) return false;
    const eps = EPS_INFEASIBLE * dNorm;
    let qd = 0;
    for (let j = 0; j < n; j++) qd += qs[j]! * dx[j]!;
    if (!(qd / c < -eps)) return false;
    this.multiplyA(dx, adx);
    for (let i = 0; i < m; i++) {
      const kind = rowKind[i]!;
      const a = adx[i]! / E[i]!;
      if ((kind === ROW_LOWER || kind === ROW_BOTH || kind === ROW_EQUAL) && a < -eps) return false;
      if ((kind === ROW_UPPER || kind === ROW_BOTH || kind === ROW_EQUAL) && a > eps) return false;
    }
    this.multiplyP(dx, px);
    for (let j = 0; j < n; j++) if (Math.abs(px[j]! / (c * D[j]!)) > eps) return false;
    return true;
  }

  /** Unscales the iterate into the result and computes objective and violation on the original data. */
  private finish(problem: QpProblem, status: QpStatus, reason: string): QpResult {
    const { n, m, out, x } = this;
    const { D, E, c } = this.scaling;
    out.status = status;
    out.reason = reason;
    for (let j = 0; j < n; j++) out.x[j] = x[j]! * D[j]!;
    for (let i = 0; i < m; i++) out.y[i] = (-(this.zL[i]! - this.zU[i]! + this.yE[i]!) * E[i]!) / c;
    const xs = out.x;
    const P = problem.P;
    let obj = 0;
    for (let j = 0; j < n; j++) {
      const xj = xs[j]!;
      obj += problem.q[j]! * xj;
      for (let t = P.colPtr[j]!; t < P.colPtr[j + 1]!; t++) {
        const i = P.rowIndex[t]!;
        obj += (i === j ? 0.5 : 1) * P.values[t]! * xs[i]! * xj;
      }
    }
    out.objective = obj;
    const ax = this.ax;
    ax.fill(0);
    const A = problem.A;
    for (let j = 0; j < n; j++) {
      for (let t = A.colPtr[j]!; t < A.colPtr[j + 1]!; t++) ax[A.rowIndex[t]!]! += A.values[t]! * xs[j]!;
    }
    let viol = 0;
    for (let i = 0; i < m; i++) {
      const l = problem.l[i]!;
      const u = problem.u[i]!;
      if (isLowerFinite(l)) viol = Math.max(viol, l - ax[i]!);
      if (isUpperFinite(u)) viol = Math.max(viol, ax[i]! - u);
    }
    out.maxViolation = viol;
    return out as unknown as QpResult;
  }
}
