/**
 * The Franka FR3/Panda rig for the session (src/runtime/session.ts), on any ROS 2 context (rclnodejs
 * on a robot, the fake graph in tests and replays): FrankaRos as signal source, command sink and
 * joint state, external tracking mapped into the signals, the applicable clause monitors (robot
 * state at 1 kHz), the gate's limits, and the barrier model screen → chunk CBF filter (FR3/Panda
 * capsules against tracked objects, the table plane and the workspace, the held object's tilt) →
 * warning band (src/rigs/warning-band.ts) → JointTrajectory. The filter and band are built from a
 * plain-data recipe and run behind a ChunkFilterService (a worker thread, or inline), each answer
 * re-checked on the control thread (src/runtime/off-thread-chunk-path.ts); the grip the tilt bound
 * follows is read here and travels with each snapshot.
 */
import { ChunkScreen, DEFAULT_GATE_CONFIG, obstacleGroups, TrackedObstacles } from '../gate/index.js';
import type { TrackedObstacleSpec, TrackedPositionSource } from '../gate/index.js';
import { descriptionBarrier } from '../gate/description-barrier.js';
import type { ChunkFilter } from '../gate/cbf-types.js';
import type { GateChunk } from '../gate/chunk.js';
import { bandClauses, type BandClauseSpec } from '../gate/warning-band.js';
import { FR3_DESCRIPTION, PANDA_DESCRIPTION, type FrankaEndEffector, type ObstacleSet } from '../kinematics/index.js';
import type { BarrierModel, PlatformRig } from '../runtime/rig.js';
import {
  ChunkFilterRunner,
  InlineChunkFilterService,
  type ChunkFilterService,
  type GripSnapshot,
} from '../runtime/chunk-filter-service.js';
import type { ChunkRecheckConfig } from '../gate/chunk-recheck.js';
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
import { rigChunkCbf } from './chunk-cbf.js';

/** hardware-facts §A6: FR3 and Panda joint velocity limits (rad/s). */
export const FRANKA_DQ_MAX = {
  fr3: [2.62, 2.62, 2.62, 2.62, 5.26, 4.18, 5.26],
  panda: [2.175, 2.175, 2.175, 2.175, 2.61, 2.61, 2.61],
} as const;

/**
 * The Franka Hand's finger joints (franka_ros2 prefixes them with robot_type, hardware-facts §A2):
 * a proposed trajectory may carry them beside the arm's joints as the gripper command.
 */
export function frankaFingerJoints(platform: 'fr3' | 'panda'): readonly string[] {
  return [`${platform}_finger_joint1`, `${platform}_finger_joint2`];
}

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
    /**
     * Where proposed chunks are filtered (issue 14 item 3): the service built from the rig's recipe
     * — a filter worker, wired by the entry point. Absent: an inline service (on the calling
     * thread). Either way the chunk path is the off-thread one: snapshot (with the grip) → service →
     * the commit re-check on the control thread.
     */
    filterService?: (recipe: FrankaFilterRecipe) => ChunkFilterService;
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
  /** What the chunk filter is built from (a filter worker builds the same one), when gating. */
  recipe: FrankaFilterRecipe | undefined;
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
  const barrier = o.barrier ? frankaBarrier(o, plan, mapping, tracked) : undefined;
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
    barrier: barrier?.model ?? { kind: 'none' },
  };
  return { rig, franka, tracker, band: barrier?.band, recipe: barrier?.recipe };
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

/**
 * Everything the Franka's chunk filter is built from, as plain data (structured-cloneable): the
 * filter worker (src/rigs/filter-worker/) builds the same filter from it on its own thread. The
 * grip its held-tilt bound follows is not here: it comes with each job (GripSnapshot).
 */
export interface FrankaFilterRecipe {
  readonly platform: 'fr3' | 'panda';
  readonly endEffector: FrankaEndEffector;
  /** Table plane height in the robot base frame (m); the arm's links keep d_safe above it. */
  readonly tableHeight: number;
  /** Workspace box [xmin, ymin, zmin, xmax, ymax, zmax] in the base frame, null: none. */
  readonly workspace: readonly number[] | null;
  readonly dSafe: number;
  readonly selfClearance: number | null;
  readonly planningMargin: number;
  /** The held object's tilt limit (rad: the clause's τ − ε), null: no tilt bound. */
  readonly heldTilt: { readonly objectLimit: number } | null;
  /** Tracked bodies: one sphere group each, placed from each snapshot. */
  readonly trackedBodies: number;
  /** The warning band's clauses and run-on, null: no band. */
  readonly band: { readonly clauses: readonly BandClauseSpec[]; readonly runOn?: number } | null;
}

export interface FrankaChunkFilter {
  /** The CBF (behind the held-tilt switch when the tilt bound is on). */
  readonly filter: ChunkFilter;
  readonly band: PlatformBand | undefined;
  /** The tracked bodies' obstacle groups (one sphere each), in the recipe's order. */
  readonly tracked: ObstacleSet[];
  /** The same barrier and limits, for the control thread's re-check of a chunk filtered elsewhere. */
  readonly recheck: ChunkRecheckConfig;
  /**
   * The grip the held-tilt switch reads for the next chunk (ChunkFilterRunnerOptions.grip). A job
   * without one counts as held from its first row: unsure whether the hand holds, the bound stays on.
   */
  readonly setGrip: (grip: GripSnapshot | undefined) => void;
}

/** The Franka's chunk filter and warning band from a recipe (the rig's, and the filter worker's). */
export function frankaChunkFilter(r: FrankaFilterRecipe): FrankaChunkFilter {
  const robot = r.platform === 'fr3' ? FR3_DESCRIPTION : PANDA_DESCRIPTION;
  const chain = robot.chain;
  const qmin = chain.joints.map((j) => j.lower);
  const qmax = chain.joints.map((j) => j.upper);
  const obstacles: ObstacleSet = {
    planes: Float64Array.from([0, 0, 1, r.tableHeight]),
    // one sphere per tracked body, placed from each snapshot (TrackedObstacles on the control thread)
    spheres: new Float64Array(4 * r.trackedBodies),
    box: r.workspace ? Float64Array.from(r.workspace) : null,
  };
  const groups = obstacleGroups(obstacles);
  const { barrier, tilt } = descriptionBarrier(robot, r.endEffector, {
    groups,
    dSafe: r.dSafe,
    planningMargin: r.planningMargin,
    selfClearance: r.selfClearance,
    heldTilt: r.heldTilt ? { objectLimit: r.heldTilt.objectLimit, pivotGain: FRANKA_PIVOT_GAIN, faces: 4 } : null,
  });
  const band = r.band
    ? frankaBand({
        platform: r.platform,
        endEffector: r.endEffector,
        tableHeight: r.tableHeight,
        clauses: r.band.clauses,
        ...(r.band.runOn !== undefined ? { runOn: r.band.runOn } : {}),
      })
    : undefined;
  // A Franka chunk has the 7 arm joints only (the gripper is its own action server): the tilt pairs
  // follow the grip read on the control thread for each chunk — the gripper's state, and the row at
  // which the chunk's gripper command (if it carries one) closes the hand.
  let grip: GripSnapshot | undefined;
  // the re-check: the chunk as it goes to the arm (after the band) against the same barrier, limits
  // and tilt faces, the faces on the rows the grip (set from each snapshot) holds an object
  const { filter, recheck } = rigChunkCbf(
    { barrier, tilt },
    {
      qmin,
      qmax,
      maxSpeed: [...FRANKA_DQ_MAX[r.platform]],
      planningMargin: r.planningMargin,
      columns: qmin.length,
      gripper: { held: () => grip?.held ?? true, closeRow: () => grip?.closeRow ?? -1 },
    },
  );
  return {
    filter,
    band,
    tracked: groups.slice(0, r.trackedBodies),
    recheck,
    setGrip: (g) => (grip = g),
  };
}

/**
 * The row at which a chunk's gripper command closes the hand: the first whose commanded width (m,
 * between the fingers) is below the present measured width by more than `tolerance` — the fingers
 * told to close from where they are (−1: none, or no command). Present width unknown (no usable
 * gripper state): measured from fully open, so any command short of open closes.
 */
export function frankaCloseRow(
  commandedWidth: Float64Array | undefined,
  presentWidth: number,
  openWidth: number,
  tolerance: number,
): number {
  if (!commandedWidth) return -1;
  const from = Number.isFinite(presentWidth) ? presentWidth : openWidth;
  for (let k = 0; k < commandedWidth.length; k++) if (!(commandedWidth[k]! >= from - tolerance)) return k; // NaN counts as a close
  return -1;
}

/** The barrier model of a gating Franka: recipe → filter (inline or in the service) → the off-thread chunk path. */
function frankaBarrier(
  o: FrankaRigOptions,
  plan: SafeMonitorPlan,
  mapping: FrankaMapping,
  tracked:
    | {
        bodies: readonly TrackedObstacleSpec[];
        source: TrackedPositionSource;
        trackingInBase: readonly [number, number, number, number, number, number];
        maxAge: number;
      }
    | undefined,
): { model: BarrierModel; band: PlatformBand | undefined; recipe: FrankaFilterRecipe } {
  const b = o.barrier!;
  // The held object's tilt (held_object_tilt_world's τ − ε) while the fingers hold something.
  const tiltClause = plan.instances.find((i) => i.clause.id === 'held_object_tilt_world');
  const heldTilt =
    b.heldTilt !== false && tiltClause && o.endEffector !== 'none'
      ? { objectLimit: ((tiltClause.tau - (tiltClause.warn ?? 0)) * Math.PI) / 180 }
      : null;
  const recipe: FrankaFilterRecipe = {
    platform: o.platform,
    endEffector: o.endEffector,
    tableHeight: b.tableHeight,
    workspace: b.workspace ? [...b.workspace] : null,
    dSafe: b.dSafe,
    selfClearance: b.selfClearance === undefined ? FRANKA_SELF_CLEARANCE : b.selfClearance,
    planningMargin: b.planningMargin ?? FRANKA_PLANNING_MARGIN,
    heldTilt,
    trackedBodies: tracked?.bodies.length ?? 0,
    band: b.warningBand
      ? {
          clauses: bandClauses(plan.instances),
          ...(b.warningBand.runOn !== undefined ? { runOn: b.warningBand.runOn } : {}),
        }
      : null,
  };
  const built = frankaChunkFilter(recipe);
  const trackedObstacles = tracked
    ? new TrackedObstacles(tracked.bodies, built.tracked, tracked.source, tracked.trackingInBase, tracked.maxAge)
    : undefined;
  const band = built.band && built.band.clauses.length > 0 ? built.band : undefined;
  const service =
    b.filterService?.(recipe) ??
    new InlineChunkFilterService(
      new ChunkFilterRunner({
        filter: built.filter,
        tracked: built.tracked,
        grip: built.setGrip,
        ...(band ? { band: band.stage.band } : {}),
      }),
    );
  const g = mapping.config.gripper;
  // Read on the control thread into every snapshot, and again just before its answer is re-checked
  // (a changed grip has it filtered again): this thread's filter copy holds it, so the re-check's
  // tilt faces follow the same grip the filter did.
  const grip = (chunk: GateChunk, now: number): GripSnapshot => {
    const snapshot = {
      held: mapping.holdingAt(now),
      closeRow: frankaCloseRow(chunk.gripperWidth, mapping.gripperWidth, g.openWidth, g.hysteresis),
    };
    built.setGrip(snapshot);
    return snapshot;
  };
  return {
    model: {
      kind: 'cbf',
      screen: frankaChunkScreen(o.platform),
      filter: built.filter,
      maxStateAge: 0.05,
      recheck: built.recheck,
      ...(trackedObstacles ? { obstacles: trackedObstacles } : {}),
      ...(band ? { band: band.stage } : {}),
      offThread: { service, tracked: built.tracked, grip },
    },
    band: built.band,
    recipe,
  };
}
