/**
 * The MuJoCo arm generated from the arm's robot description (src/kinematics/description.ts), so
 * the simulated arm and the kinematics/CBF model are one description, not two hand-written copies
 * (issue 15). From the description come: one body per chain frame (pose from the joint's URDF
 * origin xyz/rpy), one hinge per arm joint about the body's z with the description's limits, a
 * position actuator per joint, the TCP site at the end effector's fixed frame, and the collision
 * geoms — the arm links' environment capsules (the capsules the CBF keeps clear of obstacles) —
 * with MuJoCo contact excluded for the description's allowed-collision pairs, so arm–arm contact
 * (self_collision_clearance) is measured on every other pair.
 *
 * What is the scene's, not the description's: the grasp fixture (a parallel two-finger stand-in
 * mounted at the TCP, the physics of grasping a block), link masses, servo gains and joint damping.
 * The end effector's own environment capsules are the CBF's envelope around that fixture; they are
 * not physical geoms (they enclose the grasped object's place between the fingers). Joints of the
 * chain beyond the arm joints (the SO-101's moving jaw) are played by the fixture's fingers.
 * Angles are written in radians (`<compiler angle="radian">`).
 */
import type { CapsuleSpec } from '../../../src/kinematics/capsules.js';
import type { RobotDescription } from '../../../src/kinematics/description.js';
import { endEffectorOf } from '../../../src/kinematics/description.js';
import type { Vec3 } from './types.js';

export type Quat = readonly [number, number, number, number];

export interface ArmJointDynamics {
  /** Mass of the link this joint moves (kg), placed at its capsule's midpoint. */
  readonly mass: number;
  /** Position-servo gain (N·m/rad) and damping gain. */
  readonly kp: number;
  readonly kv: number;
  /** Actuator torque limit (N·m). */
  readonly torque: number;
}

export interface GraspFixture {
  /** Rotation from the end effector's TCP frame to the site convention the planner uses: x = approach, y = finger line. */
  readonly siteQuat: Quat;
  /** Finger pad box: centre along the approach axis relative to the TCP (m), half sizes (approach, thickness, width). */
  readonly padCentre: number;
  readonly padHalf: Vec3;
  readonly padMass: number;
  /** Finger travel from the centre line (m). */
  readonly travel: number;
  readonly kp: number;
  readonly kv: number;
  readonly force: number;
  /** Palm box behind the pads: centre along the approach axis (m) and half sizes (approach, across, width). */
  readonly palm: { readonly centre: number; readonly half: Vec3; readonly mass: number };
}

export interface ArmMjcfOptions {
  readonly description: RobotDescription;
  readonly endEffector: string;
  /** How many chain joints are arm joints (actuated hinges); later ones are the fixture's. */
  readonly armJoints: number;
  readonly dynamics: readonly ArmJointDynamics[];
  /** Commanded targets may run this far past the joint limits (rad; a servo's stops are metal, its targets registers). */
  readonly ctrlOverrun: number;
  readonly fixture: GraspFixture;
  /** The chain's fixed frame that is the TCP. */
  readonly tcpFrame: string;
}

export interface GeneratedArm {
  /** `<body>` tree for the worldbody. */
  readonly bodies: string;
  /** `<exclude>` lines for the `<contact>` block. */
  readonly excludes: string;
  /** `<position>` lines for the `<actuator>` block. */
  readonly actuators: string;
  /** MuJoCo joint names of the arm joints, in chain order; then the finger joints. */
  readonly armJoints: readonly string[];
  readonly fingerJoints: readonly string[];
  /** MuJoCo body name of chain frame k (0 = base). */
  readonly frameBodies: readonly string[];
}

const f = (x: number): string => (Math.abs(x) < 1e-12 ? '0' : Number(x.toPrecision(10)).toString());
const v = (xs: readonly number[]): string => xs.map(f).join(' ');

/** URDF rpy (fixed-axis roll, pitch, yaw: R = Rz(y)·Ry(p)·Rx(r)) → MuJoCo quaternion (w, x, y, z). */
export function quatFromRpy(r: number, p: number, y: number): Quat {
  const cr = Math.cos(r / 2),
    sr = Math.sin(r / 2);
  const cp = Math.cos(p / 2),
    sp = Math.sin(p / 2);
  const cy = Math.cos(y / 2),
    sy = Math.sin(y / 2);
  return [
    cr * cp * cy + sr * sp * sy,
    sr * cp * cy - cr * sp * sy,
    cr * sp * cy + sr * cp * sy,
    cr * cp * sy - sr * sp * cy,
  ];
}

export function quatMultiply(a: Quat, b: Quat): Quat {
  return [
    a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
    a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
    a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
    a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0],
  ];
}

function capsuleGeom(c: CapsuleSpec, mass?: number): string {
  const same = c.a[0] === c.b[0] && c.a[1] === c.b[1] && c.a[2] === c.b[2];
  const m = mass === undefined ? '' : ` mass="${f(mass)}"`;
  return same
    ? `<geom name="arm_${c.name}" type="sphere" pos="${v(c.a)}" size="${f(c.radius)}"${m}/>`
    : `<geom name="arm_${c.name}" type="capsule" fromto="${v([...c.a, ...c.b])}" size="${f(c.radius)}"${m}/>`;
}

/** Generate the arm of `o.description` as MJCF fragments (see the module comment). */
export function generateArm(o: ArmMjcfOptions): GeneratedArm {
  const desc = o.description;
  const chain = desc.chain;
  const ee = endEffectorOf(desc, o.endEffector);
  if (o.armJoints < 1 || o.armJoints > chain.joints.length)
    throw new RangeError(`${desc.id}: armJoints ${o.armJoints} out of 1…${chain.joints.length}`);
  if (o.dynamics.length !== o.armJoints)
    throw new RangeError(`${desc.id}: ${o.dynamics.length} joint dynamics for ${o.armJoints} arm joints`);
  const tcp = chain.fixedFrames.find((x) => x.name === o.tcpFrame);
  if (!tcp) throw new RangeError(`${desc.id}: no fixed frame '${o.tcpFrame}'`);
  if (tcp.parent > o.armJoints)
    throw new RangeError(
      `${desc.id}: the TCP frame hangs on frame ${tcp.parent}, beyond the ${o.armJoints} arm joints`,
    );

  const frameBodies = ['base', ...chain.joints.slice(0, o.armJoints).map((j) => `${j.name}_link`)];
  const armLinkCapsules = desc.environment;
  for (const c of armLinkCapsules) {
    if (c.frame > o.armJoints)
      throw new RangeError(`${desc.id}: arm capsule ${c.name} on frame ${c.frame}, beyond the arm joints`);
  }
  const capsulesOn = (frame: number): CapsuleSpec[] => armLinkCapsules.filter((c) => c.frame === frame);
  const fx = o.fixture;
  const children = new Map<number, number[]>();
  for (let k = 0; k < o.armJoints; k++) {
    const p = chain.joints[k]!.parent;
    children.set(p, [...(children.get(p) ?? []), k + 1]);
  }

  const fixtureXml = (indent: string): string => {
    const q = quatMultiply(quatFromRpy(...tcp.rpy), fx.siteQuat);
    const pad = (side: 'left' | 'right', sign: number): string =>
      `${indent}  <body name="finger_${side}" gravcomp="1">
${indent}    <joint name="finger_${side}" type="slide" axis="0 ${sign} 0" range="0 ${f(fx.travel)}" damping="${f(fx.kv / 4)}" armature="0"/>
${indent}    <geom name="finger_${side}_pad" type="box" pos="${v([fx.padCentre, sign * fx.padHalf[1], 0])}" size="${v(fx.padHalf)}" mass="${f(fx.padMass)}"/>
${indent}  </body>`;
    return `${indent}<body name="ee_mount" pos="${v(tcp.xyz)}" quat="${v(q)}" gravcomp="1">
${indent}  <geom name="arm_ee_palm" type="box" pos="${v([fx.palm.centre, 0, 0])}" size="${v(fx.palm.half)}" mass="${f(fx.palm.mass)}"/>
${indent}  <site name="tcp" pos="0 0 0" size="0.004"/>
${pad('left', 1)}
${pad('right', -1)}
${indent}</body>`;
  };

  const bodyXml = (frame: number, indent: string): string => {
    const caps = capsulesOn(frame);
    const lines: string[] = [];
    if (frame === 0) {
      lines.push(`${indent}<body name="${frameBodies[0]}">`);
      for (const c of caps) lines.push(`${indent}  ${capsuleGeom(c)}`);
    } else {
      const j = chain.joints[frame - 1]!;
      const d = o.dynamics[frame - 1]!;
      lines.push(
        `${indent}<body name="${frameBodies[frame]}" pos="${v(j.xyz)}" quat="${v(quatFromRpy(...j.rpy))}" gravcomp="1">`,
      );
      lines.push(
        `${indent}  <joint name="${j.name}" axis="0 0 1" range="${f(j.lower)} ${f(j.upper)}" actuatorfrcrange="${f(-d.torque)} ${f(d.torque)}" actuatorgravcomp="true"/>`,
      );
      // Inertia: the link's mass at its capsule's midpoint (a solid-sphere-like spread of 4 cm), or at the frame origin.
      const c = caps[0];
      const com = c ? [(c.a[0] + c.b[0]) / 2, (c.a[1] + c.b[1]) / 2, (c.a[2] + c.b[2]) / 2] : [0, 0, 0];
      const inertia = 0.4 * d.mass * 0.04 * 0.04;
      lines.push(
        `${indent}  <inertial pos="${v(com)}" mass="${f(d.mass)}" diaginertia="${v([inertia, inertia, inertia])}"/>`,
      );
      for (const cap of caps) lines.push(`${indent}  ${capsuleGeom(cap)}`);
    }
    for (const child of children.get(frame) ?? []) lines.push(bodyXml(child, `${indent}  `));
    if (frame === tcp.parent) lines.push(fixtureXml(`${indent}  `));
    lines.push(`${indent}</body>`);
    return lines.join('\n');
  };

  // Contact exclusions: the description's allowed pairs between arm links that are bodies here; the
  // fixture (ee_mount, fingers) stands for the end effector's links in the pairs that name them.
  const linkBodies = new Map<string, string[]>();
  for (const c of armLinkCapsules) linkBodies.set(c.link ?? c.name, [frameBodies[c.frame]!]);
  const eeLinks = new Set(ee.volumes.map((x) => x.link));
  const fixtureBodies = ['ee_mount', 'finger_left', 'finger_right'];
  for (const l of eeLinks) linkBodies.set(l, fixtureBodies);
  const pairs = new Set<string>();
  const exclude = (a: string, b: string): void => {
    if (a === b) return;
    pairs.add(a < b ? `${a}|${b}` : `${b}|${a}`);
  };
  for (const a of [...desc.selfCollision.allowed, ...ee.allowed]) {
    for (const x of linkBodies.get(a.links[0]) ?? []) for (const y of linkBodies.get(a.links[1]) ?? []) exclude(x, y);
  }
  // The fixture's parts against each other and against the body they are mounted on.
  for (let i = 0; i < fixtureBodies.length; i++) {
    for (let k = i + 1; k < fixtureBodies.length; k++) exclude(fixtureBodies[i]!, fixtureBodies[k]!);
    exclude(fixtureBodies[i]!, frameBodies[tcp.parent]!);
  }
  const excludes = [...pairs].sort().map((p) => {
    const [a, b] = p.split('|');
    return `<exclude body1="${a}" body2="${b}"/>`;
  });

  const armJoints = chain.joints.slice(0, o.armJoints).map((j) => j.name);
  const actuators = chain.joints.slice(0, o.armJoints).map((j, i) => {
    const d = o.dynamics[i]!;
    return `<position name="act_${j.name}" joint="${j.name}" kp="${f(d.kp)}" kv="${f(d.kv)}" ctrlrange="${f(j.lower - o.ctrlOverrun)} ${f(j.upper + o.ctrlOverrun)}"/>`;
  });
  for (const side of ['left', 'right']) {
    actuators.push(
      `<position name="act_finger_${side}" joint="finger_${side}" kp="${f(fx.kp)}" kv="${f(fx.kv)}" ctrlrange="${f(-0.2 * fx.travel)} ${f(fx.travel)}" forcerange="${f(-fx.force)} ${f(fx.force)}"/>`,
    );
  }
  return {
    bodies: bodyXml(0, '    '),
    excludes: excludes.join('\n    '),
    actuators: actuators.join('\n    '),
    armJoints,
    fingerJoints: ['finger_left', 'finger_right'],
    frameBodies,
  };
}
