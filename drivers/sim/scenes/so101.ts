/**
 * SO-101-like arm (hardware-facts §B6): five revolute joints with the URDF's link lengths and joint
 * limits, zero = LeRobot mid-range pose (upper arm up, forearm forward), and a parallel two-finger
 * gripper standing in for the 1-DoF jaw. Position actuators model the STS3215 servos: torque
 * clamped to the 12 V stall torque (≈2.94 N·m, §B3), targets a little past the mechanical stops
 * so a policy can drive a joint into its stop (the servo's position limits are registers, the
 * stops are metal).
 */
import { SO101_DESCRIPTION } from '../../../src/kinematics/so101.js';
import { ALL_SIM_SIGNALS, tabletopSceneFields, tabletopXml, type TabletopLayout } from './tabletop.js';
import type { GripperMap, SceneSpec } from './types.js';

export const SO101_STALL_TORQUE = 2.94;
/** joint_torque ceiling: half the stall torque (the recalibrated SO-101 ceiling of SPEC §5). */
export const SO101_TORQUE_CEILING = 0.5 * SO101_STALL_TORQUE;
const CONTROL_DT = 1 / 30;
const SUBSTEPS = 10;

export const SO101_LAYOUT: TabletopLayout = {
  table: { center: [0.15, 0], half: [0.3, 0.35] },
  riser: { center: [0.17, 0], half: 0.022, height: 0.035 },
  target: { half: [0.0125, 0.0125, 0.025], mass: 0.05 },
  bystanders: [
    { name: 'bystander_1', pos: [0.18, -0.1], radius: 0.018, halfHeight: 0.03, mass: 0.08 },
    { name: 'bystander_2', pos: [0.26, 0.07], radius: 0.018, halfHeight: 0.03, mass: 0.08 },
    { name: 'bystander_3', pos: [0.07, -0.17], radius: 0.02, halfHeight: 0.025, mass: 0.08 },
  ],
  box: { center: [0.09, 0.135], innerHalf: 0.04, wall: 0.005, floor: 0.005, height: 0.035 },
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

const JOINTS = [
  { name: 'shoulder_pan', lo: -1.91986, hi: 1.91986 },
  { name: 'shoulder_lift', lo: -1.74533, hi: 1.74533 },
  { name: 'elbow_flex', lo: -1.69, hi: 1.69 },
  { name: 'wrist_flex', lo: -1.65806, hi: 1.65806 },
  { name: 'wrist_roll', lo: -2.74385, hi: 2.84121 },
] as const;
/** How far past the mechanical stop the servo may be commanded (rad). */
const CTRL_OVERRUN = 0.2;

function jointAttrs(j: (typeof JOINTS)[number], axis: string): string {
  return `name="${j.name}" axis="${axis}" range="${j.lo} ${j.hi}" actuatorfrcrange="${-SO101_STALL_TORQUE} ${SO101_STALL_TORQUE}" actuatorgravcomp="true"`;
}

function buildXml(): string {
  const [pan, lift, elbow, wflex, roll] = JOINTS;
  const actuators = JOINTS.map(
    (j) => `<position name="act_${j.name}" joint="${j.name}" kp="40" kv="0.6" ctrlrange="${(j.lo - CTRL_OVERRUN).toFixed(5)} ${(j.hi + CTRL_OVERRUN).toFixed(5)}"/>`,
  ).join('\n    ');
  return `<mujoco model="so101_like">
  <compiler angle="radian" autolimits="true"/>
  <option timestep="${(CONTROL_DT / SUBSTEPS).toFixed(8)}" cone="pyramidal" integrator="implicitfast" tolerance="1e-6" iterations="30" ls_iterations="10"/>
  <default>
    <joint damping="0.05" armature="0.005"/>
    <geom friction="1 0.01 0.001" condim="3"/>
  </default>
  <worldbody>
    ${tabletopXml(SO101_LAYOUT)}
    <body name="so_base" pos="0 0 0">
      <geom name="arm_base" type="cylinder" size="0.04 0.03" pos="0 0 0.03" rgba=".95 .95 .95 1"/>
      <body name="shoulder" pos="0.0388 0 0.0624" gravcomp="1">
        <joint ${jointAttrs(pan, '0 0 1')}/>
        <geom name="arm_shoulder" type="capsule" fromto="0 0 0 0 0 0.04" size="0.024" mass="0.1"/>
        <body name="upper_arm" pos="-0.0304 0 0.0542" gravcomp="1">
          <joint ${jointAttrs(lift, '0 1 0')}/>
          <geom name="arm_upper" type="capsule" fromto="0.004 0 0.025 0.028 0 0.1126" size="0.016" mass="0.1"/>
          <body name="lower_arm" pos="0.028 0 0.1126" gravcomp="1">
            <joint ${jointAttrs(elbow, '0 1 0')}/>
            <geom name="arm_lower" type="capsule" fromto="0.02 0 0 0.115 0 0.004" size="0.014" mass="0.1"/>
            <body name="wrist" pos="0.1349 0 0.005" gravcomp="1">
              <joint ${jointAttrs(wflex, '0 1 0')}/>
              <geom name="arm_wrist" type="capsule" fromto="0.018 0 0 0.038 0 0" size="0.014" mass="0.05"/>
              <body name="gripper" pos="0.0611 0 0" gravcomp="1">
                <joint ${jointAttrs(roll, '1 0 0')}/>
                <geom name="arm_palm" type="box" pos="0.015 0 0" size="0.015 0.034 0.014" mass="0.06"/>
                <site name="tcp" pos="0.085 0 0" size="0.004"/>
                <body name="finger_left" gravcomp="1">
                  <joint name="finger_left" type="slide" axis="0 1 0" range="0 ${FINGER_TRAVEL}"/>
                  <geom name="finger_left_pad" type="box" pos="0.0675 0.005 0" size="0.0375 0.005 0.011" mass="0.012"/>
                </body>
                <body name="finger_right" gravcomp="1">
                  <joint name="finger_right" type="slide" axis="0 -1 0" range="0 ${FINGER_TRAVEL}"/>
                  <geom name="finger_right_pad" type="box" pos="0.0675 -0.005 0" size="0.0375 0.005 0.011" mass="0.012"/>
                </body>
              </body>
            </body>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
  <contact>
    <exclude body1="so_base" body2="shoulder"/>
    <exclude body1="finger_left" body2="finger_right"/>
  </contact>
  <actuator>
    ${actuators}
    <position name="act_finger_left" joint="finger_left" kp="150" kv="1.5" ctrlrange="-0.004 ${FINGER_TRAVEL}" forcerange="-5 5"/>
    <position name="act_finger_right" joint="finger_right" kp="150" kv="1.5" ctrlrange="-0.004 ${FINGER_TRAVEL}" forcerange="-5 5"/>
  </actuator>
</mujoco>`;
}

export function so101Scene(): SceneSpec {
  return {
    id: 'so101',
    xml: buildXml(),
    robot: { description: SO101_DESCRIPTION, endEffector: 'gripper' },
    armJoints: JOINTS.map((j) => j.name),
    fingerJoints: ['finger_left', 'finger_right'],
    gripper: SO101_GRIPPER,
    tcpSite: 'tcp',
    panAxisXY: [0.0388, 0],
    approachTilt: 0.5,
    home: [0, -0.7, 0.5, 1.2, 0, GRIPPER_OPEN_RAD],
    torqueCeiling: SO101_TORQUE_CEILING,
    ...tabletopSceneFields(SO101_LAYOUT),
    perturbation: { xy: 0.004, yaw: 0.08 },
    signals: ALL_SIM_SIGNALS,
    tiltJoint: 'wrist_roll',
    tiltAngle: 1.2,
    stallPose: { wrist_roll: 2.84121 + 0.15 },
    // Just past first palm–shoulder contact, so the fold touches without stalling the servos.
    foldPose: { shoulder_lift: -0.495, elbow_flex: 0.988, wrist_flex: 1.385 },
    looseGripOffset: 0.006,
    slamSpot: [0.22, -0.02, 0],
    slamDuration: 0.15,
    slamDepth: 0.03,
    slamHeight: 0.12,
    substeps: SUBSTEPS,
    controlDt: CONTROL_DT,
  };
}
