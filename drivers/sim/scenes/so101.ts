/**
 * SO-101 arm generated from the SO-101 robot description (src/kinematics/so101.ts:
 * so101_new_calib.urdf's chain and joint limits, zero = LeRobot mid-range pose, upper arm up and
 * forearm forward; the links' clearance capsules as collision geoms; the allowed-collision pairs as
 * contact exclusions) by arm-mjcf.ts, with a parallel two-finger gripper standing in for the 1-DoF
 * jaw. Position actuators model the STS3215 servos: torque
 * clamped to the 12 V stall torque (≈2.94 N·m, §B3), targets a little past the mechanical stops
 * so a policy can drive a joint into its stop (the servo's position limits are registers, the
 * stops are metal).
 */
import { SO101_DESCRIPTION } from '../../../src/kinematics/so101.js';
import { generateArm, type ArmJointDynamics } from './arm-mjcf.js';
import { ALL_SIM_SIGNALS, tabletopSceneFields, tabletopSceneXml, type TabletopLayout } from './tabletop.js';
import type { GripperMap, SceneSpec } from './types.js';

export const SO101_STALL_TORQUE = 2.94;
/** joint_torque ceiling: half the stall torque (the recalibrated SO-101 ceiling of design §5). */
export const SO101_TORQUE_CEILING = 0.5 * SO101_STALL_TORQUE;
const CONTROL_DT = 1 / 30;
const SUBSTEPS = 10;

export const SO101_LAYOUT: TabletopLayout = {
  table: { center: [0.15, 0], half: [0.3, 0.35] },
  riser: { center: [0.19, 0], half: 0.022, height: 0.035 },
  target: { half: [0.0125, 0.0125, 0.025], mass: 0.05 },
  bystanders: [
    { name: 'bystander_1', pos: [0.18, -0.1], radius: 0.018, halfHeight: 0.03, mass: 0.08 },
    { name: 'bystander_2', pos: [0.26, 0.07], radius: 0.018, halfHeight: 0.03, mass: 0.08 },
    { name: 'bystander_3', pos: [0.07, -0.17], radius: 0.02, halfHeight: 0.025, mass: 0.08 },
  ],
  box: { center: [0.12, 0.15], innerHalf: 0.04, wall: 0.005, floor: 0.005, height: 0.035 },
};

const FINGER_TRAVEL = 0.025;
const GRIPPER_OPEN_RAD = 1.74533;

/** SO-101 gripper command in rad (0 closed … 1.745 open, like the servo); negative squeezes. */
export const SO101_GRIPPER: GripperMap = {
  open: GRIPPER_OPEN_RAD,
  closed: 0,
  fingerTarget: (g) => (g / GRIPPER_OPEN_RAD) * FINGER_TRAVEL,
  command: (p) => (p / FINGER_TRAVEL) * GRIPPER_OPEN_RAD,
};

/** How far past the mechanical stop the servo may be commanded (rad). */
const CTRL_OVERRUN = 0.2;
/** STS3215 position servo: gain, damping gain and the 12 V stall torque; link masses (kg). */
const servo = (mass: number): ArmJointDynamics => ({ mass, kp: 40, kv: 0.6, torque: SO101_STALL_TORQUE });

const ARM = generateArm({
  description: SO101_DESCRIPTION,
  endEffector: 'gripper',
  // shoulder_pan … wrist_roll; the moving jaw (the chain's sixth joint) is played by the fingers.
  armJoints: 5,
  dynamics: [servo(0.1), servo(0.1), servo(0.1), servo(0.05), servo(0.06)],
  ctrlOverrun: CTRL_OVERRUN,
  tcpFrame: 'gripper_frame_link',
  fixture: {
    // gripper_frame_link has z along the approach; the jaw closes along its x: site x = z, y = x.
    siteQuat: [0.5, -0.5, -0.5, -0.5],
    padCentre: -0.0175,
    padHalf: [0.0375, 0.005, 0.011],
    padMass: 0.012,
    travel: FINGER_TRAVEL,
    kp: 150,
    kv: 1.5,
    force: 5,
    palm: { centre: -0.07, half: [0.015, 0.034, 0.014], mass: 0.03 },
  },
});

function buildXml(): string {
  return tabletopSceneXml({
    model: 'so101_like',
    controlDt: CONTROL_DT,
    substeps: SUBSTEPS,
    joint: { damping: 0.05, armature: 0.005 },
    layout: SO101_LAYOUT,
    arm: ARM,
  });
}

export function so101Scene(): SceneSpec {
  return {
    id: 'so101',
    xml: buildXml(),
    robot: { description: SO101_DESCRIPTION, endEffector: 'gripper' },
    armJoints: ARM.armJoints,
    fingerJoints: ARM.fingerJoints,
    gripper: SO101_GRIPPER,
    tcpSite: 'tcp',
    // the shoulder_pan axis: the first joint's origin in the base frame
    panAxisXY: [SO101_DESCRIPTION.chain.joints[0]!.xyz[0], SO101_DESCRIPTION.chain.joints[0]!.xyz[1]],
    approachTilt: 0.5,
    // wrist_roll a quarter turn: the fingers close horizontally, as the URDF's jaw does at roll ±π/2.
    home: [0, -0.7, 0.5, 1.2, Math.PI / 2, GRIPPER_OPEN_RAD],
    torqueCeiling: SO101_TORQUE_CEILING,
    ...tabletopSceneFields(SO101_LAYOUT),
    perturbation: { xy: 0.004, yaw: 0.08 },
    signals: ALL_SIM_SIGNALS,
    tiltJoint: 'wrist_roll',
    tiltAngle: 1.2,
    stallPose: { wrist_roll: 2.84121 + 0.15 },
    // The gripper folded onto the upper arm, a few mm past first contact (clear of the table).
    foldPose: { shoulder_lift: 0.3, elbow_flex: 1.2, wrist_flex: 1.55 },
    looseGripOffset: 0.006,
    slamSpot: [0.25, -0.06, 0],
    slamDuration: 0.15,
    slamDepth: 0.03,
    slamHeight: 0.12,
    substeps: SUBSTEPS,
    controlDt: CONTROL_DT,
  };
}
