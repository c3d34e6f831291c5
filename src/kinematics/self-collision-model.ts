/**
 * The capsule model a self-collision barrier keeps apart (issue 15): each arm link as its
 * environment capsule, the end effector as its published self-collision volumes, every pair of
 * different links not on the description's allowed-collision list.
 *
 * Why not the published volumes of every link (armModel's self pairs): (1) the arm a simulator or
 * a controller knows collides with more than those volumes — the MuJoCo arm generated from a
 * description collides with the links' environment capsules (drivers/sim/scenes/arm-mjcf.ts), and
 * on the Panda the wrist fold brought link5's capsule onto the palm while the published volumes
 * were still 9 mm apart; (2) the SO-101's published volumes are spheres enclosing its meshes, 4,855
 * checked pairs at 0.4 ms per evaluation — the chunk filter evaluates h and its gradient ~300
 * times a chunk. One capsule per arm link makes it 41 pairs on the Panda, ~100 on the SO-101.
 * Mixing the two envelopes (a link's capsule against another link's published volume) is left out:
 * the Panda's link5 capsule overlaps link7's volume by 1.2 cm in every clean pick, which no
 * simulator contact confirms. The end effector's environment capsules are an envelope around the
 * grasped object's place between the fingers, not part of the hand: left out too.
 */
import type { ArmModelSpec, CapsuleSpec } from './capsules.js';
import { endEffectorOf, selfVolumeCapsule, type RobotDescription } from './description.js';

const pairKey = (x: string, y: string): string => (x < y ? `${x}\u0000${y}` : `${y}\u0000${x}`);

export function selfCollisionModel(desc: RobotDescription, endEffector: string): ArmModelSpec {
  const ee = endEffectorOf(desc, endEffector);
  const caps: CapsuleSpec[] = [
    ...desc.environment.map((c) => ({ ...c, link: c.link ?? c.name, environment: false, self: true })),
    ...ee.volumes.map((v, k) => selfVolumeCapsule(v, k)),
  ];
  const links = new Set(caps.map((c) => c.link));
  const allowed = new Set<string>();
  for (const a of [...desc.selfCollision.allowed, ...ee.allowed]) {
    // pairs naming a link with no capsule here (a link without an environment capsule) check nothing
    if (links.has(a.links[0]) && links.has(a.links[1])) allowed.add(pairKey(a.links[0], a.links[1]));
  }
  const ignorePairs: [string, string][] = [];
  for (let i = 0; i < caps.length; i++)
    for (let j = i + 1; j < caps.length; j++) {
      const ci = caps[i]!,
        cj = caps[j]!;
      if (ci.link === cj.link || allowed.has(pairKey(ci.link!, cj.link!))) ignorePairs.push([ci.name, cj.name]);
    }
  return { chain: desc.chain, capsules: caps, ignorePairs };
}
