/**
 * The chunk path of a Franka in gating mode: screen → chunk CBF filter (FR3/Panda capsules against
 * tracked objects, the table plane and the workspace) → FrankaRos (JointTrajectory to the controller).
 */
import { CapsuleBarrier, ChunkCbfFilter, ChunkScreen, DEFAULT_CBF_TOLERANCE, DEFAULT_CBF_WEIGHTS, interiorPointSolver, obstacleGroups, TrackedObstacles, type Gate } from '../gate/index.js';
import type { TrackedObstacleSpec, TrackedPositionSource } from '../gate/index.js';
import { armModel, CapsuleModel, FR3_DESCRIPTION, PANDA_DESCRIPTION, type FrankaEndEffector, type ObstacleSet } from '../kinematics/index.js';
import { ChunkExecutor, type ChunkExecutorOptions } from '../runtime/chunk-executor.js';
import type { FrankaRos } from '../../drivers/franka/franka-ros.js';

/** hardware-facts §A6: FR3 and Panda joint velocity limits (rad/s). */
export const FRANKA_DQ_MAX = { fr3: [2.62, 2.62, 2.62, 2.62, 5.26, 4.18, 5.26], panda: [2.175, 2.175, 2.175, 2.175, 2.61, 2.61, 2.61] } as const;

export interface FrankaChunkOptions {
  platform: 'fr3' | 'panda';
  /** What is on the flange: its capsules are kept clear too (default franka_hand). */
  endEffector?: FrankaEndEffector;
  /** Table plane height in the robot base frame (m); the arm's links keep d_safe above it. */
  tableHeight: number;
  /** Workspace box [xmin, ymin, zmin, xmax, ymax, zmax] in the base frame, or none. */
  workspace?: readonly number[];
  dSafe?: number;
  /** Tracked objects as barrier spheres, positions from `source` (tracking frame → base by `trackingInBase`). */
  tracked?: {
    bodies: readonly TrackedObstacleSpec[];
    source: TrackedPositionSource;
    trackingInBase: readonly [number, number, number, number, number, number];
    maxAge: number;
  };
  onResult?: ChunkExecutorOptions['onResult'];
}

/** The screen of a Franka's chunks (shape, finite, joint limits, age, order): gating and the gate-off baseline. */
export function frankaChunkScreen(platform: 'fr3' | 'panda'): ChunkScreen {
  const chain = (platform === 'fr3' ? FR3_DESCRIPTION : PANDA_DESCRIPTION).chain;
  return new ChunkScreen({ joints: 7, maxHorizon: 200, qmin: chain.joints.map((j) => j.lower), qmax: chain.joints.map((j) => j.upper), maxAge: 0.2, futureTolerance: 0.05, minDt: 0.001, maxDt: 0.2, idMemory: 256 });
}

export function frankaChunkExecutor(franka: FrankaRos, gate: Gate, o: FrankaChunkOptions): ChunkExecutor {
  const robot = o.platform === 'fr3' ? FR3_DESCRIPTION : PANDA_DESCRIPTION;
  const chain = robot.chain;
  const qmin = chain.joints.map((j) => j.lower);
  const qmax = chain.joints.map((j) => j.upper);
  const obstacles: ObstacleSet = {
    planes: Float64Array.from([0, 0, 1, o.tableHeight]),
    // one sphere per tracked body, placed by TrackedObstacles before every chunk
    spheres: new Float64Array(4 * (o.tracked?.bodies.length ?? 0)),
    box: o.workspace ? Float64Array.from(o.workspace) : null,
  };
  const groups = obstacleGroups(obstacles);
  const barrier = new CapsuleBarrier(new CapsuleModel(armModel(robot, o.endEffector ?? 'franka_hand')), groups, o.dSafe ?? 0.03);
  const tracked = o.tracked
    ? new TrackedObstacles(o.tracked.bodies, groups.slice(0, o.tracked.bodies.length), o.tracked.source, o.tracked.trackingInBase, o.tracked.maxAge)
    : undefined;
  const filter = new ChunkCbfFilter(barrier, interiorPointSolver, {
    ...DEFAULT_CBF_WEIGHTS,
    qmin,
    qmax,
    maxSpeed: [...FRANKA_DQ_MAX[o.platform]],
    maxRounds: 3,
    slackTolerance: 1e-6,
    cbfTolerance: DEFAULT_CBF_TOLERANCE,
    maxIterations: 40,
  });
  const screen = frankaChunkScreen(o.platform);
  return new ChunkExecutor({
    gate, screen, filter, sink: franka, joints: franka, maxStateAge: 0.05,
    ...(tracked ? { obstacles: tracked } : {}),
    ...(o.onResult ? { onResult: o.onResult } : {}),
  });
}
