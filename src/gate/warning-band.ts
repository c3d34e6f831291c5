/**
 * The warning band on chunks (design §6; seeds/002 §IV-A; issue 15): for the force, torque and grasp
 * clauses that declare `prevention: warning_band`, predict each clause's signal at every step of a
 * proposed chunk from what the chunk commands, and act while the predicted margin is inside the
 * band ε — before ρ reaches 0 — by the clause's declared action:
 *
 * - `bend`: clamp the offending joint targets into the reachable range (commanded_load);
 * - `slow`: time-scale the chunk (the arm covers the first s·H steps of its path in H steps);
 * - `hold`: stop the arm at the last step predicted outside the band (the gripper column still runs,
 *   so a held object is released as planned).
 *
 * A bend or slow that does not bring every predicted margin outside ε falls back to the hold; a
 * prediction that is not a number counts as inside the band (fail safe). A chunk whose predicted
 * margins all stay ≥ ε is passed unchanged: the band never touches it.
 *
 * Pure: the arm's geometry comes through {@link ChunkMotionModel} (a driver or src/kinematics), no
 * clock, no I/O; buffers are sized per chunk shape and reused.
 */
import type { BandAction, BandPredictor } from '../safety/prevention.js';
import type { ClauseInstance } from '../safety/instantiate.js';

/** Per step of a chunk, index 0 = the present position q0, index k + 1 = after row k. */
export interface MotionTrace {
  /** Clearance (m) of the arm and a held object to the nearest furniture surface; < 0: the targets drive into it. */
  readonly surfaceClearance: Float64Array;
  /** Tool-centre-point height (m, world z). */
  readonly tcpHeight: Float64Array;
  /** Static gravity load, max over the arm joints of |g_j(q)| (N·m); 0 when not modelled. */
  readonly gravityLoad: Float64Array;
}

/** The arm's geometry along a chunk. Writes NaN where it cannot tell; must not keep references to the arrays. */
export interface ChunkMotionModel {
  /** Fill `out` (length ≥ horizon + 1) for q0 and the first `armJoints` columns of each of the `horizon` rows (`columns` wide). */
  trace(q0: ArrayLike<number>, targets: Float64Array, horizon: number, columns: number, out: MotionTrace): void;
}

/** approach_speed: contact force from the speed toward a surface and the depth the targets drive into it. */
export interface ApproachModel {
  /** Clearance (m) below which a step counts as touching (model accuracy); the arm's run-on is added (WarningBandConfig.runOn). */
  readonly contactDistance: number;
  /** Peak force of an impact per approach speed (N per m/s). */
  readonly impactGain: number;
  /** Force per metre the targets drive past the surface (N/m): a position servo pressing into it. */
  readonly pressStiffness: number;
}

/** commanded_load: a position servo commanded beyond its reachable range pushes with stiffness × excess, up to its stall torque. */
export interface LoadModel {
  readonly qmin: readonly number[];
  readonly qmax: readonly number[];
  /** N·m per rad of commanded excess. */
  readonly stiffness: number;
  readonly stallTorque: number;
  /** A bent target stays this far (rad) inside the range. */
  readonly bendMargin: number;
  /**
   * Lever (m) from the loaded joint to where the arm meets a surface: targets driven δ past a
   * surface (surfaceClearance < 0, less the arm's run-on) command δ / surfaceLever rad beyond
   * reach. 0: surfaces not counted.
   */
  readonly surfaceLever: number;
}

/** held_height: the gripper column and when a command counts as releasing the held object. */
export interface GripModel {
  readonly column: number;
  readonly open: number;
  /** A command this much nearer to `open` than the chunk's first row releases the object (command units). */
  readonly releaseDelta: number;
}

export interface BandClauseSpec {
  readonly id: string;
  readonly predictor: BandPredictor;
  readonly action: BandAction;
  /** The clause's bound on its signal, in its unit (e.g. 200 N; −0.02 m for "obj_above_table > −0.02"). */
  readonly limit: number;
  /** 'upper': signal < limit is safe; 'lower': signal > limit is safe. */
  readonly side: 'upper' | 'lower';
  /** Warning band ε (> 0, the clause's unit). */
  readonly epsilon: number;
}

export interface WarningBandConfig {
  readonly clauses: readonly BandClauseSpec[];
  /** Arm joint columns at the start of each row (a gripper column may follow). */
  readonly armJoints: number;
  readonly approach?: ApproachModel;
  readonly load?: LoadModel;
  readonly grip?: GripModel;
  /**
   * The arm runs on past its targets for about this long (s) when they stop (servo tracking lag):
   * a step is predicted where the arm will be, `runOn` × its speed further along — closer to a
   * surface (approach_speed), lower (held_height). 0: the arm is where its targets are.
   */
  readonly runOn: number;
  /** Time-scale factors `slow` tries, fastest first (default 0.5, 0.25). */
  readonly slowFactors?: readonly number[];
}

/** The present state the predictions start from. */
export interface BandState {
  /** The gripper holds an object (gripper_contact). */
  readonly gripping: boolean;
  /** Its height relative to its lift baseline (obj_above_table, m). */
  readonly heldHeight: number;
  /**
   * It already rests on a support (target–furniture contact): pushing down further cannot lower it
   * (the fingers slide instead), so its predicted height stays at least where it is.
   */
  readonly supported?: boolean;
}

export type BandStatus = 'unchanged' | 'slowed' | 'bent' | 'held';

export interface BandOutcome {
  status: BandStatus;
  /** The chunk to execute: the nominal one when unchanged, else a view into the band's buffer. */
  targets: Float64Array;
  /** First clause predicted inside its band on the nominal chunk ('' when none). */
  clause: string;
  /** Its first step inside the band (0-based row; −1 when none). */
  step: number;
  /** Its predicted margin there (clause unit; NaN when unpredictable). */
  margin: number;
  /** Time scale applied (1 unless slowed). */
  scale: number;
  /** First row whose arm targets were frozen (−1 unless held). */
  heldFrom: number;
  /** max |u − u_nom| over the arm columns (rad). */
  modification: number;
}

const DEFAULT_SLOW = [0.5, 0.25];

export class WarningBand {
  readonly outcome: BandOutcome = {
    status: 'unchanged',
    targets: new Float64Array(0),
    clause: '',
    step: -1,
    margin: NaN,
    scale: 1,
    heldFrom: -1,
    modification: 0,
  };
  private trace: MotionTrace = {
    surfaceClearance: new Float64Array(0),
    tcpHeight: new Float64Array(0),
    gravityLoad: new Float64Array(0),
  };
  private out = new Float64Array(0);
  private work = new Float64Array(0);
  // result of the last scan
  private scanStep = -1;
  private scanClause = -1;
  private scanMargin = NaN;

  constructor(
    private readonly model: ChunkMotionModel,
    readonly config: WarningBandConfig,
  ) {
    for (const c of config.clauses) {
      if (!(c.epsilon > 0)) throw new RangeError(`warning band ${c.id}: ε must be > 0, got ${c.epsilon}`);
      if (c.predictor === 'approach_speed' && !config.approach)
        throw new RangeError(`warning band ${c.id}: approach_speed needs an approach model`);
      if (c.predictor === 'commanded_load' && !config.load)
        throw new RangeError(`warning band ${c.id}: commanded_load needs a load model`);
      if (c.action === 'bend' && !config.load)
        throw new RangeError(`warning band ${c.id}: bend needs the joint ranges of a load model`);
    }
    if (!(config.runOn >= 0)) throw new RangeError(`warning band: runOn must be ≥ 0 s, got ${config.runOn}`);
    for (const s of config.slowFactors ?? DEFAULT_SLOW)
      if (!(s > 0 && s < 1)) throw new RangeError(`warning band: slow factors must be in (0, 1), got ${s}`);
  }

  /**
   * Check `targets` (horizon × columns, row-major; step period dt) executed from `q0`; returns the
   * outcome (overwritten by the next call).
   */
  filter(
    targets: Float64Array,
    horizon: number,
    columns: number,
    dt: number,
    q0: ArrayLike<number>,
    state: BandState,
  ): BandOutcome {
    const o = this.outcome;
    this.shape(horizon, columns);
    o.status = 'unchanged';
    o.targets = targets;
    o.scale = 1;
    o.heldFrom = -1;
    o.modification = 0;
    this.scan(targets, horizon, columns, dt, q0, state);
    o.step = this.scanStep;
    o.clause = this.scanStep < 0 ? '' : this.config.clauses[this.scanClause]!.id;
    o.margin = this.scanStep < 0 ? NaN : this.scanMargin;
    if (this.scanStep < 0) return o;
    const action = this.config.clauses[this.scanClause]!.action;
    let candidate = targets;
    if (action === 'bend') {
      this.bend(targets, horizon, columns);
      this.scan(this.out, horizon, columns, dt, q0, state);
      if (this.scanStep < 0) return this.finish('bent', targets, this.out, columns);
      candidate = this.work;
      candidate.set(this.out);
    } else if (action === 'slow') {
      for (const s of this.config.slowFactors ?? DEFAULT_SLOW) {
        this.timeScale(targets, horizon, columns, q0, s);
        this.scan(this.out, horizon, columns, dt, q0, state);
        if (this.scanStep < 0) {
          o.scale = s;
          return this.finish('slowed', targets, this.out, columns);
        }
      }
      this.scan(targets, horizon, columns, dt, q0, state);
    }
    // Hold: freeze the arm at the last row predicted outside the band (q0 when it is the first).
    // Freezing only repeats a configuration already predicted outside the band, so one pass is enough.
    const from = this.scanStep;
    if (candidate !== this.out) this.out.set(candidate);
    const n = this.config.armJoints;
    for (let k = from; k < horizon; k++) {
      for (let j = 0; j < n; j++)
        this.out[k * columns + j] = from === 0 ? (q0[j] ?? NaN) : this.out[(from - 1) * columns + j]!;
    }
    o.heldFrom = from;
    return this.finish('held', targets, this.out, columns);
  }

  private finish(status: BandStatus, nominal: Float64Array, result: Float64Array, columns: number): BandOutcome {
    const o = this.outcome;
    const n = this.config.armJoints;
    let mod = 0;
    for (let c = 0; c < result.length; c++)
      if (c % columns < n) mod = Math.max(mod, Math.abs(result[c]! - nominal[c]!));
    o.status = status;
    o.targets = result;
    o.modification = mod;
    return o;
  }

  /**
   * First step (row) at which any clause's predicted margin is below its ε (or not a number):
   * sets scanStep (−1 when none), scanClause and scanMargin.
   */
  private scan(
    u: Float64Array,
    horizon: number,
    columns: number,
    dt: number,
    q0: ArrayLike<number>,
    state: BandState,
  ): void {
    const tr = this.trace;
    this.model.trace(q0, u, horizon, columns, tr);
    const { clauses, approach, load, grip, armJoints: n } = this.config;
    this.scanStep = -1;
    let released = !state.gripping;
    const g0 = grip ? u[grip.column]! : NaN;
    for (let k = 0; k < horizon; k++) {
      if (
        grip &&
        !released &&
        Math.abs(u[k * columns + grip.column]! - grip.open) < Math.abs(g0 - grip.open) - grip.releaseDelta
      )
        released = true;
      for (let c = 0; c < clauses.length; c++) {
        const cl = clauses[c]!;
        let s: number;
        switch (cl.predictor) {
          case 'approach_speed': {
            const d = tr.surfaceClearance[k + 1]!;
            const v = (tr.surfaceClearance[k]! - d) / dt;
            const a = approach!;
            s =
              d - Math.max(0, v) * this.config.runOn < a.contactDistance
                ? a.impactGain * Math.max(0, v) + a.pressStiffness * Math.max(0, -d)
                : d === d && v === v
                  ? 0
                  : NaN;
            break;
          }
          case 'commanded_load': {
            const lever = load!.surfaceLever;
            // where the arm will be: its run-on toward the surface counted, as for approach_speed
            const depth =
              Math.max(0, tr.surfaceClearance[k]! - tr.surfaceClearance[k + 1]!) * (this.config.runOn / dt) -
              tr.surfaceClearance[k + 1]!;
            let excess = lever > 0 ? Math.max(0, depth) / lever : 0;
            if (lever > 0 && depth !== depth) excess = NaN;
            for (let j = 0; j < n; j++) {
              const x = u[k * columns + j]!;
              excess = Math.max(excess, x - load!.qmax[j]!, load!.qmin[j]! - x);
              if (x !== x) excess = NaN;
            }
            if (excess !== excess) {
              s = NaN;
              break;
            }
            s = tr.gravityLoad[k + 1]! + Math.min(load!.stallTorque, load!.stiffness * excess);
            break;
          }
          case 'held_height':
            if (released) continue;
            s =
              state.heldHeight +
              (tr.tcpHeight[k + 1]! - tr.tcpHeight[0]!) -
              Math.max(0, tr.tcpHeight[k]! - tr.tcpHeight[k + 1]!) * (this.config.runOn / dt);
            if (state.supported === true && s < state.heldHeight) s = state.heldHeight;
            break;
        }
        const margin = cl.side === 'upper' ? cl.limit - s : s - cl.limit;
        if (!(margin >= cl.epsilon)) {
          this.scanStep = k;
          this.scanClause = c;
          this.scanMargin = margin;
          return;
        }
      }
    }
  }

  /** out := targets with every arm target clamped bendMargin inside the load model's range. */
  private bend(targets: Float64Array, horizon: number, columns: number): void {
    const { qmin, qmax, bendMargin } = this.config.load!;
    this.out.set(targets);
    for (let k = 0; k < horizon; k++) {
      for (let j = 0; j < this.config.armJoints; j++) {
        const c = k * columns + j;
        const lo = qmin[j]! + bendMargin;
        const hi = qmax[j]! - bendMargin;
        const x = targets[c]!;
        this.out[c] = x > hi ? hi : x < lo ? lo : x;
      }
    }
  }

  /** out := the nominal path at (k + 1)·s − 1 for row k (index −1 = q0 for the arm, row 0 for other columns), linearly interpolated. */
  private timeScale(targets: Float64Array, horizon: number, columns: number, q0: ArrayLike<number>, s: number): void {
    const n = this.config.armJoints;
    for (let k = 0; k < horizon; k++) {
      const p = (k + 1) * s - 1;
      const i = Math.floor(p);
      const f = p - i;
      for (let j = 0; j < columns; j++) {
        const a = i < 0 ? (j < n ? (q0[j] ?? NaN) : targets[j]!) : targets[i * columns + j]!;
        const b = targets[Math.min(i + 1, horizon - 1) * columns + j]!;
        this.out[k * columns + j] = a + (b - a) * f;
      }
    }
  }

  private shape(horizon: number, columns: number): void {
    if (this.out.length !== horizon * columns) {
      this.out = new Float64Array(horizon * columns);
      this.work = new Float64Array(horizon * columns);
    }
    if (this.trace.tcpHeight.length !== horizon + 1) {
      this.trace = {
        surfaceClearance: new Float64Array(horizon + 1),
        tcpHeight: new Float64Array(horizon + 1),
        gravityLoad: new Float64Array(horizon + 1),
      };
    }
  }
}

/**
 * The band clauses among active clause instances: those whose prevention is a warning band, with
 * the bound each predictor's signal is held to — approach_speed and commanded_load predict a force
 * or torque that must stay below τ; held_height the held object's height, which must stay above −τ
 * (the slip clause `obj_above_table > −τ`). ε is the instance's warn (its tier's, or the
 * platform's). An instance without ε is left out: it has no band to act in.
 */
export function bandClauses(instances: readonly ClauseInstance[]): BandClauseSpec[] {
  const out: BandClauseSpec[] = [];
  for (const inst of instances) {
    const p = inst.clause.prevention;
    if (p?.kind !== 'warning_band' || inst.warn === undefined || !(inst.warn > 0)) continue;
    const upper = p.predictor !== 'held_height';
    out.push({
      id: inst.clause.id,
      predictor: p.predictor,
      action: p.action,
      limit: upper ? inst.tau : -inst.tau,
      side: upper ? 'upper' : 'lower',
      epsilon: inst.warn,
    });
  }
  return out;
}
