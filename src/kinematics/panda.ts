import type { ArmModelSpec, CapsuleSpec } from './capsules.js';
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
  [0, 0.333, 0], [0, 0, -Math.PI / 2], [0, 0.316, Math.PI / 2], [0.0825, 0, Math.PI / 2],
  [-0.0825, 0.384, -Math.PI / 2], [0, 0, Math.PI / 2], [0.088, 0, Math.PI / 2],
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
 * Link capsules along the DH skeleton (segment between consecutive joint origins, in the parent
 * link's frame), radii from the Franka link envelopes (≈ 0.06–0.09 m). An approximation for
 * clearance; the calibration file may override it.
 */
export const FRANKA_CAPSULES: readonly CapsuleSpec[] = [
  { name: 'link0', frame: 0, a: [0, 0, 0], b: [0, 0, 0.15], radius: 0.08, environment: false },
  { name: 'link1', frame: 1, a: [0, 0, -0.19], b: [0, 0, 0], radius: 0.08, environment: false },
  { name: 'link2', frame: 2, a: [0, 0, 0], b: [0, -0.316, 0], radius: 0.07, environment: true },
  { name: 'link3', frame: 3, a: [0, 0, 0], b: [0.0825, 0, 0], radius: 0.07, environment: true },
  { name: 'link4', frame: 4, a: [0, 0, 0], b: [-0.0825, 0.384, 0], radius: 0.06, environment: true },
  { name: 'link5', frame: 5, a: [0, 0, -0.2], b: [0, 0, 0], radius: 0.06, environment: true },
  { name: 'link6', frame: 6, a: [0, 0, 0], b: [0.088, 0, 0], radius: 0.06, environment: true },
  { name: 'hand', frame: 7, a: [0, 0, 0.08], b: [0, 0, 0.2104], radius: 0.05, environment: true },
];

function model(chainSpec: ChainSpec): ArmModelSpec {
  return {
    chain: chainSpec,
    capsules: FRANKA_CAPSULES,
    // Capsules two joints apart that share a housing (elbow: links 2/4; wrist: links 3/5, 4/6, 5/hand)
    // overlap by construction and cannot collide with each other.
    ignorePairs: [['link2', 'link4'], ['link3', 'link5'], ['link4', 'link6'], ['link5', 'hand']],
  };
}
export const PANDA_MODEL = model(PANDA_CHAIN);
export const FR3_MODEL = model(FR3_CHAIN);
