import { ArmguardError } from '../util/errors.js';
import { certifiesInfeasible, certifiesUnbounded } from './certificates.js';
import { copyPattern, samePattern, validateCsc } from './csc.js';
import { CENTRALITY, CORRECTOR, NormalEquations, PREDICTOR } from './normal-equations.js';
import { ActiveSetPolish } from './polish.js';
import { isLowerFinite, isUpperFinite, loadScaledData } from './problem-data.js';
import { stepToBoundary } from './kernels.js';
import { RuizScaling } from './scaling.js';
import { detectStructure, rowView } from './structure.js';
import type { QpStructure } from './structure.js';
import type { QpProblem, QpResult, QpSolveOptions, QpStatus } from './types.js';
import {
  QpWorkspace,
  R_ADX,
  R_AX,
  R_DSL,
  R_DSU,
  R_DYE,
  R_DZL,
  R_DZU,
  R_HASL,
  R_HASU,
  R_HI,
  R_INVE,
  R_KEEP_ADX,
  R_KEEP_DSL,
  R_KEEP_DYE,
  R_LAM,
  R_LO,
  R_RCL,
  R_RCU,
  R_RPL,
  R_RPU,
  R_SL,
  R_SU,
  R_YE,
  R_ZL,
  R_ZU,
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
const GONDZIO_BETA_MIN = 0.1;
const GONDZIO_BETA_MAX = 10;
/** a second refinement pass once weights exceed this (the last iterations before convergence) */
const REFINE_TWICE_ABOVE_WEIGHT = 1e10;
const DEFAULT_EPS = 1e-9;
/**
 * The active-set polish is tried once the iterate passes the convergence test with every tolerance
 * multiplied by this (and then after each further iteration whose guessed active set differs from
 * the last one tried), at most POLISH_MAX_ATTEMPTS times per solve.
 */
const POLISH_TRIGGER = 1e3;
const POLISH_MAX_ATTEMPTS = 3;
/**
 * limitGapGrowth applies once the primal and dual residuals pass their tolerances × this. The
 * cycling QPs of test/qp converge in 14/15/17 iterations with 1e3, in 20/17/20 with 1 (the residual
 * tests themselves); with 1e3 every iterate of bench/qp-iterates.ts and every outcome of the SO-101
 * and Panda filter replays (bench/cbf-replay.ts, tolerance 1e-6) stays as it was, 1e6 changed one
 * iterate of qp-iterates.
 */
const GAP_LIMIT_TRIGGER = 1e3;

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
  polished: boolean;
}

const NO_OPTIONS: QpSolveOptions = {};

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

/**
 * Primal-dual interior-point solver (Mehrotra predictor-corrector) for one problem shape (the
 * sparsity patterns of P and A). All memory is allocated here; {@link QpSolver.solve} allocates
 * nothing and returns a result object owned by the solver (overwritten by the next solve).
 *
 * The parts: {@link QpWorkspace} (every vector, the per-row ones in one array), loadScaledData
 * (problem-data.ts: checks, Ruiz scaling, row kinds), {@link NormalEquations} (KKT assembly,
 * factorisation, Newton directions, refinement), certificates.ts (infeasibility and
 * unboundedness); this file holds the iteration: start, residuals, step length, correctors, step.
 */
export class QpSolver {
  readonly n: number;
  readonly m: number;
  readonly structure: QpStructure;

  private readonly ws: QpWorkspace;
  private readonly normal: NormalEquations;
  private readonly scaling: RuizScaling;
  private readonly out: MutableResult;
  private readonly polisher: ActiveSetPolish;
  /** whether ws holds a loaded problem and an iterate a `resume` solve may continue */
  private resumable = false;
  /** the problem object that was loaded (a `resume` continues only that one) */
  private loaded: QpProblem | null = null;

  constructor(shape: Pick<QpProblem, 'n' | 'm' | 'P' | 'A' | 'stageHint'>) {
    const { n, m } = shape;
    if (!Number.isInteger(n) || n < 0 || !Number.isInteger(m) || m < 0)
      throw new ArmguardError(`QP dimensions n=${n}, m=${m} must be non-negative integers`);
    validateCsc('P', shape.P, n, n, true);
    validateCsc('A', shape.A, m, n, false);
    this.n = n;
    this.m = m;
    const P = copyPattern(shape.P);
    const A = copyPattern(shape.A);
    const rows = rowView(A);
    this.structure = detectStructure({ P, A, stageHint: shape.stageHint }, rows);
    this.ws = new QpWorkspace(P, A, rows);
    this.normal = new NormalEquations(this.ws, this.structure);
    this.scaling = new RuizScaling(n, m, RUIZ_ITERATIONS);
    this.polisher = new ActiveSetPolish(this.ws, this.normal, this.scaling);
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
      polished: false,
    };
  }

  /** Active-set polishes tried and accepted, and their refinement passes, since construction (benchmarks). */
  get polishCounts(): {
    readonly attempts: number;
    readonly accepted: number;
    readonly sweeps: number;
    readonly passes: number;
  } {
    return this.polisher.counts;
  }

  /** True if `problem` has this solver's shape (dimensions and sparsity patterns of P and A). */
  accepts(problem: Pick<QpProblem, 'n' | 'm' | 'P' | 'A'>): boolean {
    return (
      problem.n === this.n &&
      problem.m === this.m &&
      samePattern(problem.P, this.ws.P) &&
      samePattern(problem.A, this.ws.A)
    );
  }

  /**
   * Solves `problem`, which must have this solver's shape (else throws: that is a wiring error,
   * not data). Bad data (NaN/∞ in P, q, A; NaN bounds; q, l or u too short) gives status 'numerical-error', l > u gives
   * 'infeasible'. The returned object is reused by the next call.
   */
  solve(problem: QpProblem, options: QpSolveOptions = NO_OPTIONS): QpResult {
    if (!this.accepts(problem))
      throw new ArmguardError('QP does not have the shape this solver was built for (n, m or sparsity of P/A differ)');
    const maxIterations = options.maxIterations ?? DEFAULT_MAX_ITERATIONS;
    const epsAbs = options.epsAbs ?? DEFAULT_EPS;
    const epsRel = options.epsRel ?? DEFAULT_EPS;
    const deadline = options.deadline;
    const polish = options.polish ?? false;
    const warmDual =
      options.warmStart !== undefined && options.warmStartDual?.length === this.m ? options.warmStartDual : undefined;
    let polishWarm = (options.polishFromWarmStart ?? false) && warmDual !== undefined && options.resume !== true;
    const { n, m, out, ws, normal, scaling, polisher } = this;
    out.iterations = 0;
    out.polished = false;
    polisher.reset();
    let polishAttempts = 0;

    if (options.resume === true) {
      // the last solve's scaled data, constant normal-matrix part and iterate, as it left them
      if (!this.resumable || problem !== this.loaded)
        return this.finish(problem, 'numerical-error', 'resume: no previous solve of this problem to continue');
      // finish() left the unscaled A·x in the A·x slot: the scaled one back from the iterate
      ws.multiplyA(ws.x, R_AX);
    } else {
      this.resumable = false;
      this.loaded = problem;
      const bad = loadScaledData(ws, scaling, problem);
      if (bad !== undefined) return this.finish(problem, bad.status, bad.reason);
      normal.loadConstantPart();
      this.initialise(options.warmStart, options.warmStartDual);
      this.resumable = true;
    }

    const { x, dualUnscale, rd, px, atl, qs, dx, eqRows } = ws;
    const c = scaling.c;
    const nBounds = ws.nBounds;
    const eqCount = ws.eqCount;
    const D = ws.rows;
    const oAX = R_AX * m;
    const oADX = R_ADX * m;
    const oSL = R_SL * m;
    const oZL = R_ZL * m;
    const oSU = R_SU * m;
    const oZU = R_ZU * m;
    const oDSL = R_DSL * m;
    const oDZL = R_DZL * m;
    const oDSU = R_DSU * m;
    const oDZU = R_DZU * m;
    const oYE = R_YE * m;
    const oDYE = R_DYE * m;
    const oLo = R_LO * m;
    const oHi = R_HI * m;
    const oInvE = R_INVE * m;
    let boundsNorm = 0;
    for (let i = 0; i < m; i++)
      boundsNorm = Math.max(boundsNorm, Math.abs(D[oLo + i]! * D[oInvE + i]!), Math.abs(D[oHi + i]! * D[oInvE + i]!));

    polisher.epsAbs = epsAbs;
    polisher.epsRel = epsRel;
    polisher.boundsNorm = boundsNorm;
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
      const primTol = epsAbs + epsRel * Math.max(axNorm, boundsNorm);
      const dualTol = epsAbs + epsRel * dualScale;
      const gapTol = epsAbs + epsRel * Math.abs(objective);
      if (primRes <= primTol && dualRes <= dualTol && gap / c <= gapTol) return this.finish(problem, 'solved', '');
      if (polishWarm) {
        // once, before the first step: the active set of the solve that gave the dual warm start
        polishWarm = false;
        if (polisher.attempt(warmDual)) {
          out.primalResidual = polisher.primalResidual;
          out.dualResidual = polisher.dualResidual;
          out.complementarity = nBounds > 0 ? polisher.gap / nBounds : 0;
          out.polished = true;
          // the polished point is not an interior iterate: nothing to resume from
          this.resumable = false;
          return this.finish(problem, 'solved', '');
        }
      }
      if (
        polish &&
        polishAttempts < POLISH_MAX_ATTEMPTS &&
        primRes <= POLISH_TRIGGER * primTol &&
        dualRes <= POLISH_TRIGGER * dualTol &&
        gap / c <= POLISH_TRIGGER * gapTol
      ) {
        polishAttempts++;
        if (polisher.attempt()) {
          out.primalResidual = polisher.primalResidual;
          out.dualResidual = polisher.dualResidual;
          out.complementarity = nBounds > 0 ? polisher.gap / nBounds : 0;
          out.polished = true;
          // the polished point is not an interior iterate: nothing to resume from
          this.resumable = false;
          return this.finish(problem, 'solved', '');
        }
      }
      if (!Number.isFinite(primRes + dualRes + gap))
        return this.finish(problem, 'numerical-error', 'iterate became non-finite');
      // a converging primal residual rules out a primal certificate; check when it stalls
      const stalled = primRes > epsAbs && primRes > 0.5 * previousPrimRes;
      previousPrimRes = primRes;
      if (stalled && certifiesInfeasible(ws, scaling))
        return this.finish(problem, 'infeasible', "primal infeasibility certificate: A'y ≈ 0 with u'y₊ + l'y₋ < 0");
      if (!(iter < maxIterations))
        return this.finish(problem, 'max-iterations', 'iteration cap reached before convergence');
      if (deadline !== undefined && deadline())
        return this.finish(problem, 'time-limit', 'deadline reached before convergence');

      if (!normal.factorise())
        return this.finish(problem, 'numerical-error', 'normal-equation factorisation failed (non-finite values)');
      // predictor (affine scaling) direction
      normal.direction(PREDICTOR);
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
      normal.direction(CORRECTOR);
      for (let k = 0; k < GONDZIO_CORRECTORS && ws.stepMax < 0.9; k++) if (!this.centralityCorrector()) break;
      if (ws.maxWeight > REFINE_ABOVE_WEIGHT) {
        const steps = ws.maxWeight > REFINE_TWICE_ABOVE_WEIGHT ? 2 : 1;
        for (let k = 0; k < steps; k++) normal.refine();
        this.updateStepMax();
      }
      let alpha = Math.min(1, STEP_TO_BOUNDARY * ws.stepMax);
      // nearly feasible, the gap is what is left: never step where it grows (see limitGapGrowth)
      if (primRes <= GAP_LIMIT_TRIGGER * primTol && dualRes <= GAP_LIMIT_TRIGGER * dualTol)
        alpha = this.limitGapGrowth(alpha);
      if (!(alpha > 0)) return this.finish(problem, 'numerical-error', 'step length collapsed to zero');
      if (iter % 4 === 3 && certifiesUnbounded(ws, scaling))
        return this.finish(
          problem,
          'infeasible',
          "dual infeasible (unbounded below): direction d with Pd ≈ 0, q'd < 0, Ad within the bounds' recession cone",
        );
      for (let j = 0; j < n; j++) x[j]! += alpha * dx[j]!;
      for (let i = 0; i < m; i++) {
        D[oAX + i]! += alpha * D[oADX + i]!;
        D[oSL + i]! += alpha * D[oDSL + i]!;
        D[oZL + i]! += alpha * D[oDZL + i]!;
        D[oSU + i]! += alpha * D[oDSU + i]!;
        D[oZU + i]! += alpha * D[oDZU + i]!;
      }
      for (let k = 0; k < eqCount; k++) {
        const i = eqRows[k]!;
        D[oYE + i]! += alpha * D[oDYE + i]!;
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
    const ws = this.ws;
    const { n, m, x } = ws;
    const D = this.scaling.D;
    if (warm !== undefined && warm.length === n)
      for (let j = 0; j < n; j++) x[j] = Number.isFinite(warm[j]!) ? warm[j]! / D[j]! : 0;
    else x.fill(0);
    ws.multiplyA(x, R_AX);
    const R = ws.rows;
    const oAX = R_AX * m;
    const oSL = R_SL * m;
    const oZL = R_ZL * m;
    const oSU = R_SU * m;
    const oZU = R_ZU * m;
    const oYE = R_YE * m;
    const oLo = R_LO * m;
    const oHi = R_HI * m;
    const oHasL = R_HASL * m;
    const oHasU = R_HASU * m;
    const floor = warm !== undefined ? WARM_SLACK_FLOOR : COLD_SLACK_FLOOR;
    const dual = warm !== undefined && warmDual !== undefined && warmDual.length === m;
    const E = this.scaling.E;
    const c = this.scaling.c;
    // a missing bound gets s = 1, z = 0 (and zero steps), so it drops out of every formula
    for (let i = 0; i < m; i++) {
      const r = R[oAX + i]!;
      const hasL = R[oHasL + i]!;
      const hasU = R[oHasU + i]!;
      const sl = hasL > 0 ? Math.max(r - R[oLo + i]!, floor) : 1;
      const su = hasU > 0 ? Math.max(R[oHi + i]! - r, floor) : 1;
      R[oSL + i] = sl;
      R[oSU + i] = su;
      if (dual) {
        // y = −(zL − zU)·E/c in the result's sign convention
        const lam = Number.isFinite(warmDual[i]!) ? (-warmDual[i]! * c) / E[i]! : 0;
        R[oZL + i] = hasL * Math.max(lam, WARM_DUAL_FLOOR);
        R[oZU + i] = hasU * Math.max(-lam, WARM_DUAL_FLOOR);
      } else {
        // centred: every bound starts with the same product s·z = CENTRED_PRODUCT·floor
        R[oZL + i] = hasL * Math.max(WARM_DUAL_FLOOR, (CENTRED_PRODUCT * floor) / sl);
        R[oZU + i] = hasU * Math.max(WARM_DUAL_FLOOR, (CENTRED_PRODUCT * floor) / su);
      }
      R[oYE + i] = 0;
    }
  }

  /**
   * px, atl = A'λ, rd = Px + q − A'λ, rpL/rpU (primal residuals; equality residual in rpL). ax = Ax
   * is kept up to date by initialise() and every step (ax += α·A dx), not recomputed.
   */
  private residuals(): void {
    const ws = this.ws;
    const { n, m, x, px, atl, rd, qs, eqRows } = ws;
    const eqCount = ws.eqCount;
    ws.multiplyP(x, px);
    let primRes = 0;
    let axNorm = 0;
    let gap = 0;
    const D = ws.rows;
    const oAX = R_AX * m;
    const oInvE = R_INVE * m;
    const oSL = R_SL * m;
    const oSU = R_SU * m;
    const oZL = R_ZL * m;
    const oZU = R_ZU * m;
    const oLam = R_LAM * m;
    const oYE = R_YE * m;
    const oHasL = R_HASL * m;
    const oHasU = R_HASU * m;
    const oLo = R_LO * m;
    const oHi = R_HI * m;
    const oRpL = R_RPL * m;
    const oRpU = R_RPU * m;
    for (let i = 0; i < m; i++) {
      const a = D[oAX + i]!;
      const ie = D[oInvE + i]!;
      const sl = D[oSL + i]!;
      const su = D[oSU + i]!;
      const zl = D[oZL + i]!;
      const zu = D[oZU + i]!;
      D[oLam + i] = zl - zu + D[oYE + i]!;
      const rl = D[oHasL + i]! * (a - D[oLo + i]! - sl);
      const ru = D[oHasU + i]! * (D[oHi + i]! - a - su);
      D[oRpL + i] = rl;
      D[oRpU + i] = ru;
      axNorm = Math.max(axNorm, Math.abs(a * ie));
      primRes = Math.max(primRes, Math.abs(rl * ie), Math.abs(ru * ie));
      gap += sl * zl + su * zu;
    }
    for (let k = 0; k < eqCount; k++) {
      const i = eqRows[k]!;
      const r = D[oAX + i]! - D[oLo + i]!;
      D[oRpL + i] = r;
      primRes = Math.max(primRes, Math.abs(r * D[oInvE + i]!));
    }
    ws.primRes = primRes;
    ws.axNorm = axNorm;
    ws.gap = gap;
    ws.multiplyAT(R_LAM, atl);
    for (let j = 0; j < n; j++) rd[j] = px[j]! + qs[j]! - atl[j]!;
  }

  /**
   * Gondzio's multiple-centrality corrector: products s_i z_i that the current direction would
   * leave far outside [β_min, β_max]·σμ (at a somewhat longer trial step) are pulled back by an extra
   * solve with the same factor and zero residuals. Kept (true, stepMax updated) only if it
   * lengthens the step. Cures the stalls Mehrotra's direction shows on degenerate
   * (non-strictly complementary) slack/CBF pairs.
   */
  private centralityCorrector(): boolean {
    const ws = this.ws;
    const { n, m, keep, dx } = ws;
    const D = ws.rows;
    const oRCL = R_RCL * m;
    const oRCU = R_RCU * m;
    const oSL = R_SL * m;
    const oSU = R_SU * m;
    const oZL = R_ZL * m;
    const oZU = R_ZU * m;
    const oDSL = R_DSL * m;
    const oDZL = R_DZL * m;
    const oDSU = R_DSU * m;
    const oDZU = R_DZU * m;
    const oADX = R_ADX * m;
    const oDYE = R_DYE * m;
    const oKeepDSL = R_KEEP_DSL * m;
    const oKeepADX = R_KEEP_ADX * m;
    const oKeepDYE = R_KEEP_DYE * m;
    const alpha = ws.stepMax;
    const sigmaMu = ws.sigmaMu;
    const trial = Math.min(1, 1.5 * alpha + 0.1);
    const lo = GONDZIO_BETA_MIN * sigmaMu;
    const hi = GONDZIO_BETA_MAX * sigmaMu;
    for (let i = 0; i < m; i++) {
      D[oRCL + i] = -centralityTarget(
        (D[oSL + i]! + trial * D[oDSL + i]!) * (D[oZL + i]! + trial * D[oDZL + i]!),
        lo,
        hi,
      );
      D[oRCU + i] = -centralityTarget(
        (D[oSU + i]! + trial * D[oDSU + i]!) * (D[oZU + i]! + trial * D[oDZU + i]!),
        lo,
        hi,
      );
    }
    // the Mehrotra direction (dx, ds, dz, A·dx, dyE) is kept while the corrector is tried on top of it
    keep.set(dx);
    D.copyWithin(oKeepDSL, oDSL, oDZU + m);
    D.copyWithin(oKeepADX, oADX, oADX + m);
    D.copyWithin(oKeepDYE, oDYE, oDYE + m);
    this.normal.direction(CENTRALITY);
    for (let j = 0; j < n; j++) dx[j]! += keep[j]!;
    for (let i = 0; i < 4 * m; i++) D[oDSL + i]! += D[oKeepDSL + i]!;
    for (let i = 0; i < m; i++) {
      D[oADX + i]! += D[oKeepADX + i]!;
      D[oDYE + i]! += D[oKeepDYE + i]!;
    }
    this.updateStepMax();
    if (ws.stepMax >= 1.01 * alpha) return true;
    ws.stepMax = alpha;
    dx.set(keep);
    D.copyWithin(oDSL, oKeepDSL, oKeepDSL + 4 * m);
    D.copyWithin(oADX, oKeepADX, oKeepADX + m);
    D.copyWithin(oDYE, oKeepDYE, oKeepDYE + m);
    return false;
  }

  /**
   * Step length along the current direction once the primal and dual residuals are within
   * GAP_LIMIT_TRIGGER × their tolerances (the gap is what is left to close): if the step `alpha`
   * would make the gap grow, the α that minimises the gap after the step,
   * Σ(s + α ds)(z + α dz) = gap + α·slope + α²·curve.
   * Near a degenerate vertex Mehrotra's direction can ask a product s·z far below σμ (s and z both
   * small, on a bound that is not active at the solution) to rise a hundredfold; the linearisation
   * then sends s across the whole range of the row to the opposite bound, and the full step
   * multiplies the gap by ten. Without this limit the iterate can cycle through such steps forever
   * with the residuals at 1e-16 (test/qp/solver.test.ts, "gap-growth cycle"). Where the gap does
   * not grow along the step, `alpha` is returned unchanged (iterates bit for bit as before).
   */
  private limitGapGrowth(alpha: number): number {
    const ws = this.ws;
    const m = ws.m;
    const D = ws.rows;
    const oSL = R_SL * m;
    const oSU = R_SU * m;
    const oZL = R_ZL * m;
    const oZU = R_ZU * m;
    const oDSL = R_DSL * m;
    const oDZL = R_DZL * m;
    const oDSU = R_DSU * m;
    const oDZU = R_DZU * m;
    let slope = 0;
    let curve = 0;
    for (let i = 0; i < m; i++) {
      const dsl = D[oDSL + i]!;
      const dzl = D[oDZL + i]!;
      const dsu = D[oDSU + i]!;
      const dzu = D[oDZU + i]!;
      slope += D[oSL + i]! * dzl + D[oZL + i]! * dsl + D[oSU + i]! * dzu + D[oZU + i]! * dsu;
      curve += dsl * dzl + dsu * dzu;
    }
    // gap(α) − gap = α·(slope + α·curve) > 0 only past −slope/curve; its minimum is at half that
    if (!(slope < 0 && curve > 0 && alpha * curve > -slope)) return alpha;
    return -slope / (2 * curve);
  }

  /** Largest α ≤ 1 keeping all slacks and multipliers non-negative along the current direction. */
  private updateStepMax(): void {
    const ws = this.ws;
    const m = ws.m;
    const D = ws.rows;
    const oSL = R_SL * m;
    const oSU = R_SU * m;
    const oZL = R_ZL * m;
    const oZU = R_ZU * m;
    const oDSL = R_DSL * m;
    const oDZL = R_DZL * m;
    const oDSU = R_DSU * m;
    const oDZU = R_DZU * m;
    let alpha = 1;
    for (let i = 0; i < m; i++) {
      const sl = D[oSL + i]!;
      const zl = D[oZL + i]!;
      const su = D[oSU + i]!;
      const zu = D[oZU + i]!;
      const dl = D[oDSL + i]!;
      const el = D[oDZL + i]!;
      const du = D[oDSU + i]!;
      const eu = D[oDZU + i]!;
      alpha = stepToBoundary(alpha, sl, dl);
      alpha = stepToBoundary(alpha, zl, el);
      alpha = stepToBoundary(alpha, su, du);
      alpha = stepToBoundary(alpha, zu, eu);
    }
    ws.stepMax = alpha;
  }

  /** Unscales the iterate into the result and computes objective and violation on the original data. */
  private finish(problem: QpProblem, status: QpStatus, reason: string): QpResult {
    const { n, m, out } = this;
    const x = this.ws.x;
    const R = this.ws.rows;
    const oZL = R_ZL * m;
    const oZU = R_ZU * m;
    const oYE = R_YE * m;
    const oAX = R_AX * m;
    const { D, E, c } = this.scaling;
    out.status = status;
    out.reason = reason;
    for (let j = 0; j < n; j++) out.x[j] = x[j]! * D[j]!;
    for (let i = 0; i < m; i++) out.y[i] = (-(R[oZL + i]! - R[oZU + i]! + R[oYE + i]!) * E[i]!) / c;
    const xs = out.x;
    const { colPtr: pPtr, rowIndex: pRow, values: pVal } = problem.P;
    const q = problem.q;
    let obj = 0;
    for (let j = 0; j < n; j++) {
      const xj = xs[j]!;
      obj += q[j]! * xj;
      const p1 = pPtr[j + 1]!;
      for (let t = pPtr[j]!; t < p1; t++) {
        const i = pRow[t]!;
        obj += (i === j ? 0.5 : 1) * pVal[t]! * xs[i]! * xj;
      }
    }
    out.objective = obj;
    R.fill(0, oAX, oAX + m);
    const { colPtr: aPtr, rowIndex: aRow, values: aVal } = problem.A;
    for (let j = 0; j < n; j++) {
      const xj = xs[j]!;
      const a1 = aPtr[j + 1]!;
      for (let t = aPtr[j]!; t < a1; t++) R[oAX + aRow[t]!]! += aVal[t]! * xj;
    }
    let viol = 0;
    for (let i = 0; i < m; i++) {
      const l = problem.l[i]!;
      const u = problem.u[i]!;
      if (isLowerFinite(l)) viol = Math.max(viol, l - R[oAX + i]!);
      if (isUpperFinite(u)) viol = Math.max(viol, R[oAX + i]! - u);
    }
    out.maxViolation = viol;
    return out as unknown as QpResult;
  }
}
