/**
 * Starting values for an SO-101 calibration before (or without) the fit: datasheet torque constants,
 * URDF joint limits, zero gravity model, and the recalibrated joint-torque ceiling with its reason.
 */
import { SO101_CHAIN, SO101_JOINT_NAMES, type So101JointName } from '../kinematics/index.js';
import type { MotorCalibration } from './lerobot.js';
import { GRAVITY_PARAMS, SO101_ARM_JOINTS, type So101Calibration, type ThresholdEntry } from './so101.js';

/** Stall torque by supply (hardware-facts §B3): 19 kg·cm @ 7.4 V (C001), 30 kg·cm @ 12 V (C018). */
export function stallTorqueNm(supplyVoltage: number): number {
  return supplyVoltage >= 9 ? 2.94 : 1.86;
}

/** Fraction of stall at which the joint_torque clause sits (see jointTorqueThreshold). */
export const JOINT_TORQUE_STALL_FRACTION = 0.7;

export function jointTorqueThreshold(supplyVoltage: number): ThresholdEntry {
  const stall = stallTorqueNm(supplyVoltage);
  return {
    value: Number((JOINT_TORQUE_STALL_FRACTION * stall).toFixed(3)),
    unit: 'N·m',
    reason:
      `${Math.round(JOINT_TORQUE_STALL_FRACTION * 100)} % of the STS3215 stall torque (${stall} N·m at ${supplyVoltage} V), as in the so101 platform profile: ` +
      "a servo cannot exceed stall, so Franka's 87 N·m could never fire; sustained load at that level is the overload that burned " +
      'SO-101 grippers (LeRobot then halved the gripper Max_Torque_Limit to 500); the severe anchor is stall itself.',
    source: 'design §5; hardware-facts §B3 (ftservo-wiki st-3215-c001/c018), §B4/§B5 (huggingface/lerobot#1809)',
  };
}

/** A typical LeRobot follower calibration (half-turn homing puts every range around 2047). */
export const EXAMPLE_LEROBOT_CALIBRATION: Record<So101JointName, MotorCalibration> = {
  shoulder_pan: { id: 1, drive_mode: 0, homing_offset: -1480, range_min: 740, range_max: 3350 },
  shoulder_lift: { id: 2, drive_mode: 0, homing_offset: 1210, range_min: 850, range_max: 3230 },
  elbow_flex: { id: 3, drive_mode: 0, homing_offset: -1014, range_min: 857, range_max: 3220 },
  wrist_flex: { id: 4, drive_mode: 0, homing_offset: 705, range_min: 900, range_max: 3150 },
  wrist_roll: { id: 5, drive_mode: 0, homing_offset: 1453, range_min: 0, range_max: 4095 },
  gripper: { id: 6, drive_mode: 0, homing_offset: 1041, range_min: 2031, range_max: 3524 },
};

export function defaultSo101Calibration(
  armId: string,
  supplyVoltage: number,
  lerobot: Record<So101JointName, MotorCalibration> = EXAMPLE_LEROBOT_CALIBRATION,
): So101Calibration {
  const stall = stallTorqueNm(supplyVoltage);
  const deg = (r: number): number => Number(((r * 180) / Math.PI).toFixed(2));
  return {
    armId,
    supplyVoltage,
    joints: SO101_JOINT_NAMES.map((name, i) => ({
      name,
      id: lerobot[name].id,
      lowerDeg: deg(SO101_CHAIN.joints[i]!.lower),
      upperDeg: deg(SO101_CHAIN.joints[i]!.upper),
    })),
    normMode: 'degrees',
    lerobot,
    torque: {
      source: 'load',
      stallTorqueNm: stall,
      constants: new Array<number>(SO101_ARM_JOINTS).fill(stall / 1000),
      constantSources: new Array<string>(SO101_ARM_JOINTS).fill(
        'datasheet: stall torque / 1000 (100 % load = stall, UNCONFIRMED)',
      ),
    },
    freeMotion: {
      gravity: Array.from({ length: SO101_ARM_JOINTS }, () => new Array<number>(GRAVITY_PARAMS).fill(0)),
      viscous: new Array<number>(SO101_ARM_JOINTS).fill(0),
      coulomb: new Array<number>(SO101_ARM_JOINTS).fill(0),
      coulombWidth: 0.05,
    },
    tableHeightM: 0,
    graspOffsetM: [0, 0, 0],
    gripperContact: { loadOn: 150, loadOff: 80, stallVelocity: 20, emptyClosedPct: 3 },
    contactForce: { damping: 1e-4, deadbandN: 1 },
    declaredSignals: [
      'max_joint_torque',
      'gripper_contact',
      'obj_above_table',
      'target_obj_tilt_world_deg',
      'self_collision_clearance',
      'arm_furniture_contact_force',
      'contact_force_max',
      'ee_speed',
      'ee_acc',
      'ee_jerk',
    ],
    thresholds: { joint_torque: jointTorqueThreshold(supplyVoltage) },
  };
}
