/**
 * The chunk-level CBF QP (design §6, seeds/001 Eq. A.3) in OSQP form, laid out exactly as
 * ../shared/qp/gen-chunk-qp.mjs (the layout src/qp is built and tested for):
 *   x = [u_0 .. u_{H-1} (n each), ξ_0 .. ξ_{H-1}]; position-controlled model z_{k+1} = u_k.
 *   cost  Σ‖u_k − u_k^nom‖² + λ Σ‖u_k − u_{k−1}‖² (u_{−1} = q0) + ρ Σ ξ_k
 *   rows  joint limits (H·n) | motion bounds |u_k − u_{k−1}| ≤ dq (H·n) | CBF per pair (H·m) | ξ ≥ 0 (H)
 *         [| acceleration |u_k − 2u_{k−1} + u_{k−2}| ≤ a·dt² (H·n), only when built with acceleration rows]
 *   CBF   h_p(u_k) ≥ (1 − γ) h_p(u_{k−1}) − ξ_k, both sides linearised at a reference chunk ū.
 * Sparsity is structural (fixed per H, n, m and the acceleration option): re-linearising only
 * rewrites values, no allocation.
 *
 * Acceleration rows (opt-in): row k bounds the second difference ending at u_k, with u_{−1} = q0
 * (the present position: the position-controlled model's z_0) and u_{−2} = the position one step
 * before q0 (`qPrev`, the previous step's command or measured position). Row 0 needs u_{−2}; without
 * it (the filter does not know the arm's present velocity) row 0 is left free (±∞), so the chunk's
 * first step is bounded by its motion bound only. Such rows couple three consecutive steps, which
 * breaks the one-step stage layout; the QP is then staged in pairs of steps (stage ⌊k/2⌋), still
 * block-tridiagonal for src/qp, with blocks of 2(n + 1) variables.
 *
 * Redundant-row screening (`screenImpliedRows`, after `linearise`): a CBF row that every point
 * satisfying the QP's own joint-limit and motion rows already satisfies is freed (l = −∞). The
 * feasible set, and so the QP's unique optimum, stay the same; src/qp gives a free row no barrier
 * term and skips it when it assembles the normal matrix, so the solve has fewer terms and less work
 * per iteration.
 */
import type { CscMatrix, QpProblem } from '../qp/types.js';
import type { BarrierModel } from './cbf-types.js';

export const QP_INFINITY = 1e30;

/**
 * A CBF row is freed by the screen only when the smallest value its left side takes over the
 * reachable box clears its lower bound by this much (m): room for the rounding of the box and of the
 * sum, many orders above either (≈1e-16 relative), and far below the solver's tolerance.
 */
export const SCREEN_MARGIN = 1e-9;

export interface CbfWeights {
  /** smoothness weight λ */
  readonly lambda: number;
  /** slack weight ρ */
  readonly rho: number;
  /** CBF decay γ in (0, 1] */
  readonly gamma: number;
  /**
   * Weight μ of a proximal term μ‖u − ū‖² added in rounds that re-linearise at the previous round's
   * result ū: the next solution moves only as far from ū as the re-linearised barrier requires, so
   * the linearisation error (quadratic in that move) stays small and SQP rounds converge.
   */
  readonly proximal: number;
}

export class ChunkQp {
  readonly problem: QpProblem;
  readonly nu: number;
  /** h_p at the reference, per step (H × m) and at q0 (m). */
  readonly hRef: Float64Array;
  readonly h0: Float64Array;
  /** ∂h_p/∂q at the reference, per step (H × m × n). */
  readonly gRef: Float64Array;
  private readonly P: CscMatrix;
  private readonly A: CscMatrix;
  /** CSC index of the CBF entries: cur[(k·m + p)·n + j] for u_k, prev[...] for u_{k−1} (k ≥ 1). */
  private readonly cbfCur: Int32Array;
  private readonly cbfPrev: Int32Array;
  private readonly refView: Float64Array[];
  /** q and P's diagonal for the u variables as setNominal wrote them (the proximal term is added on top). */
  private readonly baseQ: Float64Array;
  private readonly baseDiag: Float64Array;
  private readonly diagIndex: Int32Array;
  /** Views of hRef and gRef per step k (m and m × n values): a caller may evaluate the barrier into them. */
  readonly hStep: Float64Array[];
  readonly gStep: Float64Array[];
  /** First acceleration row (−1: built without them). */
  readonly accelBase: number;
  /**
   * The reachable box of every u_k (H × n) that `screenImpliedRows` derives from the limit and motion
   * rows' bounds, and which CBF rows (H × m) the last screen freed (1) — for tests and diagnostics.
   */
  readonly reachLo: Float64Array;
  readonly reachHi: Float64Array;
  readonly screened: Uint8Array;

  constructor(
    readonly H: number,
    readonly n: number,
    readonly m: number,
    options: { readonly acceleration: boolean } = { acceleration: false },
  ) {
    const nu = H * n;
    this.nu = nu;
    const nx = nu + H;
    const accelBase = options.acceleration ? 2 * nu + H * m + H : -1;
    this.accelBase = accelBase;
    const rows = 2 * nu + H * m + H + (options.acceleration ? nu : 0);
    this.hRef = new Float64Array(H * m);
    this.h0 = new Float64Array(m);
    this.gRef = new Float64Array(H * m * n);
    this.refView = [];
    this.baseQ = new Float64Array(nu);
    this.baseDiag = new Float64Array(nu);
    this.diagIndex = new Int32Array(nu);
    this.hStep = [];
    this.gStep = [];
    this.reachLo = new Float64Array(nu);
    this.reachHi = new Float64Array(nu);
    this.screened = new Uint8Array(H * m);
    // P: upper triangle; column (k, j) has (k−1, j) then the diagonal.
    const pPtr = new Int32Array(nx + 1);
    const pRow: number[] = [];
    for (let c = 0; c < nx; c++) {
      if (c < nu) {
        if (c >= n) pRow.push(c - n);
        this.diagIndex[c] = pRow.length;
        pRow.push(c);
      }
      pPtr[c + 1] = pRow.length;
    }
    this.P = {
      rows: nx,
      cols: nx,
      colPtr: pPtr,
      rowIndex: Int32Array.from(pRow),
      values: new Float64Array(pRow.length),
    };
    // A: per u column: joint-limit row, motion row k, motion row k+1, CBF rows of step k then k+1.
    const cbfBase = 2 * nu;
    const slackBase = cbfBase + H * m;
    const aPtr = new Int32Array(nx + 1);
    const aRow: number[] = [];
    const aVal: number[] = [];
    this.cbfCur = new Int32Array(H * m * n);
    this.cbfPrev = new Int32Array(H * m * n);
    const add = (row: number, value: number): void => {
      aRow.push(row);
      aVal.push(value);
    };
    for (let k = 0; k < H; k++) {
      for (let j = 0; j < n; j++) {
        const c = k * n + j;
        add(c, 1);
        add(nu + c, 1);
        if (k + 1 < H) add(nu + c + n, -1);
        for (let p = 0; p < m; p++) {
          this.cbfCur[(k * m + p) * n + j] = aRow.length;
          add(cbfBase + k * m + p, 0);
        }
        if (k + 1 < H) {
          for (let p = 0; p < m; p++) {
            this.cbfPrev[((k + 1) * m + p) * n + j] = aRow.length;
            add(cbfBase + (k + 1) * m + p, 0);
          }
        }
        if (accelBase >= 0) {
          // u_k is the newest position of acceleration row k, the middle of k+1, the oldest of k+2
          add(accelBase + c, 1);
          if (k + 1 < H) add(accelBase + c + n, -2);
          if (k + 2 < H) add(accelBase + c + 2 * n, 1);
        }
        aPtr[c + 1] = aRow.length;
      }
    }
    for (let k = 0; k < H; k++) {
      for (let p = 0; p < m; p++) add(cbfBase + k * m + p, 1);
      add(slackBase + k, 1);
      aPtr[nu + k + 1] = aRow.length;
    }
    this.A = { rows, cols: nx, colPtr: aPtr, rowIndex: Int32Array.from(aRow), values: Float64Array.from(aVal) };
    this.problem = {
      n: nx,
      m: rows,
      P: this.P,
      q: new Float64Array(nx),
      A: this.A,
      l: new Float64Array(rows),
      u: new Float64Array(rows),
      stageHint: options.acceleration ? pairedSteps(H, n) : { kind: 'chunk', horizon: H, joints: n },
    };
    for (let k = 0; k < H; k++) {
      this.refView.push(new Float64Array(n));
      this.hStep.push(this.hRef.subarray(k * m, (k + 1) * m));
      this.gStep.push(this.gRef.subarray(k * m * n, (k + 1) * m * n));
    }
  }

  /**
   * Write cost, limits and motion bounds for a nominal chunk from q0 (everything but the CBF rows).
   * `dq[j]` is the largest step of joint j per chunk step (rad).
   */
  setNominal(
    unom: Float64Array,
    q0: Float64Array,
    qmin: ArrayLike<number>,
    qmax: ArrayLike<number>,
    dq: ArrayLike<number>,
    w: Pick<CbfWeights, 'lambda' | 'rho'>,
  ): void {
    const { H, n, nu } = this;
    const Pv = this.P.values;
    let t = 0;
    for (let k = 0; k < H; k++) {
      for (let j = 0; j < n; j++) {
        if (k > 0) Pv[t++] = -2 * w.lambda;
        Pv[t++] = 2 * (1 + w.lambda * (k < H - 1 ? 2 : 1));
      }
    }
    const { q, l, u } = this.problem;
    for (let k = 0; k < H; k++) {
      for (let j = 0; j < n; j++) {
        const c = k * n + j;
        q[c] = -2 * (unom[c] ?? NaN) - (k === 0 ? 2 * w.lambda * (q0[j] ?? NaN) : 0);
        l[c] = qmin[j] ?? NaN;
        u[c] = qmax[j] ?? NaN;
        const d = dq[j] ?? NaN;
        l[nu + c] = k === 0 ? (q0[j] ?? NaN) - d : -d;
        u[nu + c] = k === 0 ? (q0[j] ?? NaN) + d : d;
      }
    }
    for (let k = 0; k < H; k++) q[nu + k] = w.rho;
    for (let c = 0; c < nu; c++) {
      this.baseQ[c] = q[c]!;
      this.baseDiag[c] = Pv[this.diagIndex[c]!]!;
    }
    const slackBase = 2 * nu + H * this.m;
    for (let k = 0; k < H; k++) {
      l[slackBase + k] = 0;
      u[slackBase + k] = QP_INFINITY;
    }
  }

  /**
   * Bounds of the acceleration rows (only on a QP built with them): |u_k − 2u_{k−1} + u_{k−2}| ≤
   * aStep[j] (rad per step², a_max·dt²) with u_{−1} = q0 and u_{−2} = qPrev; qPrev null leaves row 0 free.
   */
  setAcceleration(q0: Float64Array, qPrev: ArrayLike<number> | null, aStep: ArrayLike<number>): void {
    const { H, n, accelBase } = this;
    if (accelBase < 0) throw new RangeError('ChunkQp: built without acceleration rows');
    const { l, u } = this.problem;
    for (let k = 0; k < H; k++) {
      for (let j = 0; j < n; j++) {
        const a = aStep[j] ?? NaN;
        // the known positions of the row move to its bounds
        let known = 0;
        let free = false;
        if (k === 0) {
          if (qPrev === null) free = true;
          else known = -2 * (q0[j] ?? NaN) + (qPrev[j] ?? NaN);
        } else if (k === 1) known = q0[j] ?? NaN;
        const r = accelBase + k * n + j;
        l[r] = free ? -QP_INFINITY : -a - known;
        u[r] = free ? QP_INFINITY : a - known;
      }
    }
  }

  /** Adds μ‖u − ref‖² to the cost set by setNominal (μ = 0 removes it). */
  setProximal(ref: Float64Array, mu: number): void {
    const Pv = this.P.values;
    const q = this.problem.q;
    for (let c = 0; c < this.nu; c++) {
      Pv[this.diagIndex[c]!] = this.baseDiag[c]! + 2 * mu;
      q[c] = this.baseQ[c]! - 2 * mu * (ref[c] ?? NaN);
    }
  }

  /**
   * Linearise every pair's barrier at the reference chunk `ref` (H × n) and write the CBF rows.
   * `backOff` (m) tightens each row by min(backOff, γ·h̄_{k−1}/2), h̄ the reference's h one step
   * earlier: room for the linearisation error of a re-linearised round, capped so that a
   * standing-still chunk never becomes infeasible because of it.
   * `evaluated` (the filter's shortcut): h0 already holds h(q0) and hRef/gRef the barrier at `ref`
   * (written through hStep/gStep by the same model for the same configurations), so the model is
   * not evaluated again.
   */
  linearise(
    barrier: BarrierModel,
    ref: Float64Array,
    q0: Float64Array,
    gamma: number,
    backOff = 0,
    evaluated = false,
  ): void {
    const { H, n, m, nu } = this;
    const hRef = this.hRef;
    const gRef = this.gRef;
    if (!evaluated) {
      barrier.h(q0, this.h0);
      for (let k = 0; k < H; k++) {
        const v = this.refView[k]!;
        for (let j = 0; j < n; j++) v[j] = ref[k * n + j] ?? NaN;
        barrier.gradient(v, this.hStep[k]!, this.gStep[k]!);
      }
    }
    const Av = this.A.values;
    const { l, u } = this.problem;
    const cbfBase = 2 * nu;
    const decay = 1 - gamma;
    for (let k = 0; k < H; k++) {
      for (let p = 0; p < m; p++) {
        const g = (k * m + p) * n;
        // h(u_k) ≈ h̄_k + ḡ_k·(u_k − ū_k); the constant parts move to the lower bound.
        let rhs = -(hRef[k * m + p]! - dotRef(gRef, g, ref, k * n, n));
        for (let j = 0; j < n; j++) Av[this.cbfCur[g + j]!] = gRef[g + j]!;
        const hPrev = k === 0 ? this.h0[p]! : hRef[(k - 1) * m + p]!;
        if (k === 0) rhs += decay * hPrev;
        else {
          const gp = ((k - 1) * m + p) * n;
          rhs += decay * (hPrev - dotRef(gRef, gp, ref, (k - 1) * n, n));
          for (let j = 0; j < n; j++) Av[this.cbfPrev[g + j]!] = -decay * gRef[gp + j]!;
        }
        l[cbfBase + k * m + p] = backOff > 0 ? rhs + Math.min(backOff, 0.5 * gamma * Math.max(0, hPrev)) : rhs;
        u[cbfBase + k * m + p] = QP_INFINITY;
      }
    }
  }

  /**
   * Frees (lower bound −∞) every CBF row that the QP's hard rows already imply, and of two rows of
   * one step with the same coefficients the looser; returns how many rows it freed (`screened`
   * marks them). Call after `linearise` (which writes every CBF row afresh) and before the solve.
   *
   * The box: joint-limit rows bound u_k to [l, u] of row (k, j); motion row 0 bounds u_0 itself and
   * motion row k ≥ 1 bounds u_k − u_{k−1}, so by interval arithmetic along the chain
   *   lo_k = max(limit lo, lo_{k−1} + motion lo_k),  hi_k = min(limit hi, hi_{k−1} + motion hi_k)
   * (for the filter: |u_k − q0| ≤ (k + 1)·dq within the joint limits). Every feasible u lies in it,
   * so a row a·u_k + b·u_{k−1} + ξ_k ≥ l whose minimum over the boxes of u_k and u_{k−1} (ξ_k ≥ 0
   * at its bound 0) is ≥ l + SCREEN_MARGIN holds at every feasible point: dropping it changes
   * neither the feasible set nor the optimum. Boxes treat u_k and u_{k−1} as independent (a relaxation
   * of the motion row between them): never unsound, only less tight. Acceleration rows are left out
   * of the box (they only shrink the feasible set further). An empty box (an infeasible QP) frees
   * nothing.
   */
  screenImpliedRows(): number {
    const { H, n, m, nu, reachLo, reachHi, screened } = this;
    const { l, u } = this.problem;
    const Av = this.A.values;
    screened.fill(0);
    for (let k = 0; k < H; k++) {
      for (let j = 0; j < n; j++) {
        const c = k * n + j;
        const mlo = k === 0 ? l[nu + c]! : reachLo[c - n]! + l[nu + c]!;
        const mhi = k === 0 ? u[nu + c]! : reachHi[c - n]! + u[nu + c]!;
        const lo = Math.max(l[c]!, mlo);
        const hi = Math.min(u[c]!, mhi);
        if (!(lo <= hi)) return 0;
        reachLo[c] = lo;
        reachHi[c] = hi;
      }
    }
    const cbfBase = 2 * nu;
    let freed = 0;
    for (let k = 0; k < H; k++) {
      for (let p = 0; p < m; p++) {
        const g = (k * m + p) * n;
        let least = 0;
        for (let j = 0; j < n; j++) {
          const a = Av[this.cbfCur[g + j]!]!;
          least += a * (a >= 0 ? reachLo[k * n + j]! : reachHi[k * n + j]!);
          if (k > 0) {
            const b = Av[this.cbfPrev[g + j]!]!;
            least += b * (b >= 0 ? reachLo[(k - 1) * n + j]! : reachHi[(k - 1) * n + j]!);
          }
        }
        const row = cbfBase + k * m + p;
        // (linearise writes u = +∞: a row given an upper bound some other way is kept)
        if (least >= l[row]! + SCREEN_MARGIN && u[row]! >= QP_INFINITY) {
          l[row] = -QP_INFINITY;
          screened[k * m + p] = 1;
          freed++;
        }
      }
      // Of two rows with the same coefficients the one with the higher bound implies the other.
      for (let p = 1; p < m; p++) {
        if (screened[k * m + p] || u[cbfBase + k * m + p]! < QP_INFINITY) continue;
        for (let r = 0; r < p; r++) {
          if (screened[k * m + r] || u[cbfBase + k * m + r]! < QP_INFINITY || !this.sameCoefficients(k, p, r)) continue;
          const lp = l[cbfBase + k * m + p]!;
          const lr = l[cbfBase + k * m + r]!;
          // a bound that is not a number implies nothing: neither row is freed for the other
          if (!(lp <= lr || lr < lp)) continue;
          const loose = lp <= lr ? p : r;
          l[cbfBase + k * m + loose] = -QP_INFINITY;
          screened[k * m + loose] = 1;
          freed++;
          if (loose === p) break;
        }
      }
    }
    return freed;
  }

  /** True when CBF rows p and r of step k have bit-for-bit the same coefficients. */
  private sameCoefficients(k: number, p: number, r: number): boolean {
    const { n, m } = this;
    const Av = this.A.values;
    const gp = (k * m + p) * n;
    const gr = (k * m + r) * n;
    for (let j = 0; j < n; j++) {
      if (Av[this.cbfCur[gp + j]!] !== Av[this.cbfCur[gr + j]!]) return false;
      if (k > 0 && Av[this.cbfPrev[gp + j]!] !== Av[this.cbfPrev[gr + j]!]) return false;
    }
    return true;
  }
}

/** Stage ⌊k/2⌋ for u_k and ξ_k: acceleration rows span three steps, at most two such stages. */
function pairedSteps(H: number, n: number): { kind: 'stages'; stageOfVariable: Int32Array } {
  const stage = new Int32Array(H * (n + 1));
  for (let k = 0; k < H; k++) {
    for (let j = 0; j < n; j++) stage[k * n + j] = k >> 1;
    stage[H * n + k] = k >> 1;
  }
  return { kind: 'stages', stageOfVariable: stage };
}

function dotRef(g: Float64Array, gOff: number, x: Float64Array, xOff: number, n: number): number {
  let s = 0;
  for (let j = 0; j < n; j++) s += g[gOff + j]! * x[xOff + j]!;
  return s;
}
