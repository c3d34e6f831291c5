import type { ArmModelSpec, CapsuleSpec } from './capsules.js';
import {
  armModel,
  type AllowedCollision,
  type CollisionVolume,
  type EndEffectorDescription,
  type RobotDescription,
  type Vec3,
} from './description.js';
import { originFromModifiedDH, type ChainSpec, type JointSpec } from './chain.js';

/**
 * Franka Panda / FR3 kinematics from Franka's published modified (Craig) DH parameters
 * (https://frankaemika.github.io/docs/control_parameters.html, "Denavit–Hartenberg parameters";
 * FR3 shares the kinematic parameters, its joint limits differ — hardware-facts §A6):
 *   joint  a (m)     d (m)   α (rad)
 *   1      0         0.333   0
 *   2      0         0       −π/2
 *   3      0         0.316   π/2
 *   4      0.0825    0       π/2
 *   5      −0.0825   0.384   −π/2
 *   6      0         0       π/2
 *   7      0.088     0       π/2
 *   flange 0         0.107   0
 * Franka Hand TCP: flange + Rz(−π/4), d = 0.1034 m.
 */
const DH: readonly (readonly [number, number, number])[] = [
  [0, 0.333, 0],
  [0, 0, -Math.PI / 2],
  [0, 0.316, Math.PI / 2],
  [0.0825, 0, Math.PI / 2],
  [-0.0825, 0.384, -Math.PI / 2],
  [0, 0, Math.PI / 2],
  [0.088, 0, Math.PI / 2],
];

function chain(name: string, lower: readonly number[], upper: readonly number[]): ChainSpec {
  const joints: JointSpec[] = DH.map(([a, d, alpha], i) => {
    const o = originFromModifiedDH(a, d, alpha);
    return { name: `${name}_joint${i + 1}`, parent: i, xyz: o.xyz, rpy: o.rpy, lower: lower[i]!, upper: upper[i]! };
  });
  return {
    name,
    joints,
    fixedFrames: [
      { name: 'flange', parent: 7, xyz: [0, 0, 0.107], rpy: [0, 0, 0] },
      { name: 'tcp', parent: 7, xyz: [0, 0, 0.107 + 0.1034], rpy: [0, 0, -Math.PI / 4] },
    ],
  };
}

/** Panda (FER) limits: franka_description robots/fer/joint_limits.yaml (hardware-facts §A6). */
export const PANDA_CHAIN = chain(
  'panda',
  [-2.8973, -1.7628, -2.8973, -3.0718, -2.8973, -0.0175, -2.8973],
  [2.8973, 1.7628, 2.8973, -0.0698, 2.8973, 3.7525, 2.8973],
);
/** FR3 limits: franka_description robots/fr3/joint_limits.yaml (hardware-facts §A6). */
export const FR3_CHAIN = chain(
  'fr3',
  [-2.7437, -1.7837, -2.9007, -3.0421, -2.8065, 0.5445, -3.0159],
  [2.7437, 1.7837, 2.9007, -0.1518, 2.8065, 4.5169, 3.0159],
);

export const FRANKA_FRAMES = { base: 0, flange: 8, tcp: 9 } as const;

/**
 * Clearance-to-environment capsules along the DH skeleton (segment between consecutive joint
 * origins, in the parent link's frame), radii from the Franka link envelopes (≈ 0.06–0.09 m). Used
 * against the table and tracked obstacles (CBF); self-collision uses FRANKA_SELF_COLLISION below.
 */
const FRANKA_ARM_ENVIRONMENT: readonly CapsuleSpec[] = [
  { name: 'link0', frame: 0, a: [0, 0, 0], b: [0, 0, 0.15], radius: 0.08, environment: false },
  { name: 'link1', frame: 1, a: [0, 0, -0.19], b: [0, 0, 0], radius: 0.08, environment: false },
  { name: 'link2', frame: 2, a: [0, 0, 0], b: [0, -0.316, 0], radius: 0.07, environment: true },
  { name: 'link3', frame: 3, a: [0, 0, 0], b: [0.0825, 0, 0], radius: 0.07, environment: true },
  { name: 'link4', frame: 4, a: [0, 0, 0], b: [-0.0825, 0.384, 0], radius: 0.06, environment: true },
  { name: 'link5', frame: 5, a: [0, 0, -0.2], b: [0, 0, 0], radius: 0.06, environment: true },
  { name: 'link6', frame: 6, a: [0, 0, 0], b: [0.088, 0, 0], radius: 0.06, environment: true },
];
const FLANGE_Z = 0.107;

/**
 * franka_description's `collision_capsule` macro: a capsule centred at `xyz` of the link's `_sc`
 * frame, its axis along `direction`, `length` between the sphere centres. `yaw` is the `_sc`
 * frame's rotation about the link's z (link7: π/4), `dz` a shift along z (the hand sits on the
 * flange, 0.107 m above link7), both applied to the endpoints so the volume lives in chain frame `frame`.
 */
function scCapsule(
  link: string,
  frame: number,
  xyz: Vec3,
  direction: 'x' | 'y' | 'z',
  length: number,
  radius: number,
  place: { yaw?: number; dz?: number } = {},
): CollisionVolume {
  const k = direction === 'x' ? 0 : direction === 'y' ? 1 : 2;
  const end = (sign: number): Vec3 => {
    const p = [xyz[0], xyz[1], xyz[2]];
    p[k]! += (sign * length) / 2;
    const c = Math.cos(place.yaw ?? 0),
      s = Math.sin(place.yaw ?? 0);
    return [c * p[0]! - s * p[1]!, s * p[0]! + c * p[1]!, p[2]! + (place.dz ?? 0)];
  };
  return { link, frame, a: end(-1), b: end(1), radius };
}

/**
 * Franka's self-collision volumes: the `self_collision_geometries` of franka_description
 * (github.com/frankaemika/franka_description @ b299b39, robots/common/franka_arm.xacro, the
 * `with_sc` model — "coarse geometries of real robot's internal self-collision"), shared by FER
 * (Panda), FR3 and FP3. The radii are the published ones without the `safety_distance` padding
 * (franka_robot.xacro adds 0.03 m to every radius as a planning margin; with it 267 of the 1,010
 * real Panda configurations in shared/data/franka-panda-good-confs would touch, so it is not a
 * contact model); the clause's warning band is the margin instead.
 */
const FRANKA_SELF_COLLISION: readonly CollisionVolume[] = [
  scCapsule('link0', 0, [-0.075, 0, 0.06], 'x', 0.03, 0.06),
  scCapsule('link1', 1, [0, 0, -0.1915], 'z', 0.283, 0.06),
  scCapsule('link2', 2, [0, 0, 0], 'z', 0.12, 0.06),
  scCapsule('link3', 3, [0, 0, -0.145], 'z', 0.15, 0.06),
  scCapsule('link4', 4, [0, 0, 0], 'z', 0.12, 0.06),
  scCapsule('link5', 5, [0, 0, -0.26], 'z', 0.1, 0.06),
  scCapsule('link5', 5, [0, 0.08, -0.13], 'z', 0.14, 0.025),
  scCapsule('link6', 6, [0, 0, -0.03], 'z', 0.08, 0.05),
  scCapsule('link7', 7, [0, 0, 0.01], 'z', 0.14, 0.04, { yaw: Math.PI / 4 }),
  scCapsule('link7', 7, [0.06, 0, 0.082], 'x', 0.01, 0.03, { yaw: Math.PI / 4 }),
];

/**
 * Link pairs never checked: MoveIt's Panda SRDF (moveit_resources panda_moveit_config
 * config/panda_arm.xacro; identical in franka_ros2 franka_moveit_config/srdf/panda_arm.xacro, which
 * franka_ros2 instantiates for FR3 as well): adjacent links and the pairs its setup assistant
 * found never in collision within the joint limits.
 */
const FRANKA_ALLOWED: readonly AllowedCollision[] = [
  ...(
    [
      [0, 1],
      [1, 2],
      [2, 3],
      [3, 4],
      [4, 5],
      [5, 6],
      [6, 7],
    ] as const
  ).map(([i, j]): AllowedCollision => ({ links: [`link${i}`, `link${j}`], reason: 'adjacent' })),
  ...(
    [
      [0, 2],
      [0, 3],
      [0, 4],
      [1, 3],
      [1, 4],
      [2, 4],
      [2, 6],
      [3, 5],
      [3, 6],
      [3, 7],
      [4, 6],
      [4, 7],
    ] as const
  ).map(([i, j]): AllowedCollision => ({ links: [`link${i}`, `link${j}`], reason: 'never' })),
];

/**
 * The Franka Hand's volumes: franka_description @ b299b39 end_effectors/common/franka_hand.xacro, the
 * two y-direction capsules of the `hand_sc` link — the palm (centre 0.04 m out, sphere centres
 * ±0.05 m across, r 0.04 m: 0.18 m wide) and the fingers out to their tips (centre 0.10 m, ±0.05 m,
 * r 0.02 m) — in the hand frame, the flange turned by −π/4. They are the hand's self-collision
 * volumes and, with the axial capsule below, its environment volumes.
 */
const FRANKA_HAND_VOLUMES: readonly CollisionVolume[] = [
  scCapsule('hand', 7, [0, 0, 0.04], 'y', 0.1, 0.04, { yaw: -Math.PI / 4, dz: FLANGE_Z }),
  scCapsule('hand', 7, [0, 0, 0.1], 'y', 0.1, 0.02, { yaw: -Math.PI / 4, dz: FLANGE_Z }),
];

/**
 * The Franka Hand kept clear of the environment: the axial capsule from link7's end through the
 * flange to 5 cm beyond the TCP (r 0.05 m), and the hand_sc palm and finger capsules, which span the
 * hand's 0.18 m width across the fingers — the axial capsule alone reaches only 0.05 m to either
 * side, and in the fragile-obstacle pilot the palm's edge touched a bottle it read 2 cm clear of.
 */
const FRANKA_HAND_ENVIRONMENT: readonly CapsuleSpec[] = [
  { name: 'hand', frame: 7, a: [0, 0, 0.08], b: [0, 0, 0.2104], radius: 0.05, environment: true },
  ...FRANKA_HAND_VOLUMES.map(
    (v, i): CapsuleSpec => ({
      name: `hand#${i === 0 ? 'palm' : 'fingers'}`,
      link: v.link,
      frame: v.frame,
      a: v.a,
      b: v.b,
      radius: v.radius,
      environment: true,
    }),
  ),
];
/** The arm's and the Franka Hand's environment capsules (the calibration of a CBF may override them). */
export const FRANKA_CAPSULES: readonly CapsuleSpec[] = [...FRANKA_ARM_ENVIRONMENT, ...FRANKA_HAND_ENVIRONMENT];

const FRANKA_HAND: EndEffectorDescription = {
  id: 'franka_hand',
  description: 'Franka Hand on the flange (rotated −π/4 about z), TCP 0.1034 m beyond the flange',
  volumes: FRANKA_HAND_VOLUMES,
  // MoveIt panda_arm_hand.srdf.xacro: hand–link7 adjacent; hand–link3, link4, link6 never.
  allowed: [
    { links: ['hand', 'link7'], reason: 'adjacent' },
    { links: ['hand', 'link3'], reason: 'never' },
    { links: ['hand', 'link4'], reason: 'never' },
    { links: ['hand', 'link6'], reason: 'never' },
  ],
  environment: FRANKA_HAND_ENVIRONMENT,
  tcp: { frame: 7, xyz: [0, 0, FLANGE_Z + 0.1034] },
  source:
    'franka_description @ b299b39 end_effectors/common/franka_hand.xacro (hand_sc volumes, tcp_xyz 0 0 0.1034); MoveIt panda_arm_hand.srdf.xacro (allowed pairs)',
};

const FRANKA_NO_END_EFFECTOR: EndEffectorDescription = {
  id: 'none',
  description: 'bare flange (nothing fitted); TCP at the flange',
  volumes: [],
  allowed: [],
  environment: [],
  tcp: { frame: 7, xyz: [0, 0, FLANGE_Z] },
  source: 'franka_description robots/*/kinematics.yaml joint8 (flange 0.107 m along link7 z)',
};

const FRANKA_SOURCE =
  'franka_description @ b299b39 robots/common/franka_arm.xacro (self_collision_geometries, safety_distance 0); MoveIt panda SRDF (allowed pairs)';

function frankaDescription(chainSpec: ChainSpec): RobotDescription {
  return {
    id: chainSpec.name,
    chain: chainSpec,
    selfCollision: { volumes: FRANKA_SELF_COLLISION, allowed: FRANKA_ALLOWED, source: FRANKA_SOURCE },
    environment: FRANKA_ARM_ENVIRONMENT,
    endEffectors: { franka_hand: FRANKA_HAND, none: FRANKA_NO_END_EFFECTOR },
  };
}

/** Franka Emika Panda (FER) and Franka Research 3: same kinematics and self-collision volumes, different joint limits. */
export const PANDA_DESCRIPTION = frankaDescription(PANDA_CHAIN);
export const FR3_DESCRIPTION = frankaDescription(FR3_CHAIN);

/** End effectors a Franka description offers. */
export type FrankaEndEffector = 'franka_hand' | 'none';

/** The Panda / FR3 with the Franka Hand (franka_description's default `ee_id`). */
export const PANDA_MODEL: ArmModelSpec = armModel(PANDA_DESCRIPTION, 'franka_hand');
export const FR3_MODEL: ArmModelSpec = armModel(FR3_DESCRIPTION, 'franka_hand');
