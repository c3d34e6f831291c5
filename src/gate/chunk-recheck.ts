/**
 * The exact re-check of a chunk on the nonlinear barrier (design §6): joint limits, per-step motion
 * bounds from the present position, h ≥ −δ at every row, and the discrete barrier condition
 * h(u_k) ≥ (1−γ)h(u_{k−1}). ChunkCbfFilter runs it on the nominal chunk and on every round's
 * result; both chunk paths run it again on the chunk as it would go to the arm (after the warning
 * band, which may have slowed, bent or frozen rows the CBF passed) through {@link CommitRecheck}:
 * the synchronous ChunkExecutor from the state the filter started from, the off-thread chunk path
 * (src/runtime/off-thread-chunk-path.ts) from the joint state and obstacles present when a chunk
 * filtered elsewhere is committed. O(H · pairs) barrier evaluations, no QP; writes into the given
 * scratch and result, no allocation. Pure.
 */
import type { BarrierModel } from './cbf-types.js';
import {
  GraspTrack,
  type GraspReference,
  type GripperCommand,
  type GripperState,
  type HeldObjectAxis,
} from './held-tilt.js';
import type { OrientationBarrier } from './orientation-barrier.js';

/** Buffers a re-check writes into: `hq` and `hPrev` of length pairs, `step` of length joints. */
export interface RecheckScratch {
  readonly hq: Float64Array;
  readonly hPrev: Float64Array;
  readonly step: Float64Array;
}

export function recheckScratch(barrier: BarrierModel): RecheckScratch {
  return {
    hq: new Float64Array(barrier.pairs),
    hPrev: new Float64Array(barrier.pairs),
    step: new Float64Array(barrier.joints),
  };
}

/** The outcome of one re-check (overwritten by the next). */
export interface Recheck {
  /** Joint limits, motion bounds (with 1e-9 rad for rounding) and h ≥ −δ held at every row. */
  hard: boolean;
  /** max over rows and pairs of (1−γ)h_p(u_{k−1}) − h_p(u_k), clipped at 0 (m); Infinity when not a number. */
  violation: number;
  /** min over rows and pairs of h (m); its row (−1 before the first row). */
  minH: number;
  minHStep: number;
  /** The first row and joint outside its limits or motion bound (−1: none). */
  boundStep: number;
  boundJoint: number;
}

export function newRecheck(): Recheck {
  return { hard: true, violation: 0, minH: Infinity, minHStep: -1, boundStep: -1, boundJoint: -1 };
}

/**
 * Acceleration rows |u_k − 2u_{k−1} + u_{k−2}| ≤ a_max·dt² (CbfFilterConfig.maxAcceleration), with
 * u_{−1} = q0 and u_{−2} = `qPrev`; without `qPrev` the first row's is not checked.
 */
export interface RecheckAcceleration {
  /** a_max·dt² per joint (rad). */
  readonly step: ArrayLike<number>;
  readonly qPrev: ArrayLike<number> | null;
}

/**
 * Shortfall of an acceleration row (rad per step²) the re-check accepts: the QP's residual at its
 * tolerance, which clamping into the motion bounds cannot remove from a second difference. 1e-6 rad
 * is under a thousandth of an STS3215 encoder step; the rows protect actuators, not clearance.
 */
export const ACCELERATION_ROW_TOLERANCE = 1e-6;

export interface RecheckBounds {
  readonly qmin: readonly number[];
  readonly qmax: readonly number[];
  /** Per-joint motion bound of one row from the previous one (rad; maxSpeed · dt). */
  readonly dq: ArrayLike<number>;
  /** −δ: the smallest h accepted. */
  readonly hFloor: number;
  /** 1 − γ. */
  readonly decay: number;
  /** Acceleration rows, when the filter bounds acceleration. */
  readonly acceleration?: RecheckAcceleration | null;
}

/**
 * Where the barrier's values are taken from or written to instead of the scratch: `h0`, h(q0)
 * already evaluated (q0 and the obstacles do not change within a filter call); `into`, per-row
 * buffers that receive h and its gradient (the filter's QP linearises there next).
 */
export interface RecheckEvaluation {
  readonly h0?: Float64Array;
  readonly into?: { readonly hStep: readonly Float64Array[]; readonly gStep: readonly Float64Array[] } | null;
}

/**
 * Re-check chunk `u` (`horizon` rows of barrier.joints columns) from the present position `q0`
 * into `out`; returns `out`.
 */
export function recheckChunk(
  barrier: BarrierModel,
  u: ArrayLike<number>,
  horizon: number,
  q0: ArrayLike<number>,
  b: RecheckBounds,
  s: RecheckScratch,
  out: Recheck,
  e?: RecheckEvaluation,
): Recheck {
  const n = barrier.joints;
  const m = barrier.pairs;
  const decay = b.decay;
  const acc = b.acceleration ?? null;
  const into = e?.into ?? null;
  let hard = true;
  let violation = 0;
  let minH = Infinity;
  let minStep = -1;
  out.boundStep = -1;
  out.boundJoint = -1;
  if (e?.h0 !== undefined) s.hPrev.set(e.h0);
  else {
    for (let j = 0; j < n; j++) s.step[j] = q0[j]!;
    barrier.h(s.step, s.hPrev);
  }
  for (let k = 0; k < horizon; k++) {
    for (let j = 0; j < n; j++) {
      const v = u[k * n + j]!;
      const prev = k === 0 ? q0[j]! : u[(k - 1) * n + j]!;
      let ok = v >= b.qmin[j]! && v <= b.qmax[j]! && Math.abs(v - prev) <= b.dq[j]! + 1e-9;
      if (ok && acc !== null && (k > 0 || acc.qPrev !== null)) {
        const older = k === 0 ? acc.qPrev![j]! : k === 1 ? q0[j]! : u[(k - 2) * n + j]!;
        ok = Math.abs(v - 2 * prev + older) <= acc.step[j]! + ACCELERATION_ROW_TOLERANCE;
      }
      if (!ok) {
        if (hard) {
          out.boundStep = k;
          out.boundJoint = j;
        }
        hard = false;
      }
      s.step[j] = v;
    }
    let hq = s.hq;
    if (into === null) barrier.h(s.step, hq);
    else {
      hq = into.hStep[k]!;
      barrier.gradient(s.step, hq, into.gStep[k]!);
    }
    let hk = Infinity;
    for (let p = 0; p < m; p++) {
      const v = hq[p]!;
      if (v < hk || v !== v) hk = v;
      const short = decay * s.hPrev[p]! - v;
      if (short > violation || short !== short) violation = short !== short ? Infinity : short;
      s.hPrev[p] = v;
    }
    if (hk < minH || hk !== hk) {
      minH = hk;
      minStep = k;
    }
  }
  out.minH = minH;
  out.minHStep = minStep;
  out.hard = hard && minH >= b.hFloor;
  out.violation = violation;
  return out;
}

/**
 * What a chunk path re-checks the chunk as it would go to the arm with: the filter's barrier and
 * limits (its own copy on the control thread of the off-thread path), built by each rig.
 */
export interface ChunkRecheckConfig {
  /** The filter's barrier (its tracked groups refreshed on this thread); its joints are a chunk row's leading columns. */
  readonly barrier: BarrierModel;
  readonly qmin: readonly number[];
  readonly qmax: readonly number[];
  /** Per-joint speed limit (rad/s): a row may move maxSpeed · dt from the previous one (or the present state). */
  readonly maxSpeed: readonly number[];
  /** The filter's planning margin δ (m): h ≥ −δ is required. */
  readonly planningMargin: number;
  /** The filter's γ (only the re-check's diagnostic shortfall uses it). */
  readonly gamma: number;
  /**
   * The held object's tilt bound (HeldTiltFilter's faces), checked on the rows the grip holds an
   * object from the committed grasp reference; null or absent: the rig bounds no tilt.
   */
  readonly heldTilt?: RecheckHeldTilt | null;
  /**
   * What `barrier` takes from the chunk rather than from a row's joints, set from the chunk the
   * re-check checks before its rows are (the SO-101 pilot's jaw: a model joint that is the chunk's
   * gripper column, pinned to the range it covers over q0 and every row). Set here, not left as
   * the filter last set it: a filter that runs a chunk in parts (HeldTiltFilter at a grasp) leaves
   * it at its last part's range. Absent or null: the barrier depends on a row's joints alone.
   */
  readonly chunkPin?: ChunkPin | null;
}

/** Sets a barrier's chunk-dependent state (a pinned joint's range) from a chunk and the state it moves from. */
export interface ChunkPin {
  /** `chunk`: `horizon` rows of the chunk's columns; `q0`: the joint state (the chunk's columns) its first row moves from. */
  pinTo(chunk: ArrayLike<number>, horizon: number, q0: ArrayLike<number>): void;
}

export interface RecheckHeldTilt {
  /**
   * The tilt faces (a pair group of `barrier`, off outside the re-check), over the barrier's joints
   * or more of a row's leading columns (the SO-101 pilot's faces include the jaw, its gripper column).
   */
  readonly barrier: OrientationBarrier;
  /** The same grip HeldTiltFilter switches the faces by. */
  readonly gripper: GripperCommand | GripperState;
  /**
   * The filter on this thread that keeps a grasp reference (the synchronous path's HeldTiltFilter):
   * handed the committed reference (and the held object's axis sampled for the chunk) before every
   * chunk, so the filter and the re-check use the same one. Absent where the filter runs elsewhere
   * (its job carries them).
   */
  readonly filter?: {
    restoreGrasp(r: GraspReference, heldAxis: ArrayLike<number> | null): void;
    readonly objectAxis?: unknown;
  } | null;
  /**
   * The held object's measured orientation (a tracked cup): read on this thread before a chunk is
   * filtered while the grasp's reference is not yet measured, handed to the filter with the
   * reference, and used by the re-check on the same chunk — the object↔tool rotation is fixed at
   * the first held chunk from it (held-tilt.ts). Absent or null: the tool pose at the grasp.
   */
  readonly objectAxis?: HeldObjectAxis | null;
}

/** What the filter is handed before a chunk: the committed grasp reference and the held object's axis sampled for it. */
export interface GraspHandover {
  readonly reference: GraspReference;
  /** The held object's axis now (base frame), when the grasp's reference still waits for one and it was usable; else null. */
  readonly heldAxis: Float64Array | null;
}

/** Why the chunk as it would go to the arm failed its re-check. */
export interface RecheckFailure {
  /**
   * `limits`: a joint limit or motion bound; `barrier`: h < −δ on a distance (or self) pair;
   * `held-tilt`: the held object's tilt beyond its limit from the grasp reference.
   */
  readonly check: 'limits' | 'barrier' | 'held-tilt';
  readonly detail: string;
}

/** The unsafe-chunk hold's detail: `re-check on the control thread failed: <check>: <detail>`. */
export function describeRecheckFailure(f: RecheckFailure): string {
  return `re-check on the control thread failed: ${f.check}: ${f.detail}`;
}

/**
 * The one re-check of a chunk before it goes to the arm (both chunk paths): joint limits, motion
 * bounds from the given start, h ≥ −δ at every row (recheckChunk on the rig's barrier), and, on the
 * rows where the grip holds an object, the held-tilt faces h ≥ −δ from the committed grasp
 * reference (GraspTrack, the account HeldTiltFilter keeps too: the tool pose at the grasp, or the
 * held object's axis measured at the first held chunk). Chunks wider than the barrier (a gripper
 * column the barrier does not model) are checked on their leading columns; a barrier with a
 * chunk-dependent part (ChunkRecheckConfig.chunkPin) is set from the chunk checked first. Buffers
 * grow only: allocates only when a chunk is longer than every one before.
 */
export class CommitRecheck {
  /** The committed grasp reference (null: no tilt bound). */
  readonly grasp: GraspTrack | null;
  readonly result: Recheck = newRecheck();
  private readonly tiltResult: Recheck = newRecheck();
  private readonly scratch: RecheckScratch;
  private readonly tiltScratch: RecheckScratch | null;
  private readonly dq: Float64Array;
  private readonly start: Float64Array;
  /** The tilt pass's start row (the tilt faces' joints). */
  private readonly tiltStart: Float64Array;
  private readonly free: RecheckBounds | null;
  /** The barrier pass's bounds (dq rewritten per check). */
  private readonly bounds: RecheckBounds;
  private rows = new Float64Array(0);
  private tiltRows = new Float64Array(0);
  /** The filter's output of the last check (for `committed`). */
  private filtered: ArrayLike<number> = new Float64Array(0);
  private horizon = 0;
  private readonly sample = new Float64Array(3);
  private readonly given = new Float64Array(3);
  /** The measurement as the re-check's grasp track reads it: the sample handed to the filter. */
  private readonly givenPort: HeldObjectAxis = {
    axis: (out) => {
      out.set(this.given);
      return true;
    },
  };

  constructor(
    readonly config: ChunkRecheckConfig,
    /** Columns of a chunk row (≥ the barrier's joints). */
    readonly columns: number,
  ) {
    const n = config.barrier.joints;
    if (!(columns >= n))
      throw new RangeError(`chunk re-check: the barrier has ${n} joints, a chunk ${columns} columns`);
    for (const [name, a] of [
      ['qmin', config.qmin],
      ['qmax', config.qmax],
      ['maxSpeed', config.maxSpeed],
    ] as const)
      if (a.length !== n) throw new RangeError(`chunk re-check: ${name} has ${a.length} entries, expected ${n}`);
    this.scratch = recheckScratch(config.barrier);
    this.dq = new Float64Array(n);
    this.start = new Float64Array(n);
    this.bounds = {
      qmin: config.qmin,
      qmax: config.qmax,
      dq: this.dq,
      hFloor: -config.planningMargin,
      decay: 1 - config.gamma,
    };
    const t = config.heldTilt ?? null;
    const nt = t === null ? n : t.barrier.joints;
    if (t !== null && !(nt >= n && nt <= columns))
      throw new RangeError(
        `chunk re-check: the tilt faces have ${nt} joints, expected from the barrier's ${n} to a row's ${columns} columns`,
      );
    this.tiltStart = new Float64Array(nt);
    this.grasp = t === null ? null : new GraspTrack(t.gripper, nt, columns);
    this.tiltScratch = t === null ? null : recheckScratch(t.barrier);
    // the tilt pass checks h alone: limits and motion are the first pass's
    this.free =
      t === null
        ? null
        : {
            qmin: new Array<number>(nt).fill(-Infinity),
            qmax: new Array<number>(nt).fill(Infinity),
            dq: new Float64Array(nt).fill(Infinity),
            hFloor: -config.planningMargin,
            decay: 1 - config.gamma,
          };
  }

  /**
   * Before the next chunk is filtered: the committed grasp reference, and the held object's axis
   * read now from the configured port while the grasp's reference still waits for a measurement
   * (a copy: a job carries it to another thread). null: no tilt bound.
   */
  handover(): GraspHandover | null {
    if (!this.grasp) return null;
    const port = this.config.heldTilt?.objectAxis ?? null;
    let heldAxis: Float64Array | null = null;
    if (port !== null && !this.grasp.isMeasured && port.axis(this.sample)) heldAxis = this.sample.slice();
    return { reference: this.grasp.reference, heldAxis };
  }

  /**
   * Before the filter runs on this thread: it takes the committed grasp reference and the held
   * object's axis sampled for this chunk (handover), the one the re-check uses — returned, for
   * `check`. A filter that reads a measurement port of its own (HeldTiltFilter.objectAxis) could
   * take another sample than this check, so it is refused (a throw: the chunk path holds): give
   * the port to the re-check (RecheckHeldTilt.objectAxis) instead.
   */
  beforeFilter(): Float64Array | null {
    const f = this.config.heldTilt?.filter;
    const h = this.handover();
    if (!f || !h) return h?.heldAxis ?? null;
    if (f.objectAxis !== undefined && f.objectAxis !== null)
      throw new Error(
        "the chunk re-check takes the held object's axis for the filter and itself; this filter measures the held object's axis on its own (give the port to the re-check)",
      );
    f.restoreGrasp(h.reference, h.heldAxis);
    return h.heldAxis;
  }

  /**
   * Re-check `final` (the chunk as it would go to the arm; `horizon` rows of `columns`, step `dt`)
   * from `q0` (the joint state its first row moves from). `nominal` is the chunk as proposed and
   * `filtered` the filter's output (the nominal when it passed it unchanged), `qFilter` the state
   * the filter started from and `heldAxis` the held object's axis it was handed (handover;
   * null: none): where the grip grasps and the grasp reference come from them. Returns null when
   * it passes.
   */
  check(
    nominal: ArrayLike<number>,
    filtered: ArrayLike<number>,
    final: ArrayLike<number>,
    horizon: number,
    dt: number,
    q0: ArrayLike<number>,
    qFilter: ArrayLike<number>,
    heldAxis: ArrayLike<number> | null = null,
  ): RecheckFailure | null {
    const c = this.config;
    const n = c.barrier.joints;
    const cols = this.columns;
    this.filtered = filtered;
    this.horizon = horizon;
    // grow-only: recheckChunk reads `horizon` rows of it
    if (this.rows.length < horizon * n) this.rows = new Float64Array(horizon * n);
    const u = this.rows;
    for (let k = 0; k < horizon; k++) for (let j = 0; j < n; j++) u[k * n + j] = final[k * cols + j] ?? NaN;
    for (let j = 0; j < n; j++) {
      this.dq[j] = c.maxSpeed[j]! * dt;
      this.start[j] = q0[j] ?? NaN;
    }
    const tilt = c.heldTilt ?? null;
    if (tilt) tilt.barrier.enabled = false;
    c.chunkPin?.pinTo(final, horizon, q0);
    const r = recheckChunk(c.barrier, u, horizon, this.start, this.bounds, this.scratch, this.result);
    if (r.boundStep >= 0)
      return {
        check: 'limits',
        detail: `row ${r.boundStep} joint ${r.boundJoint} beyond its limits or its motion bound from the present joint state`,
      };
    if (!r.hard)
      return {
        check: 'barrier',
        detail: `h = ${r.minH.toPrecision(4)} m at row ${r.minHStep} (planning margin ${c.planningMargin} m)`,
      };
    if (!tilt || !this.grasp) return null;
    if (heldAxis !== null) for (let i = 0; i < 3; i++) this.given[i] = heldAxis[i] ?? NaN;
    const rows = this.grasp.tiltRows(nominal, filtered, horizon, qFilter, heldAxis !== null ? this.givenPort : null);
    if (rows === null || rows.from >= horizon) return null;
    const from = rows.from;
    let t: Recheck;
    try {
      // a chunk that starts held and lets go before grasping again: its rows before the grasp too
      if (this.grasp.lead) {
        const lead = this.tiltPass(final, 0, from, q0, (b) => this.grasp!.captureLead(b));
        if (!lead.hard) return this.tiltFailure(lead, 0, this.grasp.leadIsMeasured);
      }
      t = this.tiltPass(final, from, horizon, q0, (b) => this.grasp!.capture(b));
    } finally {
      tilt.barrier.enabled = false;
    }
    return t.hard ? null : this.tiltFailure(t, from, rows.axis !== null);
  }

  /** The tilt faces' pass over rows [from, to) of `final`, from the row before (q0 at row 0), with the reference `capture` sets. */
  private tiltPass(
    final: ArrayLike<number>,
    from: number,
    to: number,
    q0: ArrayLike<number>,
    capture: (b: OrientationBarrier) => void,
  ): Recheck {
    const tilt = this.config.heldTilt!;
    const nt = tilt.barrier.joints;
    const cols = this.columns;
    const m = to - from;
    // grow-only: the lead pass and the main pass of one chunk differ in length
    if (this.tiltRows.length < m * nt) this.tiltRows = new Float64Array(m * nt);
    const v = this.tiltRows;
    for (let k = 0; k < m; k++) for (let j = 0; j < nt; j++) v[k * nt + j] = final[(k + from) * cols + j] ?? NaN;
    for (let j = 0; j < nt; j++) this.tiltStart[j] = from > 0 ? (final[(from - 1) * cols + j] ?? NaN) : (q0[j] ?? NaN);
    capture(tilt.barrier);
    return recheckChunk(tilt.barrier, v, m, this.tiltStart, this.free!, this.tiltScratch!, this.tiltResult);
  }

  private tiltFailure(t: Recheck, from: number, measured: boolean): RecheckFailure {
    return {
      check: 'held-tilt',
      detail: `the held object's tilt beyond its limit from the grasp reference${measured ? ' (the object as measured at the first held chunk)' : ''} at row ${t.minHStep + from} (tilt face h = ${t.minH.toPrecision(4)} m, planning margin ${this.config.planningMargin} m)`,
    };
  }

  /** The chunk of the last `check` went to the arm: its grasp (if any) is the reference from now on. */
  committed(): void {
    this.grasp?.commit(this.filtered, this.horizon);
  }
}
