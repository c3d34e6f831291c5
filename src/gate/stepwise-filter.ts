/**
 * BASELINE FOR COMPARISON ONLY — the action-wise CBF filter of seeds/001 App. 0.D, Eq. A.2, applied
 * step by step to a chunk. armguard's gate uses the chunk-level filter (cbf-filter.ts, Eq. A.3);
 * this exists so the fragile-obstacle pilot can measure what the chunk-level formulation buys.
 *
 * Eq. A.2: u* = argmin ‖u − u_nom‖² + ρξ  s.t.  L_f h(z) + L_g h(z) u ≥ −α(h(z)) − ξ, ξ ≥ 0.
 * With the gate's position-controlled model z_{k+1} = u_k (the one Eq. A.3 is solved on) and
 * α(h) = γh, the barrier row is the one-step condition h(u) ≥ (1 − γ) h(z) − ξ with h linearised
 * at the present state z (its Lie derivative): h(z) + ∇h(z)·(u − z) ≥ (1 − γ) h(z) − ξ, one row per
 * barrier pair. Step k solves that QP alone — no look-ahead, no smoothness term — from z = u*_{k−1}
 * (z = q0 for k = 0), subject to the same joint limits and per-step motion bounds as the chunk
 * filter. Each step is the chunk QP of cbf-qp.ts with H = 1 and λ = 0.
 *
 * With `recheck` the executed chunk is held to the chunk filter's re-check (design §6): h ≥ 0 on the
 * nonlinear barrier at every step and no slack beyond `slackTolerance` — otherwise 'unsafe' (the
 * gate holds). Without it, the filter is Eq. A.2 as published: the slack-softened result is executed
 * whatever the nonlinear h does (the outcome still reports minH and the slack). One-step
 * linearisation errors e compound along a boundary to about −e/γ (h_{k+1} ≥ (1−γ)h_k − e), so at
 * 30 Hz steps the published filter settles inside d_safe where the re-check would hold.
 */
import { reusableSolveOptions, type ReusableQpSolveOptions } from '../qp/types.js';
import type { CbfOutcome } from './cbf-filter.js';
import { DEFAULT_CBF_QP_TOLERANCE } from './cbf-filter.js';
import { ChunkQp } from './cbf-qp.js';
import type { BarrierModel, BoundQpSolver, ChunkFilter, QpSolverFactory } from './cbf-types.js';
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

export interface StepwiseCbfBaselineConfig extends JointLimitConfig {
  /** slack weight ρ */
  readonly rho: number;
  /** α(h) = γh, γ in (0, 1] */
  readonly gamma: number;
  /** Σξ over the chunk above this: hold. */
  readonly slackTolerance: number;
  /** Hold ('unsafe') when the nonlinear h < 0 or the slack exceeds `slackTolerance`; false: Eq. A.2 as published. */
  readonly recheck: boolean;
  readonly maxIterations: number;
  readonly qpTolerance?: number;
}

export class StepwiseCbfBaseline implements ChunkFilter {
  private readonly qp: ChunkQp;
  private readonly solver: BoundQpSolver;
  private readonly z: Float64Array;
  private readonly dq: Float64Array;
  private readonly hq: Float64Array;
  private readonly grad: Float64Array;
  private out: Float64Array = new Float64Array(0);
  /** rewritten between solves; every field from construction (reusableSolveOptions) */
  private readonly solveOptions: ReusableQpSolveOptions;
  readonly outcome: CbfOutcome = newOutcome();

  constructor(
    readonly barrier: BarrierModel,
    makeSolver: QpSolverFactory,
    readonly config: StepwiseCbfBaselineConfig,
  ) {
    const n = barrier.joints;
    checkJointLimits('stepwise CBF', config, n);
    checkGamma('stepwise CBF', config.gamma);
    this.qp = new ChunkQp(1, n, barrier.pairs);
    this.solver = makeSolver(this.qp.problem);
    this.z = new Float64Array(n);
    this.dq = new Float64Array(n);
    this.hq = new Float64Array(barrier.pairs);
    this.grad = new Float64Array(barrier.pairs * n);
    const eps = config.qpTolerance ?? DEFAULT_CBF_QP_TOLERANCE;
    this.solveOptions = reusableSolveOptions({ maxIterations: config.maxIterations, epsAbs: eps, epsRel: eps });
  }

  filter(
    nominal: Float64Array,
    horizon: number,
    q0: ArrayLike<number>,
    dt: number,
    deadline?: () => boolean,
  ): CbfOutcome {
    const o = this.outcome;
    const n = this.barrier.joints;
    const cfg = this.config;
    if (startChunk(o, nominal, horizon, n)) return o;
    if (this.out.length !== nominal.length) this.out = new Float64Array(nominal.length);
    for (let j = 0; j < n; j++) {
      this.z[j] = q0[j] ?? NaN;
      this.dq[j] = cfg.maxSpeed[j]! * dt;
    }
    const h0 = this.barrier.h(this.z, this.hq);
    if (h0 !== h0 || (cfg.recheck && !(h0 >= 0))) {
      o.minH = h0;
      return refuse(this.outcome, 'unsafe', `present position already inside the safety distance (h = ${fmt(h0)})`);
    }
    this.solveOptions.deadline = deadline;
    const weights = { lambda: 0, rho: cfg.rho };
    let changed = false;
    let slack = 0;
    for (let k = 0; k < horizon; k++) {
      const unom = nominal.subarray(k * n, (k + 1) * n);
      if (this.nominalAdmissible(unom)) {
        // The QP's optimum is u_nom itself (ξ = 0): the filter is inactive at this step.
        for (let j = 0; j < n; j++) {
          this.out[k * n + j] = unom[j]!;
          this.z[j] = unom[j]!;
        }
        this.trackH(k);
        continue;
      }
      this.qp.setNominal(unom, this.z, cfg.qmin, cfg.qmax, this.dq, weights);
      // Linearised at the present state z: ∇h(z)·(u − z) ≥ −γ h(z) − ξ.
      this.qp.linearise(this.barrier, this.z, this.z, cfg.gamma);
      const r = this.solver.solve(this.solveOptions);
      o.iterations += r.iterations;
      o.rounds++;
      if (r.status !== 'solved') return refuse(this.outcome, 'solver-failure', `step ${k}: ${r.status}: ${r.reason}`);
      slack += Math.max(0, r.x[n]!);
      for (let j = 0; j < n; j++) {
        // Into the motion bounds and limits (the solver's residual), as the chunk filter does.
        const v = clamp(clamp(r.x[j]!, this.z[j]! - this.dq[j]!, this.z[j]! + this.dq[j]!), cfg.qmin[j]!, cfg.qmax[j]!);
        this.out[k * n + j] = v;
        const d = Math.abs(v - unom[j]!);
        if (d > o.modification) o.modification = d;
        if (d > 0) changed = true;
        this.z[j] = v;
      }
      this.trackH(k);
    }
    o.slackUsed = slack;
    if (!cfg.recheck) {
      // Eq. A.2 as published; a NaN barrier still holds (nothing was evaluated).
      if (o.minH !== o.minH) return refuse(this.outcome, 'unsafe', 'barrier is NaN');
    } else if (!(o.minH >= 0)) return refuse(this.outcome, 'unsafe', `h = ${fmt(o.minH)} < 0 at step ${o.minHStep}`);
    else if (slack > cfg.slackTolerance)
      return refuse(this.outcome, 'unsafe', `barrier needs slack Σξ = ${fmt(slack)} > ${cfg.slackTolerance}`);
    if (!changed) {
      o.status = 'unchanged';
      return o;
    }
    o.targets = this.out;
    o.status = 'filtered';
    return o;
  }

  /** u_nom meets step k's limits, motion bounds and every linearised barrier row at z. */
  private nominalAdmissible(unom: Float64Array): boolean {
    const n = this.barrier.joints;
    const cfg = this.config;
    for (let j = 0; j < n; j++) {
      const v = unom[j]!;
      if (!(v >= cfg.qmin[j]! && v <= cfg.qmax[j]! && Math.abs(v - this.z[j]!) <= this.dq[j]!)) return false;
    }
    this.barrier.gradient(this.z, this.hq, this.grad);
    for (let p = 0; p < this.barrier.pairs; p++) {
      let dh = 0;
      for (let j = 0; j < n; j++) dh += this.grad[p * n + j]! * (unom[j]! - this.z[j]!);
      if (!(dh >= -cfg.gamma * this.hq[p]!)) return false;
    }
    return true;
  }

  /** Nonlinear h at the step just written into z. */
  private trackH(k: number): void {
    const o = this.outcome;
    const hk = this.barrier.h(this.z, this.hq);
    if (hk < o.minH || hk !== hk) {
      o.minH = hk;
      o.minHStep = k;
    }
  }
}
