/**
 * SO-101 signal mapping (design §2/§5): raw servo state → joint angles, torques and the declared
 * signals. One instance per arm; every buffer is preallocated and `update` does not allocate.
 *
 * - max_joint_torque: max |k_j · load_j| (or current) over the five body joints.
 * - gripper_contact: gripper |load| ≥ load_on while stalled and not closed on nothing; released
 *   (hysteresis) when |load| < load_off or the jaws close past empty_closed_pct.
 * - While the grasp holds (rigid-grasp assumption): obj_above_table = height of the held-object
 *   point (TCP ∘ grasp offset) above its height at grasp time (the lift baseline), and
 *   target_obj_tilt_world_deg = angle between the gripper body z-axis at grasp time and now. With
 *   nothing held both read 0 (their clauses are guarded by grip).
 * - self_collision_clearance: surface distance (m) of the nearest two capsules not on the
 *   description's allowed-collision list (src/kinematics/so101.ts SO101_DESCRIPTION).
 * - arm_furniture_contact_force: the residual r = τ_measured − τ_free-motion mapped to a force at
 *   the TCP by the damped pseudo-inverse of Jᵀ: F = (J·Jᵀ + λI)⁻¹·J·r, |F| minus the calibrated
 *   deadband. Contact is assumed at the TCP (documented simplification: a contact nearer the base
 *   is under-attributed); contact_force_max = max of the available estimates.
 */
import {
  CapsuleModel,
  PointForceEstimator,
  SmoothedDerivatives,
  SO101_DESCRIPTION,
  SO101_FRAMES,
  SO101_MODEL,
  TF,
  type ArmModelSpec,
} from '../../src/kinematics/index.js';
import { normalize, radiansPerTick, ticksToRadians, type JointTicks } from '../../src/calibration/lerobot.js';
import { SO101_ARM_JOINTS, so101JointTicks, type So101Calibration } from '../../src/calibration/so101.js';
import type { FreeMotionModel } from '../../src/calibration/free-motion.js';
import { signalIndex, type SignalFrame, type SignalName } from '../../src/schema/signals.js';

const JOINTS = 6;
const GRIPPER = 5;

/** Raw register values of the six servos, in joint order (see drivers/feetech ServoState). */
export interface So101RawState {
  position: Float64Array;
  velocity: Float64Array;
  load: Float64Array;
  current: Float64Array;
}

export function createRawState(): So101RawState {
  return {
    position: new Float64Array(JOINTS),
    velocity: new Float64Array(JOINTS),
    load: new Float64Array(JOINTS),
    current: new Float64Array(JOINTS),
  };
}

/**
 * The capsule model a calibration asks for: its own capsules (each capsule a link of the same name,
 * checked for self-collision unless the description allows the pair), else the SO-101 description.
 */
export function so101ModelFor(cal: So101Calibration): ArmModelSpec {
  if (!cal.capsules) return SO101_MODEL;
  const names = new Set(cal.capsules.map((c) => c.name));
  const allowed = [...SO101_DESCRIPTION.selfCollision.allowed, ...SO101_DESCRIPTION.endEffectors.gripper!.allowed];
  return {
    chain: SO101_DESCRIPTION.chain,
    capsules: cal.capsules,
    ignorePairs: allowed.filter((a) => names.has(a.links[0]) && names.has(a.links[1])).map((a) => a.links),
  };
}

const idx = (name: SignalName): number => signalIndex(name) ?? -1;
const SIG = {
  armForce: idx('arm_furniture_contact_force'),
  contactMax: idx('contact_force_max'),
  tilt: idx('target_obj_tilt_world_deg'),
  height: idx('obj_above_table'),
  grip: idx('gripper_contact'),
  torque: idx('max_joint_torque'),
  self: idx('self_collision_clearance'),
  eeSpeed: idx('ee_speed'),
  eeAcc: idx('ee_acc'),
  eeJerk: idx('ee_jerk'),
};

export class So101Mapping {
  /**
   * Joint angles (rad, so101_new_calib.urdf: body joints zero at LeRobot 0° = mid-range, the gripper
   * zero closed … its upper limit open; so101JointTicks) and velocities (rad/s).
   */
  readonly q = new Float64Array(JOINTS);
  readonly qd = new Float64Array(JOINTS);
  /** Measured body-joint torques (N·m), the free-motion prediction and their difference. */
  readonly tau = new Float64Array(SO101_ARM_JOINTS);
  readonly tauModel = new Float64Array(SO101_ARM_JOINTS);
  readonly residual = new Float64Array(SO101_ARM_JOINTS);
  readonly capsules: CapsuleModel;
  gripperPct = 0;
  gripping = false;
  maxJointTorque = 0;
  /** Self-collision clearance (m) of the last update. */
  selfClearance = NaN;
  contactForce = 0;
  objAboveTable = 0;
  tiltDeg = 0;
  private readonly graspZ = new Float64Array(3);
  private pendingGraspSnapshot = false;
  private readonly forceEstimator: PointForceEstimator;
  private graspHeight = 0;
  private readonly obj = new Float64Array(3);
  private readonly declared: Uint8Array;
  private readonly ticks: readonly JointTicks[];
  private readonly radPerTick: Float64Array;

  /** N·m per register unit (from the calibration; replaced by `useModel` after a fit). */
  readonly torqueConstants: Float64Array;
  /** Residual forces below this read 0 (N). */
  deadbandN: number;

  constructor(
    readonly cal: So101Calibration,
    public freeMotion: FreeMotionModel,
  ) {
    this.torqueConstants = Float64Array.from(cal.torque.constants);
    this.deadbandN = cal.contactForce.deadbandN;
    this.ticks = so101JointTicks(cal);
    this.radPerTick = Float64Array.from(this.ticks, (j) => radiansPerTick(j));
    this.capsules = new CapsuleModel(so101ModelFor(cal));
    this.forceEstimator = new PointForceEstimator(
      this.capsules.fk,
      SO101_FRAMES.tcp,
      SO101_ARM_JOINTS,
      cal.contactForce.damping,
    );
    this.declared = new Uint8Array(Object.keys(SIG).length);
    const names: SignalName[] = [
      'arm_furniture_contact_force',
      'contact_force_max',
      'target_obj_tilt_world_deg',
      'obj_above_table',
      'gripper_contact',
      'max_joint_torque',
      'self_collision_clearance',
      'ee_speed',
      'ee_acc',
      'ee_jerk',
    ];
    names.forEach((n, i) => (this.declared[i] = cal.declaredSignals.includes(n) ? 1 : 0));
  }

  /** Switch to freshly fitted constants and model (calibration). */
  useModel(constants: ArrayLike<number>, model: FreeMotionModel, deadbandN = this.deadbandN): void {
    this.torqueConstants.set(Array.from(constants).slice(0, SO101_ARM_JOINTS));
    this.freeMotion = model;
    this.deadbandN = deadbandN;
  }

  /** TCP speed/acceleration/jerk (5-step smoothed; NaN until enough samples with times). */
  readonly ee = new SmoothedDerivatives(5);

  /** Full update from servo registers taken at time `t` (s; NaN skips the TCP derivatives). */
  update(raw: So101RawState, t = NaN): void {
    const cal = this.cal;
    for (let j = 0; j < JOINTS; j++) {
      this.q[j] = ticksToRadians(raw.position[j]!, this.ticks[j]!);
      this.qd[j] = raw.velocity[j]! * this.radPerTick[j]!;
    }
    const gmc = cal.lerobot.gripper;
    this.gripperPct = normalize(raw.position[GRIPPER]!, gmc, 'range_0_100');
    this.updateTorques(cal.torque.source === 'load' ? raw.load : raw.current);
    this.updateGripper(Math.abs(raw.load[GRIPPER]!), Math.abs(raw.velocity[GRIPPER]!));
    this.updateKinematics(t);
    this.updateContactForce();
  }

  /**
   * Position-only update (recorded datasets: no load/velocity): kinematic signals only; the grasp
   * state is taken from `gripping` (e.g. labels), torques and forces are left untouched.
   */
  updatePositions(qRad: ArrayLike<number>, gripperPct: number, gripping: boolean, t = NaN): void {
    for (let j = 0; j < JOINTS; j++) this.q[j] = qRad[j] ?? 0;
    this.gripperPct = gripperPct;
    this.setGripping(gripping);
    this.updateKinematics(t);
  }

  private updateTorques(units: Float64Array): void {
    const k = this.torqueConstants;
    let m = 0;
    for (let j = 0; j < SO101_ARM_JOINTS; j++) {
      const t = (k[j] ?? 0) * units[j]!;
      this.tau[j] = t;
      if (Math.abs(t) > m) m = Math.abs(t);
    }
    this.maxJointTorque = m;
  }

  private updateGripper(load: number, speed: number): void {
    const g = this.cal.gripperContact;
    const closedOnNothing = this.gripperPct < g.emptyClosedPct;
    let next = this.gripping;
    if (!this.gripping) next = load >= g.loadOn && speed <= g.stallVelocity && !closedOnNothing;
    else if (load < g.loadOff || closedOnNothing) next = false;
    this.setGripping(next);
  }

  private setGripping(next: boolean): void {
    if (next && !this.gripping) this.pendingGraspSnapshot = true;
    this.gripping = next;
  }

  private updateKinematics(t: number): void {
    const cm = this.capsules;
    cm.update(this.q);
    this.selfClearance = cm.minSelfDistance();
    const F = cm.fk.frames;
    if (Number.isFinite(t)) {
      const o = TF * SO101_FRAMES.tcp;
      this.ee.push(t, F[o + 9]!, F[o + 10]!, F[o + 11]!);
    }
    const o = this.cal.graspOffsetM;
    cm.fk.pointInBase(this.obj, 0, SO101_FRAMES.tcp, o[0], o[1], o[2]);
    const g = TF * SO101_FRAMES.gripper;
    const zx = F[g + 2]!,
      zy = F[g + 5]!,
      zz = F[g + 8]!;
    if (this.pendingGraspSnapshot) {
      this.pendingGraspSnapshot = false;
      this.graspZ[0] = zx;
      this.graspZ[1] = zy;
      this.graspZ[2] = zz;
      this.graspHeight = this.obj[2]!;
    }
    if (this.gripping) {
      this.objAboveTable = this.obj[2]! - this.graspHeight;
      const c = Math.max(-1, Math.min(1, zx * this.graspZ[0]! + zy * this.graspZ[1]! + zz * this.graspZ[2]!));
      this.tiltDeg = (Math.acos(c) * 180) / Math.PI;
    } else {
      this.objAboveTable = 0;
      this.tiltDeg = 0;
    }
  }

  /** TCP position in the base frame (m), valid after an update. */
  tcp(out: Float64Array): void {
    const F = this.capsules.fk.frames;
    const t = TF * SO101_FRAMES.tcp;
    out[0] = F[t + 9]!;
    out[1] = F[t + 10]!;
    out[2] = F[t + 11]!;
  }

  /** Height of the TCP above the calibrated table plane (m). */
  tcpAboveTable(): number {
    return this.capsules.fk.frames[TF * SO101_FRAMES.tcp + 11]! - this.cal.tableHeightM;
  }

  private updateContactForce(): void {
    this.freeMotion.predict(this.q, this.qd, this.tauModel);
    for (let j = 0; j < SO101_ARM_JOINTS; j++) this.residual[j] = this.tau[j]! - this.tauModel[j]!;
    const mag = this.forceEstimator.estimate(this.residual);
    this.contactForce = Number.isFinite(mag) ? Math.max(0, mag - this.deadbandN) : NaN;
  }

  /** Write the declared signals into `frame`, stamped `t`. */
  writeFrame(frame: SignalFrame, t: number, source = 'so101'): void {
    const d = this.declared;
    if (d[0]) frame.set(SIG.armForce, this.contactForce, t, `${source}.residual`);
    if (d[1]) frame.set(SIG.contactMax, this.contactForce, t, `${source}.residual`);
    if (d[2]) frame.set(SIG.tilt, this.tiltDeg, t, `${source}.fk`);
    if (d[3]) frame.set(SIG.height, this.objAboveTable, t, `${source}.fk`);
    if (d[4]) frame.set(SIG.grip, this.gripping ? 1 : 0, t, `${source}.gripper`);
    if (d[5]) frame.set(SIG.torque, this.maxJointTorque, t, `${source}.${this.cal.torque.source}`);
    if (d[6]) frame.set(SIG.self, this.selfClearance, t, `${source}.capsules`);
    // Diagnostics only once the smoothing window is full (a NaN would mark the signal invalid).
    if (d[7] && Number.isFinite(this.ee.speed)) frame.set(SIG.eeSpeed, this.ee.speed, t, `${source}.fk`);
    if (d[8] && Number.isFinite(this.ee.acc)) frame.set(SIG.eeAcc, this.ee.acc, t, `${source}.fk`);
    if (d[9] && Number.isFinite(this.ee.jerk)) frame.set(SIG.eeJerk, this.ee.jerk, t, `${source}.fk`);
  }
}
