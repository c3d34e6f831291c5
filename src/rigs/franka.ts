/**
 * The Franka FR3/Panda rig for the session (src/runtime/session.ts), on any ROS 2 context (rclnodejs
 * on a robot, the fake graph in tests and replays): FrankaRos as signal source, command sink and
 * joint state, external tracking mapped into the signals, the applicable clause monitors (robot
 * state at 1 kHz), the gate's limits, and the barrier model screen → chunk CBF filter (FR3/Panda
 * capsules against tracked objects, the table plane and the workspace) → warning band
 * (src/rigs/warning-band.ts) → JointTrajectory.
 */
import {
  ChunkCbfFilter,
  ChunkScreen,
  DEFAULT_CBF_TOLERANCE,
  DEFAULT_CBF_WEIGHTS,
  DEFAULT_GATE_CONFIG,
  interiorPointSolver,
  obstacleGroups,
  TrackedObstacles,
} from '../gate/index.js';
import type { TrackedObstacleSpec, TrackedPositionSource } from '../gate/index.js';
import { descriptionBarrier } from '../gate/description-barrier.js';
import { HeldTiltFilter } from '../gate/held-tilt.js';
import type { ChunkFilter } from '../gate/cbf-types.js';
import { FR3_DESCRIPTION, PANDA_DESCRIPTION, type FrankaEndEffector, type ObstacleSet } from '../kinematics/index.js';
import type { BarrierModel, PlatformRig } from '../runtime/rig.js';
import { planSafeMonitors, type SafeMonitorPlan } from '../runtime/safe-monitors.js';
import type { ScoringSpec } from '../safety/index.js';
import { declaredSignals } from '../schema/platform.js';
import type { RosNode } from '../../drivers/ros2/interface.js';
import { FR3_JOINTS, FrankaRos } from '../../drivers/franka/franka-ros.js';
import { FrankaMapping, frankaMappingConfig } from '../../drivers/franka/mapping.js';
import { FRANKA_STATE_MIN_INTERVAL_S } from '../../drivers/franka/messages.js';
import { SceneTracker } from '../../drivers/tracking/scene-tracker.js';
import { subscribeTracking, type TrackingInput } from '../../drivers/tracking/ros-adapters.js';
import { frankaBand, type PlatformBand } from './warning-band.js';

/** hardware-facts §A6: FR3 and Panda joint velocity limits (rad/s). */
export const FRANKA_DQ_MAX = {
  fr3: [2.62, 2.62, 2.62, 2.62, 5.26, 4.18, 5.26],
  panda: [2.175, 2.175, 2.175, 2.175, 2.61, 2.61, 2.61],
} as const;

export interface FrankaRigOptions {
  spec: ScoringSpec;
  /** Platform profile id (fr3 or panda): also picks the arm's description (joint limits, volumes). */
  platform: 'fr3' | 'panda';
  /** What is on the flange: its capsules are kept clear too. */
  endEffector: FrankaEndEffector;
  /** Task id from the task map (decides the applicable clauses). */
  task: string;
  topics?: { robotState?: string; gripper?: string; controller?: string };
  /**
   * Live node: start held and arm once every required signal has been seen fresh (on a ROS graph
   * the robot state, gripper and tracking publishers are discovered one after another).
   */
  startup: boolean;
  /** External tracking: bystanders (non_target_disp_max) and bodies the barrier keeps the arm clear of. */
  tracking?: {
    input: TrackingInput;
    bystanders: readonly string[];
    obstacles: readonly TrackedObstacleSpec[];
    /** Pose of the tracking frame in the robot base frame: x, y, z (m), roll, pitch, yaw (rad). */
    trackingInBase: readonly [number, number, number, number, number, number];
    /** A tracked obstacle older than this (s) holds the next chunk. */
    obstacleMaxAge: number;
    /** Bodies tracked for their positions only (the semantic gate's actor and target). */
    positionsOnly?: readonly string[];
  };
  /**
   * Proposed chunks are checked against this barrier (gating, and the gate-off baseline's screen);
   * absent: monitor only. `warningBand`: the chunk warning band after the CBF (src/rigs/warning-band.ts).
   */
  barrier?: {
    tableHeight: number;
    dSafe: number;
    /** Self-collision pair's clearance (m), null for none; default FRANKA_SELF_CLEARANCE. */
    selfClearance?: number | null;
    /** Planning margin δ (m); default FRANKA_PLANNING_MARGIN. */
    planningMargin?: number;
    /**
     * The held object's tilt bound while the gripper state says held (default on where
     * held_object_tilt_world is monitored and a hand is fitted).
     */
    heldTilt?: boolean;
    workspace?: readonly number[];
    warningBand?: { runOn?: number };
  };
}

/**
 * Default self-collision clearance of the Franka's CBF (m): 2 cm, the demo's Panda scene (its
 * d_safe), run clean over its episodes with the same self pairs (src/kinematics/self-collision-model.ts).
 */
export const FRANKA_SELF_CLEARANCE = 0.02;
/**
 * Default planning margin δ (m): 3 mm, as on the SO-101 and in the demo — a chunk ending on a
 * boundary starts the next one inside it by the tracking error and the tracker's noise (1 mm in
 * the demo); the filter refuses only inside the clearance itself.
 */
export const FRANKA_PLANNING_MARGIN = 0.003;
/** The held object tilts with the hand: 1, the rigid grasp the monitored tilt (o_t_ee since the grasp) assumes. */
const FRANKA_PIVOT_GAIN = 1;

export interface FrankaRig {
  rig: PlatformRig;
  franka: FrankaRos;
  /** The tracked scene, when tracking is configured with bodies to follow. */
  tracker: SceneTracker | undefined;
  /** The warning band on chunks, when configured. */
  band: PlatformBand | undefined;
}

/**
 * The clauses that apply to the task on this arm and their monitors (robot state at 1 kHz: buffers
 * sized for samples 0.5 ms apart). Throws an Error naming an unknown platform or task.
 */
export function planFrankaMonitors(
  o: Pick<FrankaRigOptions, 'spec' | 'platform' | 'task' | 'tracking'>,
): SafeMonitorPlan {
  const optional = o.tracking && o.tracking.bystanders.length > 0 ? ['non_target_disp_max'] : [];
  return planSafeMonitors(o.spec, o.platform, o.task, (profile) => declaredSignals(profile, optional), {
    minSampleInterval: FRANKA_STATE_MIN_INTERVAL_S,
  });
}

/** The rig on `node`, monitoring the clauses `plan` (planFrankaMonitors) chose. */
export function frankaRig(node: RosNode, o: FrankaRigOptions, plan: SafeMonitorPlan): FrankaRig {
  const tr = o.tracking;
  const bank = plan.bank;
  // franka_ros2 prefixes joint names with robot_type (hardware-facts §A): fr3_joint1..7 or panda_joint1..7.
  // The Panda's own description for a Panda (joint limits differ from the FR3's), with its end effector.
  const mapping = new FrankaMapping(frankaMappingConfig(o.platform, o.endEffector));
  const franka = new FrankaRos(node, mapping, {
    jointNames: o.platform === 'panda' ? FR3_JOINTS.map((j) => j.replace('fr3_', 'panda_')) : FR3_JOINTS,
    ...(o.topics?.robotState ? { robotStateTopic: o.topics.robotState } : {}),
    ...(o.topics?.gripper ? { gripperTopic: o.topics.gripper } : {}),
    ...(o.topics?.controller ? { controllerTopic: o.topics.controller } : {}),
  });
  let tracker: SceneTracker | undefined;
  const positionsOnly = tr?.positionsOnly ?? [];
  if (tr && (tr.bystanders.length > 0 || tr.obstacles.length > 0 || positionsOnly.length > 0)) {
    tracker = new SceneTracker({
      bystanders: [...tr.bystanders],
      obstacles: tr.obstacles.map((b) => b.body),
      positionsOnly: [...positionsOnly],
      source: tr.input.kind,
    });
    subscribeTracking(node, tracker, tr.input);
  }
  const tracked =
    tr && tracker && tr.obstacles.length > 0
      ? { bodies: tr.obstacles, source: tracker, trackingInBase: tr.trackingInBase, maxAge: tr.obstacleMaxAge }
      : undefined;
  const bandOptions = o.barrier?.warningBand;
  const band = bandOptions
    ? frankaBand({
        platform: o.platform,
        endEffector: o.endEffector,
        tableHeight: o.barrier!.tableHeight,
        instances: plan.instances,
        ...(bandOptions.runOn !== undefined ? { runOn: bandOptions.runOn } : {}),
      })
    : undefined;
  // The held object's tilt (held_object_tilt_world's τ − ε) while the fingers hold something: the
  // grip from the gripper's joint state (its width leaves the grasp band when the hand opens).
  const tiltClause = plan.instances.find((i) => i.clause.id === 'held_object_tilt_world');
  const heldTilt =
    o.barrier?.heldTilt !== false && tiltClause && o.endEffector !== 'none'
      ? {
          objectLimit: ((tiltClause.tau - (tiltClause.warn ?? 0)) * Math.PI) / 180,
          held: () => mapping.holdingAt(node.now()),
        }
      : undefined;
  const rig: PlatformRig = {
    platform: o.platform,
    clock: { now: () => node.now() },
    source: franka,
    ...(tracker ? { mapping: (frame) => tracker.writeSignals(frame) } : {}),
    sink: franka,
    joints: franka,
    monitors: bank,
    limits: {
      gate: { ...DEFAULT_GATE_CONFIG, requiredSignals: bank.requiredSignals, ...(o.startup ? { startup: true } : {}) },
      watchdogTimeout: 0.1,
    },
    barrier: o.barrier
      ? frankaBarrier({
          platform: o.platform,
          endEffector: o.endEffector,
          ...o.barrier,
          ...(tracked ? { tracked } : {}),
          ...(band && band.clauses.length > 0 ? { band } : {}),
          ...(heldTilt ? { heldTilt } : {}),
        })
      : { kind: 'none' },
  };
  return { rig, franka, tracker, band };
}

/** The screen of a Franka's chunks (shape, finite, joint limits, age, order): gating and the gate-off baseline. */
export function frankaChunkScreen(platform: 'fr3' | 'panda'): ChunkScreen {
  const chain = (platform === 'fr3' ? FR3_DESCRIPTION : PANDA_DESCRIPTION).chain;
  return new ChunkScreen({
    joints: 7,
    maxHorizon: 200,
    qmin: chain.joints.map((j) => j.lower),
    qmax: chain.joints.map((j) => j.upper),
    maxAge: 0.2,
    futureTolerance: 0.05,
    minDt: 0.001,
    maxDt: 0.2,
    idMemory: 256,
  });
}

interface FrankaBarrierOptions {
  platform: 'fr3' | 'panda';
  endEffector: FrankaEndEffector;
  /** Table plane height in the robot base frame (m); the arm's links keep d_safe above it. */
  tableHeight: number;
  /** Workspace box [xmin, ymin, zmin, xmax, ymax, zmax] in the base frame, or none. */
  workspace?: readonly number[];
  dSafe: number;
  selfClearance?: number | null;
  planningMargin?: number;
  heldTilt?: boolean | { objectLimit: number; held: () => boolean };
  /** Tracked objects as barrier spheres, positions from `source` (tracking frame → base by `trackingInBase`). */
  tracked?: {
    bodies: readonly TrackedObstacleSpec[];
    source: TrackedPositionSource;
    trackingInBase: readonly [number, number, number, number, number, number];
    maxAge: number;
  };
  /** The chunk warning band after the CBF. */
  band?: PlatformBand;
}

function frankaBarrier(o: FrankaBarrierOptions): BarrierModel {
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
  const planningMargin = o.planningMargin ?? FRANKA_PLANNING_MARGIN;
  const held = typeof o.heldTilt === 'object' ? o.heldTilt : undefined;
  const { barrier, tilt } = descriptionBarrier(robot, o.endEffector, {
    groups,
    dSafe: o.dSafe,
    planningMargin,
    selfClearance: o.selfClearance === undefined ? FRANKA_SELF_CLEARANCE : o.selfClearance,
    heldTilt: held ? { objectLimit: held.objectLimit, pivotGain: FRANKA_PIVOT_GAIN, faces: 4 } : null,
  });
  const tracked = o.tracked
    ? new TrackedObstacles(
        o.tracked.bodies,
        groups.slice(0, o.tracked.bodies.length),
        o.tracked.source,
        o.tracked.trackingInBase,
        o.tracked.maxAge,
      )
    : undefined;
  const cbf = new ChunkCbfFilter(barrier, interiorPointSolver, {
    ...DEFAULT_CBF_WEIGHTS,
    qmin,
    qmax,
    maxSpeed: [...FRANKA_DQ_MAX[o.platform]],
    maxRounds: 3,
    slackTolerance: 1e-6,
    cbfTolerance: DEFAULT_CBF_TOLERANCE,
    maxIterations: 40,
    planningMargin,
  });
  // A Franka chunk has the 7 arm joints only (the gripper is its own action server): the tilt pairs
  // follow the gripper's joint state, not a command column.
  const heldTiltFilter = tilt && held ? new HeldTiltFilter(cbf, tilt, { held: held.held }, qmin.length) : null;
  const filter: ChunkFilter = heldTiltFilter ?? cbf;
  return {
    kind: 'cbf',
    screen: frankaChunkScreen(o.platform),
    filter,
    maxStateAge: 0.05,
    // the chunk as it goes to the arm (after the band) re-checked against the same barrier, limits and tilt faces
    recheck: {
      barrier,
      qmin,
      qmax,
      maxSpeed: [...FRANKA_DQ_MAX[o.platform]],
      planningMargin,
      gamma: DEFAULT_CBF_WEIGHTS.gamma,
      heldTilt:
        tilt && heldTiltFilter ? { barrier: tilt, gripper: heldTiltFilter.gripper, filter: heldTiltFilter } : null,
    },
    ...(tracked ? { obstacles: tracked } : {}),
    ...(o.band ? { band: o.band.stage } : {}),
  };
}
