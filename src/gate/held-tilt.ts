/**
 * The held object's tilt constraint switched by the gripper COMMAND of the chunk (issue 15), not
 * by the contact signal: `gripper_contact` stays true after the hand opens at a release (the
 * fingers still touch the placed object), so a constraint keyed on it would go on bending the arm
 * after the object is let go. A chunk filter in front of the CBF:
 *
 * - the grasp is where the gripper command goes from open to closed: the tool direction that was
 *   world-vertical at that row of the chunk the arm plays (the filtered one when the filter bent
 *   it) becomes the orientation barrier's reference (the object stood upright when it was gripped);
 * - the constraint is on for a chunk whose first row commands the gripper closed (an object is in
 *   the hand for the whole chunk up to its release), off otherwise. A chunk that releases
 *   part-way keeps it on to its end;
 * - a chunk that grasps part-way (row g > 0 the first closed one) is filtered in two parts: rows
 *   0…g−1 with the constraint off, then rows g…H−1 from the first part's last row with it on and
 *   that row's tool pose as the reference (the arm stands while the fingers close, so the pose
 *   one row before the grasp row is the grasp's). Before, the constraint went on only from the
 *   next chunk, and the grasp chunk's rows after the grasp — a lift, bent around a bystander — were
 *   not tilt constrained (bench/RESULTS.md: the Panda shove held with the tool 1.4–3° past its
 *   limit at the next chunk's start). A grasp at row 0 references the present pose. A chunk that
 *   starts held, lets go and grasps again part-way has rows 0…g−1 filtered with the constraint ON,
 *   from the reference it started with (the object is in the hand until the release; they went
 *   unbounded before);
 *
 * - the rules live once, in {@link GraspTrack}: the filter keeps its grip and reference in one, and
 *   the chunk re-check (chunk-recheck.ts) keeps the committed one on the control thread and hands
 *   it, with the held object's axis sampled for the chunk, to the filter before every chunk.
 *
 * - with a measurement of the held object's orientation ({@link HeldObjectAxis}: a tracked cup on
 *   motion capture, the sim's tracked body), the first chunk that starts with the object in the
 *   hand re-takes the reference from it: the object's measured axis at the present pose fixes the
 *   object↔tool rotation (the tool direction along that axis), so each row's tool pose predicts
 *   the OBJECT's tilt. An object gripped tilted (the SO-101 pilot's seed 7: the closing fingers
 *   tip the cup 11° with the tool level) is then held to its limit from where it really is; with
 *   the tool-pose reference the gate counted it upright and let the tool tilt the full limit on
 *   top. Measured once per grasp, at the first chunk that starts held and has a usable sample
 *   (the fingers have closed and the tilt they gave the object is there to see; the grasp chunk's
 *   own rows after the grasp row are filtered before it, on the tool-pose reference). No
 *   measurement (none configured, never seen, stale, not finite): the tool-pose reference stays.
 *
 * The held object pivots in the fingers when the hand tilts (measured in the SO-101 scene: about
 * twice the tool's tilt), so the tool limit is the object's limit divided by that gain:
 * {@link toolTiltLimit}. An arm whose chunks carry no gripper column (the Franka) gives the grip as
 * a {@link GripperState} read once per chunk instead — the gripper's state, and the row the chunk
 * commands the close at when it carries a gripper command beside its joints (split as above).
 * Pure: no clock, no I/O.
 */
import type { CbfOutcome } from './cbf-filter.js';
import type { ChunkFilter } from './cbf-types.js';
import { newOutcome } from './filter-common.js';
import type { OrientationBarrier } from './orientation-barrier.js';

/** Where the gripper command is in a chunk row and what its open and closed values are. */
export interface GripperCommand {
  /** Column of the gripper command in a chunk row. */
  readonly column: number;
  readonly open: number;
  readonly closed: number;
}

/**
 * The grip read from the arm's gripper state instead, for an arm whose chunks carry no gripper
 * command (the Franka: 7 joint columns, the gripper its own action server). `held()` is read once
 * per chunk; it must fall back to false when the state is stale or unusable, and must not be a
 * contact signal that stays true after a release (the Franka's finger width leaves its grasp band
 * when the hand opens). The reference is the present pose of the first chunk that starts held
 * (the arm stands while the hand closes), not a grasp row.
 */
export interface GripperState {
  readonly held: () => boolean;
  /**
   * The row at which the chunk being filtered commands the hand to close (−1: none), read with
   * `held` once per chunk. While not held, a chunk closing at row g > 0 is filtered in two parts as
   * a commanded grasp is (rows from g on with the constraint on, the pose before row g the
   * reference); g = 0 counts as held from the first row.
   */
  readonly closeRow?: () => number;
}

/**
 * The held object's measured orientation (the port a tracker adapter meets structurally): writes
 * its up axis now (robot base frame; any length) into out[0..2] and returns true, or false when
 * there is no usable measurement now — never seen, older than the adapter's staleness limit, or
 * not finite. Read by the chunk filter once per chunk at most; must not block.
 */
export interface HeldObjectAxis {
  readonly axis: (out: Float64Array) => boolean;
}

/** A gripper command at least halfway from open towards closed counts as closed (a loose grasp too). */
export function commandsClosed(g: GripperCommand, value: number): boolean {
  return Math.abs(value - g.closed) < 0.5 * Math.abs(g.open - g.closed);
}

/**
 * The first grasp row of `rows` (`horizon` rows of `columns`): the first row commanding the gripper
 * closed after one that did not (`lastGrip`: the command before the first row, NaN when none — a
 * chunk closed from its first row then grasps at row 0). −1: no grasp.
 */
export function firstGraspRow(
  g: GripperCommand,
  rows: ArrayLike<number>,
  horizon: number,
  columns: number,
  lastGrip: number,
): number {
  let prev = lastGrip;
  for (let k = 0; k < horizon; k++) {
    const v = rows[k * columns + g.column] ?? NaN;
    if (commandsClosed(g, v) && !(prev === prev && commandsClosed(g, prev))) return k;
    prev = v;
  }
  return -1;
}

/**
 * The last grasp row of `rows` after row `grasp` (the first one, −1: none; then from the first row
 * after `lastGrip`): the row whose pose is the reference for the chunks that follow. −1: none.
 */
export function laterGraspRow(
  g: GripperCommand,
  rows: ArrayLike<number>,
  grasp: number,
  horizon: number,
  columns: number,
  lastGrip: number,
): number {
  let prev = grasp >= 0 ? (rows[grasp * columns + g.column] ?? NaN) : lastGrip;
  let later = -1;
  for (let k = grasp >= 0 ? grasp + 1 : 0; k < horizon; k++) {
    const v = rows[k * columns + g.column] ?? NaN;
    if (commandsClosed(g, v) && !(prev === prev && commandsClosed(g, prev))) later = k;
    prev = v;
  }
  return later;
}

/**
 * The grasp reference kept between chunks, as plain data (structured-cloneable): what the control
 * thread committed, handed to the filter before every chunk (the off-thread path's job carries it,
 * so a filter worker started again mid-hold keeps the grasp's reference instead of taking the pose
 * it restarted at).
 */
export interface GraspReference {
  /** Gripper command of the last committed chunk's last row (NaN: none yet, or a GripperState grip). */
  readonly lastGrip: number;
  /** Joint positions (the tilt barrier's joints) the reference was taken at; null: none. */
  readonly pose: Float64Array | null;
  /**
   * The held object's axis (base frame) measured at `pose`, when the reference came from it: the
   * object↔tool rotation fixed there. null: the tool pose at the grasp (the object counted upright).
   */
  readonly axis: Float64Array | null;
}

/** The rows of a chunk the held object's tilt is bounded on (from `from` to its end), and the reference. */
export interface TiltRows {
  readonly from: number;
  /** Joint positions the reference is taken at (the tilt barrier's joints). */
  readonly pose: Float64Array;
  /** The held object's measured axis at `pose` (base frame), or null: the tool-pose reference. */
  readonly axis: Float64Array | null;
}

/** The direction a held object's tilt is measured from: world vertical (the robot base's z). */
const UP: readonly [number, number, number] = [0, 0, 1];

/**
 * The one account of "when is an object held, and what is the tilt reference" (design §6), used by
 * HeldTiltFilter to switch the faces and by the chunk re-check (CommitRecheck) to check them on the
 * chunk as it would go to the arm — the control thread's copy is the committed one and is handed
 * to the filter before every chunk, so both decide from the same state and the same inputs. Per
 * chunk: `begin` (which rows hold an object; the reference for a chunk held from its first row),
 * `graspPose` (a grasp part-way: the pose one row before it, from the rows as played), `capture`
 * (the reference into the faces), `commit` (the chunk went to the arm). See the file comment for
 * the rules; the measured axis is read from the `HeldObjectAxis` given to `begin`, at most once per
 * chunk and only when it is due (the chunk starts held, the grasp's reference not yet measured).
 * Pure.
 */
export class GraspTrack {
  /** Committed: the last row's gripper command, whether a reference is set and whether it was measured. */
  private lastGrip = NaN;
  private referenced = false;
  private measured = false;
  private readonly pose: Float64Array;
  private readonly axis = new Float64Array(3);
  /** The chunk of the last `begin`: its first held row, grasp row, grip, and the reference it takes. */
  private readonly spanPose: Float64Array;
  private readonly spanAxis = new Float64Array(3);
  private spanMeasured = false;
  private spanFrom = -1;
  private spanGrasp = -1;
  private spanTakes = false;
  private spanHeld = false;
  /** A grasp part-way in a chunk that starts held: the rows before it are held, from `leadPose`. */
  private spanLead = false;
  private readonly leadPose: Float64Array;
  private readonly leadAxis = new Float64Array(3);
  private leadMeasured = false;
  private readonly sample = new Float64Array(3);
  private readonly span: { from: number; pose: Float64Array; axis: Float64Array | null };

  constructor(
    readonly gripper: GripperCommand | GripperState,
    /** The tilt barrier's joints (the leading columns of a row). */
    readonly joints: number,
    readonly columns: number,
  ) {
    if ('column' in gripper && !(gripper.column >= 0 && gripper.column < columns))
      throw new RangeError(`grasp track: gripper column ${gripper.column} outside a ${columns}-column chunk`);
    if (!(joints <= columns)) throw new RangeError(`grasp track: ${joints} joints, a chunk ${columns} columns`);
    this.pose = new Float64Array(joints);
    this.spanPose = new Float64Array(joints);
    this.leadPose = new Float64Array(joints);
    this.span = { from: -1, pose: this.spanPose, axis: null };
  }

  /** The committed reference (a copy: plain data). */
  get reference(): GraspReference {
    return {
      lastGrip: this.lastGrip,
      pose: this.referenced ? this.pose.slice() : null,
      axis: this.referenced && this.measured ? this.axis.slice() : null,
    };
  }

  /** The committed reference's axis is measured (no further measurement is due this grasp). */
  get isMeasured(): boolean {
    return this.referenced && this.measured;
  }

  /** Continue from `r` (a reference committed elsewhere: the control thread's). */
  restore(r: GraspReference): void {
    this.lastGrip = r.lastGrip;
    this.referenced = r.pose !== null;
    this.measured = r.pose !== null && r.axis !== null;
    if (r.pose !== null) for (let j = 0; j < this.joints; j++) this.pose[j] = r.pose[j] ?? NaN;
    if (r.axis !== null) for (let i = 0; i < 3; i++) this.axis[i] = r.axis[i] ?? NaN;
  }

  /** A new episode: no grasp seen. */
  reset(): void {
    this.lastGrip = NaN;
    this.referenced = false;
    this.measured = false;
  }

  /**
   * Which rows of chunk `nominal` (as proposed; `horizon` rows) hold an object, from the present
   * joint state `q0`: returns the first (−1: none). 0: the reference is set (`capture`); > 0, a grasp
   * part-way: call `graspPose` with the rows before it as they will be played first. `objectAxis`:
   * the held object's measurement, read when due.
   */
  begin(nominal: ArrayLike<number>, horizon: number, q0: ArrayLike<number>, objectAxis: HeldObjectAxis | null): number {
    const g = this.gripper;
    this.spanTakes = false;
    this.spanMeasured = false;
    this.spanGrasp = -1;
    this.spanFrom = -1;
    this.spanLead = false;
    // held since before this chunk (the fingers have closed): the measurement is due once per grasp
    let heldBefore: boolean;
    let from: number;
    if (!('column' in g)) {
      heldBefore = g.held();
      this.spanHeld = heldBefore;
      const close = heldBefore ? -1 : (g.closeRow?.() ?? -1);
      if (close > 0 && close < horizon) {
        this.spanHeld = true;
        this.spanTakes = true;
        return (this.spanFrom = close);
      }
      if (close === 0) this.spanHeld = true;
      if (!this.spanHeld) return -1;
      from = 0;
    } else {
      const heldAtStart = horizon > 0 && commandsClosed(g, nominal[g.column] ?? NaN);
      const grasp = firstGraspRow(g, nominal, horizon, this.columns, this.lastGrip);
      this.spanGrasp = grasp;
      if (grasp > 0) {
        // held from before and let go before this grasp (heldAtStart with a grasp part-way): the
        // rows up to the grasp hold the object too, from the reference a held chunk starts with
        this.spanLead = heldAtStart;
        if (heldAtStart) {
          this.heldFromStart(q0, true, objectAxis);
          this.leadPose.set(this.spanPose);
          this.leadMeasured = this.spanMeasured;
          this.leadAxis.set(this.spanAxis);
          this.spanMeasured = false;
        }
        this.spanTakes = true;
        return (this.spanFrom = grasp);
      }
      if (grasp < 0 && !heldAtStart) return -1;
      heldBefore = grasp < 0;
      from = 0;
      // a grasp at row 0 is a new grasp: the committed reference is not this one's
      if (grasp === 0) this.spanTakes = true;
    }
    this.spanFrom = from;
    this.heldFromStart(q0, heldBefore, objectAxis);
    return from;
  }

  /** The reference of a chunk held from its first row (spanTakes already set for a grasp at row 0). */
  private heldFromStart(q0: ArrayLike<number>, heldBefore: boolean, objectAxis: HeldObjectAxis | null): void {
    // held from before with no reference (the chunk that grasped was refused): the present pose
    if (!this.referenced) this.spanTakes = true;
    // the fingers have closed and the grasp's reference is not measured yet: the object as
    // measured now, at the present pose, replaces the tool-pose reference
    if (heldBefore && !(this.referenced && this.measured) && this.measure(objectAxis)) {
      this.spanTakes = true;
      this.spanMeasured = true;
    }
    if (this.spanTakes) for (let j = 0; j < this.joints; j++) this.spanPose[j] = q0[j] ?? NaN;
    else {
      this.spanPose.set(this.pose);
      this.spanMeasured = this.measured;
      if (this.measured) this.spanAxis.set(this.axis);
    }
  }

  /**
   * A grasp part-way in a chunk that starts held (`begin` returned g > 0): rows 0…g−1 hold the
   * object until the chunk lets go, bounded from the reference they start with (`captureLead`).
   */
  get lead(): boolean {
    return this.spanFrom > 0 && this.spanLead;
  }

  /** The lead rows' reference is the held object as measured. */
  get leadIsMeasured(): boolean {
    return this.lead && this.leadMeasured;
  }

  /** The lead rows' reference into `barrier` (it is left enabled). */
  captureLead(barrier: OrientationBarrier): void {
    barrier.captureReference(this.leadPose, UP, this.leadMeasured ? this.leadAxis : undefined);
  }

  /** A usable measurement (finite, not zero) into spanAxis; false when there is none. */
  private measure(objectAxis: HeldObjectAxis | null): boolean {
    const a = this.sample;
    if (!objectAxis?.axis(a)) return false;
    const n = Math.hypot(a[0]!, a[1]!, a[2]!);
    if (!(n > 1e-9 && n < Infinity)) return false;
    this.spanAxis.set(a);
    return true;
  }

  /** A grasp part-way (`begin` returned g > 0): the reference is the pose at row g − 1 of `rows` (as played). */
  graspPose(rows: ArrayLike<number>): void {
    const at = (this.spanFrom - 1) * this.columns;
    for (let j = 0; j < this.joints; j++) this.spanPose[j] = rows[at + j] ?? NaN;
  }

  /** The span of the last `begin` (after `graspPose` for a grasp part-way); null: no row holds an object. Valid until the next `begin`. */
  get rows(): TiltRows | null {
    if (this.spanFrom < 0) return null;
    this.span.from = this.spanFrom;
    this.span.axis = this.spanMeasured ? this.spanAxis : null;
    return this.span;
  }

  /** The span's reference into `barrier` (it is left enabled). */
  capture(barrier: OrientationBarrier): void {
    barrier.captureReference(this.spanPose, UP, this.spanMeasured ? this.spanAxis : undefined);
  }

  /**
   * The tilt rows of a chunk the filter passed (begin, then graspPose from `filtered`): `nominal`
   * as proposed, `filtered` the filter's output (the nominal when it passed it unchanged), `q0` the
   * state the filter started from, `objectAxis` the measurement the filter was given. null: no row
   * holds an object. Valid until the next call.
   */
  tiltRows(
    nominal: ArrayLike<number>,
    filtered: ArrayLike<number>,
    horizon: number,
    q0: ArrayLike<number>,
    objectAxis: HeldObjectAxis | null = null,
  ): TiltRows | null {
    if (this.begin(nominal, horizon, q0, objectAxis) > 0) this.graspPose(filtered);
    return this.rows;
  }

  /** The chunk of the last `begin` went to the arm: `played` (the filter's output) updates the reference. */
  commit(played: ArrayLike<number>, horizon: number): void {
    const g = this.gripper;
    if (!('column' in g) && !this.spanHeld) {
      // a release forgets the reference: the next hold is a new grasp
      this.referenced = false;
      this.measured = false;
      return;
    }
    if (this.spanTakes) {
      this.pose.set(this.spanPose);
      this.measured = this.spanMeasured;
      if (this.spanMeasured) this.axis.set(this.spanAxis);
      this.referenced = true;
    }
    if (!('column' in g)) return;
    // a later grasp in the same chunk (after a release) sets the reference for the chunks that
    // follow from its played row (a bent approach grasps with the tool where the filter put it)
    const later = laterGraspRow(g, played, this.spanGrasp, horizon, this.columns, this.lastGrip);
    if (later >= 0) {
      for (let j = 0; j < this.joints; j++) this.pose[j] = played[later * this.columns + j] ?? NaN;
      this.referenced = true;
      this.measured = false;
    }
    if (horizon > 0) this.lastGrip = played[(horizon - 1) * this.columns + g.column] ?? NaN;
  }
}

/**
 * The tool's tilt limit (rad) that keeps a held object under `objectLimit` (rad) when the object
 * tilts `pivotGain` times as far as the tool (≥ 1; 1 for a rigid grasp).
 */
export function toolTiltLimit(objectLimit: number, pivotGain: number): number {
  if (!(objectLimit > 0 && objectLimit < Math.PI))
    throw new RangeError(`tool tilt limit: object limit must be in (0, π) rad, got ${objectLimit}`);
  if (!(pivotGain >= 1 && pivotGain < Infinity))
    throw new RangeError(`tool tilt limit: pivot gain must be finite and ≥ 1, got ${pivotGain}`);
  return objectLimit / pivotGain;
}

/**
 * The tool's tilt planned a margin inside its limit (issue 15): the tilt faces are built at
 * `toolLimit − angularMargin` with a lever chosen so that the chunk filter's planning margin δ (m,
 * the depth below h = 0 it still accepts, CbfFilterConfig.planningMargin) is exactly that angle at
 * the limit — the filter plans the tool level to within θ − α and refuses only past θ itself, as
 * it plans distances d_safe + δ and refuses only inside d_safe. With a fixed lever L the faces
 * tolerated only δ/L on the tilt's sine (3·10⁻⁴, under 0.02°, at L = 10 m), less than the servos'
 * tracking error in orientation (a chunk started 0.24° past the face it ended on and held).
 * For faces n_i the face value is L·(s − b·n_i) with s = sin θ·cos(π/faces), so
 * L = δ / ((sin θ − sin(θ − α))·cos(π/faces)). No margin (δ = 0 or α = 0): the limit itself and
 * `lever`.
 */
export function tiltPlanning(
  toolLimit: number,
  faces: number,
  planningMargin: number,
  angularMargin: number,
  lever: number,
): { readonly maxTilt: number; readonly lever: number } {
  if (!(angularMargin >= 0 && angularMargin < toolLimit))
    throw new RangeError(`held tilt: angular margin must be in [0, ${toolLimit}) rad, got ${angularMargin}`);
  if (!(planningMargin >= 0 && planningMargin < Infinity))
    throw new RangeError(`held tilt: planning margin must be finite and ≥ 0 m, got ${planningMargin}`);
  if (planningMargin === 0 || angularMargin === 0) return { maxTilt: toolLimit, lever };
  const plan = toolLimit - angularMargin;
  const ds = (Math.sin(toolLimit) - Math.sin(plan)) * Math.cos(Math.PI / faces);
  return { maxTilt: plan, lever: planningMargin / ds };
}

export class HeldTiltFilter implements ChunkFilter {
  /** The grip and the grasp reference (the same account the control thread's re-check keeps). */
  readonly track: GraspTrack;
  /** The track's state `checkpoint` remembered. */
  private saved: GraspReference = { lastGrip: NaN, pose: null, axis: null };
  /** The held object's axis the control thread sampled for the next chunk (restoreGrasp), if it handed one. */
  private handed: HeldObjectAxis | null = null;
  /** restoreGrasp was called for the next chunk (its sample, or none, is the one to use). */
  private handedSet = false;
  private readonly handedAxis = new Float64Array(3);
  private readonly handedPort: HeldObjectAxis;
  /** The outcome of a chunk filtered in two parts (a grasp part-way), and its rows. */
  private readonly split: CbfOutcome = newOutcome();
  private splitRows = new Float64Array(0);
  /** The start of the part after the grasp (the first part's last row, all columns). */
  private readonly graspStart: Float64Array;

  constructor(
    readonly inner: ChunkFilter,
    readonly barrier: OrientationBarrier,
    readonly gripper: GripperCommand | GripperState,
    /** Columns of a chunk row (the barrier's joints are the leading ones). */
    readonly columns: number,
    /**
     * The filter for rows while the constraint is on (default `inner`): the same barrier, e.g. with
     * the joints weighted so a tilt correction is made at the wrist (joint-weights.ts).
     */
    readonly held: ChunkFilter = inner,
    /**
     * The held object's measured orientation, read by the filter itself where it runs alone (no
     * re-check on its path: replays, benches); null: the tool-pose reference, or the sample the
     * control thread hands over with the grasp reference (restoreGrasp) — on a re-checked path the
     * port is the re-check's (RecheckHeldTilt.objectAxis), so one reading serves both. Settable
     * between episodes, as the tracking behind it is wired per session while the filter is kept.
     */
    public objectAxis: HeldObjectAxis | null = null,
  ) {
    if ('column' in gripper && !(gripper.column >= 0 && gripper.column < columns))
      throw new RangeError(`held tilt: gripper column ${gripper.column} outside a ${columns}-column chunk`);
    if (barrier.joints > columns)
      throw new RangeError(`held tilt: the barrier has ${barrier.joints} joints, a chunk ${columns} columns`);
    this.track = new GraspTrack(gripper, barrier.joints, columns);
    this.graspStart = new Float64Array(columns);
    this.handedPort = {
      axis: (out) => {
        out.set(this.handedAxis);
        return true;
      },
    };
  }

  /**
   * Remember the grip and grasp reference before the next chunk (CheckpointedFilter,
   * src/runtime/chunk-filter-service.ts): a chunk filtered off the control thread may still be
   * refused there, and then its grasp rows must not become the reference.
   */
  checkpoint(): void {
    this.saved = this.track.reference;
  }

  /** Back to the state of the last checkpoint: its chunk did not go to the arm. */
  rollback(): void {
    this.track.restore(this.saved);
    this.barrier.enabled = false;
  }

  /** The grasp reference it keeps (a copy: plain data). */
  graspReference(): GraspReference {
    return this.track.reference;
  }

  /**
   * Continue from the grasp reference `r` (the one the control thread committed, GraspTrack): the
   * next chunk is filtered as if the chunks that set it had just been filtered here. `heldAxis`:
   * the held object's axis the control thread sampled for that chunk (base frame; null: none) —
   * the measurement the next chunk takes its reference from if one is due, in place of `objectAxis`.
   */
  restoreGrasp(r: GraspReference, heldAxis: ArrayLike<number> | null = null): void {
    this.track.restore(r);
    if (heldAxis !== null) for (let i = 0; i < 3; i++) this.handedAxis[i] = heldAxis[i] ?? NaN;
    this.handed = heldAxis !== null ? this.handedPort : null;
    this.handedSet = true;
    this.barrier.enabled = false;
  }

  /** A new episode: no grasp seen, the constraint off. */
  reset(): void {
    this.track.reset();
    this.handed = null;
    this.handedSet = false;
    this.barrier.enabled = false;
  }

  filter(
    nominal: Float64Array,
    horizon: number,
    q0: ArrayLike<number>,
    dt: number,
    deadline?: () => boolean,
  ): CbfOutcome {
    const port = this.handedSet ? this.handed : this.objectAxis;
    this.handedSet = false;
    this.handed = null;
    const t = this.track;
    const from = t.begin(nominal, horizon, q0, port);
    let out: CbfOutcome;
    if (from > 0) out = this.filterGrasp(nominal, horizon, from, q0, dt, deadline);
    else {
      const held = from === 0;
      if (held) t.capture(this.barrier);
      this.barrier.enabled = held;
      try {
        out = (held ? this.held : this.inner).filter(nominal, horizon, q0, dt, deadline);
      } finally {
        this.barrier.enabled = false;
      }
    }
    // the filter goes on as if its chunk is played (off the control thread: rolled back if not)
    if (out.status === 'unchanged' || out.status === 'filtered')
      t.commit(out.status === 'filtered' ? out.targets : nominal, horizon);
    return out;
  }

  /**
   * A chunk that grasps at row `grasp` > 0: rows before it filtered with the constraint off (on,
   * from the reference it starts with, when the chunk starts held and lets go before the grasp),
   * the rest from the first part's last row with it on and that row's pose as the reference. The
   * inner filter runs once per part, so what it sets from the chunk it is given (the SO-101 pilot's
   * jaw pins) is left at the second part's: the commit re-check sets its own from the whole chunk
   * (ChunkRecheckConfig.chunkPin).
   */
  private filterGrasp(
    nominal: Float64Array,
    horizon: number,
    grasp: number,
    q0: ArrayLike<number>,
    dt: number,
    deadline?: () => boolean,
  ): CbfOutcome {
    const { columns } = this;
    const o = this.split;
    const n = horizon * columns;
    if (this.splitRows.length !== n) this.splitRows = new Float64Array(n);
    const rows = this.splitRows;
    // the rows before the grasp: held while a chunk that starts held lets go (the lead), else free
    const lead = this.track.lead;
    if (lead) this.track.captureLead(this.barrier);
    this.barrier.enabled = lead;
    let first: CbfOutcome;
    try {
      first = (lead ? this.held : this.inner).filter(nominal.subarray(0, grasp * columns), grasp, q0, dt, deadline);
    } finally {
      this.barrier.enabled = false;
    }
    if (first.status !== 'unchanged' && first.status !== 'filtered') return this.copyOutcome(first, 0);
    rows.set((first.status === 'filtered' ? first.targets : nominal).subarray(0, grasp * columns));
    const firstFiltered = first.status === 'filtered';
    const { slackUsed, modification, minH, minHStep, cbfViolation, rounds, iterations } = first;
    // the arm's pose one row before the grasp row: the reference and the second part's start
    this.graspStart.set(rows.subarray((grasp - 1) * columns, grasp * columns));
    this.track.graspPose(rows);
    this.track.capture(this.barrier);
    this.barrier.enabled = true;
    let second: CbfOutcome;
    try {
      second = this.held.filter(nominal.subarray(grasp * columns, n), horizon - grasp, this.graspStart, dt, deadline);
    } finally {
      this.barrier.enabled = false;
    }
    if (second.status !== 'unchanged' && second.status !== 'filtered') {
      this.copyOutcome(second, grasp);
      o.detail = `after the grasp at step ${grasp}: ${second.detail}`;
      return o;
    }
    if (!firstFiltered && second.status === 'unchanged') {
      this.copyOutcome(second, grasp);
      o.status = 'unchanged';
      o.targets = nominal;
    } else {
      rows.set(second.status === 'filtered' ? second.targets : nominal.subarray(grasp * columns, n), grasp * columns);
      this.copyOutcome(second, grasp);
      o.status = 'filtered';
      o.targets = rows;
    }
    o.slackUsed += slackUsed;
    o.modification = Math.max(o.modification, modification);
    if (minH < o.minH || minH !== minH) {
      o.minH = minH;
      o.minHStep = minHStep;
    }
    o.cbfViolation = Math.max(o.cbfViolation, cbfViolation);
    o.rounds += rounds;
    o.iterations += iterations;
    return o;
  }

  /** The split outcome := `src` with its steps shifted by `offset` rows. */
  private copyOutcome(src: CbfOutcome, offset: number): CbfOutcome {
    const o = this.split;
    o.status = src.status;
    o.targets = src.targets;
    o.slackUsed = src.slackUsed;
    o.modification = src.modification;
    o.minH = src.minH;
    o.minHStep = src.minHStep + offset;
    o.cbfViolation = src.cbfViolation;
    o.rounds = src.rounds;
    o.iterations = src.iterations;
    o.detail = src.detail;
    return o;
  }
}
