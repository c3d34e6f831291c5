/**
 * The rigs' chunk-level CBF and the matching re-check config, built in one place: the SO-101 and
 * the Franka recipes (and so their filter workers) use the same solver settings, and the re-check
 * of a chunk as it goes to the arm is made against the very barrier, limits and tilt faces the
 * filter used.
 */
import {
  ChunkCbfFilter,
  DEFAULT_CBF_TOLERANCE,
  DEFAULT_CBF_WEIGHTS,
  interiorPointSolver,
  type GripperCommand,
} from '../gate/index.js';
import type { ChunkFilter } from '../gate/cbf-types.js';
import type { ChunkRecheckConfig } from '../gate/chunk-recheck.js';
import type { DescriptionBarrier } from '../gate/description-barrier.js';
import { HeldTiltFilter, type GripperState } from '../gate/held-tilt.js';

export interface RigChunkCbfOptions {
  readonly qmin: readonly number[];
  readonly qmax: readonly number[];
  /** Per-joint speed bound (rad/s). */
  readonly maxSpeed: readonly number[];
  /** δ (m). */
  readonly planningMargin: number;
  /** Columns of a chunk row (the barrier's joints are the leading ones). */
  readonly columns: number;
  /** The grip the held-tilt faces are switched by (used only when the barrier has tilt faces). */
  readonly gripper: GripperCommand | GripperState;
}

export interface RigChunkCbf {
  /** The CBF, behind the held-tilt switch when the barrier has tilt faces. */
  readonly filter: ChunkFilter;
  /** The same barrier, limits and tilt faces for the re-check (its filter is this HeldTiltFilter). */
  readonly recheck: ChunkRecheckConfig;
}

export function rigChunkCbf(b: Pick<DescriptionBarrier, 'barrier' | 'tilt'>, o: RigChunkCbfOptions): RigChunkCbf {
  const cbf = new ChunkCbfFilter(b.barrier, interiorPointSolver, {
    ...DEFAULT_CBF_WEIGHTS,
    qmin: o.qmin,
    qmax: o.qmax,
    maxSpeed: o.maxSpeed,
    maxRounds: 3,
    slackTolerance: 1e-6,
    cbfTolerance: DEFAULT_CBF_TOLERANCE,
    maxIterations: 40,
    planningMargin: o.planningMargin,
  });
  const heldTilt = b.tilt ? new HeldTiltFilter(cbf, b.tilt, o.gripper, o.columns) : null;
  return {
    filter: heldTilt ?? cbf,
    recheck: {
      barrier: b.barrier,
      qmin: o.qmin,
      qmax: o.qmax,
      maxSpeed: o.maxSpeed,
      planningMargin: o.planningMargin,
      gamma: DEFAULT_CBF_WEIGHTS.gamma,
      heldTilt: b.tilt && heldTilt ? { barrier: b.tilt, gripper: o.gripper, filter: heldTilt } : null,
    },
  };
}
