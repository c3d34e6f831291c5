/**
 * The SO-101's rig for the session (src/runtime/session.ts): the applicable safe-tier clause
 * monitors for the task (signals declared by the calibration file, thresholds from it), the gate's
 * limits, and the barrier model screen → CBF filter (arm capsules vs the table plane, optional
 * fixed spheres, tracked bodies and workspace box) → warning band (src/rigs/warning-band.ts) → arm. The arm (a real tty or the emulator) is connected by the
 * caller and handed in behind the ports.
 */
import { jointLimitsRadians, type So101Calibration } from '../calibration/so101.js';
import { calibratedProfile } from '../calibration/so101-thresholds.js';
import {
  ChunkScreen,
  obstacleGroups,
  TrackedObstacles,
  type TrackedObstacleSpec,
  type TrackedPositionSource,
} from '../gate/index.js';
import { descriptionBarrier } from '../gate/description-barrier.js';
import type { ChunkFilter } from '../gate/cbf-types.js';
import { SO101_DESCRIPTION } from '../kinematics/index.js';
import type { ObstacleSet } from '../kinematics/index.js';
import type { CommandSink, JointStateSource, SignalSource } from '../ports/index.js';
import type { PlatformRig } from '../runtime/rig.js';
import type { ClauseApplicability, ScoringSpec } from '../safety/index.js';
import { planSafeMonitors } from '../runtime/safe-monitors.js';
import { SIGNALS, type SignalFrame } from '../schema/signals.js';
import type { Clock } from '../util/clock.js';
import { so101ModelFor } from '../../drivers/so101/mapping.js';
import { so101Band, type PlatformBand } from './warning-band.js';
import { rigChunkCbf } from './chunk-cbf.js';
import { bandClauses, type BandClauseSpec } from '../gate/warning-band.js';
import type { ChunkFilterService } from '../runtime/chunk-filter-service.js';
import type { ChunkRecheckConfig } from '../gate/chunk-recheck.js';

export interface So101RigOptions {
  spec: ScoringSpec;
  calibration: So101Calibration;
  /** The calibration's file name, for where monitored thresholds came from. */
  calibrationFile?: string;
  task: string;
  /** The arm: signals in, commands out, joint state for the filter. */
  arm: SignalSource & CommandSink & JointStateSource;
  clock: Clock;
  /** Workspace box the capsules stay inside (xmin, ymin, zmin, xmax, ymax, zmax; m, base frame). */
  workspace?: readonly number[];
  /** Fixed spheres the capsules keep clear of: x, y, z, r per sphere (m, base frame), one barrier pair each. */
  obstacles?: readonly number[];
  /**
   * Tracked bodies the capsules keep clear of (a sphere around each tracked position, moved into
   * the barrier before every chunk); a body older than `maxAge` holds the chunk, as on the Franka.
   */
  tracked?: {
    bodies: readonly TrackedObstacleSpec[];
    source: TrackedPositionSource;
    /** Pose of the tracking frame in the robot base frame: x, y, z (m), roll, pitch, yaw (rad). */
    trackingInBase: readonly [number, number, number, number, number, number];
    maxAge: number;
  };
  /**
   * External tracking mapped into signals each step (e.g. bystanders' displacement,
   * non_target_disp_max): the signals it writes are declared besides the calibration's, so their
   * clauses apply.
   */
  trackedSignals?: { signals: readonly string[]; write(frame: SignalFrame): void };
  /** Safety distance of the barrier (m). Default 0.01. */
  dSafe?: number;
  /**
   * Planning margin δ (m): every barrier pair is planned δ beyond its clearance and a chunk is
   * refused only inside the clearance itself, so the servos' tracking error at the next chunk's
   * start does not hold the arm. Default SO101_PLANNING_MARGIN.
   */
  planningMargin?: number;
  /**
   * Self-collision pair: the description's link capsules (and the gripper's volumes), every pair
   * not on its allowed-collision list, kept this far apart (m). null: no self pair. Default
   * SO101_SELF_CLEARANCE.
   */
  selfClearance?: number | null;
  /**
   * The held object's tilt bound (design §6): while a chunk starts with the gripper commanded closed
   * (chunk column 5), the tool may tilt at most the held_object_tilt_world clause's τ − ε from its
   * pose at the grasp. Off when the task does not monitor that clause. Default true.
   */
  heldTilt?: boolean;
  /** Per-joint speed bound used by the filter (rad/s). Default 2. */
  maxSpeed?: number;
  /** Oldest chunk stamp accepted (s). Default 0.2. */
  maxChunkAge?: number;
  /** No fresh sample for this long holds (s). Default 0.1. */
  watchdogTimeout?: number;
  /**
   * Raise every signal's max age (design §2 values) to at least this (s), e.g. for a slow USB
   * adapter or a loaded host; the pipeline watchdog is raised with it. Default: SPEC values.
   */
  minMaxAge?: number;
  /** Control-loop rate (Hz): the monitors' buffers are sized for samples half a period apart. */
  rate?: number;
  /**
   * The chunk warning band after the CBF (src/rigs/warning-band.ts). Default on: the calibration
   * always configures the table plane.
   */
  warningBand?: boolean;
  /** The band's run-on (s); default the measured SO101_RUN_ON. */
  warningBandRunOn?: number;
  /**
   * Filter chunks off the control thread (issue 14 item 3): the service built from the rig's recipe
   * (a filter worker, wired by the entry point). Absent: filtered on the calling thread.
   */
  filterService?: (recipe: So101FilterRecipe) => ChunkFilterService;
}

/**
 * Default planning margin δ of the SO-101 barrier (m): 3 mm, the demo's measured figure on the
 * simulated SO-101 (src/cli/commands/demo.ts DEMO_PLANNING_MARGIN: a chunk ending on the boundary
 * started the next one 0.2–1.4 mm inside from tracking error and tracker noise), above the
 * STS3215's one-step resolution at the 0.25 m reach (2π/4096 · 0.25 ≈ 0.4 mm) and ~1° backlash
 * at the wrist (hardware-facts.md: ≈ 1.7 mm at 0.1 m).
 */
export const SO101_PLANNING_MARGIN = 0.003;
/**
 * Default self-collision clearance of the SO-101 (m): 5 mm. Measured on the real LeRobot SO-101
 * recording (bench/self-pair-real-confs.ts, bench/RESULTS.md): the arm parks folded with the
 * gripper 10.4–12 mm from the base's capsule, so the demo's 1 cm (planned 1.3 cm) would start
 * every episode on the refusal edge; at 5 mm (planned 8 mm) the parked poses sit clear of the
 * planning band, and the recording's one contact fold (−3.4 mm) is still refused.
 */
export const SO101_SELF_CLEARANCE = 0.005;
/**
 * How many times the tool's tilt the held object tilts: 1, the rigid-grasp assumption of the
 * monitored signal itself (target_obj_tilt_world_deg is the gripper body's tilt since the grasp,
 * drivers/so101/mapping.ts), so the bound keeps exactly that signal under τ − ε.
 */
export const SO101_PIVOT_GAIN = 1;
/** Faces of the tilt polygon (a square cone about the grasp's vertical, as in the demo). */
const TILT_FACES = 4;
/** Chunk column of the gripper command (rad; SO101_JOINT_NAMES). */
export const SO101_GRIPPER_COLUMN = 5;

/**
 * The gripper command's open and closed values (rad) from the calibration: open is the gripper's
 * upper limit (the end openGripper drives to, LeRobot range_0_100 = 100, hardware-facts §B: 0
 * closed, 100 open); closed is the jaw joint's zero (jaws shut in the description, negative
 * squeezes), or the lower limit when a calibration puts zero outside the range.
 */
export function so101GripperCommand(lower: number, upper: number): { column: number; open: number; closed: number } {
  return { column: SO101_GRIPPER_COLUMN, open: upper, closed: lower <= 0 && 0 < upper ? 0 : lower };
}

export interface So101Rig {
  rig: PlatformRig;
  decisions: ClauseApplicability[];
  /** Per monitored clause, the threshold τ monitored and where it came from (calibration, platform or library). */
  thresholds: MonitoredThreshold[];
  /** Names of the monitored clauses, in margin order. */
  clauses: string[];
  /** The warning band on chunks, when on. */
  band: PlatformBand | undefined;
  /** What the chunk filter is built from (a filter worker builds the same one). */
  recipe: So101FilterRecipe;
  /** What the CBF keeps besides the environment clearances, for the start-up line. */
  cbf: {
    /** Self-collision clearance (m), null: no self pair. */
    selfClearance: number | null;
    /** The tool's tilt bound while held (deg), null: none (off, or the clause not monitored). */
    heldTiltDeg: number | null;
    /** Gripper commands below this (rad) count as closed. */
    closedBelow: number;
    planningMargin: number;
  };
}

export interface MonitoredThreshold {
  clause: string;
  tau: number;
  unit: string;
  /** 'calibration <file>', 'platform so101' or 'library'. */
  from: string;
}

/** Build the rig; throws an Error naming the problem for an unknown task or platform. */
export function so101Rig(o: So101RigOptions): So101Rig {
  const { calibration: cal } = o;
  // The calibration's thresholds are this arm's: they replace the so101 profile's numbers.
  const profile = o.spec.platforms.get('so101');
  if (!profile) throw new Error("the platform profiles have no 'so101'");
  const spec = {
    ...o.spec,
    platforms: new Map(o.spec.platforms).set(
      'so101',
      calibratedProfile(profile, cal.thresholds, o.spec.library, o.calibrationFile ?? `calibration '${cal.armId}'`),
    ),
  };
  const { decisions, instances, bank } = planSafeMonitors(
    spec,
    'so101',
    o.task,
    () => new Set([...cal.declaredSignals, ...(o.trackedSignals?.signals ?? [])]),
    // the monitors' buffers sized for samples half a control period apart
    o.rate !== undefined && o.rate > 0 ? { minSampleInterval: 0.5 / o.rate } : {},
  );
  const clauses = Array.from({ length: bank.count }, (_, i) => bank.name(i));

  const floor = o.minMaxAge ?? 0;
  const { lower: qmin, upper: qmax } = jointLimitsRadians(cal);
  const tracked = o.tracked && o.tracked.bodies.length > 0 ? o.tracked : undefined;
  const nTracked = tracked?.bodies.length ?? 0;
  const planningMargin = o.planningMargin ?? SO101_PLANNING_MARGIN;
  const tiltClause = instances.find((i) => i.clause.id === 'held_object_tilt_world');
  const heldTilt =
    o.heldTilt !== false && tiltClause
      ? {
          objectLimit: ((tiltClause.tau - (tiltClause.warn ?? 0)) * Math.PI) / 180,
          pivotGain: SO101_PIVOT_GAIN,
          faces: TILT_FACES,
        }
      : null;
  const recipe: So101FilterRecipe = {
    platform: 'so101',
    calibration: cal,
    workspace: o.workspace ? [...o.workspace] : null,
    obstacles: [...(o.obstacles ?? [])],
    trackedBodies: nTracked,
    dSafe: o.dSafe ?? 0.01,
    planningMargin,
    selfClearance: o.selfClearance === undefined ? SO101_SELF_CLEARANCE : o.selfClearance,
    heldTilt,
    maxSpeed: o.maxSpeed ?? 2,
    band:
      o.warningBand === false
        ? null
        : {
            clauses: bandClauses(instances),
            ...(o.warningBandRunOn !== undefined ? { runOn: o.warningBandRunOn } : {}),
          },
  };
  const built = so101ChunkFilter(recipe);
  const { filter, band, gripper } = built;
  const trackedObstacles = tracked
    ? new TrackedObstacles(tracked.bodies, built.tracked, tracked.source, tracked.trackingInBase, tracked.maxAge)
    : undefined;
  const service = o.filterService?.(recipe);
  const maxAge = o.maxChunkAge ?? 0.2;
  // Policies usually run on another machine: chunk stamps are on the policy's own clock (ChunkScreen policyClock).
  const screen = new ChunkScreen({
    joints: qmin.length,
    maxHorizon: 100,
    qmin,
    qmax,
    maxAge,
    futureTolerance: 0.05,
    minDt: 0.005,
    maxDt: 0.2,
    idMemory: 1024,
    policyClock: true,
  });
  // The arm is both source and sink: give the pipeline its faults once (through the source).
  const arm = o.arm;
  const armSink: CommandSink = {
    name: arm.name,
    execute: (c, now) => arm.execute(c, now),
    hold: (now, reason) => arm.hold(now, reason),
    heartbeat: (now) => arm.heartbeat(now),
    ...(arm.openGripper ? { openGripper: (now: number) => arm.openGripper?.(now) } : {}),
    onFault: () => undefined,
  };
  const rig: PlatformRig = {
    platform: 'so101',
    clock: o.clock,
    source: arm,
    ...(o.trackedSignals ? { mapping: (frame: SignalFrame) => o.trackedSignals!.write(frame) } : {}),
    sink: armSink,
    joints: arm,
    monitors: bank,
    limits: {
      gate: {
        requiredSignals: bank.requiredSignals,
        maxStepGap: 0.5,
        faultQuietPeriod: 1.0,
        // Tracked signals arrive once the bridge sends: start held and arm when every required signal was seen.
        ...(o.trackedSignals ? { startup: true } : {}),
        ...(floor > 0 ? { maxAge: SIGNALS.map((sig) => Math.max(sig.maxAge, floor)) } : {}),
      },
      watchdogTimeout: Math.max(o.watchdogTimeout ?? 0.1, floor),
    },
    barrier: {
      kind: 'cbf',
      screen,
      filter,
      maxStateAge: Math.max(0.1, floor),
      ...(trackedObstacles ? { obstacles: trackedObstacles } : {}),
      ...(band && band.clauses.length > 0 ? { band: band.stage } : {}),
      recheck: built.recheck,
      ...(service ? { offThread: { service, tracked: built.tracked } } : {}),
    },
  };
  const thresholds = instances.map(
    (i): MonitoredThreshold => ({
      clause: i.clause.id,
      tau: i.tau,
      unit: i.clause.unit,
      from: cal.thresholds[i.clause.id] ? `calibration ${o.calibrationFile ?? cal.armId}` : i.numbersFrom,
    }),
  );
  const selfClearance = o.selfClearance === undefined ? SO101_SELF_CLEARANCE : o.selfClearance;
  const cbfSummary = {
    selfClearance,
    heldTiltDeg: heldTilt ? (heldTilt.objectLimit * 180) / Math.PI / heldTilt.pivotGain : null,
    closedBelow: (gripper.open + gripper.closed) / 2,
    planningMargin,
  };
  return { rig, decisions, thresholds, clauses, band, cbf: cbfSummary, recipe };
}

/**
 * Everything the SO-101's chunk filter is built from, as plain data (structured-cloneable): the
 * filter worker (src/rigs/filter-worker/) builds the same filter from it on its own thread.
 */
export interface So101FilterRecipe {
  readonly platform: 'so101';
  readonly calibration: So101Calibration;
  /** Workspace box (xmin, ymin, zmin, xmax, ymax, zmax; m), null: none. */
  readonly workspace: readonly number[] | null;
  /** Fixed spheres x, y, z, r (m). */
  readonly obstacles: readonly number[];
  /** Tracked bodies: one sphere group each, placed from each snapshot. */
  readonly trackedBodies: number;
  readonly dSafe: number;
  readonly planningMargin: number;
  readonly selfClearance: number | null;
  readonly heldTilt: { readonly objectLimit: number; readonly pivotGain: number; readonly faces: number } | null;
  /** Per-joint speed bound (rad/s). */
  readonly maxSpeed: number;
  /** The warning band's clauses and run-on, null: no band. */
  readonly band: { readonly clauses: readonly BandClauseSpec[]; readonly runOn?: number } | null;
}

export interface So101ChunkFilter {
  /** The CBF (behind the held-tilt switch when the tilt bound is on). */
  readonly filter: ChunkFilter;
  readonly band: PlatformBand | undefined;
  /** The tracked bodies' obstacle groups (one sphere each), in the recipe's order. */
  readonly tracked: ObstacleSet[];
  /**
   * The same barrier, limits and held-tilt faces, for the re-check of the chunk as it would go to
   * the arm (either chunk path); its held-tilt filter is this recipe's HeldTiltFilter.
   */
  readonly recheck: ChunkRecheckConfig;
  readonly gripper: { column: number; open: number; closed: number };
}

/** The SO-101's chunk filter and warning band from a recipe (the rig's, and the filter worker's). */
export function so101ChunkFilter(r: So101FilterRecipe): So101ChunkFilter {
  const cal = r.calibration;
  const { lower: qmin, upper: qmax } = jointLimitsRadians(cal);
  const obstacles: ObstacleSet = {
    planes: Float64Array.from([0, 0, 1, cal.tableHeightM]),
    // tracked spheres first (placed before every chunk), then the fixed ones
    spheres: Float64Array.from([...new Array<number>(4 * r.trackedBodies).fill(NaN), ...r.obstacles]),
    box: r.workspace ? Float64Array.from(r.workspace) : null,
  };
  const groups = obstacleGroups(obstacles);
  const armSpec = so101ModelFor(cal);
  const { barrier, tilt } = descriptionBarrier(SO101_DESCRIPTION, 'gripper', {
    groups,
    dSafe: r.dSafe,
    planningMargin: r.planningMargin,
    selfClearance: r.selfClearance,
    heldTilt: r.heldTilt,
    environment: armSpec,
  });
  const band = r.band
    ? so101Band({
        calibration: cal,
        model: armSpec,
        clauses: r.band.clauses,
        ...(r.band.runOn !== undefined ? { runOn: r.band.runOn } : {}),
      })
    : undefined;
  // The tilt pairs are switched per chunk by the gripper command (on from a chunk that starts closed).
  const gripper = so101GripperCommand(qmin[SO101_GRIPPER_COLUMN]!, qmax[SO101_GRIPPER_COLUMN]!);
  const { filter, recheck } = rigChunkCbf(
    { barrier, tilt },
    {
      qmin,
      qmax,
      maxSpeed: new Array<number>(qmin.length).fill(r.maxSpeed),
      planningMargin: r.planningMargin,
      columns: qmin.length,
      gripper,
    },
  );
  return {
    filter,
    band,
    tracked: groups.slice(0, r.trackedBodies),
    recheck,
    gripper,
  };
}
