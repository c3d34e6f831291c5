/**
 * Panda-like 7-DoF arm generated from the Panda robot description (src/kinematics/panda.ts: the
 * Franka kinematic chain, the Panda/FER joint limits of hardware-facts §A6, the arm links'
 * clearance capsules as collision geoms, MoveIt's allowed-collision pairs as contact exclusions)
 * by arm-mjcf.ts, with a parallel gripper (0–0.04 m per finger) at the Franka Hand's TCP. Position
 * actuators with gravity compensation counted as actuator torque and clamped to the joint torque
 * limits (87 N·m ×4, 12 N·m ×3). Arm–arm contact is modelled, so the scene declares
 * self_collision_clearance.
 */
import { PANDA_DESCRIPTION } from '../../../src/kinematics/panda.js';
import { generateArm, type ArmJointDynamics } from './arm-mjcf.js';
import { ALL_SIM_SIGNALS, tabletopSceneFields, tabletopSceneXml, type TabletopLayout } from './tabletop.js';
import type { GripperMap, SceneSpec } from './types.js';

const CONTROL_DT = 1 / 30;
const SUBSTEPS = 20;
export const PANDA_TORQUE_CEILING = 87;

export const PANDA_LAYOUT: TabletopLayout = {
  table: { center: [0.4, 0], half: [0.6, 0.6] },
  riser: { center: [0.5, 0], half: 0.035, height: 0.01 },
  target: { half: [0.02, 0.02, 0.04], mass: 0.2 },
  bystanders: [
    { name: 'bystander_1', pos: [0.5, -0.17], radius: 0.025, halfHeight: 0.05, mass: 0.2 },
    { name: 'bystander_2', pos: [0.66, 0.12], radius: 0.025, halfHeight: 0.05, mass: 0.2 },
    { name: 'bystander_3', pos: [0.3, -0.32], radius: 0.025, halfHeight: 0.05, mass: 0.2 },
  ],
  box: { center: [0.4, 0.3], innerHalf: 0.07, wall: 0.008, floor: 0.008, height: 0.04 },
};

const FINGER_TRAVEL = 0.04;
export const PANDA_GRIPPER: GripperMap = {
  open: FINGER_TRAVEL,
  closed: 0,
  fingerTarget: (g) => g,
  command: (p) => p,
};

/** Link masses (kg) and servo gains per joint; torque limits 87 N·m (joints 1–4) and 12 N·m (5–7). */
const DYNAMICS: readonly ArmJointDynamics[] = [
  { mass: 2.7, kp: 1200, kv: 80, torque: 87 },
  { mass: 2.7, kp: 1200, kv: 80, torque: 87 },
  { mass: 2.0, kp: 1000, kv: 66.7, torque: 87 },
  { mass: 2.0, kp: 1000, kv: 66.7, torque: 87 },
  { mass: 1.5, kp: 300, kv: 20, torque: 12 },
  { mass: 1.0, kp: 300, kv: 20, torque: 12 },
  { mass: 0.5, kp: 200, kv: 13.3, torque: 12 },
];

const ARM = generateArm({
  description: PANDA_DESCRIPTION,
  endEffector: 'franka_hand',
  armJoints: 7,
  dynamics: DYNAMICS,
  ctrlOverrun: 0,
  tcpFrame: 'tcp',
  fixture: {
    // The Hand's TCP frame has z along the approach and the fingers sliding along y: site x = z, y = y.
    siteQuat: [Math.SQRT1_2, 0, -Math.SQRT1_2, 0],
    padCentre: 0,
    padHalf: [0.025, 0.005, 0.01],
    padMass: 0.02,
    travel: FINGER_TRAVEL,
    kp: 400,
    kv: 20,
    force: 20,
    palm: { centre: -0.0684, half: [0.02, 0.09, 0.025], mass: 0.6 },
  },
});

function buildXml(): string {
  return tabletopSceneXml({
    model: 'panda_like',
    controlDt: CONTROL_DT,
    substeps: SUBSTEPS,
    joint: { damping: 1, armature: 0.1 },
    layout: PANDA_LAYOUT,
    arm: ARM,
  });
}

export function pandaScene(): SceneSpec {
  return {
    id: 'panda',
    xml: buildXml(),
    robot: { description: PANDA_DESCRIPTION, endEffector: 'franka_hand' },
    armJoints: ARM.armJoints,
    fingerJoints: ARM.fingerJoints,
    gripper: PANDA_GRIPPER,
    tcpSite: 'tcp',
    panAxisXY: [0, 0],
    approachTilt: 0,
    home: [0, -0.3, 0, -2.2, 0, 1.9, 0.785, FINGER_TRAVEL],
    torqueCeiling: PANDA_TORQUE_CEILING,
    ...tabletopSceneFields(PANDA_LAYOUT),
    perturbation: { xy: 0.005, yaw: 0.08 },
    signals: ALL_SIM_SIGNALS,
    tiltJoint: 'panda_joint7',
    tiltAngle: 0.6,
    stallPose: {},
    foldPose: {},
    looseGripOffset: 0.012,
    slamSpot: [0.36, -0.12, 0],
    slamDuration: 0.08,
    slamDepth: 0.02,
    slamHeight: 0.12,
    substeps: SUBSTEPS,
    controlDt: CONTROL_DT,
  };
}
