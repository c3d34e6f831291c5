import { multiplyRows, multiplySymmetric, multiplyTransposed } from './kernels.js';
import type { NormalEquations } from './normal-equations.js';
import type { RuizScaling } from './scaling.js';
import {
  R_HASL,
  R_HASU,
  R_HI,
  R_INVE,
  R_LAM,
  R_LO,
  R_SL,
  R_SU,
  R_W,
  R_YE,
  R_ZL,
  R_ZU,
  ROW_EQUAL,
  ROW_FREE,
} from './workspace.js';
import type { QpWorkspace } from './workspace.js';

/**
 * Penalty weight of an active row in the polish's normal matrix P + A'WA (scaled space). The
 * refinement passes remove the penalty's bias (method of multipliers), so it sets only how fast
 * they converge (error × ~1/(1 + W·σ(A P⁻¹ A')) per pass) against the matrix's conditioning.
 */
const POLISH_WEIGHT = 1e8;
/** refinement passes at most (each: one solve with the polish factor and four sparse products) */
const POLISH_MAX_PASSES = 4;
/** the passes stop once the active rows and stationarity are met this far inside the tolerance */
const POLISH_REFINE_FRACTION = 1e-3;
/** factorisations per attempt at most: the guess, then active-set corrections */
const POLISH_MAX_SWEEPS = 3;

/**
 * A warm start's multiplier counts as an active row above this fraction of the largest one (an
 * interior-point solution's multipliers are small but not zero on inactive rows). On the chunk
 * filter's SQP rounds 1e-6 was accepted most often (1e-8: never; 1e-4: 14 against 20 of 33 Panda QPs).
 */
const WARM_DUAL_ACTIVE = 1e-6;
/** which bound of a row the polish holds it at */
const SIDE_INACTIVE = 0;
const SIDE_LOWER = 1;
const SIDE_UPPER = 2;
const SIDE_EQUAL = 3;

/**
 * Active-set polish (crossover) of an interior-point iterate, verified. From the iterate it guesses
 * the active set (equality rows; an inequality bound whose multiplier exceeds its slack, z > s),
 * solves the equality-constrained QP  min ½x'Px + q'x  s.t.  A_act x = b_act  with the interior
 * point's own block-tridiagonal factorisation of P + A'WA (W = POLISH_WEIGHT on the active rows, 0
 * elsewhere) and a few refinement passes on the unregularised KKT system (method of multipliers),
 * then checks the result against the whole problem: every row within 1e-3 of the primal tolerance
 * of its bounds, multipliers of the right sign (wrong-signed ones are set to 0 first and must then
 * not be missed), stationarity and complementarity within the interior point's own tolerances. A
 * failed check corrects the guess (wrong-signed rows released, violated rows held) and solves again,
 * up to POLISH_MAX_SWEEPS factorisations. Only a point that passes is returned; otherwise the
 * interior point goes on from its iterate, which the polish does not touch until it is accepted.
 * Allocates nothing per attempt.
 */
export class ActiveSetPolish {
  /** polished point (scaled) and its multipliers λ (P x + q − A'λ = 0; λ > 0 at a lower bound) */
  private readonly x: Float64Array;
  private readonly lam: Float64Array;
  private readonly dx: Float64Array;
  private readonly rd: Float64Array;
  private readonly px: Float64Array;
  private readonly atl: Float64Array;
  private readonly ax: Float64Array;
  private readonly adx: Float64Array;
  /** W·(A x − b) on the active rows */
  private readonly wr: Float64Array;
  private readonly side: Uint8Array;
  /** the guess of the last attempt (a guess that failed is not tried again) */
  private readonly lastSide: Uint8Array;
  private tried = false;
  /** attempts and accepted polishes since construction (benchmarks) */
  readonly counts = { attempts: 0, accepted: 0, sweeps: 0, passes: 0 };
  /** rows whose multiplier verify() zeroed for having the wrong sign (1) */
  private readonly wrongSign: Uint8Array;
  /** the primal tolerance of the last verify() (unscaled) */
  private primalTolerance = 0.5;

  // measures of the accepted point (unscaled), for the result; initialised with a non-integer so
  // the fields hold doubles from the start (a field that starts as a small integer and later gets a
  // fraction changes representation, and stores may then box the number)
  primalResidual = 0.5;
  /**
   * The solve's tolerances and the largest scaled bound (unscaled), set by the solver before its
   * iterations: fields rather than arguments, since a double passed to a call that is not inlined
   * is boxed (one heap number per attempt, measured with bench/qp-chunk.ts --polish).
   */
  epsAbs = 0.5;
  epsRel = 0.5;
  boundsNorm = 0.5;
  dualResidual = 0.5;
  /** Σ|λ|·distance to the held bound over the active inequality rows (unscaled) */
  gap = 0.5;

  constructor(
    private readonly ws: QpWorkspace,
    private readonly normal: NormalEquations,
    private readonly scaling: RuizScaling,
  ) {
    const { n, m } = ws;
    this.x = new Float64Array(n);
    this.dx = new Float64Array(n);
    this.rd = new Float64Array(n);
    this.px = new Float64Array(n);
    this.atl = new Float64Array(n);
    this.lam = new Float64Array(m);
    this.ax = new Float64Array(m);
    this.adx = new Float64Array(m);
    this.wr = new Float64Array(m);
    this.side = new Uint8Array(m);
    this.lastSide = new Uint8Array(m);
    this.wrongSign = new Uint8Array(m);
  }

  /**
   * One primal-dual active-set correction of the guess after a failed verify(): a held row whose
   * multiplier had the wrong sign is released, a released row its bound is violated by more than the
   * primal tolerance is held at that bound. False if nothing changes.
   */
  private correctGuess(): boolean {
    const { ws, side, ax, wrongSign } = this;
    const m = ws.m;
    const R = ws.rows;
    const oLo = R_LO * m;
    const oHi = R_HI * m;
    const oHasL = R_HASL * m;
    const oHasU = R_HASU * m;
    const oInvE = R_INVE * m;
    const tol = POLISH_REFINE_FRACTION * this.primalTolerance;
    let changed = false;
    for (let i = 0; i < m; i++) {
      const s = side[i]!;
      if (s === SIDE_EQUAL) continue;
      if (s !== SIDE_INACTIVE) {
        if (wrongSign[i] !== 0) {
          side[i] = SIDE_INACTIVE;
          changed = true;
        }
        continue;
      }
      const a = ax[i]!;
      const ie = R[oInvE + i]!;
      if (R[oHasL + i]! > 0 && (R[oLo + i]! - a) * ie > tol) {
        side[i] = SIDE_LOWER;
        changed = true;
      } else if (R[oHasU + i]! > 0 && (a - R[oHi + i]!) * ie > tol) {
        side[i] = SIDE_UPPER;
        changed = true;
      }
    }
    return changed;
  }

  /** Forgets the last guess (once per solve). */
  reset(): void {
    this.tried = false;
  }

  /**
   * Tries the polish (tolerances: the fields epsAbs, epsRel, boundsNorm) from the workspace's current iterate (after the interior point's residuals(),
   * whose multipliers λ in slot R_LAM start the refinement). The active set is guessed from the
   * iterate (z > s), or, given `warmDual` (multipliers y of a previous solve, OSQP sign), from
   * its non-zero entries (y < 0: lower bound held, y > 0: upper). True: the verified point is in the
   * workspace (x; zL, zU, yE carrying its multipliers) and the measures are set. False: the iterate
   * is untouched (the normal matrix and slot R_W are not: the next factorise() rebuilds them).
   */
  attempt(warmDual?: Float64Array): boolean {
    const { ws, side, lastSide } = this;
    const { n, m, rowKind } = ws;
    const R = ws.rows;
    const oSL = R_SL * m;
    const oSU = R_SU * m;
    const oZL = R_ZL * m;
    const oZU = R_ZU * m;
    const oHasL = R_HASL * m;
    const oHasU = R_HASU * m;
    const oW = R_W * m;
    let same = this.tried;
    let yFloor = 0;
    if (warmDual !== undefined) {
      for (let i = 0; i < m; i++) yFloor = Math.max(yFloor, Math.abs(warmDual[i]!));
      yFloor *= WARM_DUAL_ACTIVE;
    }
    for (let i = 0; i < m; i++) {
      const kind = rowKind[i]!;
      let s = SIDE_INACTIVE;
      if (kind === ROW_EQUAL) s = SIDE_EQUAL;
      else if (warmDual !== undefined) {
        const y = warmDual[i]!;
        s =
          y < -yFloor && R[oHasL + i]! > 0 ? SIDE_LOWER : y > yFloor && R[oHasU + i]! > 0 ? SIDE_UPPER : SIDE_INACTIVE;
      } else if (kind !== ROW_FREE) {
        const lower = R[oHasL + i]! > 0 && R[oZL + i]! > R[oSL + i]!;
        const upper = R[oHasU + i]! > 0 && R[oZU + i]! > R[oSU + i]!;
        if (lower && upper) s = R[oZL + i]! * R[oSU + i]! >= R[oZU + i]! * R[oSL + i]! ? SIDE_LOWER : SIDE_UPPER;
        else s = lower ? SIDE_LOWER : upper ? SIDE_UPPER : SIDE_INACTIVE;
      }
      side[i] = s;
      if (s !== lastSide[i]) same = false;
      R[oW + i] = s === SIDE_INACTIVE ? 0 : POLISH_WEIGHT;
    }
    if (same) return false;
    lastSide.set(side);
    this.tried = true;
    this.counts.attempts++;
    for (let sweep = 0; ; sweep++) {
      if (sweep > 0) for (let i = 0; i < m; i++) R[oW + i] = side[i] === SIDE_INACTIVE ? 0 : POLISH_WEIGHT;
      this.counts.sweeps++;
      if (!this.normal.factoriseWithWeights()) return false;
      if (!this.refine(sweep === 0)) return false;
      if (this.verify()) break;
      if (sweep + 1 >= POLISH_MAX_SWEEPS || !this.correctGuess()) return false;
    }
    for (let j = 0; j < n; j++) if (!Number.isFinite(this.x[j]!)) return false;
    // accepted: the polished point becomes the iterate that finish() reports
    ws.x.set(this.x);
    const oYE = R_YE * m;
    const lam = this.lam;
    for (let i = 0; i < m; i++) {
      const l = lam[i]!;
      if (side[i] === SIDE_EQUAL) {
        R[oYE + i] = l;
        R[oZL + i] = 0;
        R[oZU + i] = 0;
      } else {
        R[oYE + i] = 0;
        R[oZL + i] = l > 0 ? l : 0;
        R[oZU + i] = l < 0 ? -l : 0;
      }
    }
    this.counts.accepted++;
    return true;
  }

  /**
   * Solves the equality-constrained QP on the guessed active rows by iterative refinement on its
   * KKT system [P −A'; A 0] with the regularised factor P + A'WA, from the interior point's x and λ:
   *   Δx = (P + A'WA)⁻¹(−r_d − A'W r_p),  Δλ = −W(r_p + AΔx),  r_d = Px + q − A'λ,  r_p = A x − b.
   * Leaves A x, P x, A'λ and r_d of the final point in ax, px, atl, rd. False on a non-finite value.
   */
  private refine(fromIterate: boolean): boolean {
    const { epsAbs, epsRel } = this;
    const { ws, x, lam, dx, rd, px, atl, ax, adx, wr, side } = this;
    const { n, m, qs, rowsOfA, rowValues, A, Av, P, Pv, dualUnscale } = ws;
    const R = ws.rows;
    const oLam = R_LAM * m;
    const oInvE = R_INVE * m;
    const oW = R_W * m;
    const oLo = R_LO * m;
    const oHi = R_HI * m;
    if (fromIterate) {
      x.set(ws.x);
      for (let i = 0; i < m; i++) lam[i] = side[i] === SIDE_INACTIVE ? 0 : R[oLam + i]!;
    } else for (let i = 0; i < m; i++) if (side[i] === SIDE_INACTIVE) lam[i] = 0;
    // the passes stop when both residuals are well inside the verification's absolute tolerance
    const enough = POLISH_REFINE_FRACTION * (epsAbs + epsRel);
    for (let pass = 0; ; pass++) {
      multiplyRows(m, rowsOfA, rowValues, x, ax, 0);
      multiplySymmetric(P, Pv, x, px);
      multiplyTransposed(A, Av, lam, 0, atl);
      let primal = 0;
      for (let i = 0; i < m; i++) {
        const s = side[i]!;
        // the held bound (scaled), inline: a call returning a double may box it
        const r = s === SIDE_INACTIVE ? 0 : ax[i]! - (s === SIDE_UPPER ? R[oHi + i]! : R[oLo + i]!);
        wr[i] = R[oW + i]! * r;
        const a = Math.abs(r * R[oInvE + i]!);
        if (a > primal) primal = a;
      }
      let dual = 0;
      for (let j = 0; j < n; j++) {
        const r = px[j]! + qs[j]! - atl[j]!;
        rd[j] = r;
        const a = Math.abs(r * dualUnscale[j]!);
        if (a > dual) dual = a;
      }
      if (!Number.isFinite(primal + dual)) return false;
      if (pass === POLISH_MAX_PASSES || (primal <= enough && dual <= enough)) return true;
      this.counts.passes++;
      multiplyTransposed(A, Av, wr, 0, dx);
      for (let j = 0; j < n; j++) dx[j] = -rd[j]! - dx[j]!;
      this.normal.solveVariables(dx, dx);
      multiplyRows(m, rowsOfA, rowValues, dx, adx, 0);
      for (let i = 0; i < m; i++) if (side[i] !== SIDE_INACTIVE) lam[i]! -= wr[i]! + R[oW + i]! * adx[i]!;
      for (let j = 0; j < n; j++) x[j]! += dx[j]!;
    }
  }

  /**
   * The KKT conditions of the whole problem at (x, λ), in the interior point's unscaled measures and
   * tolerances: multipliers of the wrong sign for their bound are zeroed first (and the stationarity
   * residual recomputed), then every row's bound violation, ‖Px + q − A'λ‖∞ and Σ|λ|·distance to the
   * held bound must pass the convergence test.
   */
  private verify(): boolean {
    const { epsAbs, epsRel, boundsNorm } = this;
    const { ws, x, lam, rd, px, atl, ax, side, scaling } = this;
    const { n, m, qs, A, Av, dualUnscale } = ws;
    const R = ws.rows;
    const oLo = R_LO * m;
    const oHi = R_HI * m;
    const oHasL = R_HASL * m;
    const oHasU = R_HASU * m;
    const oInvE = R_INVE * m;
    let clipped = false;
    const wrongSign = this.wrongSign;
    for (let i = 0; i < m; i++) {
      const s = side[i]!;
      const wrong = (s === SIDE_LOWER && lam[i]! < 0) || (s === SIDE_UPPER && lam[i]! > 0);
      wrongSign[i] = wrong ? 1 : 0;
      if (wrong) {
        lam[i] = 0;
        clipped = true;
      }
    }
    if (clipped) {
      multiplyTransposed(A, Av, lam, 0, atl);
      for (let j = 0; j < n; j++) rd[j] = px[j]! + qs[j]! - atl[j]!;
    }
    let primal = 0;
    let axNorm = 0;
    let gap = 0;
    for (let i = 0; i < m; i++) {
      const a = ax[i]!;
      const ie = R[oInvE + i]!;
      const s = side[i]!;
      let v = 0;
      if (s === SIDE_EQUAL) v = Math.abs(a - R[oLo + i]!);
      else {
        if (R[oHasL + i]! > 0) v = Math.max(v, R[oLo + i]! - a);
        if (R[oHasU + i]! > 0) v = Math.max(v, a - R[oHi + i]!);
        if (s !== SIDE_INACTIVE) gap += Math.abs(lam[i]! * (a - (s === SIDE_UPPER ? R[oHi + i]! : R[oLo + i]!)));
      }
      primal = Math.max(primal, v * ie);
      axNorm = Math.max(axNorm, Math.abs(a * ie));
    }
    let dual = 0;
    let dualScale = 0;
    let objScaled = 0;
    for (let j = 0; j < n; j++) {
      const u = dualUnscale[j]!;
      dual = Math.max(dual, Math.abs(rd[j]! * u));
      dualScale = Math.max(dualScale, Math.abs(px[j]! * u), Math.abs(atl[j]! * u), Math.abs(qs[j]! * u));
      objScaled += x[j]! * (0.5 * px[j]! + qs[j]!);
    }
    const c = scaling.c;
    this.primalTolerance = epsAbs + epsRel * Math.max(axNorm, boundsNorm);
    const ok =
      primal <= POLISH_REFINE_FRACTION * this.primalTolerance &&
      dual <= epsAbs + epsRel * dualScale &&
      gap / c <= epsAbs + epsRel * Math.abs(objScaled / c);
    if (!ok) return false;
    this.primalResidual = primal;
    this.dualResidual = dual;
    this.gap = gap / c;
    return true;
  }
}
