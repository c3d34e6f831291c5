import type { ArmModelSpec, CapsuleSpec } from './capsules.js';
import type { ChainSpec } from './chain.js';
import { armModel, type RobotDescription } from './description.js';
import { so101Volumes } from './so101-volumes.js';

const PI = Math.PI;

/**
 * SO-101 follower kinematics from TheRobotStudio/SO-ARM100 `Simulation/SO101/so101_new_calib.urdf`
 * (commit fda892c; hardware-facts §B6). In the "new calib" URDF the zero of every joint is the
 * middle of its calibrated range, which is exactly LeRobot's degrees mode (0° = mid-range), so
 * q[i] = LeRobot degrees × π/180 for the five body joints.
 */
export const SO101_JOINT_NAMES = [
  'shoulder_pan',
  'shoulder_lift',
  'elbow_flex',
  'wrist_flex',
  'wrist_roll',
  'gripper',
] as const;
export type So101JointName = (typeof SO101_JOINT_NAMES)[number];

export const SO101_CHAIN: ChainSpec = {
  name: 'so101',
  joints: [
    {
      name: 'shoulder_pan',
      parent: 0,
      xyz: [0.0388353, 0, 0.0624],
      rpy: [PI, 0, -PI],
      lower: -1.91986,
      upper: 1.91986,
    },
    {
      name: 'shoulder_lift',
      parent: 1,
      xyz: [-0.0303992, -0.0182778, -0.0542],
      rpy: [-PI / 2, -PI / 2, 0],
      lower: -1.74533,
      upper: 1.74533,
    },
    { name: 'elbow_flex', parent: 2, xyz: [-0.11257, -0.028, 0], rpy: [0, 0, PI / 2], lower: -1.69, upper: 1.69 },
    { name: 'wrist_flex', parent: 3, xyz: [-0.1349, 0.0052, 0], rpy: [0, 0, -PI / 2], lower: -1.65806, upper: 1.65806 },
    {
      name: 'wrist_roll',
      parent: 4,
      xyz: [0, -0.0611, 0.0181],
      rpy: [PI / 2, 0.0486795, PI],
      lower: -2.74385,
      upper: 2.84121,
    },
    {
      name: 'gripper',
      parent: 5,
      xyz: [0.0202, 0.0188, -0.0234],
      rpy: [PI / 2, 0, 0],
      lower: -0.174533,
      upper: 1.74533,
    },
  ],
  // gripper_frame_joint: the TCP between the jaws, fixed on gripper_link (frame 5).
  fixedFrames: [{ name: 'gripper_frame_link', parent: 5, xyz: [-0.0079, -0.000218, -0.0981274], rpy: [0, PI, 0] }],
};

/** Frame indices in ForwardKinematics for SO101_CHAIN. */
export const SO101_FRAMES = {
  base: 0,
  shoulder: 1,
  upperArm: 2,
  lowerArm: 3,
  wrist: 4,
  gripper: 5,
  jaw: 6,
  tcp: 7,
} as const;

/**
 * Environment capsules (clearance to the table and tracked obstacles; not used for self-collision):
 * one per link along the segment between consecutive joint origins (taken from the URDF above),
 * radii estimated from the printed SO-101 parts (about 5 cm wide links, 4 cm wrist; the gripper
 * capsule starts 3 cm out, beyond the wrist_roll motor that the wrist capsule covers). They are an
 * approximation and a calibration file may override them; the moving jaw's 7 cm length along its
 * local −y is an estimate.
 */
export const SO101_CAPSULES: readonly CapsuleSpec[] = [
  { name: 'base', frame: 0, a: [0.0388353, 0, 0.0], b: [0.0388353, 0, 0.03], radius: 0.035, environment: false },
  { name: 'shoulder', frame: 1, a: [0, 0, 0], b: [-0.0303992, -0.0182778, -0.0542], radius: 0.03, environment: false },
  { name: 'upper_arm', frame: 2, a: [0, 0, 0], b: [-0.11257, -0.028, 0], radius: 0.022, environment: true },
  { name: 'lower_arm', frame: 3, a: [0, 0, 0], b: [-0.1349, 0.0052, 0], radius: 0.02, environment: true },
  { name: 'wrist', frame: 4, a: [0, 0, 0], b: [0, -0.0611, 0.0181], radius: 0.02, environment: true },
  {
    name: 'gripper',
    frame: 5,
    a: [-0.0024, 0, -0.03],
    b: [-0.0079, -0.000218, -0.0981274],
    radius: 0.018,
    environment: true,
  },
  { name: 'jaw', frame: 6, a: [0, 0, 0], b: [0, -0.07, 0], radius: 0.01, environment: true },
];

const ARM_LINKS = SO101_CAPSULES.filter((c) => c.name !== 'gripper' && c.name !== 'jaw');
const GRIPPER_LINKS = SO101_CAPSULES.filter((c) => c.name === 'gripper' || c.name === 'jaw');

/**
 * The SO-101 follower: chain and joint limits from so101_new_calib.urdf; self-collision volumes
 * fitted to that URDF's collision meshes (spheres enclosing each link's meshes,
 * src/kinematics/so101-volumes.ts); clearance to the environment still uses the one-capsule-per-link
 * estimate above. The allowed-collision list was derived the way MoveIt Setup Assistant does, on
 * the URDF's meshes (not on the spheres): adjacent links; pairs in contact at the rest pose; pairs
 * never in contact over 14,000 uniformly random configurations within the URDF joint limits (4,000
 * + 10,000, two seeds; mesh surfaces sampled at 3 mm against the full-resolution mesh vertices,
 * contact = closer than 2 mm). Every other pair is checked.
 *
 * Rest pose: LeRobot parks the SO-101 folded (shoulder_lift ≈ −85…−92°, elbow_flex ≈ +100°,
 * wrist_flex ≈ +60…+73°): the lower arm, wrist, gripper and moving jaw lie on the shoulder's
 * motor holder and the wrist motor on the upper arm. In the recorded dataset
 * so101-lerobot-record-test every episode starts and ends there with the meshes of those five
 * pairs 0.1–0.6 mm apart, i.e. touching: the printed parts are the fold's end stop.
 *
 * What stays checked: the gripper and the moving jaw against the base and the upper arm, the lower
 * arm and the wrist against the base — driving the gripper into the base or the upper arm reads a
 * negative clearance. What is not: the gripper (or wrist, lower arm) against the shoulder it rests
 * on, and the wrist against the upper arm.
 */
export const SO101_DESCRIPTION: RobotDescription = {
  id: 'so101',
  chain: SO101_CHAIN,
  selfCollision: {
    volumes: ['base', 'shoulder', 'upper_arm', 'lower_arm', 'wrist'].flatMap(so101Volumes),
    allowed: [
      { links: ['base', 'shoulder'], reason: 'adjacent' },
      { links: ['shoulder', 'upper_arm'], reason: 'adjacent' },
      { links: ['upper_arm', 'lower_arm'], reason: 'adjacent' },
      { links: ['lower_arm', 'wrist'], reason: 'adjacent' },
      // In contact at the rest pose (meshes 0.1–0.6 mm apart at every episode's first and last frame).
      { links: ['shoulder', 'lower_arm'], reason: 'default' },
      { links: ['shoulder', 'wrist'], reason: 'default' },
      { links: ['upper_arm', 'wrist'], reason: 'default' },
      // 0 of 14,000 random configurations; nearest 17.7 mm (11 mm on the dataset, with shoulder_lift
      // 3.5° beyond the URDF's lower limit).
      { links: ['base', 'upper_arm'], reason: 'never' },
    ],
    source:
      'TheRobotStudio/SO-ARM100 @ fda892c Simulation/SO101/so101_new_calib.urdf: chain and limits; self-collision spheres enclosing its collision meshes (assets/*.stl); allowed pairs from those meshes (adjacent, rest-pose contact, never in 14,000 random configurations)',
  },
  environment: ARM_LINKS,
  endEffectors: {
    gripper: {
      id: 'gripper',
      description: 'the SO-101 gripper: fixed jaw on gripper_link and the moving jaw (joint gripper)',
      volumes: ['gripper', 'jaw'].flatMap(so101Volumes),
      allowed: [
        { links: ['wrist', 'gripper'], reason: 'adjacent' },
        { links: ['gripper', 'jaw'], reason: 'adjacent' },
        { links: ['shoulder', 'gripper'], reason: 'default' },
        { links: ['shoulder', 'jaw'], reason: 'default' },
        // 0 of 14,000 random configurations (nearest: wrist–jaw 8.9 mm, lower_arm–gripper/jaw > 20 mm).
        { links: ['wrist', 'jaw'], reason: 'never' },
        { links: ['lower_arm', 'gripper'], reason: 'never' },
        { links: ['lower_arm', 'jaw'], reason: 'never' },
      ],
      environment: GRIPPER_LINKS,
      tcp: { frame: SO101_FRAMES.tcp, xyz: [0, 0, 0] },
      source:
        'so101_new_calib.urdf gripper_link, moving_jaw_so101_v1_link (collision meshes, spheres in so101-volumes.ts) and gripper_frame_joint (TCP)',
    },
  },
};

export const SO101_MODEL: ArmModelSpec = armModel(SO101_DESCRIPTION, 'gripper');
