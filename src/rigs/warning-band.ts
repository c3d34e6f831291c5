/**
 * The warning band on the real arms (issue 15): each platform's constants for the chunk warning
 * band of src/gate/warning-band.ts, with the arm's geometry from its robot description
 * (KinematicChunkMotion: capsules vs the configured table plane, TCP height, and the SO-101's
 * calibrated gravity model). Every constant names its source; `armguard run so101 --help`,
 * hardware.md "Warning band" and bench/RESULTS.md carry the same numbers.
 */
import { AnalyticFreeMotionModel } from '../calibration/free-motion.js';
import { jointLimitsRadians, type So101Calibration } from '../calibration/so101.js';
import { bandClauses, KinematicChunkMotion, WarningBand, type ChunkBandStage } from '../gate/index.js';
import type { ApproachModel, BandClauseSpec } from '../gate/index.js';
import {
  armModel,
  CapsuleModel,
  endEffectorOf,
  FR3_DESCRIPTION,
  ForwardKinematics,
  PANDA_DESCRIPTION,
  SO101_DESCRIPTION,
  TF,
  type ArmModelSpec,
  type ChainSpec,
  type FrankaEndEffector,
} from '../kinematics/index.js';
import type { ClauseInstance } from '../safety/index.js';

/**
 * SO-101 run-on (s): the follower trails its goal positions by 113–149 ms per joint (median 116–117
 * ms in each of the 4 teleoperated episodes of the real LeRobot SO-101 dataset; `npx tsx
 * bench/so101-run-on.ts`, bench/RESULTS.md "SO-101 run-on"), so a step is predicted 0.12 s of its
 * speed further along.
 */
export const SO101_RUN_ON = 0.12;
/**
 * Franka run-on (s): NOT measured here (no Franka trajectory recording in ../shared); 50 ms is an
 * assumption for the joint trajectory controller at 1 kHz. Measure it on the arm (desired vs
 * measured joint state of FrankaRobotState) and set the node's `warning_band_run_on`.
 */
export const FRANKA_RUN_ON = 0.05;
/** STS3215 position gain (N·m/rad): the SO-101 MuJoCo model's kp 17.8 (hardware-facts B6, [SO] joints_properties.xml). */
export const SO101_SERVO_STIFFNESS = 17.8;
/** STS3215 no-load speed at 7.4 V: 52 rpm (hardware-facts B3). */
const SO101_NO_LOAD_SPEED = (52 * 2 * Math.PI) / 60;
/** Franka joint stiffness (N·m/rad): the fr3_arm_controller's largest PID p gain, 600 (hardware-facts A4). */
export const FRANKA_JOINT_STIFFNESS = 600;
/** Franka joints 1–4 torque limit, 87 N·m (hardware-facts A6): what the arm can push with at most. */
export const FRANKA_MAX_TORQUE = 87;
/**
 * Franka contact prediction: the demo's figures (a 1 m/s strike and a target 2 cm into the table
 * each predict the 200 N tier's limit), not measured on a Franka.
 */
export const FRANKA_APPROACH: ApproachModel = { contactDistance: 0.01, impactGain: 200, pressStiffness: 10_000 };
/** A bent target stays 0.02 rad (~1°) inside the joint's range (as in the demo). */
const BEND_MARGIN = 0.02;
/** Held object resting on a support above this target–furniture force (N): the sensor's any-touch level. */
const SUPPORT_FORCE = 0.5;
/** A command this fraction of the gripper's travel nearer to open releases the held object. */
const RELEASE_FRACTION = 0.5;
/** Contact within 1 cm counts as touching: the capsules' fit (hardware.md "Self-collision") plus ~1° backlash over the reach. */
const CONTACT_DISTANCE = 0.01;

/** A platform's band and what its predictions cannot see. */
export interface PlatformBand {
  readonly stage: ChunkBandStage;
  readonly clauses: readonly BandClauseSpec[];
  /** false: commanded_load is predicted without the arm's own gravity load (no mass model). */
  readonly gravityModelled: boolean;
  readonly runOn: number;
  /** One line per constant and its source, for the start-up log and `--help`. */
  readonly notes: readonly string[];
}

/** Distance (m) between two chain frames at the zero pose: the arm's shoulder-to-wrist reach. */
export function reachOf(chain: ChainSpec, from: number, to: number): number {
  const fk = new ForwardKinematics(chain);
  fk.compute(new Float64Array(chain.joints.length));
  const f = fk.frames;
  const a = TF * from + 9;
  const b = TF * to + 9;
  return Math.hypot(f[b]! - f[a]!, f[b + 1]! - f[a + 1]!, f[b + 2]! - f[a + 2]!);
}

export interface So101BandOptions {
  readonly calibration: So101Calibration;
  /** The capsule model the CBF uses (so101ModelFor(calibration)). */
  readonly model: ArmModelSpec;
  /** The monitored clauses (their band clauses are taken), or the band clauses themselves (`clauses`). */
  readonly instances?: readonly ClauseInstance[];
  /** The band clauses, when already taken from the instances (a filter worker rebuilding the band). */
  readonly clauses?: readonly BandClauseSpec[];
  /** Override the measured run-on (s). */
  readonly runOn?: number;
}

/**
 * The SO-101's band: table plane from the calibration, joint ranges and stall torque from it, the
 * servo gain of the SO-101 model, gravity from the calibrated free-motion model (at q̇ = 0).
 * Contact prediction from the servo: pressing δ past the table loads a joint by kp·δ/reach, i.e.
 * kp/reach² N/m at the TCP; a strike at the servos' no-load TCP speed predicts the full stall force
 * at the TCP (stall/reach), slower ones proportionally less.
 */
export function so101Band(o: So101BandOptions): PlatformBand {
  const cal = o.calibration;
  const { lower, upper } = jointLimitsRadians(cal);
  const frames = { upperArm: 2, wrist: 4 };
  const reach = reachOf(SO101_DESCRIPTION.chain, frames.upperArm, frames.wrist);
  const stall = cal.torque.stallTorqueNm;
  const approach: ApproachModel = {
    contactDistance: CONTACT_DISTANCE,
    impactGain: stall / reach / (SO101_NO_LOAD_SPEED * reach),
    pressStiffness: SO101_SERVO_STIFFNESS / (reach * reach),
  };
  const runOn = o.runOn ?? SO101_RUN_ON;
  const motion = new KinematicChunkMotion({
    model: new CapsuleModel(o.model),
    plane: [0, 0, 1, cal.tableHeightM],
    tcp: SO101_DESCRIPTION.endEffectors.gripper!.tcp,
    gravity: new AnalyticFreeMotionModel(cal.freeMotion),
  });
  const clauses = o.clauses ? [...o.clauses] : bandClauses(o.instances ?? []);
  const gripper = lower.length - 1;
  const band = new WarningBand(motion, {
    clauses,
    armJoints: gripper,
    runOn,
    approach,
    load: {
      qmin: lower.slice(0, gripper),
      qmax: upper.slice(0, gripper),
      stiffness: SO101_SERVO_STIFFNESS,
      stallTorque: stall,
      bendMargin: BEND_MARGIN,
      surfaceLever: reach,
    },
    grip: {
      column: gripper,
      open: upper[gripper]!,
      releaseDelta: RELEASE_FRACTION * Math.abs(upper[gripper]! - lower[gripper]!),
    },
  });
  const f = (x: number) => x.toPrecision(3);
  return {
    stage: { band, supportForce: SUPPORT_FORCE },
    clauses,
    gravityModelled: true,
    runOn,
    notes: [
      `run-on ${f(runOn)} s (${o.runOn !== undefined ? 'set by --warning-band-run-on' : 'measured follower lag, bench/so101-run-on.ts'})`,
      `contact: within ${CONTACT_DISTANCE} m, impact ${f(approach.impactGain)} N per m/s, press ${f(approach.pressStiffness)} N/m (servo kp ${SO101_SERVO_STIFFNESS} N·m/rad, stall ${stall} N·m from the calibration, reach ${f(reach)} m from the description)`,
      `load: gravity from the calibration's free-motion model; commanded beyond reach pushes kp × excess up to stall`,
    ],
  };
}

export interface FrankaBandOptions {
  readonly platform: 'fr3' | 'panda';
  readonly endEffector: FrankaEndEffector;
  readonly tableHeight: number;
  /** The monitored clauses (their band clauses are taken), or the band clauses themselves (`clauses`). */
  readonly instances?: readonly ClauseInstance[];
  /** The band clauses, when already taken from the instances (a filter worker rebuilding the band). */
  readonly clauses?: readonly BandClauseSpec[];
  readonly runOn?: number;
}

/**
 * The Franka's band: joint ranges from the description, stiffness and torque ceiling from the
 * controller and the arm's limits, contact constants as in the demo. No mass model: the
 * commanded_load prediction counts only what the chunk commands beyond reach or into the table.
 */
export function frankaBand(o: FrankaBandOptions): PlatformBand {
  const robot = o.platform === 'fr3' ? FR3_DESCRIPTION : PANDA_DESCRIPTION;
  const chain = robot.chain;
  const runOn = o.runOn ?? FRANKA_RUN_ON;
  // shoulder (joint 2's frame) to wrist (joint 6's frame)
  const reach = reachOf(chain, 2, 6);
  const motion = new KinematicChunkMotion({
    model: new CapsuleModel(armModel(robot, o.endEffector)),
    plane: [0, 0, 1, o.tableHeight],
    tcp: endEffectorOf(robot, o.endEffector).tcp,
  });
  const clauses = o.clauses ? [...o.clauses] : bandClauses(o.instances ?? []);
  const band = new WarningBand(motion, {
    clauses,
    armJoints: chain.joints.length,
    runOn,
    approach: FRANKA_APPROACH,
    load: {
      qmin: chain.joints.map((j) => j.lower),
      qmax: chain.joints.map((j) => j.upper),
      stiffness: FRANKA_JOINT_STIFFNESS,
      stallTorque: FRANKA_MAX_TORQUE,
      bendMargin: BEND_MARGIN,
      surfaceLever: reach,
    },
  });
  return {
    stage: { band, supportForce: SUPPORT_FORCE },
    clauses,
    gravityModelled: false,
    runOn,
    notes: [
      `run-on ${runOn} s (${o.runOn !== undefined ? 'set by warning_band_run_on' : 'assumed, not measured'})`,
      `contact: within ${CONTACT_DISTANCE} m, impact ${FRANKA_APPROACH.impactGain} N per m/s, press ${FRANKA_APPROACH.pressStiffness} N/m (the demo's figures)`,
      `load: no mass model — joint_torque is predicted from what the chunk commands beyond reach or into the table only (stiffness ${FRANKA_JOINT_STIFFNESS} N·m/rad, ceiling ${FRANKA_MAX_TORQUE} N·m)`,
    ],
  };
}
