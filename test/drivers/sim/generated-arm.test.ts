/**
 * The MuJoCo arms are generated from the robot descriptions (drivers/sim/scenes/arm-mjcf.ts): for
 * random joint configurations within the limits, MuJoCo's body frames and TCP site (its own
 * kinematics of the generated MJCF) equal src/kinematics' forward kinematics of the description's
 * chain — position and orientation — for both arms. The two are independent implementations
 * (MuJoCo's quaternion tree vs the chain's 3×4 transforms), so a wrong rpy → quaternion, a degree/
 * radian mix-up or a mis-nested body shows here.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { loadMujoco, type Mujoco } from '../../../drivers/sim/mujoco.js';
import { pandaScene } from '../../../drivers/sim/scenes/panda.js';
import { so101Scene } from '../../../drivers/sim/scenes/so101.js';
import { generateArm, quatFromRpy } from '../../../drivers/sim/scenes/arm-mjcf.js';
import type { SceneSpec } from '../../../drivers/sim/scenes/types.js';
import { OBJ_BODY, OBJ_GEOM, OBJ_JOINT, OBJ_SITE } from '../../../drivers/sim/world.js';
import { ForwardKinematics } from '../../../src/kinematics/chain.js';
import { mulberry32 } from '../../../src/util/rng.js';

let mj: Mujoco;
beforeAll(async () => {
  mj = await loadMujoco();
});

function checkScene(scene: SceneSpec, tcpFrameName: string, samples: number): { maxPos: number; maxRot: number } {
  const m = mj.MjModel.from_xml_string(scene.xml);
  const d = new mj.MjData(m);
  const chain = scene.robot.description.chain;
  const fk = new ForwardKinematics(chain);
  const nArm = scene.armJoints.length;
  const qadr = scene.armJoints.map((n) => (m.jnt_qposadr as Int32Array)[mj.mj_name2id(m, OBJ_JOINT, n)]!);
  const bodies = chain.joints.slice(0, nArm).map((j) => mj.mj_name2id(m, OBJ_BODY, `${j.name}_link`));
  expect(bodies.every((b) => b > 0)).toBe(true);
  const site = mj.mj_name2id(m, OBJ_SITE, scene.tcpSite);
  const tcpFrame = fk.frameIndex(tcpFrameName);
  const rng = mulberry32(15);
  const q = new Float64Array(chain.joints.length);
  let maxPos = 0;
  let maxRot = 0;
  for (let s = 0; s < samples; s++) {
    mj.mj_resetData(m, d);
    const qpos = d.qpos as Float64Array;
    chain.joints.forEach((j, i) => (q[i] = j.lower + rng() * (j.upper - j.lower)));
    for (let i = 0; i < nArm; i++) qpos[qadr[i]!] = q[i]!;
    mj.mj_kinematics(m, d);
    fk.compute(q);
    const xpos = d.xpos as Float64Array;
    const xmat = d.xmat as Float64Array;
    const F = fk.frames;
    const compare = (frame: number, p: ArrayLike<number>, po: number, R: ArrayLike<number>, ro: number): void => {
      for (let a = 0; a < 3; a++) maxPos = Math.max(maxPos, Math.abs(p[po + a]! - F[12 * frame + 9 + a]!));
      // both row-major 3×3
      for (let e = 0; e < 9; e++) maxRot = Math.max(maxRot, Math.abs(R[ro + e]! - F[12 * frame + e]!));
    };
    bodies.forEach((b, i) => compare(i + 1, xpos, 3 * b, xmat, 9 * b));
    // The TCP: the site's position is the description's TCP frame; its axes are that frame's turned
    // to the planner's convention (x = approach), so compare the position, and the approach axis
    // (site x) against the frame's z.
    const sp = d.site_xpos as Float64Array;
    const sm = d.site_xmat as Float64Array;
    for (let a = 0; a < 3; a++) maxPos = Math.max(maxPos, Math.abs(sp[3 * site + a]! - F[12 * tcpFrame + 9 + a]!));
    for (let a = 0; a < 3; a++)
      maxRot = Math.max(maxRot, Math.abs(sm[9 * site + 3 * a]! - F[12 * tcpFrame + 3 * a + 2]!));
  }
  d.delete();
  m.delete();
  return { maxPos, maxRot };
}

describe('MuJoCo arms generated from the robot descriptions', () => {
  it('SO-101: body frames and TCP equal the chain FK over 300 random configurations', () => {
    const r = checkScene(so101Scene(), 'gripper_frame_link', 300);
    expect(r.maxPos).toBeLessThan(1e-9);
    expect(r.maxRot).toBeLessThan(1e-9);
  });

  it('Panda: body frames and TCP equal the chain FK over 300 random configurations', () => {
    const r = checkScene(pandaScene(), 'tcp', 300);
    expect(r.maxPos).toBeLessThan(1e-9);
    expect(r.maxRot).toBeLessThan(1e-9);
  });

  it('joint ranges, collision geoms and contact exclusions come from the description', () => {
    for (const scene of [so101Scene(), pandaScene()]) {
      const m = mj.MjModel.from_xml_string(scene.xml);
      const desc = scene.robot.description;
      const range = m.jnt_range as Float64Array;
      scene.armJoints.forEach((n, i) => {
        const j = mj.mj_name2id(m, OBJ_JOINT, n);
        expect(range[2 * j]).toBeCloseTo(desc.chain.joints[i]!.lower, 12);
        expect(range[2 * j + 1]).toBeCloseTo(desc.chain.joints[i]!.upper, 12);
      });
      const size = m.geom_size as Float64Array;
      for (const c of desc.environment) {
        const g = mj.mj_name2id(m, OBJ_GEOM, `arm_${c.name}`);
        expect(g, `${scene.id}: geom arm_${c.name}`).toBeGreaterThanOrEqual(0);
        expect(size[3 * g]).toBeCloseTo(c.radius, 12);
      }
      // Every allowed pair between two arm links that are bodies is excluded from contact.
      const excluded = new Set(Array.from(m.exclude_signature as Int32Array));
      const bodyOfLink = new Map(
        desc.environment.map((c) => [
          c.link ?? c.name,
          mj.mj_name2id(m, OBJ_BODY, c.frame === 0 ? 'base' : `${desc.chain.joints[c.frame - 1]!.name}_link`),
        ]),
      );
      let checked = 0;
      for (const a of desc.selfCollision.allowed) {
        const b1 = bodyOfLink.get(a.links[0]),
          b2 = bodyOfLink.get(a.links[1]);
        if (b1 === undefined || b2 === undefined || b1 === b2) continue;
        expect(excluded.has((Math.min(b1, b2) << 16) + Math.max(b1, b2)), `${scene.id}: ${a.links.join('–')}`).toBe(
          true,
        );
        checked++;
      }
      expect(checked).toBeGreaterThanOrEqual(4);
      m.delete();
    }
  });

  it('MJCF angles are radians: a quarter-turn rpy becomes a quarter-turn quaternion, and the compiler is told so', () => {
    const q = quatFromRpy(Math.PI / 2, 0, 0);
    expect(q[0]).toBeCloseTo(Math.SQRT1_2, 12);
    expect(q[1]).toBeCloseTo(Math.SQRT1_2, 12);
    // R = Rz(y)·Ry(p)·Rx(r): yaw then pitch compose as q_z ⊗ q_y
    const c = Math.cos(Math.PI / 8),
      s = Math.sin(Math.PI / 8);
    const zy = quatFromRpy(0, Math.PI / 4, Math.PI / 4);
    expect(zy.map((x) => Number(x.toFixed(12)))).toEqual(
      [c * c, -s * s, c * s, s * c].map((x) => Number(x.toFixed(12))),
    );
    expect(so101Scene().xml).toContain('<compiler angle="radian"');
    expect(pandaScene().xml).toContain('<compiler angle="radian"');
  });

  it('refuses a description the generator cannot build (names what is wrong)', () => {
    const scene = so101Scene();
    const base = {
      description: scene.robot.description,
      endEffector: 'gripper',
      armJoints: 5,
      ctrlOverrun: 0,
      tcpFrame: 'gripper_frame_link',
    } as const;
    const fixture = {
      siteQuat: [1, 0, 0, 0] as const,
      padCentre: 0,
      padHalf: [0.01, 0.005, 0.01] as const,
      padMass: 0.01,
      travel: 0.02,
      kp: 1,
      kv: 1,
      force: 1,
      palm: { centre: -0.02, half: [0.01, 0.01, 0.01] as const, mass: 0.01 },
    };
    const dyn = Array.from({ length: 5 }, () => ({ mass: 0.1, kp: 1, kv: 1, torque: 1 }));
    expect(() => generateArm({ ...base, dynamics: dyn.slice(0, 4), fixture })).toThrow(
      /4 joint dynamics for 5 arm joints/,
    );
    expect(() => generateArm({ ...base, tcpFrame: 'nose', dynamics: dyn, fixture })).toThrow(/no fixed frame 'nose'/);
    expect(() => generateArm({ ...base, endEffector: 'hook', dynamics: dyn, fixture })).toThrow(
      /unknown end effector 'hook'/,
    );
  });
});
