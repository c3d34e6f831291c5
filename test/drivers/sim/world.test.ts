import { beforeAll, describe, expect, it } from 'vitest';
import { loadMujoco, type Mujoco } from '../../../drivers/sim/mujoco.js';
import { so101Scene } from '../../../drivers/sim/scenes/so101.js';
import {
  OBJ_ACTUATOR,
  OBJ_BODY,
  OBJ_GEOM,
  OBJ_JOINT,
  OBJ_SITE,
  SIM_SELF_CLEARANCE_CAP,
  SimWorld,
} from '../../../drivers/sim/world.js';
import { DlsIk } from '../../../drivers/sim/ik.js';
import { topDownFrame } from '../../../drivers/sim/plan.js';
import { ForwardKinematics } from '../../../src/kinematics/chain.js';
import { SO101_CHAIN } from '../../../src/kinematics/so101.js';
import { runEpisode } from '../../../drivers/sim/episode.js';
import { bodyZ } from '../../../drivers/sim/signals.js';
import { Role, roleOfGeomName } from '../../../drivers/sim/scenes/naming.js';
import { policyNamed, series } from './support/sim-episode.js';

let mj: Mujoco;
let world: SimWorld;
let ik: DlsIk;
const scene = so101Scene();
const clean = policyNamed('clean');

beforeAll(async () => {
  mj = await loadMujoco();
  world = new SimWorld(mj, scene);
  ik = new DlsIk(mj, world);
});

describe('roles and geometry', () => {
  it('projects geom names to roles', () => {
    expect(roleOfGeomName('arm_palm')).toBe(Role.Arm);
    expect(roleOfGeomName('finger_left_pad')).toBe(Role.Arm);
    expect(roleOfGeomName('tgt_block')).toBe(Role.Target);
    expect(roleOfGeomName('furn_table')).toBe(Role.Furniture);
    expect(roleOfGeomName('bys_cup')).toBe(Role.Bystander);
    expect(roleOfGeomName('floor')).toBe(Role.Other);
  });

  it('uses the mjtObj codes of the loaded MuJoCo build', () => {
    expect(mj.mjtObj.mjOBJ_BODY.value).toBe(OBJ_BODY);
    expect(mj.mjtObj.mjOBJ_JOINT.value).toBe(OBJ_JOINT);
    expect(mj.mjtObj.mjOBJ_GEOM.value).toBe(OBJ_GEOM);
    expect(mj.mjtObj.mjOBJ_SITE.value).toBe(OBJ_SITE);
    expect(mj.mjtObj.mjOBJ_ACTUATOR.value).toBe(OBJ_ACTUATOR);
  });

  it("puts the TCP where the SO-101 description's chain does at the zero pose (URDF: arm stretched forward)", () => {
    // The arm is generated from the description (generated-arm.test.ts checks every frame over
    // random configurations); here the zero pose against the chain's forward kinematics.
    const out = new Float64Array(3);
    ik.tcp([0, 0, 0, 0, 0], out);
    const fk = new ForwardKinematics(SO101_CHAIN);
    fk.compute([0, 0, 0, 0, 0, 0]);
    const t = 12 * fk.frameIndex('gripper_frame_link');
    for (let a = 0; a < 3; a++) expect(out[a]).toBeCloseTo(fk.frames[t + 9 + a]!, 9);
    // stretched forward: ~0.39 m out along x, level with the elbow (~0.23 m up)
    expect(out[0]).toBeGreaterThan(0.38);
    expect(out[2]).toBeGreaterThan(0.2);
  });

  it('IK reaches a reachable TCP frame to within 0.5 mm from home, turning the wrist', () => {
    // A frame the 5-DoF arm can reach exactly: the TCP frame at a known configuration.
    const qStar = [0.3, -0.5, 0.9, 1.0, 0.6];
    const m = world.model;
    const d = new mj.MjData(m);
    const qpos = d.qpos as Float64Array;
    scene.armJoints.forEach(
      (n, i) => (qpos[(m.jnt_qposadr as Int32Array)[mj.mj_name2id(m, OBJ_JOINT, n)]!] = qStar[i]!),
    );
    mj.mj_kinematics(m, d);
    const s = world.tcpSiteId;
    const sp = d.site_xpos as Float64Array;
    const sm = d.site_xmat as Float64Array;
    const col = (c: number): [number, number, number] => [sm[9 * s + c]!, sm[9 * s + 3 + c]!, sm[9 * s + 6 + c]!];
    const pos: [number, number, number] = [sp[3 * s]!, sp[3 * s + 1]!, sp[3 * s + 2]!];
    d.delete();
    const q = Float64Array.from(scene.home.slice(0, 5));
    const res = ik.solve({ pos, approach: col(0), fingers: col(1) }, q);
    expect(res.positionError).toBeLessThan(5e-4);
    const out = new Float64Array(3);
    ik.tcp(q, out);
    expect(Math.hypot(out[0]! - pos[0], out[1]! - pos[1], out[2]! - pos[2])).toBeLessThan(5e-4);
    expect(Math.abs(q[4]! - scene.home[4]!)).toBeGreaterThan(0.1);
  });

  it("a near-top-down grasp over the riser is planned within the planner's 5 mm (5-DoF: position traded against the requested tilt)", () => {
    const q = Float64Array.from(scene.home.slice(0, 5));
    const res = ik.solve(
      topDownFrame(scene, [scene.targetRest[0], scene.targetRest[1] + 0.01, scene.targetRest[2]], 0.2),
      q,
    );
    expect(res.positionError).toBeLessThan(5e-3);
  });

  it('body z of a quaternion matches a hand-computed rotation about x', () => {
    const th = 0.7;
    const out = new Float64Array(3);
    bodyZ([Math.cos(th / 2), Math.sin(th / 2), 0, 0], out);
    expect(out[0]).toBeCloseTo(0, 12);
    expect(out[1]).toBeCloseTo(-Math.sin(th), 12);
    expect(out[2]).toBeCloseTo(Math.cos(th), 12);
  });
});

describe('raw sources', () => {
  it('mj_contactForce on the resting target balances its weight (target–furniture contacts)', () => {
    world.reset(3);
    world.stepTick();
    const c = world
      .contacts()
      .filter(
        (x) =>
          (x.role1 === Role.Target && x.role2 === Role.Furniture) ||
          (x.role2 === Role.Target && x.role1 === Role.Furniture),
      );
    expect(c.length).toBeGreaterThan(0);
    const normal = c.reduce((s, x) => s + x.normal, 0);
    expect(normal).toBeCloseTo(0.05 * 9.81, 2);
    // The tick peak is the largest single contact, not the sum.
    expect(world.peaks.targetFurniture).toBeGreaterThanOrEqual(Math.max(...c.map((x) => x.force)) - 1e-9);
    expect(world.peaks.armFurniture).toBe(0);
    // The arm at home is clear of itself: a positive clearance, at most the 10 cm search radius.
    expect(world.peaks.selfClearance).toBeGreaterThan(0);
    expect(world.peaks.selfClearance).toBeLessThanOrEqual(SIM_SELF_CLEARANCE_CAP);
  });

  it('the step hook reports every physics step with the joints and the torques qfrc_actuator holds', () => {
    world.reset(3);
    const seen: number[] = [];
    let lastTorque = NaN;
    const off = world.onStep((s) => {
      seen.push(s.t);
      lastTorque = s.torques[1]!;
      expect(s.names).toEqual([...scene.armJoints, 'gripper']);
    });
    world.stepTick();
    off();
    world.stepTick();
    expect(seen).toHaveLength(scene.substeps);
    expect(seen[seen.length - 1]).toBeCloseTo(scene.controlDt, 9);
    // Holding the arm against gravity takes torque at the shoulder lift.
    expect(Math.abs(lastTorque)).toBeGreaterThan(0.01);
  });
});

describe('determinism', () => {
  it('the same seed gives bit-identical signal series; another seed does not', () => {
    const a = runEpisode(world, ik, clean, { seed: 7, maxTicks: 90 });
    const b = runEpisode(world, ik, clean, { seed: 7, maxTicks: 90 });
    const c = runEpisode(world, ik, clean, { seed: 8, maxTicks: 90 });
    expect(a.ticks).toBe(90);
    for (let i = 0; i < a.series.length; i++) expect(Array.from(b.series[i]!)).toEqual(Array.from(a.series[i]!));
    expect(Array.from(series(c, 'target_furniture_contact_force'))).not.toEqual(
      Array.from(series(a, 'target_furniture_contact_force')),
    );
  });
});
