/**
 * Chunk-level CBF safety filter (design §6; seeds/001 App. 0.D, Eq. A.3–A.4). Given the present joint
 * position q0 and a nominal chunk, either passes the chunk unchanged (it already satisfies the
 * discrete barrier condition, joint limits and motion bounds), returns the minimally modified chunk,
 * or says why it cannot be made safe. Linearised at the nominal chunk (projected onto the motion
 * bounds from q0 when it starts out of reach), re-linearised at the previous
 * round's result with a proximal term and the rows backed off by `backOff` (after a round that needed
 * slack: at the standing-still chunk instead; with `firstRoundIterate`, after round 1 at its early
 * iterate) — at most `maxRounds` QP solves — with the nonlinear h re-checked every converged round.
 *
 * A round's result is safe when, on the nonlinear h, every step keeps h ≥ 0 within joint limits and
 * motion bounds and the solve needed no slack (design §6's re-check; with `looseSlackByRecheck`, a
 * loose solve's Σξ too small to tell from its inaccuracy counts as none where the re-check accepts
 * the result). It is accepted at once when it
 * also meets the discrete barrier condition h(u_k) ≥ (1−γ)h(u_{k−1}) within `cbfTolerance`, or keeps
 * the planned clearance (h ≥ 0 without δ's credit) at every step with a shortfall within
 * `clearRoundTolerance` (default δ); otherwise the next round re-linearises. After the last round the safe result with the smallest
 * barrier-condition violation is executed, so re-linearisation can only improve on a safe round,
 * never turn it into a hold. No safe round → unsafe. Preallocated per shape.
 */
import { reusableSolveOptions, type ReusableQpSolveOptions } from '../qp/types.js';
import { ChunkQp } from './cbf-qp.js';
import type { CbfWeights } from './cbf-qp.js';
import type { BarrierModel, BoundQpSolver, ChunkFilter, QpSolverFactory } from './cbf-types.js';
import {
  newRecheck,
  recheckChunk,
  recheckScratch,
  type Recheck,
  type RecheckBounds,
  type RecheckScratch,
} from './chunk-recheck.js';
import {
  checkGamma,
  checkJointLimits,
  clamp,
  fmt,
  newOutcome,
  refuse,
  startChunk,
  type JointLimitConfig,
} from './filter-common.js';

export interface CbfFilterConfig extends CbfWeights, JointLimitConfig {
  /** QP solves per chunk (1 = linearise at the nominal chunk only). design §6: ≤ 3. */
  readonly maxRounds: number;
  /** Σξ above this means the barrier condition could not be met: hold. */
  readonly slackTolerance: number;
  /**
   * Violation of the nonlinear barrier condition (m) accepted without another round. Safety does not
   * rest on it (h ≥ 0 is checked exactly); it bounds how much faster than (1−γ) per step the arm may
   * close in on an obstacle because of linearisation error.
   */
  readonly cbfTolerance: number;
  readonly maxIterations: number;
  /** QP convergence tolerance (absolute and relative); default {@link DEFAULT_CBF_QP_TOLERANCE}. */
  readonly qpTolerance?: number;
  /**
   * Tightening (m) of the linearised barrier rows in re-linearised rounds, capped per row at
   * γ·h̄_{k−1}/2 (ChunkQp.linearise); default {@link DEFAULT_CBF_BACK_OFF}. 0 disables it.
   */
  readonly backOff?: number;
  /**
   * Planning margin δ (m, default 0): the barrier model's h is built with d_safe + δ (the filter
   * plans to keep that much clearance), while a configuration is only refused — the present
   * position, or a round's result on the nonlinear re-check — when h < −δ, i.e. when the true
   * clearance is under d_safe. A chunk that ends on the planning boundary leaves the next chunk's
   * measured start δ of room for servo tracking error and tracker noise instead of none; the
   * barrier condition h(u_k) ≥ (1 − γ)h(u_{k−1}) still steers any start inside the planning
   * boundary back out of it.
   */
  readonly planningMargin?: number;
  /**
   * Per-joint acceleration limit a_max (rad/s²), opt-in (absent: no acceleration rows, nothing else
   * changes). Adds rows |u_k − 2u_{k−1} + u_{k−2}| ≤ a_max·dt² to the QP (ChunkQp, u_{−1} = q0) and
   * to the re-check, so servos are not asked for corners a detour would otherwise cut. The row
   * through the chunk's first step needs the position one step before q0 (`filter`'s `qPrev`: the
   * previous step's command); without it the first step is bounded by the motion bound alone, since
   * the filter does not know the arm's present velocity. A chunk that cannot meet the rows (e.g. a
   * joint moving fast at its limit with qPrev given) is a solver failure: the gate holds.
   */
  readonly maxAcceleration?: readonly number[];
  /**
   * Free the CBF rows that the joint limits and motion bounds already imply before each solve
   * (ChunkQp.screenImpliedRows; default true). Exact: the QP's optimum is the same, found with fewer
   * barrier terms; false only to compare against the unscreened QP.
   */
  readonly screenRows?: boolean;
  /**
   * Shortfall of the nonlinear barrier condition (m) accepted without another round from a safe
   * round whose every step also keeps h ≥ 0 — the planned clearance d_safe + δ, not only the
   * d_safe the re-check requires. Default: `planningMargin` (δ; 0 without one, and 0 turns it off).
   * Safety is unchanged (the re-check still decides); what it gives up is part of the barrier
   * condition's bound on how fast the chunk closes in — by at most this much per step, and only on
   * chunks that stay outside the planning margin (the argument: design §6). On the fragile pilot's
   * SO-101 calls the rounds that stop short of cbfTolerance hover at 0.4–0.9 mm at the chunk's last
   * steps (one chunk ran all 6 rounds that way); δ (1 mm) there cut its worst chunks from 6 rounds
   * to 3, outcomes kept, its jerk up 14 % (bench/RESULTS.md).
   */
  readonly clearRoundTolerance?: number;
  /**
   * Interior-point iterations round 1 may take when more rounds follow (default: maxIterations,
   * i.e. no cap). A round 1 that has not converged by then is treated like one that needed slack:
   * the next round linearises at the standing-still chunk. Safety is unchanged (every round's
   * result is re-checked; the fallback is the one slack already takes). On the fragile pilot's
   * Panda calls every round 1 that needed slack took 9–12 iterations and every other one 6–9;
   * 9 cut the rounds that needed slack short and changed no executed chunk (bench/RESULTS.md).
   */
  readonly firstRoundIterations?: number;
  /**
   * With `firstRoundIterations`, opt-in: round 1 at the nominal stops first after `iterations`
   * interior-point iterations, and when its iterate's Σξ is then above `slack` (m) it goes the way
   * of a round that reached the cap (the next round linearises at the standing-still chunk);
   * otherwise the same solve continues (QpSolveOptions.resume) up to the cap. Safety is unchanged:
   * the round would only have been a linearisation point or a re-checked candidate. Why: on the
   * fragile pilot's Panda calls, after 4 iterations the round 1s that went on to need slack (every
   * detour chunk's: the held-tilt faces) had Σξ ≥ 0.068 and every other ≤ 0.0033 (bench/RESULTS.md);
   * waiting for the cap spent 2 more iterations of 10 on each detour chunk.
   */
  readonly firstRoundSlackProbe?: { readonly iterations: number; readonly slack: number };
  /**
   * Round 1 cut short as a linearisation point, opt-in (absent: round 1 at the nominal runs to
   * convergence, or to `firstRoundIterations`, which this excludes). When more rounds follow, round 1
   * stops after `iterations` interior-point iterations; unless it has converged by then, its result
   * is neither re-checked nor a candidate: round 2 linearises at its iterate (projected onto the
   * motion bounds and limits), with the proximal weight `proximal` around it instead of
   * CbfWeights.proximal, and starts from it primal-dual. Safety is unchanged (every candidate is a
   * converged round's result, re-checked exactly). Why: on the fragile pilot's SO-101 detour chunks
   * round 1's converged result lay 5–97 mm inside the bottle's clearance, where the linear model of
   * h is poor; round 2 linearised there fell short and a third round followed (the p99 call 24.8
   * iterations). The early iterate lies between the standing-still start and that result, where the
   * model is closer; 4 iterations and μ 10 there: p99 call 18 iterations, 20/20 seeds instead of
   * 19/20, smoother (bench/RESULTS.md). Fewer iterations or a stiffer μ anchored round 2 near a
   * chunk that lags the nominal: larger corrections, and seeds lost.
   */
  readonly firstRoundIterate?: { readonly iterations: number; readonly proximal: number };
  /**
   * Tolerance (absolute and relative) of the rounds' first solve, opt-in (absent or 0: every round
   * is solved at `qpTolerance`). A round is a linearisation point or a candidate; its result is
   * re-checked exactly on the nonlinear barrier either way, so its accuracy bears on optimality, not
   * on safety. With it each round is solved loosely first and the exact re-check runs on that
   * result: an unsafe or short round re-linearises there at once. The round that ends the rounds is
   * finished at `qpTolerance` by continuing the loose solve's iterate (QpSolveOptions.resume) and
   * executed when it passes the re-check at least as well (else the loose result, which passed).
   * Slack: Σξ ≤ slackTolerance is none; above slackTolerance + LOOSE_SLACK_BAND × this tolerance it
   * is slack the linearisation needs; in between the round is finished tight where that decides
   * acceptance, and otherwise is only re-linearised at (not a fallback candidate). design §6.
   */
  readonly looseRoundTolerance?: number;
  /** With `looseRoundTolerance`: finish the round that ends the rounds at `qpTolerance` (default true). */
  readonly finishLooseRounds?: boolean;
  /**
   * With `looseRoundTolerance`, opt-in (default false): a loose round whose Σξ lies in the band
   * where it may be the loose solve's own inaccuracy (see above) and whose result the exact re-check
   * accepts — h ≥ −δ, joint limits and motion bounds at every step, the barrier condition within
   * cbfTolerance (or clearRoundTolerance) — ends the rounds on that result, without the tight solve
   * that would tell its Σξ apart from slack (its Σξ is reported as slackUsed). The slack rule sends
   * the next round to a better linearisation point where the linear model of h is poor; a result
   * the nonlinear re-check accepts needs no better one, and that re-check is what safety rests on
   * either way (design §6). A result the re-check does not accept is decided as before. With
   * finishLooseRounds false the loose result is executed as solved. Why: on the fragile pilot's
   * Panda calls most detour chunks spent 6 of their 14–18 interior-point iterations on that tight
   * solve, after a loose result the re-check had accepted (bench/RESULTS.md).
   */
  readonly looseSlackByRecheck?: boolean;
}

export const DEFAULT_CBF_WEIGHTS: CbfWeights = { lambda: 5, rho: 1000, gamma: 0.2, proximal: 20 };

/**
 * Shortfall of the nonlinear barrier condition (m) accepted without another round: 0.1 mm, below
 * the capsule model's and any tracker's accuracy. h ≥ 0 itself is always checked exactly.
 */
export const DEFAULT_CBF_TOLERANCE = 1e-4;

/**
 * Convergence tolerance of the filter's QP solves: residuals of about a micro-radian, three orders
 * below a servo's encoder step (2π/4096 on the STS3215). The result is re-checked exactly on the
 * nonlinear h, the limits and the motion bounds anyway; solving to 1e-9 cost 15 % more
 * interior-point iterations on the generator's sequences and changed no outcome.
 */
export const DEFAULT_CBF_QP_TOLERANCE = 1e-6;

/**
 * Back-off of re-linearised rounds: 0.5 mm. A round re-linearised at the previous result was
 * 0.1–0.45 mm short of the nonlinear barrier condition on the generator's sequences (its own
 * linearisation error); asking the QP for that much extra clearance lets it land within
 * `DEFAULT_CBF_TOLERANCE` instead of needing a third round. There it cut three-round chunks from
 * 18 to 3 of 180 (6 joints; 0.2 mm: 6) and changed no outcome; the executed chunks moved 2 %
 * further from the nominal in sum (Σ max|u − u_nom| 23.3 against 22.8 rad).
 */
export const DEFAULT_CBF_BACK_OFF = 5e-4;

export type CbfStatus = 'unchanged' | 'filtered' | 'unsafe' | 'solver-failure';

/**
 * Outcome of one chunk, overwritten by the next call (the outcome itself is not reallocated; the
 * barrier model may still allocate: see bench/RESULTS.md, allocation per chunk).
 */
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
  /** max over steps and pairs of (1−γ)h_p(u_{k−1}) − h_p(u_k), clipped at 0, of the executed chunk (m). */
  cbfViolation: number;
  rounds: number;
  iterations: number;
  /** For 'unsafe' / 'solver-failure': why. */
  detail: string;
}

export class ChunkCbfFilter implements ChunkFilter {
  private qp: ChunkQp | null = null;
  private readonly shapes: {
    qp: ChunkQp;
    solver: BoundQpSolver;
    out: Float64Array;
    ref: Float64Array;
    best: Float64Array;
    warm: Float64Array;
    warmDual: Float64Array;
  }[] = [];
  private solver: BoundQpSolver | null = null;
  /** h_p(q0) of the present call (q0 and the obstacles do not change within a call). */
  private readonly h0: Float64Array;
  private readonly scratch: RecheckScratch;
  private readonly recheck: Recheck = newRecheck();
  private readonly bounds: RecheckBounds;
  /** The acceleration rows of the present call (qPrev null when the call gave none). */
  private readonly accelerationRows: { step: Float64Array; qPrev: Float64Array | null } | null;
  private readonly evaluation: { h0: Float64Array; into: ChunkQp | null };
  private readonly q0Buf: Float64Array;
  private readonly dq: Float64Array;
  /** a_max·dt² per joint, and the position one step before q0 (NaN-free only when given). */
  private readonly aStep: Float64Array | null;
  private readonly qPrevBuf: Float64Array;
  private hasPrev = false;
  private out: Float64Array = new Float64Array(0);
  private ref: Float64Array = new Float64Array(0);
  /** A loose round's re-check while finishTight tries its tight finish (put back if that fails). */
  private readonly looseKept = { minH: 0, minHStep: 0, violation: 0 };
  /** The best safe round so far (smallest barrier-condition violation). */
  private best: Float64Array = new Float64Array(0);
  private readonly bestStats = { round: 0, slack: 0, minH: 0, minHStep: 0, violation: Infinity };
  /** Set by check(): max barrier-condition violation, and whether limits, motion bounds and h ≥ 0 held. */
  private checkViolation = 0;
  private checkHard = false;
  private refIsStill = false;
  /** proximal weight of a round linearised at this.ref (0 standing still; see firstRoundIterate) */
  private refProximal = 0;
  readonly outcome: CbfOutcome = newOutcome();
  /** CBF rows of the last call's QP solves in all, and how many of them the screen freed. */
  readonly rowStats = { rows: 0, screened: 0 };
  private readonly screenRows: boolean;
  private readonly clearRoundTolerance: number;
  private readonly firstRoundIterations: number;
  /** firstRoundSlackProbe's iterations (0: off) and Σξ (m) */
  private readonly probeIterations: number;
  private readonly probeSlack: number;
  /** firstRoundIterate's iteration cap (0: off) and proximal weight */
  private readonly iterateCap: number;
  private readonly iterateProximal: number;
  /** the rounds' first-solve tolerance (0: off) and the tight one */
  private readonly looseTolerance: number;
  /** looseSlackByRecheck, with loose rounds on */
  private readonly looseSlackByRecheck: boolean;
  private readonly tightTolerance: number;
  /** Last call's rounds that were solved loosely, and how many of them were finished tight. */
  readonly looseStats = { loose: 0, tightened: 0 };
  /**
   * Diagnostics hook: called after every round with its slack and result (slack NaN for a round 1 cut
   * short by firstRoundIterate: its iterate, the next round's linearisation point, not a result).
   */
  trace: ((round: number, slack: number, u: Float64Array) => void) | null = null;
  /** rewritten between solves; every field from construction (reusableSolveOptions) */
  private readonly solveOptions: ReusableQpSolveOptions;
  private readonly backOff: number;
  /** −δ: the smallest h accepted (see CbfFilterConfig.planningMargin). */
  private readonly hFloor: number;
  private warm: Float64Array = new Float64Array(0);
  private warmDual: Float64Array = new Float64Array(0);

  constructor(
    readonly barrier: BarrierModel,
    private readonly makeSolver: QpSolverFactory,
    readonly config: CbfFilterConfig,
  ) {
    const n = barrier.joints;
    checkJointLimits('CBF filter', config, n);
    checkGamma('CBF filter', config.gamma);
    if (!(config.maxRounds >= 1)) throw new RangeError(`CBF filter: maxRounds must be ≥ 1, got ${config.maxRounds}`);
    this.h0 = new Float64Array(barrier.pairs);
    this.scratch = recheckScratch(barrier);
    this.evaluation = { h0: this.h0, into: null };
    this.q0Buf = new Float64Array(n);
    this.dq = new Float64Array(n);
    const eps = config.qpTolerance ?? DEFAULT_CBF_QP_TOLERANCE;
    if (!(eps > 0)) throw new RangeError(`CBF filter: qpTolerance must be > 0, got ${eps}`);
    this.solveOptions = reusableSolveOptions({ maxIterations: config.maxIterations, epsAbs: eps, epsRel: eps });
    this.tightTolerance = eps;
    const loose = config.looseRoundTolerance ?? 0;
    if (!(loose === 0 || (loose >= eps && loose < 1)))
      throw new RangeError(
        `CBF filter: looseRoundTolerance must be 0 (off) or in [qpTolerance, 1), got ${config.looseRoundTolerance}`,
      );
    this.looseTolerance = loose > eps ? loose : 0;
    this.looseSlackByRecheck = config.looseSlackByRecheck === true && this.looseTolerance > 0;
    this.screenRows = config.screenRows ?? true;
    const cap = config.firstRoundIterations;
    if (cap !== undefined && !(Number.isInteger(cap) && cap >= 1))
      throw new RangeError(`CBF filter: firstRoundIterations must be an integer ≥ 1, got ${cap}`);
    this.firstRoundIterations = cap === undefined || cap >= config.maxIterations ? 0 : cap;
    const probe = config.firstRoundSlackProbe;
    if (probe !== undefined) {
      if (this.firstRoundIterations === 0)
        throw new RangeError('CBF filter: firstRoundSlackProbe needs firstRoundIterations (below maxIterations)');
      if (
        !(Number.isInteger(probe.iterations) && probe.iterations >= 1 && probe.iterations < this.firstRoundIterations)
      )
        throw new RangeError(
          `CBF filter: firstRoundSlackProbe.iterations must be an integer in [1, firstRoundIterations), got ${probe.iterations}`,
        );
      if (!(probe.slack > 0 && probe.slack < Infinity))
        throw new RangeError(`CBF filter: firstRoundSlackProbe.slack must be finite and > 0, got ${probe.slack}`);
    }
    this.probeIterations = probe?.iterations ?? 0;
    this.probeSlack = probe?.slack ?? Infinity;
    const iterate = config.firstRoundIterate;
    if (iterate !== undefined) {
      if (cap !== undefined)
        throw new RangeError('CBF filter: firstRoundIterate and firstRoundIterations exclude each other');
      if (
        !(Number.isInteger(iterate.iterations) && iterate.iterations >= 1 && iterate.iterations < config.maxIterations)
      )
        throw new RangeError(
          `CBF filter: firstRoundIterate.iterations must be an integer in [1, maxIterations), got ${iterate.iterations}`,
        );
      if (!(iterate.proximal >= 0 && iterate.proximal < Infinity))
        throw new RangeError(`CBF filter: firstRoundIterate.proximal must be finite and ≥ 0, got ${iterate.proximal}`);
    }
    this.iterateCap = iterate?.iterations ?? 0;
    this.iterateProximal = iterate?.proximal ?? 0;
    this.backOff = config.backOff ?? DEFAULT_CBF_BACK_OFF;
    if (!(this.backOff >= 0)) throw new RangeError(`CBF filter: backOff must be ≥ 0, got ${config.backOff}`);
    const margin = config.planningMargin ?? 0;
    if (!(margin >= 0 && margin < Infinity))
      throw new RangeError(`CBF filter: planningMargin must be finite and ≥ 0, got ${config.planningMargin}`);
    this.hFloor = -margin;
    // default: δ (see CbfFilterConfig.clearRoundTolerance)
    this.clearRoundTolerance = config.clearRoundTolerance ?? margin;
    if (!(this.clearRoundTolerance >= 0 && this.clearRoundTolerance < Infinity))
      throw new RangeError(
        `CBF filter: clearRoundTolerance must be finite and ≥ 0 m, got ${config.clearRoundTolerance}`,
      );
    const acc = config.maxAcceleration;
    if (acc !== undefined) {
      if (acc.length !== n)
        throw new RangeError(`CBF filter: maxAcceleration has ${acc.length} entries, the barrier model ${n} joints`);
      acc.forEach((a, j) => {
        if (!(a > 0 && a < Infinity))
          throw new RangeError(`CBF filter: maxAcceleration[${j}] must be finite and > 0 rad/s², got ${a}`);
      });
    }
    this.aStep = acc === undefined ? null : new Float64Array(n);
    this.qPrevBuf = new Float64Array(n);
    this.accelerationRows = this.aStep === null ? null : { step: this.aStep, qPrev: null };
    this.bounds = {
      qmin: config.qmin,
      qmax: config.qmax,
      dq: this.dq,
      hFloor: this.hFloor,
      decay: 1 - config.gamma,
      acceleration: this.accelerationRows,
    };
  }

  /** The QP of the last chunk that was checked (its values are those of the last filtered one; for benchmarks and diagnostics). */
  get lastProblem(): ChunkQp | null {
    return this.qp;
  }

  /**
   * Filter `nominal` (H × n, row-major) from the present position `q0`; `dt` is the chunk's step
   * period. `deadline` (optional) is polled by the solver; true stops it ('solver-failure').
   * `qPrev` (optional, used only with `maxAcceleration`): the position one step before q0, so the
   * first step's acceleration is bounded too.
   */
  filter(
    nominal: Float64Array,
    horizon: number,
    q0: ArrayLike<number>,
    dt: number,
    deadline?: () => boolean,
    qPrev?: ArrayLike<number>,
  ): CbfOutcome {
    const o = this.outcome;
    const n = this.barrier.joints;
    const cfg = this.config;
    this.rowStats.rows = 0;
    this.looseStats.loose = 0;
    this.looseStats.tightened = 0;
    this.rowStats.screened = 0;
    if (startChunk(o, nominal, horizon, n)) return o;
    for (let j = 0; j < n; j++) {
      this.q0Buf[j] = q0[j] ?? NaN;
      this.dq[j] = cfg.maxSpeed[j]! * dt;
    }
    if (this.aStep !== null) {
      for (let j = 0; j < n; j++) {
        this.aStep[j] = cfg.maxAcceleration![j]! * dt * dt;
        this.qPrevBuf[j] = qPrev === undefined ? NaN : (qPrev[j] ?? NaN);
      }
      this.hasPrev = qPrev !== undefined;
      this.accelerationRows!.qPrev = this.hasPrev ? this.qPrevBuf : null;
      if (this.hasPrev)
        for (let j = 0; j < n; j++)
          if (!Number.isFinite(this.qPrevBuf[j]!))
            return refuse(
              o,
              'solver-failure',
              `qPrev[${j}] must be a finite joint position (rad), got ${fmt(this.qPrevBuf[j]!)}`,
            );
    }
    const h0 = this.barrier.h(this.q0Buf, this.h0);
    if (!(h0 >= this.hFloor)) {
      o.minH = h0;
      o.minHStep = -1;
      return refuse(
        this.outcome,
        'unsafe',
        `present position already inside the safety distance (h = ${fmt(h0)}${this.hFloor < 0 ? `, planning margin ${fmt(-this.hFloor)}` : ''})`,
      );
    }
    // The nominal chunk's check evaluates the gradients too: round 1 linearises there.
    const qp = this.shape(horizon);
    this.check(nominal, horizon, qp);
    // The nominal chunk is held to the same acceptance as a round's result.
    if (this.checkHard && this.checkViolation <= cfg.cbfTolerance) {
      o.cbfViolation = this.checkViolation;
      o.status = 'unchanged';
      return o;
    }
    const { nu } = qp;
    qp.setNominal(nominal, this.q0Buf, cfg.qmin, cfg.qmax, this.dq, cfg);
    qp.h0.set(this.h0);
    // Round 1 linearises at the rows the arm can reach; where they are the nominal's, the check
    // above already evaluated the barrier there (qp.hRef/gRef hold the barrier at this.ref).
    let refEvaluated = !this.reachableReference(nominal, horizon);
    if (this.aStep !== null) qp.setAcceleration(this.q0Buf, this.hasPrev ? this.qPrevBuf : null, this.aStep);
    this.refIsStill = false;
    this.refProximal = cfg.proximal;
    this.solveOptions.deadline = deadline;
    // Round 1's interior point starts at the standing-still chunk (u_k = q0 within the limits, no
    // slack), which meets every motion bound. On the generator's sequences that took 6 % fewer
    // iterations in all than starting at the nominal chunk walked into the motion bounds, and a
    // quarter fewer for the median chunk (6 against 8); the cold start at u = 0 took 12 % more.
    this.startStill(horizon);
    const best = this.bestStats;
    best.violation = Infinity;
    let lastMinH = Infinity;
    let lastMinHStep = -1;
    let lastSlack = 0;
    for (let round = 1; round <= cfg.maxRounds; round++) {
      o.rounds = round;
      qp.linearise(
        this.barrier,
        this.ref,
        this.q0Buf,
        cfg.gamma,
        round > 1 && !this.refIsStill ? this.backOff : 0,
        refEvaluated,
      );
      if (round > 1) qp.setProximal(this.ref, this.refProximal);
      // rows the limits and motion bounds imply are dropped (the re-check below still checks every pair)
      if (this.screenRows) this.rowStats.screened += qp.screenImpliedRows();
      this.rowStats.rows += horizon * qp.m;
      // (firstRoundIterations) round 1 at the nominal, cut short, goes the way of a round that needed slack
      const capped = round === 1 && !this.refIsStill && round < cfg.maxRounds && this.firstRoundIterations > 0;
      // (firstRoundIterate) round 1 at the nominal, cut short, is only the next round's linearisation point
      const cutShort = round === 1 && !this.refIsStill && round < cfg.maxRounds && this.iterateCap > 0;
      // (firstRoundSlackProbe) a capped round 1 stops first at the probe to look at its Σξ
      const probing = capped && this.probeIterations > 0;
      this.solveOptions.maxIterations = capped
        ? probing
          ? this.probeIterations
          : this.firstRoundIterations
        : cutShort
          ? this.iterateCap
          : cfg.maxIterations;
      const loose = this.looseTolerance > 0;
      this.setTolerance(loose ? this.looseTolerance : this.tightTolerance);
      let r = this.solver!.solve(this.solveOptions);
      o.iterations += r.iterations;
      if (probing && r.status === 'max-iterations' && this.slackOf(r.x, horizon) <= this.probeSlack) {
        // no evident slack yet: the same solve continues, up to the cap in all
        this.solveOptions.maxIterations = this.firstRoundIterations - this.probeIterations;
        this.solveOptions.resume = true;
        r = this.solver!.solve(this.solveOptions);
        this.solveOptions.resume = false;
        o.iterations += r.iterations;
      }
      if (capped && r.status === 'max-iterations') {
        this.relineariseStill(horizon);
        refEvaluated = false;
        continue;
      }
      if (cutShort && r.status === 'max-iterations') {
        this.keepWarm(r.x, r.y);
        this.project(r.x, horizon);
        if (this.trace) this.trace(round, NaN, this.out);
        this.ref.set(this.out);
        this.refIsStill = false;
        this.refProximal = this.iterateProximal;
        refEvaluated = false;
        continue;
      }
      if (r.status !== 'solved') return refuse(this.outcome, 'solver-failure', `${r.status}: ${r.reason}`);
      this.keepWarm(r.x, r.y);
      let slack = this.slackOf(r.x, horizon);
      let tight = !loose;
      if (loose) this.looseStats.loose++;
      this.project(r.x, horizon);
      // (a loose round is reported once its slack is decided, below)
      if (this.trace && !loose) this.trace(round, slack, this.out);
      // The re-check gives no credit for slack: the barrier condition must hold on the nonlinear h.
      // It evaluates h with its gradient into the QP's buffers: if the next round linearises at
      // this result, that evaluation is the linearisation (the same model at the same points).
      const last = round === cfg.maxRounds;
      this.check(this.out, horizon, last ? null : qp);
      let gradientsAtOut = !last;
      // (looseRoundTolerance) A loose iterate's ξ are not at their bound yet: Σξ up to the band
      // above slackTolerance may be the loose solve's and not the linearisation's. Where that
      // decides whether the round ends the rounds, the round is solved tight and that decides.
      const band = loose ? LOOSE_SLACK_BAND * this.looseTolerance : 0;
      const ambiguous = loose && slack > cfg.slackTolerance && slack <= cfg.slackTolerance + band;
      // (looseSlackByRecheck) an ambiguous Σξ whose loose result the exact re-check accepts: settled
      const settled = ambiguous && this.looseSlackByRecheck && this.checkHard && this.acceptable(o.minH);
      if (ambiguous && !settled && this.checkHard && (last || this.acceptable(o.minH))) {
        r = this.tighten();
        o.iterations += r.iterations;
        // A tight solve that fails leaves the round undecided (its loose result, already re-checked,
        // is linearised at next and is no candidate), as finishTight keeps a loose result whose
        // finish failed: a safe round found before, or a later one, is still executed.
        if (r.status === 'solved') {
          this.keepWarm(r.x, r.y);
          slack = this.slackOf(r.x, horizon);
          tight = true;
          this.project(r.x, horizon);
          // h only: a round that is finished tight is mostly accepted; if not, the next round's
          // linearisation evaluates the gradients at it
          this.check(this.out, horizon, null);
          gradientsAtOut = false;
        }
      }
      if (this.trace && loose) this.trace(round, slack, this.out);
      // an ambiguous Σξ not resolved: not a candidate, but linearised at next like a round without slack
      // (a settled one is resolved: safe, and accepted by the re-check that settled it)
      const undecided = !tight && ambiguous && !settled;
      let safe = this.checkHard && (settled || slack <= cfg.slackTolerance);
      const accepted = safe && this.acceptable(o.minH);
      // (looseRoundTolerance) a loose round that ends the rounds is finished at the tight tolerance;
      // the tight result is executed when it passes the same re-check at least as well
      if (!tight && safe && (accepted || last) && this.config.finishLooseRounds !== false)
        slack = this.finishTight(horizon, slack, o);
      safe = this.checkHard && (settled || slack <= cfg.slackTolerance);
      lastMinH = o.minH;
      lastMinHStep = o.minHStep;
      lastSlack = slack;
      if (safe && this.checkViolation < best.violation) {
        this.best.set(this.out);
        best.round = round;
        best.slack = slack;
        best.minH = o.minH;
        best.minHStep = o.minHStep;
        best.violation = this.checkViolation;
      }
      // the barrier condition within cbfTolerance, or (clearRoundTolerance) the planned clearance
      // kept everywhere with a shortfall up to that tolerance, ends the rounds
      if (accepted || last) break;
      // Next reference: the result, unless the linearised problem needed slack. Then the result lies
      // where the linear model of h is poor (typically far from q0 along a nominal that runs into the
      // obstacle); linearise at the standing-still chunk instead, where u = q0 meets every row
      // exactly (h(q0) ≥ (1−γ)h(q0)), so the next QP is feasible without slack near q0.
      if (slack > cfg.slackTolerance && !undecided && !this.refIsStill) {
        this.relineariseStill(horizon);
        refEvaluated = false;
      } else {
        this.ref.set(this.out);
        this.refIsStill = false;
        this.refProximal = cfg.proximal;
        refEvaluated = gradientsAtOut;
      }
    }
    if (best.violation === Infinity) {
      o.minH = lastMinH;
      o.minHStep = lastMinHStep;
      o.slackUsed = lastSlack;
      if (!(lastMinH >= this.hFloor))
        return refuse(
          this.outcome,
          'unsafe',
          `h = ${fmt(lastMinH)} < 0 at step ${lastMinHStep} after ${o.rounds} round(s)`,
        );
      if (lastSlack > cfg.slackTolerance)
        return refuse(
          this.outcome,
          'unsafe',
          `barrier needs slack Σξ = ${fmt(lastSlack)} > ${cfg.slackTolerance} after ${o.rounds} round(s)`,
        );
      return refuse(this.outcome, 'unsafe', `no round met joint limits and motion bounds after ${o.rounds} round(s)`);
    }
    this.out.set(this.best);
    o.slackUsed = best.slack;
    o.minH = best.minH;
    o.minHStep = best.minHStep;
    o.cbfViolation = best.violation;
    let mod = 0;
    for (let c = 0; c < nu; c++) mod = Math.max(mod, Math.abs(this.out[c]! - nominal[c]!));
    o.modification = mod;
    o.targets = this.out;
    o.status = 'filtered';
    return o;
  }

  /** Whether a safe round (check() just ran on it) ends the rounds: see CbfFilterConfig.cbfTolerance and clearRoundTolerance. */
  private acceptable(minH: number): boolean {
    if (this.checkViolation <= this.config.cbfTolerance) return true;
    return this.clearRoundTolerance > 0 && minH >= 0 && this.checkViolation <= this.clearRoundTolerance;
  }

  private setTolerance(eps: number): void {
    this.solveOptions.epsAbs = eps;
    this.solveOptions.epsRel = eps;
  }

  /** The next solve starts from this primal-dual point (the next round changes only the CBF rows). */
  private keepWarm(x: Float64Array, y: Float64Array): void {
    this.warm.set(x);
    this.warmDual.set(y);
    this.solveOptions.warmStart = this.warm;
    this.solveOptions.warmStartDual = this.warmDual;
  }

  private slackOf(x: Float64Array, horizon: number): number {
    const nu = horizon * this.barrier.joints;
    let slack = 0;
    for (let k = 0; k < horizon; k++) slack += Math.max(0, x[nu + k]!);
    return slack;
  }

  /** The same QP solved again at the tight tolerance, warm-started primal-dual from the last (loose) solve. */
  private tighten(): ReturnType<BoundQpSolver['solve']> {
    this.looseStats.tightened++;
    this.setTolerance(this.tightTolerance);
    this.solveOptions.maxIterations = this.config.maxIterations;
    // continue the loose solve's own iterate (the QP has not changed since)
    this.solveOptions.resume = true;
    const r = this.solver!.solve(this.solveOptions);
    this.solveOptions.resume = false;
    return r;
  }

  /**
   * A safe loose round that ends the rounds (it is in this.out, check() ran on it, `slack` its Σξ):
   * solve it tight from there and re-check; keep the tight result (returning its Σξ) when it is
   * safe and at least as acceptable, else put the loose one back (returning `slack`).
   */
  private finishTight(horizon: number, slack: number, o: CbfOutcome): number {
    const cfg = this.config;
    const loose = this.looseKept;
    loose.minH = o.minH;
    loose.minHStep = o.minHStep;
    loose.violation = this.checkViolation;
    this.ref.set(this.out); // the rounds end here: ref is not linearised at again in this call
    const r = this.tighten();
    o.iterations += r.iterations;
    if (r.status === 'solved') {
      const tightSlack = this.slackOf(r.x, horizon);
      this.project(r.x, horizon);
      this.check(this.out, horizon, null);
      if (
        this.checkHard &&
        tightSlack <= cfg.slackTolerance &&
        (this.checkViolation <= loose.violation || this.acceptable(o.minH))
      )
        return tightSlack;
    }
    this.out.set(this.ref);
    this.checkHard = true;
    this.checkViolation = loose.violation;
    o.minH = loose.minH;
    o.minHStep = loose.minHStep;
    return slack;
  }

  /**
   * A solve's result into the motion bounds and limits (this.out): removes the solver's residual
   * (≈ its tolerance), which the exact re-check would otherwise count as a violated bound.
   */
  private project(x: Float64Array, horizon: number): void {
    const n = this.barrier.joints;
    const { qmin, qmax } = this.config;
    for (let c = 0; c < horizon * n; c++) {
      const j = c % n;
      const prev = c < n ? this.q0Buf[j]! : this.out[c - n]!;
      this.out[c] = clamp(clamp(x[c]!, prev - this.dq[j]!, prev + this.dq[j]!), qmin[j]!, qmax[j]!);
    }
  }

  /**
   * Round 1's linearisation point (returns true when it is not the nominal chunk itself): the
   * nominal chunk projected row by row onto the motion bounds from q0 and the joint limits (the
   * nearest the arm can follow it) — the nominal itself when it meets them, different when it
   * starts further from q0 than a step allows: a chunk proposed from the plan while the arm is
   * behind it, e.g. after a bent chunk. Linearised at rows the arm cannot reach, the barrier's
   * linear model was poor at the rows it does reach: on the Panda demo's shove (bench/RESULTS.md)
   * the first round needed slack, the second linearised at the standing-still chunk and was
   * accepted 0.1–0.25 rad short of the nominal with no pair active, so the arm fell further behind
   * every chunk and closed the gripper in the air.
   */
  private reachableReference(nominal: Float64Array, horizon: number): boolean {
    const n = this.barrier.joints;
    const { qmin, qmax } = this.config;
    let moved = false;
    for (let c = 0; c < horizon * n; c++) {
      const j = c % n;
      const prev = c < n ? this.q0Buf[j]! : this.ref[c - n]!;
      const v = clamp(clamp(nominal[c]!, prev - this.dq[j]!, prev + this.dq[j]!), qmin[j]!, qmax[j]!);
      if (v !== nominal[c]) moved = true;
      this.ref[c] = v;
    }
    return moved;
  }

  /** The next round linearises at the standing-still chunk (u_k = q0), and starts there like round 1. */
  private relineariseStill(horizon: number): void {
    const n = this.barrier.joints;
    for (let c = 0; c < horizon * n; c++) this.ref[c] = this.q0Buf[c % n]!;
    this.refIsStill = true;
    this.refProximal = 0;
    // a different QP from the last round's: start it like round 1, not from that round's solution
    this.startStill(horizon);
  }

  /** The next solve starts at the standing-still chunk (u_k = q0 within the limits, no slack), primal only. */
  private startStill(horizon: number): void {
    const n = this.barrier.joints;
    const nu = horizon * n;
    const { qmin, qmax } = this.config;
    for (let c = 0; c < nu; c++) this.warm[c] = clamp(this.q0Buf[c % n]!, qmin[c % n]!, qmax[c % n]!);
    this.warm.fill(0, nu, nu + horizon);
    this.solveOptions.warmStart = this.warm;
    this.solveOptions.warmStartDual = undefined;
  }

  /**
   * Re-check of chunk `u` on the nonlinear barrier (recheckChunk, the same check the off-thread
   * chunk path runs on the control thread): sets checkHard (joint limits, motion bounds with 1e-9
   * rad for rounding, acceleration rows if configured within ACCELERATION_ROW_TOLERANCE, h ≥ −δ at
   * every step), checkViolation (max of (1−γ)h_p(u_{k−1}) − h_p(u_k), clipped at 0) and the
   * outcome's minH / minHStep. With `into`, h and its gradient are evaluated into the QP's buffers.
   */
  private check(u: Float64Array, horizon: number, into: ChunkQp | null): void {
    this.evaluation.into = into;
    const r = recheckChunk(
      this.barrier,
      u,
      horizon,
      this.q0Buf,
      this.bounds,
      this.scratch,
      this.recheck,
      this.evaluation,
    );
    this.outcome.minH = r.minH;
    this.outcome.minHStep = r.minHStep;
    this.checkHard = r.hard;
    this.checkViolation = r.violation;
  }

  /**
   * The QP, solver and buffers for this horizon. The last SHAPE_CACHE horizons are kept, so a policy
   * that alternates chunk lengths does not rebuild (and allocate) a solver per chunk.
   */
  private shape(horizon: number): ChunkQp {
    if (this.qp !== null && this.qp.H === horizon) return this.qp;
    let s = this.shapes.find((x) => x.qp.H === horizon);
    if (s === undefined) {
      const n = this.barrier.joints;
      const qp = new ChunkQp(horizon, n, this.barrier.pairs, { acceleration: this.aStep !== null });
      s = {
        qp,
        solver: this.makeSolver(qp.problem),
        out: new Float64Array(horizon * n),
        ref: new Float64Array(horizon * n),
        best: new Float64Array(horizon * n),
        warm: new Float64Array(qp.problem.n),
        warmDual: new Float64Array(qp.problem.m),
      };
      if (this.shapes.length >= SHAPE_CACHE) this.shapes.shift();
      this.shapes.push(s);
    }
    this.qp = s.qp;
    this.solver = s.solver;
    this.out = s.out;
    this.ref = s.ref;
    this.best = s.best;
    this.warm = s.warm;
    this.warmDual = s.warmDual;
    return s.qp;
  }
}

/**
 * (looseRoundTolerance) Σξ of a loose solve up to slackTolerance + LOOSE_SLACK_BAND × its tolerance
 * may be the solve's inaccuracy rather than slack the linearisation needs. On the fragile pilot's
 * recorded calls (both arms, loose tolerance 1e-4 and 1e-3) such Σξ were at most 0.25 × the
 * tolerance where the tight solve found none, and every round that did need slack had Σξ ≥ 0.05 m
 * (bench/RESULTS.md): 10 sits 40× above the one and, at 1e-3, 5× below the other.
 */
const LOOSE_SLACK_BAND = 10;

/** Chunk horizons whose QP and solver are kept (a policy rarely uses more than two lengths). */
const SHAPE_CACHE = 4;
