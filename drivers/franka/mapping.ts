/**
 * Franka → signal schema (design §2, §5; hardware-facts §A). Pure: typed messages in, a SignalFrame
 * and typed faults out; no ROS, no clock.
 *
 * - max_joint_torque: max_i |tau_J_i| · (87 / limit_i). Joints 5–7 are limited to 12 N·m and 1–4
 *   to 87 N·m; scaling each joint onto the 87 N·m scale lets one clause threshold (design §3, 87 N·m)
 *   fire when ANY joint reaches its own limit. The unscaled per-joint ratios are kept as well.
 * - contact forces: |o_f_ext_hat_k.force| (base frame). While the gripper holds an object the
 *   estimate is attributed to the held target (target_furniture_contact_force), otherwise to the arm
 *   (arm_furniture_contact_force); contact_force_max is the max of the two. A wrench estimator gives
 *   a resultant, not per-pair forces (seeds/000 App. G): attribution is an approximation.
 * - obj_above_table / target_obj_tilt_world_deg: while the grasp holds, from o_t_ee (FK-free),
 *   relative to the end-effector pose when the grasp closed (rigid grasp transform).
 * - gripper_contact: the fingers hold something, judged from the finger width alone (the gripper's
 *   joint states carry no grasp flag; see {@link FrankaMapping.applyGripper} for the rule).
 * - self_collision_clearance: surface distance (m) between the nearest two self-collision volumes
 *   of the robot description (arm + the configured end effector) that are not on its
 *   allowed-collision list, at the measured q; NaN (invalid) for a q of the wrong size or non-finite.
 * - ee_speed: |J(q)·dq| at the end effector's TCP from measured_joint_state (position, velocity);
 *   ee_acc: the 5-sample backward difference of that velocity over the header stamps, NaN (invalid)
 *   for the first 5 samples and after a gap (a stamp step ≤ 0 or > 10 ms) or an invalid dq
 *   (src/kinematics/tcp-motion.ts).
 * - robot_mode REFLEX / USER_STOPPED / AUTOMATIC_ERROR_RECOVERY and any safety error flag → a
 *   `robot-mode` fault (the gate holds).
 */
import { signalIndex, type SignalFrame } from '../../src/schema/signals.js';
import type { Fault } from '../../src/ports/index.js';
import { RosTimeBase, type JointState } from '../../src/mcap/messages.js';
import { NS_PER_S, secondsToNs } from '../../src/util/time.js';
import { angleDeg, bodyZ } from '../tracking/pose-math.js';
import {
  armModel,
  CapsuleModel,
  endEffectorOf,
  FR3_DESCRIPTION,
  length3,
  PANDA_DESCRIPTION,
  TcpMotion,
  type FrankaEndEffector,
  type RobotDescription,
} from '../../src/kinematics/index.js';
import { ROBOT_MODE, ROBOT_MODE_NAMES, type FrankaRobotState } from './messages.js';

export interface FrankaMappingConfig {
  /** Per-joint torque limits, N·m (FR3 and Panda: 87 ×4, 12 ×3). */
  tauLimits: readonly number[];
  /** The clause scale the per-joint ratios are mapped onto, N·m (design §3: 87). */
  torqueScale: number;
  gripper: {
    /** Width below which nothing can be held (fingers closed on nothing), m. */
    closedWidth: number;
    /** Width above which the gripper is open (not holding), m. */
    openWidth: number;
    /** Hysteresis on both edges, m. */
    hysteresis: number;
    /**
     * The fingers count as still when their width stays within this (m) for `stillTime` (s): a
     * closing hand that stopped inside the band stopped on an object (the width plateau).
     */
    stillWidth: number;
    stillTime: number;
    /** Held fingers opening this far (m) beyond the narrowest width of the grasp have let go. */
    releaseWidth: number;
  };
  source: string;
  /** The arm's description: self-collision volumes, allowed pairs, TCP. */
  robot: RobotDescription;
  /** The end effector fitted (one of robot.endEffectors): its volumes and TCP. */
  endEffector: FrankaEndEffector;
}

/** ee_acc: backward difference over this many robot-state samples (5 ms at 1 kHz). */
export const EE_ACC_WINDOW = 5;
/** A stamp step longer than this restarts the ee_acc window (s): ten missed 1 kHz samples. */
export const EE_MAX_GAP_S = 0.01;

export const FR3_MAPPING: FrankaMappingConfig = {
  robot: FR3_DESCRIPTION,
  endEffector: 'franka_hand',
  tauLimits: [87, 87, 87, 87, 12, 12, 12],
  torqueScale: 87,
  gripper: {
    closedWidth: 0.002,
    openWidth: 0.075,
    hysteresis: 0.001,
    // a closing motion slower than 0.5 mm in 50 ms (10 mm/s) looks still: counted as holding early
    stillWidth: 0.0005,
    stillTime: 0.05,
    // franka_gripper's default grasp tolerance (epsilon inner/outer 5 mm, hardware-facts §A3)
    releaseWidth: 0.005,
  },
  source: 'franka',
};

/** The mapping of a Panda (FER) or an FR3 with the end effector that is fitted. */
export function frankaMappingConfig(platform: 'fr3' | 'panda', endEffector: FrankaEndEffector): FrankaMappingConfig {
  return { ...FR3_MAPPING, robot: platform === 'panda' ? PANDA_DESCRIPTION : FR3_DESCRIPTION, endEffector };
}

/** Error flags of franka_msgs/Errors that mean the robot stopped or refused motion. */
export const SAFETY_ERROR_FLAGS = [
  'joint_reflex',
  'cartesian_reflex',
  'joint_position_limits_violation',
  'cartesian_position_limits_violation',
  'self_collision_avoidance_violation',
  'joint_velocity_violation',
  'cartesian_velocity_violation',
  'force_control_safety_violation',
  'power_limit_violation',
  'tau_j_range_violation',
  'instability_detected',
  'communication_constraints_violation',
] as const;

const I = {
  torque: signalIndex('max_joint_torque') ?? -1,
  arm: signalIndex('arm_furniture_contact_force') ?? -1,
  target: signalIndex('target_furniture_contact_force') ?? -1,
  max: signalIndex('contact_force_max') ?? -1,
  grip: signalIndex('gripper_contact') ?? -1,
  selfClearance: signalIndex('self_collision_clearance') ?? -1,
  eeSpeed: signalIndex('ee_speed') ?? -1,
  eeAcc: signalIndex('ee_acc') ?? -1,
  height: signalIndex('obj_above_table') ?? -1,
  tilt: signalIndex('target_obj_tilt_world_deg') ?? -1,
};

export class FrankaMapping {
  private holding = false;
  private gripperStamp = -Infinity;
  /** Where the fingers last moved from (width m, time s), and which way they moved ('unknown': no motion seen). */
  private anchorWidth = NaN;
  private anchorT = NaN;
  private lastMove: 'closing' | 'opening' | 'unknown' = 'unknown';
  /** The narrowest width while holding (m). */
  private graspWidth = NaN;
  /** Distance between the fingers (m) from the last gripper joint state; NaN until one arrives or when it is unusable. */
  gripperWidth = NaN;

  /**
   * The fingers stopped inside the grasp band by a gripper state younger than 1 s at `t` (node
   * time, s): the grip the held-object tilt bound follows (false when stale, unusable or open).
   */
  holdingAt(t: number): boolean {
    return this.holding && secondsToNs(t) - secondsToNs(this.gripperStamp) < NS_PER_S;
  }
  private graspZ = NaN;
  private readonly graspUp = new Float64Array(3);
  private readonly up = new Float64Array(3);
  /** The orientation read from a message, reused every sample (the 1 kHz path allocates nothing). */
  private readonly quat = { x: NaN, y: NaN, z: NaN, w: NaN };
  /** Per-joint |tau_J_i| / limit_i of the latest state (diagnostic). */
  readonly torqueRatios: Float64Array;
  private lastMode = -1;
  private readonly activeErrors = new Set<string>();

  /** Self-collision model of the arm with its end effector (FK of the measured q). */
  readonly capsules: CapsuleModel;
  private readonly tcpMotion: TcpMotion;

  constructor(readonly config: FrankaMappingConfig = FR3_MAPPING) {
    this.torqueRatios = new Float64Array(config.tauLimits.length);
    this.capsules = new CapsuleModel(armModel(config.robot, config.endEffector));
    const tcp = endEffectorOf(config.robot, config.endEffector).tcp;
    this.tcpMotion = new TcpMotion(this.capsules.fk, tcp.frame, tcp.xyz, EE_ACC_WINDOW, EE_MAX_GAP_S);
  }

  get isHolding(): boolean {
    return this.holding;
  }

  /**
   * Gripper finger joint states (two fingers, each at width/2); stamps read on the node's time base.
   *
   * Holding, from the width alone (franka_gripper's joint states carry no is_grasped; its grasp
   * action's result is not seen here): the width is inside the grasp band (above closed-on-nothing,
   * below open, with hysteresis) and
   * - the fingers closed and then stopped there (width within `stillWidth` for `stillTime`: the
   *   plateau of a grasp), or
   * - no motion has been seen since the state began (or since a gap over 1 s): unsure, counted as
   *   holding — a false "not holding" would drop the held-object constraints.
   * Not holding while the fingers close towards the band's inside (nothing gripped yet), once held
   * fingers open more than `releaseWidth` beyond the grasp's narrowest width (let go), after an
   * opening that stops part-way, and outside the band. Held fingers that close further (a slipping
   * or soft object) stay holding until the width leaves the band.
   * False holds this keeps: a Move to a width inside the band (pre-shaping the hand) stops there
   * like a grasp and counts as holding; so does a closing slower than stillWidth / stillTime.
   */
  applyGripper(js: JointState, frame: SignalFrame, time: RosTimeBase = RosTimeBase.EPOCH): void {
    const t = time.seconds(js.header.stamp);
    let width = 0;
    for (const p of js.position) width += p;
    this.gripperWidth = js.position.length === 0 ? NaN : width;
    if (!Number.isFinite(width) || js.position.length === 0) {
      frame.set(I.grip, NaN, t, this.config.source);
      return;
    }
    const g = this.config.gripper;
    // the fingers' motion since they last moved (a state older than 1 s: motion unknown again)
    if (!(t - this.gripperStamp < 1) || !Number.isFinite(this.anchorWidth)) {
      this.lastMove = 'unknown';
      this.anchorWidth = width;
      this.anchorT = t;
    } else if (Math.abs(width - this.anchorWidth) > g.stillWidth) {
      this.lastMove = width < this.anchorWidth ? 'closing' : 'opening';
      this.anchorWidth = width;
      this.anchorT = t;
    }
    const still = t - this.anchorT >= g.stillTime;
    const inBand = this.holding
      ? width > g.closedWidth - g.hysteresis && width < g.openWidth + g.hysteresis
      : width > g.closedWidth + g.hysteresis && width < g.openWidth - g.hysteresis;
    let holding: boolean;
    if (!inBand) holding = false;
    else if (this.holding) holding = !(width > this.graspWidth + g.releaseWidth);
    else holding = this.lastMove === 'unknown' || (this.lastMove === 'closing' && still);
    if (holding && !this.holding) {
      this.graspZ = NaN; // re-anchor the rigid-grasp pose on the next state
      this.graspWidth = width;
    }
    if (holding) this.graspWidth = Math.min(this.graspWidth, width);
    else if (this.holding && inBand) this.lastMove = 'opening'; // let go: a stop part-way is no grasp
    this.holding = holding;
    this.gripperStamp = t;
    frame.set(I.grip, holding ? 1 : 0, t, this.config.source);
  }

  /**
   * Map one FrankaRobotState. Faults (robot mode, safety errors, malformed message) go to `onFault`;
   * the function never throws. A message without a usable header stamp writes nothing (its signals
   * go stale); a missing or non-numeric field makes the signals derived from it invalid (NaN) and
   * is reported, while the fields that are present are still mapped. Stamps are read on the node's
   * time base (exact ns since its origin; src/mcap/messages.ts).
   */
  applyState(
    s: FrankaRobotState,
    frame: SignalFrame,
    onFault: (f: Fault) => void,
    time: RosTimeBase = RosTimeBase.EPOCH,
  ): void {
    const src = this.config.source;
    const stamp = (s as Partial<FrankaRobotState> | undefined)?.header?.stamp;
    const t = stamp !== undefined ? time.seconds({ sec: num(stamp.sec), nanosec: num(stamp.nanosec) }) : NaN;
    if (!Number.isFinite(t)) {
      onFault({ kind: 'invalid-sample', source: src, signal: 'robot_state', value: t });
      return;
    }
    const joints = (s.measured_joint_state as Partial<FrankaRobotState['measured_joint_state']> | undefined) ?? {};
    const tau = numbers(joints.effort);
    const limits = this.config.tauLimits;
    if (tau.length !== limits.length) {
      frame.set(I.torque, NaN, t, src);
      onFault({ kind: 'invalid-sample', source: src, signal: 'max_joint_torque', value: tau.length });
    } else {
      let m = 0;
      for (let i = 0; i < limits.length; i++) {
        const ratio = Math.abs(num(tau[i])) / (limits[i] ?? NaN);
        this.torqueRatios[i] = ratio;
        m = ratio > m || Number.isNaN(ratio) ? ratio : m;
      }
      frame.set(I.torque, m * this.config.torqueScale, t, src);
    }

    const q = numbers(joints.position);
    if (q.length === this.capsules.fk.joints && Array.prototype.every.call(q, Number.isFinite)) {
      this.capsules.update(q as ArrayLike<number>);
      frame.set(I.selfClearance, this.capsules.minSelfDistance(), t, src);
      const dq = numbers(joints.velocity);
      if (dq.length === this.capsules.fk.joints) this.tcpMotion.update(t, dq as ArrayLike<number>);
      else this.tcpMotion.reset();
    } else {
      frame.set(I.selfClearance, NaN, t, src);
      this.tcpMotion.reset();
    }
    frame.set(I.eeSpeed, this.tcpMotion.speed, t, src);
    frame.set(I.eeAcc, this.tcpMotion.acc, t, src);

    const f = (s.o_f_ext_hat_k as Partial<FrankaRobotState['o_f_ext_hat_k']> | undefined)?.wrench?.force;
    const force = length3(num(f?.x), num(f?.y), num(f?.z));
    if (Number.isNaN(force))
      onFault({ kind: 'invalid-sample', source: src, signal: 'contact_force_max', value: force });
    // The grip attributes the force only while its state is younger than 1 s (compared in integer ns).
    const holding = this.holdingAt(t);
    frame.set(I.arm, holding ? 0 : force, t, src);
    frame.set(I.target, holding ? force : 0, t, src);
    frame.set(I.max, force, t, src);

    const p = (s.o_t_ee as Partial<FrankaRobotState['o_t_ee']> | undefined)?.pose;
    if (holding && !(isObject(p) && isObject(p.position) && isObject(p.orientation))) {
      onFault({ kind: 'invalid-sample', source: src, signal: 'obj_above_table', value: NaN });
      frame.set(I.height, NaN, t, src);
      frame.set(I.tilt, NaN, t, src);
    } else if (holding && p !== undefined) {
      const o = p.orientation;
      const quat = this.quat;
      quat.x = num(o.x);
      quat.y = num(o.y);
      quat.z = num(o.z);
      quat.w = num(o.w);
      bodyZ(quat, this.up);
      const z = num(p.position.z);
      if (Number.isNaN(this.graspZ)) {
        this.graspZ = z;
        this.graspUp.set(this.up);
      }
      frame.set(I.height, z - this.graspZ, t, src);
      frame.set(I.tilt, angleDeg(this.graspUp, this.up), t, src);
    } else {
      frame.set(I.height, 0, t, src);
      frame.set(I.tilt, 0, t, src);
    }

    this.checkMode(s, onFault);
  }

  private checkMode(s: FrankaRobotState, onFault: (f: Fault) => void): void {
    const src = this.config.source;
    const mode = s.robot_mode;
    const stopped =
      mode === ROBOT_MODE.REFLEX || mode === ROBOT_MODE.USER_STOPPED || mode === ROBOT_MODE.AUTOMATIC_ERROR_RECOVERY;
    if (stopped && mode !== this.lastMode) {
      onFault({ kind: 'robot-mode', source: src, mode: ROBOT_MODE_NAMES[mode] ?? `mode ${mode}` });
    }
    this.lastMode = mode;
    const errors = (s.current_errors as Partial<FrankaRobotState['current_errors']> | undefined) ?? {};
    for (const flag of SAFETY_ERROR_FLAGS) {
      const on = errors[flag] === true;
      if (on && !this.activeErrors.has(flag)) onFault({ kind: 'robot-mode', source: src, mode: `error:${flag}` });
      if (on) this.activeErrors.add(flag);
      else this.activeErrors.delete(flag);
    }
  }
}

/** A message field as a number: anything else (missing, a string from a mistyped topic) is NaN. */
function num(v: unknown): number {
  return typeof v === 'number' ? v : NaN;
}

/** A numeric array field (a JS array or, from a CDR decoder, a typed array); anything else is empty. */
function numbers(v: unknown): ArrayLike<unknown> {
  return Array.isArray(v) || ArrayBuffer.isView(v) ? (v as unknown as ArrayLike<unknown>) : [];
}

function isObject(v: unknown): v is object {
  return typeof v === 'object' && v !== null;
}
