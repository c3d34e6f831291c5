/**
 * The interior point's iteration: start, residuals and convergence test, predictor–corrector
 * step. Its parts: the workspace that owns every vector (workspace.ts), data loading and scaling
 * (problem-data.ts, scaling.ts), the normal equations' assembly and factorisation
 * (normal-equations.ts), the Newton directions (newton-direction.ts) and the infeasibility
 * certificates (certificates.ts).
 */
import { ArmguardError } from '../util/errors.js';
import { certifiesInfeasible, certifiesUnbounded } from './certificates.js';
import { copyPattern, samePattern, validateCsc } from './csc.js';
import { multiplyRows, multiplySymmetric, multiplyTransposed } from './kernels.js';
import { CORRECTOR, NewtonDirection, PREDICTOR } from './newton-direction.js';
import { NormalEquations } from './normal-equations.js';
import { loadProblem, writeResult } from './problem-data.js';
import type { MutableResult } from './problem-data.js';
import { RuizScaling } from './scaling.js';
import { detectStructure, rowView } from './structure.js';
import type { QpStructure, RowView } from './structure.js';
import type { CscMatrix, QpProblem, QpResult, QpSolveOptions, QpStatus } from './types.js';
import {
  QpWorkspace, R_ADX, R_AX, R_DSL, R_DSU, R_DYE, R_DZL, R_DZU, R_HASL, R_HASU, R_HI, R_INVE, R_LAM, R_LO, R_RPL, R_RPU,
  R_SL, R_SU, R_YE, R_ZL, R_ZU,
} from './workspace.js';

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
/** a second refinement pass once weights exceed this (the last iterations before convergence) */
const REFINE_TWICE_ABOVE_WEIGHT = 1e10;
const DEFAULT_EPS = 1e-9;

const NO_OPTIONS: QpSolveOptions = {};

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

/**
 * Primal-dual interior-point solver (Mehrotra predictor-corrector) for one problem shape (the
 * sparsity patterns of P and A). All memory is allocated here; {@link QpSolver.solve} allocates
 * nothing and returns a result object owned by the solver (overwritten by the next solve).
 *
 * Each Newton system is reduced to the normal equations (P + A'WA) dx = r, whose matrix is
 * block-tridiagonal in the detected stage order ({@link NormalEquations}).
 * Inequalities l ≤ a'x, a'x ≤ u get their own slack and multiplier; equality rows enter through a
 * regularised (quasi-definite) KKT elimination.
 */
export class QpSolver {
  readonly n: number;
  readonly m: number;
  readonly structure: QpStructure;

  private readonly P: CscMatrix;
  private readonly A: CscMatrix;
  private readonly rows: RowView;
  private readonly scaling: RuizScaling;
  private readonly ws: QpWorkspace;
  private readonly normal: NormalEquations;
  private readonly newton: NewtonDirection;
  private readonly out: MutableResult;

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
    this.scaling = new RuizScaling(n, m, RUIZ_ITERATIONS);
    this.normal = new NormalEquations(n, m, this.P, this.rows, this.structure);
    this.ws = new QpWorkspace(n, m, this.P.colPtr[n]!, this.A.colPtr[n]!);
    this.newton = new NewtonDirection(this.ws, this.normal, this.P, this.A, this.rows);
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
    const { n, m, out, ws, newton } = this;
    out.iterations = 0;

    const bad = loadProblem(ws, problem, this.P, this.A, this.rows, this.scaling);
    if (bad !== undefined) return this.finish(problem, bad.status, bad.reason);
    this.initialise(options.warmStart, options.warmStartDual);

    const { x, dx, px, qs, rd, atl, dualUnscale } = ws;
    const D = ws.rows;
    const c = this.scaling.c;
    const nBounds = ws.nBounds;
    let boundsNorm = 0;
    for (let i = 0; i < m; i++) {
      const ie = D[R_INVE * m + i]!;
      boundsNorm = Math.max(boundsNorm, Math.abs(D[R_LO * m + i]! * ie), Math.abs(D[R_HI * m + i]! * ie));
    }

    let previousPrimRes = Infinity;
    for (let iter = 0; ; iter++) {
      out.iterations = iter;
      this.residuals();
      // convergence, in unscaled terms
      const primRes = ws.primRes;
      const axNorm = ws.axNorm;
      const gap = ws.gap;
      let dualRes = 0;
      let dualScale = 0;
      for (let j = 0; j < n; j++) {
        const s = dualUnscale[j]!;
        dualRes = Math.max(dualRes, Math.abs(rd[j]! * s));
        dualScale = Math.max(dualScale, Math.abs(px[j]! * s), Math.abs(atl[j]! * s), Math.abs(qs[j]! * s));
      }
      const mu = nBounds > 0 ? gap / nBounds : 0;
      let objScaled = 0;
      for (let j = 0; j < n; j++) objScaled += x[j]! * (0.5 * px[j]! + qs[j]!);
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
      if (stalled && certifiesInfeasible(ws, this.A, this.scaling)) return this.finish(problem, 'infeasible', 'primal infeasibility certificate: A\'y ≈ 0 with u\'y₊ + l\'y₋ < 0');
      if (!(iter < maxIterations)) return this.finish(problem, 'max-iterations', 'iteration cap reached before convergence');
      if (deadline !== undefined && deadline()) return this.finish(problem, 'time-limit', 'deadline reached before convergence');

      if (!this.normal.factorise(ws)) return this.finish(problem, 'numerical-error', 'normal-equation factorisation failed (non-finite values)');
      // predictor (affine scaling) direction
      newton.compute(PREDICTOR);
      const alphaAff = ws.stepMax;
      // the affine direction's complementarity: Σ(s + α ds)(z + α dz) = (1 − α)·gap + α²·Σ ds dz
      const gapAff = (1 - alphaAff) * gap + alphaAff * alphaAff * ws.gapCurve;
      const muAff = nBounds > 0 ? gapAff / nBounds : 0;
      const ratio = mu > 0 ? Math.max(0, muAff / mu) : 0;
      // never aim below a tenth of the tolerated gap: deeper centring only inflates z/s and
      // the normal equations' conditioning without improving the answer
      const muFloor = nBounds > 0 ? (0.1 * c * (epsAbs + epsRel * Math.abs(objective))) / nBounds : 0;
      const sigmaMu = Math.max(ratio * ratio * ratio * mu, muFloor);
      // corrector (Mehrotra): centring plus second-order term of the affine step
      ws.sigmaMu = sigmaMu;
      newton.compute(CORRECTOR);
      for (let k = 0; k < GONDZIO_CORRECTORS && ws.stepMax < 0.9; k++) if (!newton.centralityCorrector()) break;
      if (ws.maxWeight > REFINE_ABOVE_WEIGHT) {
        const steps = ws.maxWeight > REFINE_TWICE_ABOVE_WEIGHT ? 2 : 1;
        for (let k = 0; k < steps; k++) newton.refine();
        newton.updateStepMax();
      }
      const alpha = Math.min(1, STEP_TO_BOUNDARY * ws.stepMax);
      if (!(alpha > 0)) return this.finish(problem, 'numerical-error', 'step length collapsed to zero');
      if (iter % 4 === 3 && certifiesUnbounded(ws, this.P, this.rows, this.scaling)) return this.finish(problem, 'infeasible', 'dual infeasible (unbounded below): direction d with Pd ≈ 0, q\'d < 0, Ad within the bounds\' recession cone');
      for (let j = 0; j < n; j++) x[j]! += alpha * dx[j]!;
      for (let i = 0; i < m; i++) {
        D[R_AX * m + i]! += alpha * D[R_ADX * m + i]!;
        D[R_SL * m + i]! += alpha * D[R_DSL * m + i]!;
        D[R_ZL * m + i]! += alpha * D[R_DZL * m + i]!;
        D[R_SU * m + i]! += alpha * D[R_DSU * m + i]!;
        D[R_ZU * m + i]! += alpha * D[R_DZU * m + i]!;
      }
      for (let k = 0; k < ws.eqCount; k++) {
        const i = ws.eqRows[k]!;
        D[R_YE * m + i]! += alpha * D[R_DYE * m + i]!;
      }
    }
  }

  /**
   * Starting point: x from the warm start or 0 (in scaled space); slacks pushed at least `floor`
   * into the interior; multipliers centred on the slacks (CENTRED_PRODUCT), or from the dual warm
   * start pushed at least WARM_DUAL_FLOOR into the interior. (A least-squares start and other floors were tried on the
   * generator's sequences and needed more iterations.)
   */
  private initialise(warm: Float64Array | undefined, warmDual: Float64Array | undefined): void {
    const { n, m, ws } = this;
    const { x, rows: R } = ws;
    const D = this.scaling.D;
    if (warm !== undefined && warm.length === n) for (let j = 0; j < n; j++) x[j] = Number.isFinite(warm[j]!) ? warm[j]! / D[j]! : 0;
    else x.fill(0);
    multiplyRows(m, this.rows, ws.rowValues, x, R, R_AX * m);
    const floor = warm !== undefined ? WARM_SLACK_FLOOR : COLD_SLACK_FLOOR;
    const dual = warm !== undefined && warmDual !== undefined && warmDual.length === m;
    const E = this.scaling.E;
    const c = this.scaling.c;
    // a missing bound gets s = 1, z = 0 (and zero steps), so it drops out of every formula
    for (let i = 0; i < m; i++) {
      const r = R[R_AX * m + i]!;
      const hasL = R[R_HASL * m + i]!;
      const hasU = R[R_HASU * m + i]!;
      const sL = hasL > 0 ? Math.max(r - R[R_LO * m + i]!, floor) : 1;
      const sU = hasU > 0 ? Math.max(R[R_HI * m + i]! - r, floor) : 1;
      R[R_SL * m + i] = sL;
      R[R_SU * m + i] = sU;
      if (dual) {
        // y = −(zL − zU)·E/c in the result's sign convention
        const lam = Number.isFinite(warmDual[i]!) ? (-warmDual[i]! * c) / E[i]! : 0;
        R[R_ZL * m + i] = hasL * Math.max(lam, WARM_DUAL_FLOOR);
        R[R_ZU * m + i] = hasU * Math.max(-lam, WARM_DUAL_FLOOR);
      } else {
        // centred: every bound starts with the same product s·z = CENTRED_PRODUCT·floor
        R[R_ZL * m + i] = hasL * Math.max(WARM_DUAL_FLOOR, (CENTRED_PRODUCT * floor) / sL);
        R[R_ZU * m + i] = hasU * Math.max(WARM_DUAL_FLOOR, (CENTRED_PRODUCT * floor) / sU);
      }
      R[R_YE * m + i] = 0;
    }
  }

  /**
   * px = Px, λ = zL − zU + yE and atl = A'λ, rd = Px + q − A'λ, R_RPL/R_RPU (primal residuals;
   * equality residual in R_RPL), and ws.primRes, ws.axNorm, ws.gap. R_AX = Ax is kept up to date by
   * initialise() and every step (ax += α·A dx), not recomputed.
   */
  private residuals(): void {
    const { n, m, ws } = this;
    const { x, px, qs, atl, rd } = ws;
    multiplySymmetric(this.P, ws.Pv, x, px);
    let primRes = 0;
    let axNorm = 0;
    let gap = 0;
    const D = ws.rows;
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
    for (let k = 0; k < ws.eqCount; k++) {
      const i = ws.eqRows[k]!;
      const r = D[R_AX * m + i]! - D[R_LO * m + i]!;
      D[R_RPL * m + i] = r;
      primRes = Math.max(primRes, Math.abs(r * D[R_INVE * m + i]!));
    }
    ws.primRes = primRes;
    ws.axNorm = axNorm;
    ws.gap = gap;
    multiplyTransposed(this.A, ws.Av, D, R_LAM * m, atl);
    for (let j = 0; j < n; j++) rd[j] = px[j]! + qs[j]! - atl[j]!;
  }

  private finish(problem: QpProblem, status: QpStatus, reason: string): QpResult {
    writeResult(this.ws, problem, this.scaling, this.out, status, reason);
    return this.out as unknown as QpResult;
  }
}
