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
 *   part-way keeps it on to its end; a chunk that grasps part-way turns it on from the next chunk.
 *
 * The held object pivots in the fingers when the hand tilts (measured in the SO-101 scene: about
 * twice the tool's tilt), so the tool limit is the object's limit divided by that gain:
 * {@link toolTiltLimit}. An arm whose chunks carry no gripper command (the Franka) gives the grip as
 * a {@link GripperState} read once per chunk instead. Pure: no clock, no I/O.
 */
import type { CbfOutcome } from './cbf-filter.js';
import type { ChunkFilter } from './cbf-types.js';
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
}

/** A gripper command at least halfway from open towards closed counts as closed (a loose grasp too). */
export function commandsClosed(g: GripperCommand, value: number): boolean {
  return Math.abs(value - g.closed) < 0.5 * Math.abs(g.open - g.closed);
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

export class HeldTiltFilter implements ChunkFilter {
  /** Gripper command of the previous chunk's last row (NaN before the first chunk). */
  private lastGrip = NaN;
  private readonly q: Float64Array;
  /** True once a grasp row set the barrier's reference. */
  private referenced = false;
  /** The state `checkpoint` remembered: the grip, and the pose the reference was taken at. */
  private readonly saved: { lastGrip: number; referenced: boolean; q: Float64Array };

  constructor(
    readonly inner: ChunkFilter,
    readonly barrier: OrientationBarrier,
    readonly gripper: GripperCommand | GripperState,
    /** Columns of a chunk row (the barrier's joints are the leading ones). */
    readonly columns: number,
  ) {
    if ('column' in gripper && !(gripper.column >= 0 && gripper.column < columns))
      throw new RangeError(`held tilt: gripper column ${gripper.column} outside a ${columns}-column chunk`);
    if (barrier.joints > columns)
      throw new RangeError(`held tilt: the barrier has ${barrier.joints} joints, a chunk ${columns} columns`);
    this.q = new Float64Array(barrier.joints);
    this.saved = { lastGrip: NaN, referenced: false, q: new Float64Array(barrier.joints) };
  }

  /**
   * Remember the grip and grasp reference before the next chunk (CheckpointedFilter,
   * src/runtime/chunk-filter-service.ts): a chunk filtered off the control thread may still be
   * refused there, and then its grasp rows must not become the reference.
   */
  checkpoint(): void {
    this.saved.lastGrip = this.lastGrip;
    this.saved.referenced = this.referenced;
    this.saved.q.set(this.q);
  }

  /** Back to the state of the last checkpoint: its chunk did not go to the arm. */
  rollback(): void {
    this.lastGrip = this.saved.lastGrip;
    this.referenced = this.saved.referenced;
    this.q.set(this.saved.q);
    // the reference is the tool direction at that pose (this.q holds the pose of the last capture)
    if (this.referenced) this.barrier.captureReference(this.q);
    this.barrier.enabled = false;
  }

  /** A new episode: no grasp seen, the constraint off. */
  reset(): void {
    this.lastGrip = NaN;
    this.referenced = false;
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
    if (heldAtStart && !this.referenced) {
      // Closed from the first row with no grasp seen (the gate started with an object in hand):
      // the present pose is the best reference there is.
      for (let j = 0; j < this.q.length; j++) this.q[j] = q0[j] ?? NaN;
      this.barrier.captureReference(this.q);
      this.referenced = true;
    }
    this.barrier.enabled = heldAtStart;
    const out = this.inner.filter(nominal, horizon, q0, dt, deadline);
    // Grasp rows of the chunk the arm will play (open → closed) set the reference for the chunks
    // that follow: its executed rows (a bent approach grasps with the tool where the filter put it).
    // A refused chunk is not played: nothing changes.
    if (out.status === 'unchanged' || out.status === 'filtered') {
      const rows = out.status === 'filtered' ? out.targets : nominal;
      let prev = this.lastGrip;
      for (let k = 0; k < horizon; k++) {
        const v = rows[k * columns + g.column] ?? NaN;
        if (commandsClosed(g, v) && !(prev === prev && commandsClosed(g, prev))) {
          for (let j = 0; j < this.q.length; j++) this.q[j] = rows[k * columns + j] ?? NaN;
          this.barrier.captureReference(this.q);
          this.referenced = true;
        }
        prev = v;
      }
      if (horizon > 0) this.lastGrip = prev;
    }
    this.barrier.enabled = false;
    return out;
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
    const held = g.held();
    if (held && !this.referenced) {
      for (let j = 0; j < this.q.length; j++) this.q[j] = q0[j] ?? NaN;
      this.barrier.captureReference(this.q);
      this.referenced = true;
    }
    // a release forgets the reference: the next hold is a new grasp
    if (!held) this.referenced = false;
    this.barrier.enabled = held;
    try {
      return this.inner.filter(nominal, horizon, q0, dt, deadline);
    } finally {
      this.barrier.enabled = false;
    }
  }
}
