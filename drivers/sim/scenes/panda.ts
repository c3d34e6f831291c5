/**
 * Panda-like 7-DoF arm: the Franka kinematic chain (link offsets 0.333/0.316/0.0825/0.384/0.088/
 * 0.107 m), the Panda/FER joint and torque limits of hardware-facts §A6, capsule links, and a
 * parallel gripper (0–0.04 m per finger). Position actuators with gravity compensation counted as
 * actuator torque and clamped to the joint torque limits (87 N·m ×4, 12 N·m ×3).
 * Arm–arm collision geometry is not modelled here, so this scene does not declare self_collision_clearance.
 */
import { PANDA_DESCRIPTION } from '../../../src/kinematics/panda.js';
import { ALL_SIM_SIGNALS, tabletopSceneFields, tabletopXml, type TabletopLayout } from './tabletop.js';
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

const JOINTS = [
  { name: 'joint1', lo: -2.8973, hi: 2.8973, tau: 87, kp: 1200 },
  { name: 'joint2', lo: -1.7628, hi: 1.7628, tau: 87, kp: 1200 },
  { name: 'joint3', lo: -2.8973, hi: 2.8973, tau: 87, kp: 1000 },
  { name: 'joint4', lo: -3.0718, hi: -0.0698, tau: 87, kp: 1000 },
  { name: 'joint5', lo: -2.8973, hi: 2.8973, tau: 12, kp: 300 },
  { name: 'joint6', lo: -0.0175, hi: 3.7525, tau: 12, kp: 300 },
  { name: 'joint7', lo: -2.8973, hi: 2.8973, tau: 12, kp: 200 },
] as const;

function j(i: number): string {
  const x = JOINTS[i];
  if (!x) throw new Error(`no joint ${i}`);
  return `<joint name="${x.name}" range="${x.lo} ${x.hi}" actuatorfrcrange="${-x.tau} ${x.tau}" actuatorgravcomp="true"/>`;
}

function buildXml(): string {
  const actuators = JOINTS.map((x) => `<position name="act_${x.name}" joint="${x.name}" kp="${x.kp}" kv="${(x.kp / 15).toFixed(1)}" ctrlrange="${x.lo} ${x.hi}"/>`).join('\n    ');
  // Arm geoms: contype 2 / conaffinity 1 — they touch the scene, never each other.
  return `<mujoco model="panda_like">
  <compiler angle="radian" autolimits="true"/>
  <option timestep="${(CONTROL_DT / SUBSTEPS).toFixed(8)}" cone="pyramidal" integrator="implicitfast" tolerance="1e-6" iterations="30" ls_iterations="10"/>
  <default>
    <joint damping="1" armature="0.1"/>
    <geom friction="1 0.01 0.001" condim="3"/>
    <default class="arm"><geom contype="2" conaffinity="1" rgba=".95 .95 .95 1"/></default>
  </default>
  <worldbody>
    ${tabletopXml(PANDA_LAYOUT)}
    <body name="link0" childclass="arm">
      <geom name="arm_link0" type="cylinder" size="0.06 0.1" pos="0 0 0.1"/>
      <body name="link1" pos="0 0 0.333" gravcomp="1">
        ${j(0)}
        <geom name="arm_link1" type="capsule" fromto="0 0 -0.12 0 0 0" size="0.06" mass="2.7"/>
        <body name="link2" quat="0.70710678 -0.70710678 0 0" gravcomp="1">
          ${j(1)}
          <geom name="arm_link2" type="capsule" fromto="0 0 0 0 -0.22 0" size="0.06" mass="2.7"/>
          <body name="link3" pos="0 -0.316 0" quat="0.70710678 0.70710678 0 0" gravcomp="1">
            ${j(2)}
            <geom name="arm_link3" type="capsule" fromto="0 0 -0.1 0.06 0 0" size="0.05" mass="2.0"/>
            <body name="link4" pos="0.0825 0 0" quat="0.70710678 0.70710678 0 0" gravcomp="1">
              ${j(3)}
              <geom name="arm_link4" type="capsule" fromto="0 0 0 -0.08 0.22 0" size="0.05" mass="2.0"/>
              <body name="link5" pos="-0.0825 0.384 0" quat="0.70710678 -0.70710678 0 0" gravcomp="1">
                ${j(4)}
                <geom name="arm_link5" type="capsule" fromto="0 0 -0.2 0 0 -0.05" size="0.045" mass="1.5"/>
                <body name="link6" quat="0.70710678 0.70710678 0 0" gravcomp="1">
                  ${j(5)}
                  <geom name="arm_link6" type="capsule" fromto="0 0 0 0.088 0 0" size="0.04" mass="1.0"/>
                  <body name="link7" pos="0.088 0 0" quat="0.70710678 0.70710678 0 0" gravcomp="1">
                    ${j(6)}
                    <geom name="arm_link7" type="cylinder" fromto="0 0 0 0 0 0.08" size="0.04" mass="0.5"/>
                    <body name="hand" pos="0 0 0.107" quat="0.9238795 0 0 -0.3826834" gravcomp="1">
                      <geom name="arm_hand" type="box" pos="0 0 0.035" size="0.025 0.09 0.02" mass="0.6"/>
                      <site name="tcp" pos="0 0 0.1034" quat="0.70710678 0 -0.70710678 0" size="0.005"/>
                      <body name="finger_left" pos="0 0 0.0584" gravcomp="1">
                        <joint name="finger_left" type="slide" axis="0 1 0" range="0 ${FINGER_TRAVEL}" damping="5" armature="0"/>
                        <geom name="finger_left_pad" type="box" pos="0 0.005 0.045" size="0.01 0.005 0.025" mass="0.02"/>
                      </body>
                      <body name="finger_right" pos="0 0 0.0584" gravcomp="1">
                        <joint name="finger_right" type="slide" axis="0 -1 0" range="0 ${FINGER_TRAVEL}" damping="5" armature="0"/>
                        <geom name="finger_right_pad" type="box" pos="0 -0.005 0.045" size="0.01 0.005 0.025" mass="0.02"/>
                      </body>
                    </body>
                  </body>
                </body>
              </body>
            </body>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
  <actuator>
    ${actuators}
    <position name="act_finger_left" joint="finger_left" kp="400" kv="20" ctrlrange="-0.005 ${FINGER_TRAVEL}" forcerange="-20 20"/>
    <position name="act_finger_right" joint="finger_right" kp="400" kv="20" ctrlrange="-0.005 ${FINGER_TRAVEL}" forcerange="-20 20"/>
  </actuator>
</mujoco>`;
}

export function pandaScene(): SceneSpec {
  return {
    id: 'panda',
    xml: buildXml(),
    robot: { description: PANDA_DESCRIPTION, endEffector: 'franka_hand' },
    armJoints: JOINTS.map((x) => x.name),
    fingerJoints: ['finger_left', 'finger_right'],
    gripper: PANDA_GRIPPER,
    tcpSite: 'tcp',
    panAxisXY: [0, 0],
    approachTilt: 0,
    home: [0, -0.3, 0, -2.2, 0, 1.9, 0.785, FINGER_TRAVEL],
    torqueCeiling: PANDA_TORQUE_CEILING,
    ...tabletopSceneFields(PANDA_LAYOUT),
    perturbation: { xy: 0.005, yaw: 0.08 },
    signals: ALL_SIM_SIGNALS.filter((x) => x !== 'self_collision_clearance'),
    tiltJoint: 'joint7',
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
