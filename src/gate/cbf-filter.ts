/**
 * Chunk-level CBF safety filter (SPEC §6; seeds/001 App. 0.D, Eq. A.3–A.4). Given the present joint
 * position q0 and a nominal chunk, either passes the chunk unchanged (it already satisfies the
 * discrete barrier condition, joint limits and motion bounds), returns the minimally modified chunk,
 * or says why it cannot be made safe. Linearised at the nominal chunk, re-linearised at the result
 * (or, after a round that needed slack, at the standing-still chunk) — at most `maxRounds` QP
 * solves — with the nonlinear h re-checked every round. Preallocated per shape.
 */
import type { QpSolveOptions } from '../qp/types.js';
import { ChunkQp } from './cbf-qp.js';
import type { CbfWeights } from './cbf-qp.js';
import type { BarrierModel, BoundQpSolver, QpSolverFactory } from './cbf-types.js';

export interface CbfFilterConfig extends CbfWeights {
  readonly qmin: readonly number[];
  readonly qmax: readonly number[];
  /** Per-joint speed limit (rad/s); a step of the chunk may move joint j by at most maxSpeed[j]·dt. */
  readonly maxSpeed: readonly number[];
  /** QP solves per chunk (1 = linearise at the nominal chunk only). SPEC §6: ≤ 3. */
  readonly maxRounds: number;
  /** Σξ above this means the barrier condition could not be met: hold. */
  readonly slackTolerance: number;
  /** Allowed violation of the nonlinear barrier condition before another round is tried. */
  readonly cbfTolerance: number;
  readonly maxIterations: number;
}

export const DEFAULT_CBF_WEIGHTS: CbfWeights = { lambda: 5, rho: 1000, gamma: 0.2 };

export type CbfStatus = 'unchanged' | 'filtered' | 'unsafe' | 'solver-failure';

/** Outcome of one chunk, overwritten by the next call (no allocation per chunk). */
export interface CbfOutcome {
  status: CbfStatus;
  /** For 'filtered': the filtered chunk (H × n), a view into the filter's buffer. */
  targets: Float64Array;
  /** Σ ξ_k of the accepted solve (0 unless filtered). */
  slackUsed: number;
  /** max |u − u_nom| (rad). */
  modification: number;
  /** min over steps and pairs of the nonlinear h at the result (or at the nominal chunk). */
  minH: number;
  /** step (0-based) where minH occurs; −1 for q0. */
  minHStep: number;
  rounds: number;
  iterations: number;
  /** For 'unsafe' / 'solver-failure': why. */
  detail: string;
}

export class ChunkCbfFilter {
  private qp: ChunkQp | null = null;
  private solver: BoundQpSolver | null = null;
  private readonly hq: Float64Array;
  private readonly hPrev: Float64Array;
  private readonly step: Float64Array;
  private readonly q0Buf: Float64Array;
  private readonly dq: Float64Array;
  private out: Float64Array = new Float64Array(0);
  private ref: Float64Array = new Float64Array(0);
  private refIsStill = false;
  readonly outcome: CbfOutcome = {
    status: 'unchanged',
    targets: new Float64Array(0),
    slackUsed: 0,
    modification: 0,
    minH: Infinity,
    minHStep: -1,
    rounds: 0,
    iterations: 0,
    detail: '',
  };
  /** Diagnostics hook: called after every round with its slack and result. */
  trace: ((round: number, slack: number, u: Float64Array) => void) | null = null;
  private readonly solveOptions: { maxIterations: number; deadline?: () => boolean };

  constructor(
    readonly barrier: BarrierModel,
    private readonly makeSolver: QpSolverFactory,
    readonly config: CbfFilterConfig,
  ) {
    const n = barrier.joints;
    for (const [name, arr] of [['qmin', config.qmin], ['qmax', config.qmax], ['maxSpeed', config.maxSpeed]] as const) {
      if (arr.length !== n) throw new RangeError(`CBF filter: ${name} has ${arr.length} entries, the barrier model ${n} joints`);
    }
    if (!(config.gamma > 0 && config.gamma <= 1)) throw new RangeError(`CBF filter: gamma must be in (0, 1], got ${config.gamma}`);
    if (!(config.maxRounds >= 1)) throw new RangeError(`CBF filter: maxRounds must be ≥ 1, got ${config.maxRounds}`);
    this.hq = new Float64Array(barrier.pairs);
    this.hPrev = new Float64Array(barrier.pairs);
    this.step = new Float64Array(n);
    this.q0Buf = new Float64Array(n);
    this.dq = new Float64Array(n);
    this.solveOptions = { maxIterations: config.maxIterations };
  }

  /** The QP of the last filtered chunk (for benchmarks and diagnostics). */
  get lastProblem(): ChunkQp | null {
    return this.qp;
  }

  /**
   * Filter `nominal` (H × n, row-major) from the present position `q0`; `dt` is the chunk's step
   * period. `deadline` (optional) is polled by the solver; true stops it ('solver-failure').
   */
  filter(nominal: Float64Array, horizon: number, q0: ArrayLike<number>, dt: number, deadline?: () => boolean): CbfOutcome {
    const o = this.outcome;
    const n = this.barrier.joints;
    const cfg = this.config;
    o.slackUsed = 0;
    o.modification = 0;
    o.rounds = 0;
    o.iterations = 0;
    o.detail = '';
    o.targets = nominal;
    for (let j = 0; j < n; j++) {
      this.q0Buf[j] = q0[j] ?? NaN;
      this.dq[j] = cfg.maxSpeed[j]! * dt;
    }
    if (nominal.length !== horizon * n) return this.fail('solver-failure', `chunk has ${nominal.length} targets, expected ${horizon}×${n}`);
    const h0 = this.barrier.h(this.q0Buf, this.hPrev);
    if (!(h0 >= 0)) {
      o.minH = h0;
      o.minHStep = -1;
      return this.fail('unsafe', `present position already inside the safety distance (h = ${fmt(h0)})`);
    }
    if (this.satisfies(nominal, horizon, 0)) {
      o.status = 'unchanged';
      return o;
    }
    const qp = this.shape(horizon);
    const { nu } = qp;
    qp.setNominal(nominal, this.q0Buf, cfg.qmin, cfg.qmax, this.dq, cfg);
    this.ref.set(nominal);
    this.refIsStill = false;
    this.solveOptions.deadline = deadline;
    for (let round = 1; round <= cfg.maxRounds; round++) {
      o.rounds = round;
      qp.linearise(this.barrier, this.ref, this.q0Buf, cfg.gamma);
      const r = this.solver!.solve(this.solveOptions as QpSolveOptions);
      o.iterations += r.iterations;
      if (r.status !== 'solved') return this.fail('solver-failure', `${r.status}: ${r.reason}`);
      const x = r.x;
      let slack = 0;
      for (let k = 0; k < horizon; k++) slack += Math.max(0, x[nu + k]!);
      for (let c = 0; c < nu; c++) this.out[c] = clamp(x[c]!, cfg.qmin[c % n]!, cfg.qmax[c % n]!);
      o.slackUsed = slack;
      if (this.trace) this.trace(round, slack, this.out);
      // The re-check gives no credit for slack: the barrier condition must hold on the nonlinear h.
      const ok = this.satisfies(this.out, horizon, cfg.cbfTolerance) && slack <= cfg.slackTolerance;
      if (ok || round === cfg.maxRounds) {
        if (!(o.minH >= 0)) return this.fail('unsafe', `h = ${fmt(o.minH)} < 0 at step ${o.minHStep} after ${round} round(s)`);
        if (slack > cfg.slackTolerance) return this.fail('unsafe', `barrier needs slack Σξ = ${fmt(slack)} > ${cfg.slackTolerance} after ${round} round(s)`);
        break;
      }
      // Next reference: the result, unless the linearised problem needed slack. Then the result lies
      // where the linear model of h is poor (typically far from q0 along a nominal that runs into the
      // obstacle); linearise at the standing-still chunk instead, where u = q0 meets every row
      // exactly (h(q0) ≥ (1−γ)h(q0)), so the next QP is feasible without slack near q0.
      if (slack > cfg.slackTolerance && !this.refIsStill) {
        for (let c = 0; c < nu; c++) this.ref[c] = this.q0Buf[c % n]!;
        this.refIsStill = true;
      } else {
        this.ref.set(this.out);
        this.refIsStill = false;
      }
    }
    let mod = 0;
    for (let c = 0; c < nu; c++) mod = Math.max(mod, Math.abs(this.out[c]! - nominal[c]!));
    o.modification = mod;
    o.targets = this.out;
    o.status = 'filtered';
    return o;
  }

  /**
   * Does chunk `u` meet joint limits, motion bounds (1e-9 rad slack for rounding) and the nonlinear
   * barrier condition h_p(u_k) ≥ (1−γ) h_p(u_{k−1}) − tol, with h_p(u_k) ≥ 0? Sets minH.
   */
  private satisfies(u: Float64Array, horizon: number, tol: number): boolean {
    const n = this.barrier.joints;
    const m = this.barrier.pairs;
    const cfg = this.config;
    const decay = 1 - cfg.gamma;
    let ok = true;
    let minH = Infinity;
    let minStep = -1;
    this.barrier.h(this.q0Buf, this.hPrev);
    for (let k = 0; k < horizon; k++) {
      for (let j = 0; j < n; j++) {
        const v = u[k * n + j]!;
        const prev = k === 0 ? this.q0Buf[j]! : u[(k - 1) * n + j]!;
        if (!(v >= cfg.qmin[j]! && v <= cfg.qmax[j]! && Math.abs(v - prev) <= this.dq[j]! + 1e-9)) ok = false;
        this.step[j] = v;
      }
      const hk = this.barrier.h(this.step, this.hq);
      if (hk < minH || hk !== hk) {
        minH = hk;
        minStep = k;
      }
      for (let p = 0; p < m; p++) {
        if (!(this.hq[p]! >= decay * this.hPrev[p]! - tol)) ok = false;
        this.hPrev[p] = this.hq[p]!;
      }
    }
    this.outcome.minH = minH;
    this.outcome.minHStep = minStep;
    return ok && minH >= 0;
  }

  private shape(horizon: number): ChunkQp {
    const n = this.barrier.joints;
    if (this.qp === null || this.qp.H !== horizon) {
      this.qp = new ChunkQp(horizon, n, this.barrier.pairs);
      this.solver = this.makeSolver(this.qp.problem);
      this.out = new Float64Array(horizon * n);
      this.ref = new Float64Array(horizon * n);
    }
    return this.qp;
  }

  private fail(status: 'unsafe' | 'solver-failure', detail: string): CbfOutcome {
    const o = this.outcome;
    o.status = status;
    o.detail = detail;
    o.targets = EMPTY;
    return o;
  }
}

const EMPTY = new Float64Array(0);

function clamp(x: number, lo: number, hi: number): number {
  return x < lo ? lo : x > hi ? hi : x;
}
function fmt(x: number): string {
  return Number.isFinite(x) ? x.toPrecision(4) : String(x);
}
