/**
 * One robot description per arm, as data: the kinematic chain with its joint limits, the
 * self-collision volumes of every link with their published source, the allowed-collision list
 * (link pairs never checked, like a MoveIt SRDF's disable_collisions), the capsules used for
 * clearance to the environment, and the end effectors that can be fitted. Everything that needs
 * the arm's geometry (the signal mappings, the CBF barrier, a generated simulator scene) compiles
 * it from here with {@link armModel}; nothing else holds link dimensions.
 */
import type { ArmModelSpec, CapsuleSpec } from './capsules.js';
import type { ChainSpec } from './chain.js';

export type Vec3 = readonly [number, number, number];

/** A capsule (segment a–b plus radius, in the frame's coordinates, m) belonging to a link; a = b is a sphere. */
export interface CollisionVolume {
  readonly link: string;
  /** Chain frame the volume is fixed to (0 = base, k = child frame of joint k − 1). */
  readonly frame: number;
  readonly a: Vec3;
  readonly b: Vec3;
  readonly radius: number;
}

/**
 * Why a link pair is never checked (MoveIt Setup Assistant's reasons): `adjacent` — joined by one
 * joint, they touch by construction; `default` — in contact at the arm's default pose (MoveIt:
 * the URDF zero; for an arm parked folded on itself, its rest pose — the parts rest on each other
 * there by design); `never` — the joint limits keep them apart (no contact over a large random
 * sample of configurations within the limits); `always` — they overlap in every configuration (a
 * housing shared by design).
 */
export type AllowedCollisionReason = 'adjacent' | 'default' | 'never' | 'always';

export interface AllowedCollision {
  readonly links: readonly [string, string];
  readonly reason: AllowedCollisionReason;
}

export interface EndEffectorDescription {
  readonly id: string;
  readonly description: string;
  /** Self-collision volumes of the end effector's links (empty for a bare flange). */
  readonly volumes: readonly CollisionVolume[];
  /** Its allowed pairs against the arm's links (and between its own links). */
  readonly allowed: readonly AllowedCollision[];
  /** Capsules kept clear of the environment (table, tracked obstacles). */
  readonly environment: readonly CapsuleSpec[];
  /** Tool centre point: a point fixed to a chain frame (m). */
  readonly tcp: { readonly frame: number; readonly xyz: Vec3 };
  readonly source: string;
}

export interface RobotDescription {
  readonly id: string;
  readonly chain: ChainSpec;
  readonly selfCollision: {
    readonly volumes: readonly CollisionVolume[];
    readonly allowed: readonly AllowedCollision[];
    /** Where the volumes and the allowed list come from (file, commit). */
    readonly source: string;
  };
  /** Capsules of the arm's links kept clear of the environment. */
  readonly environment: readonly CapsuleSpec[];
  /** End effectors that can be fitted; a caller names one, none is assumed. */
  readonly endEffectors: Readonly<Record<string, EndEffectorDescription>>;
}

/** The end effector `id` of `desc`, or a RangeError naming the ones it has. */
export function endEffectorOf(desc: RobotDescription, id: string): EndEffectorDescription {
  const ee = desc.endEffectors[id];
  if (!ee)
    throw new RangeError(
      `${desc.id}: unknown end effector '${id}' (expected one of ${Object.keys(desc.endEffectors).join(', ')})`,
    );
  return ee;
}

const pairKey = (x: string, y: string): string => (x < y ? `${x}\u0000${y}` : `${y}\u0000${x}`);

/** A self-collision volume as a capsule of the self-collision model, named `<link>#<index on its link>`. */
export function selfVolumeCapsule(v: CollisionVolume, index: number): CapsuleSpec {
  return {
    name: `${v.link}#${index}`,
    link: v.link,
    frame: v.frame,
    a: v.a,
    b: v.b,
    radius: v.radius,
    environment: false,
    self: true,
  };
}

/**
 * The capsule model of `desc` with end effector `endEffector`: the environment capsules (not
 * self-checked) and the self-collision volumes (not used against the environment), with every pair
 * of volumes whose links are allowed to collide — or are the same link — removed from the self
 * pairs. Throws on an unknown end effector, a volume on an unknown frame or an allowed pair naming
 * an unknown link (a description error, found when the description is loaded, never in the loop).
 */
export function armModel(desc: RobotDescription, endEffector: string): ArmModelSpec {
  const ee = endEffectorOf(desc, endEffector);
  const volumes = [...desc.selfCollision.volumes, ...ee.volumes];
  const links = new Set(volumes.map((v) => v.link));
  const allowed = new Set<string>();
  for (const a of [...desc.selfCollision.allowed, ...ee.allowed]) {
    for (const l of a.links)
      if (!links.has(l)) throw new RangeError(`${desc.id}: allowed pair names unknown link '${l}'`);
    allowed.add(pairKey(a.links[0], a.links[1]));
  }
  const perLink = new Map<string, number>();
  const selfCaps: CapsuleSpec[] = volumes.map((v) => {
    const k = perLink.get(v.link) ?? 0;
    perLink.set(v.link, k + 1);
    return selfVolumeCapsule(v, k);
  });
  const envCaps: CapsuleSpec[] = [...desc.environment, ...ee.environment].map((c) => ({ ...c, self: false }));
  const ignorePairs: [string, string][] = [];
  for (let i = 0; i < selfCaps.length; i++) {
    for (let j = i + 1; j < selfCaps.length; j++) {
      const ci = selfCaps[i]!,
        cj = selfCaps[j]!;
      if (ci.link === cj.link || allowed.has(pairKey(ci.link!, cj.link!))) ignorePairs.push([ci.name, cj.name]);
    }
  }
  return { chain: desc.chain, capsules: [...envCaps, ...selfCaps], ignorePairs };
}
