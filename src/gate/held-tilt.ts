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
 *   limit at the next chunk's start). A grasp at row 0 references the present pose.
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
 * The grasp reference a held-tilt filter keeps between chunks, as plain data (structured-cloneable):
 * what the control thread committed, handed to the filter before every chunk (the off-thread path's
 * job carries it, so a filter worker started again mid-hold keeps the grasp's reference instead of
 * taking the pose it restarted at).
 */
export interface GraspReference {
  /** Gripper command of the last committed chunk's last row (NaN: none yet, or a GripperState grip). */
  readonly lastGrip: number;
  /** Joint positions (the tilt barrier's joints) the reference was taken at; null: none. */
  readonly pose: Float64Array | null;
}

/** The rows of a chunk the held object's tilt is bounded on (from `from` to its end), and the reference pose. */
export interface TiltRows {
  readonly from: number;
  /** Joint positions the reference is taken at (the tilt barrier's joints). */
  readonly pose: Float64Array;
}

/**
 * The grasp reference of the chunks committed to the arm, kept on the control thread, and which
 * rows of a chunk the tilt bound is on for: the same decisions HeldTiltFilter makes (firstGraspRow,
 * laterGraspRow; a grasp part-way: from the grasp row with the pose one row before it in the
 * filter's output; held from the first row: the committed reference, or the present pose when there
 * is none or the chunk grasps at row 0; GripperState: held for the whole chunk, the reference the
 * pose where the hold began). The chunk re-check (chunk-recheck.ts) checks the tilt faces on those
 * rows; the filter is handed `reference` before each chunk, so both use the same one. Pure.
 */
export class GraspTrack {
  private lastGrip = NaN;
  private readonly pose: Float64Array;
  private referenced = false;
  /** The last `tiltRows` call: its rows, reference pose, and whether it takes a new reference. */
  private readonly spanPose: Float64Array;
  private spanGrasp = -1;
  private spanTakes = false;
  private spanHeld = false;
  private readonly span: { from: number; pose: Float64Array };

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
    this.span = { from: -1, pose: this.spanPose };
  }

  /** The committed reference (a copy: plain data). */
  get reference(): GraspReference {
    return { lastGrip: this.lastGrip, pose: this.referenced ? this.pose.slice() : null };
  }

  /**
   * The tilt rows of a chunk the filter passed: `nominal` as proposed (where it grasps), `filtered`
   * the filter's output (the nominal when it passed it unchanged), `q0` the joint state the filter
   * started from. null: no row holds an object. Valid until the next call.
   */
  tiltRows(
    nominal: ArrayLike<number>,
    filtered: ArrayLike<number>,
    horizon: number,
    q0: ArrayLike<number>,
  ): TiltRows | null {
    const g = this.gripper;
    const n = this.joints;
    this.spanTakes = false;
    this.spanGrasp = -1;
    this.span.from = -1;
    if (!('column' in g)) {
      this.spanHeld = g.held();
      // as HeldTiltFilter.filterByState: a close the chunk commands at row g > 0 bounds the rows
      // from g, the pose one row before it in the filter's output the reference; at row 0, held
      const close = this.spanHeld ? -1 : (g.closeRow?.() ?? -1);
      if (close > 0 && close < horizon) {
        this.spanHeld = true;
        this.span.from = close;
        this.spanTakes = true;
        for (let j = 0; j < n; j++) this.spanPose[j] = filtered[(close - 1) * this.columns + j] ?? NaN;
        return this.span;
      }
      if (close === 0) this.spanHeld = true;
      if (!this.spanHeld) return null;
      this.span.from = 0;
      this.spanTakes = !this.referenced;
      for (let j = 0; j < n; j++) this.spanPose[j] = this.referenced ? this.pose[j]! : (q0[j] ?? NaN);
    } else {
      const heldAtStart = horizon > 0 && commandsClosed(g, nominal[g.column] ?? NaN);
      const grasp = firstGraspRow(g, nominal, horizon, this.columns, this.lastGrip);
      this.spanGrasp = grasp;
      if (grasp > 0) {
        this.span.from = grasp;
        this.spanTakes = true;
        for (let j = 0; j < n; j++) this.spanPose[j] = filtered[(grasp - 1) * this.columns + j] ?? NaN;
      } else if (grasp === 0 || (heldAtStart && !this.referenced)) {
        this.span.from = 0;
        this.spanTakes = true;
        for (let j = 0; j < n; j++) this.spanPose[j] = q0[j] ?? NaN;
      } else if (heldAtStart) {
        this.span.from = 0;
        this.spanPose.set(this.pose);
      } else return null;
    }
    return this.span;
  }

  /** The chunk of the last `tiltRows` call went to the arm: `filtered` (the same rows) updates the reference. */
  commit(filtered: ArrayLike<number>, horizon: number): void {
    const g = this.gripper;
    if (!('column' in g)) {
      // a release forgets the reference: the next hold is a new grasp
      if (!this.spanHeld) this.referenced = false;
      else if (this.spanTakes) {
        this.pose.set(this.spanPose);
        this.referenced = true;
      }
      return;
    }
    if (this.spanTakes) {
      this.pose.set(this.spanPose);
      this.referenced = true;
    }
    const later = laterGraspRow(g, filtered, this.spanGrasp, horizon, this.columns, this.lastGrip);
    if (later >= 0) {
      for (let j = 0; j < this.joints; j++) this.pose[j] = filtered[later * this.columns + j] ?? NaN;
      this.referenced = true;
    }
    if (horizon > 0) this.lastGrip = filtered[(horizon - 1) * this.columns + g.column] ?? NaN;
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

/** The direction a held object's tilt is measured from: world vertical (the robot base's z). */
const UP: readonly [number, number, number] = [0, 0, 1];

export class HeldTiltFilter implements ChunkFilter {
  /** Gripper command of the previous chunk's last row (NaN before the first chunk). */
  private lastGrip = NaN;
  private readonly q: Float64Array;
  /** True once a grasp row set the barrier's reference. */
  private referenced = false;
  /** True once the reference came from the held object's measured axis (`heldAxis`) for this grasp. */
  private measured = false;
  /** The held object's axis (base frame) the reference was measured from, while `measured`. */
  private readonly heldAxis = new Float64Array(3);
  /** The state `checkpoint` remembered: the grip, and the pose (and measured axis) the reference was taken at. */
  private readonly saved: {
    lastGrip: number;
    referenced: boolean;
    measured: boolean;
    q: Float64Array;
    heldAxis: Float64Array;
  };
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
     * The held object's measured orientation, when something measures it (null: the tool-pose
     * reference only, as before). Its axis at the first chunk that starts held becomes the
     * reference (see the file comment). Settable between episodes, as the tracking behind it is
     * wired per session while the filter is kept.
     */
    public objectAxis: HeldObjectAxis | null = null,
  ) {
    if ('column' in gripper && !(gripper.column >= 0 && gripper.column < columns))
      throw new RangeError(`held tilt: gripper column ${gripper.column} outside a ${columns}-column chunk`);
    if (barrier.joints > columns)
      throw new RangeError(`held tilt: the barrier has ${barrier.joints} joints, a chunk ${columns} columns`);
    this.q = new Float64Array(barrier.joints);
    this.saved = {
      lastGrip: NaN,
      referenced: false,
      measured: false,
      q: new Float64Array(barrier.joints),
      heldAxis: new Float64Array(3),
    };
    this.graspStart = new Float64Array(columns);
  }

  /**
   * Remember the grip and grasp reference before the next chunk (CheckpointedFilter,
   * src/runtime/chunk-filter-service.ts): a chunk filtered off the control thread may still be
   * refused there, and then its grasp rows must not become the reference.
   */
  checkpoint(): void {
    this.saved.lastGrip = this.lastGrip;
    this.saved.referenced = this.referenced;
    this.saved.measured = this.measured;
    this.saved.q.set(this.q);
    this.saved.heldAxis.set(this.heldAxis);
  }

  /** Back to the state of the last checkpoint: its chunk did not go to the arm. */
  rollback(): void {
    this.lastGrip = this.saved.lastGrip;
    this.referenced = this.saved.referenced;
    this.measured = this.saved.measured;
    this.q.set(this.saved.q);
    this.heldAxis.set(this.saved.heldAxis);
    // the reference is the tool direction at that pose (this.q holds the pose of the last capture),
    // along the object's axis measured there when it was measured
    if (this.referenced) this.barrier.captureReference(this.q, UP, this.measured ? this.heldAxis : undefined);
    this.barrier.enabled = false;
  }

  /** The grasp reference it keeps (a copy: plain data). */
  graspReference(): GraspReference {
    return { lastGrip: this.lastGrip, pose: this.referenced ? this.q.slice() : null };
  }

  /**
   * Continue from the grasp reference `r` (the one the control thread committed, GraspTrack): the
   * next chunk is filtered as if the chunks that set it had just been filtered here.
   */
  restoreGrasp(r: GraspReference): void {
    this.lastGrip = r.lastGrip;
    this.referenced = r.pose !== null;
    // a tool-pose reference (GraspTrack keeps no measured object axis: see CommitRecheck)
    this.measured = false;
    if (r.pose !== null) {
      for (let j = 0; j < this.q.length; j++) this.q[j] = r.pose[j] ?? NaN;
      this.barrier.captureReference(this.q);
    }
    this.barrier.enabled = false;
  }

  /** A new episode: no grasp seen, the constraint off. */
  reset(): void {
    this.lastGrip = NaN;
    this.referenced = false;
    this.measured = false;
    this.barrier.enabled = false;
  }

  filter(
    nominal: Float64Array,
    horizon: number,
    q0: ArrayLike<number>,
    dt: number,
    deadline?: () => boolean,
  ): CbfOutcome {
    const { gripper: g, columns } = this;
    if (!('column' in g)) return this.filterByState(g, nominal, horizon, q0, dt, deadline);
    const heldAtStart = horizon > 0 && commandsClosed(g, nominal[g.column] ?? NaN);
    // The first grasp row (open → closed; a chunk closed from its first row after an open one, or
    // as the episode's first chunk, grasps at row 0).
    const grasp = firstGraspRow(g, nominal, horizon, columns, this.lastGrip);
    let out: CbfOutcome;
    if (grasp > 0) out = this.filterGrasp(nominal, horizon, grasp, q0, dt, deadline);
    else {
      // A grasp at the first row: the arm stands at the present pose while the fingers close. Held
      // from before with no reference (the chunk that grasped was refused): the present pose too.
      if (grasp === 0 || (heldAtStart && !this.referenced)) this.reference(q0, 0);
      // Held since before this chunk (the fingers have closed): the object's measured axis, once.
      if (grasp < 0 && heldAtStart && !this.measured) this.measure(q0);
      this.barrier.enabled = heldAtStart;
      try {
        out = (heldAtStart ? this.held : this.inner).filter(nominal, horizon, q0, dt, deadline);
      } finally {
        this.barrier.enabled = false;
      }
    }
    if (out.status === 'unchanged' || out.status === 'filtered') {
      // A later grasp in the same chunk (after a release) sets the reference for the chunks that
      // follow from its executed row (a bent approach grasps with the tool where the filter put it).
      const rows = out.status === 'filtered' ? out.targets : nominal;
      const later = laterGraspRow(g, rows, grasp, horizon, columns, this.lastGrip);
      if (later >= 0) this.reference(rows, later * columns);
      if (horizon > 0) this.lastGrip = rows[(horizon - 1) * columns + g.column] ?? NaN;
    } else if (grasp >= 0) {
      // Refused: the arm does not grasp; a reference taken for the unplayed grasp is not the arm's.
      this.referenced = false;
    }
    return out;
  }

  /** The barrier's reference: the tool pose of the joint positions at rows[offset…] (a new grasp). */
  private reference(rows: ArrayLike<number>, offset: number): void {
    for (let j = 0; j < this.q.length; j++) this.q[j] = rows[offset + j] ?? NaN;
    this.barrier.captureReference(this.q);
    this.referenced = true;
    this.measured = false;
  }

  /**
   * The reference from the held object's measured axis at the present pose q0, when there is a
   * usable measurement (finite, not zero); otherwise the reference stays as it is (the tool pose
   * at the grasp) and the next held chunk tries again.
   */
  private measure(q0: ArrayLike<number>): void {
    const a = this.axisSample;
    if (!this.objectAxis?.axis(a)) return;
    const n = Math.hypot(a[0]!, a[1]!, a[2]!);
    if (!(n > 1e-9 && n < Infinity)) return;
    for (let j = 0; j < this.q.length; j++) this.q[j] = q0[j] ?? NaN;
    this.heldAxis.set(a);
    this.barrier.captureReference(this.q, UP, this.heldAxis);
    this.referenced = true;
    this.measured = true;
  }

  private readonly axisSample = new Float64Array(3);

  /**
   * A chunk that grasps at row `grasp` > 0: rows before it filtered with the constraint off, the
   * rest from the first part's last row with it on and that row's pose as the reference.
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
    this.barrier.enabled = false;
    const first = this.inner.filter(nominal.subarray(0, grasp * columns), grasp, q0, dt, deadline);
    if (first.status !== 'unchanged' && first.status !== 'filtered') return this.copyOutcome(first, 0);
    rows.set((first.status === 'filtered' ? first.targets : nominal).subarray(0, grasp * columns));
    const firstFiltered = first.status === 'filtered';
    const { slackUsed, modification, minH, minHStep, cbfViolation, rounds, iterations } = first;
    // the arm's pose one row before the grasp row: the reference and the second part's start
    this.graspStart.set(rows.subarray((grasp - 1) * columns, grasp * columns));
    this.reference(this.graspStart, 0);
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

  /** The grip from the gripper state: on while held, the reference the pose where a hold began. */
  private filterByState(
    g: GripperState,
    nominal: Float64Array,
    horizon: number,
    q0: ArrayLike<number>,
    dt: number,
    deadline?: () => boolean,
  ): CbfOutcome {
    let held = g.held();
    const close = held ? -1 : (g.closeRow?.() ?? -1);
    if (close > 0 && close < horizon) {
      const out = this.filterGrasp(nominal, horizon, close, q0, dt, deadline);
      // refused: the arm does not grasp, the reference taken for the unplayed grasp is not the arm's
      if (out.status !== 'unchanged' && out.status !== 'filtered') this.referenced = false;
      return out;
    }
    // commanded to close at the first row: held from it (the fingers have not closed yet: nothing to measure)
    if (close === 0) held = true;
    if (held && !this.referenced) this.reference(q0, 0);
    // the state says held: the fingers have closed, so the object's tilt in them is there to measure
    if (held && close !== 0 && !this.measured) this.measure(q0);
    // a release forgets the reference: the next hold is a new grasp
    if (!held) {
      this.referenced = false;
      this.measured = false;
    }
    this.barrier.enabled = held;
    try {
      return (held ? this.held : this.inner).filter(nominal, horizon, q0, dt, deadline);
    } finally {
      this.barrier.enabled = false;
    }
  }
}
