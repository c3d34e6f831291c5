import { beforeAll, describe, expect, it } from 'vitest';
import { loadMujoco, type Mujoco } from '../../../drivers/sim/mujoco.js';
import { so101Scene } from '../../../drivers/sim/scenes/so101.js';
import { OBJ_ACTUATOR, OBJ_BODY, OBJ_GEOM, OBJ_JOINT, OBJ_SITE, SIM_SELF_CLEARANCE_CAP, SimWorld } from '../../../drivers/sim/world.js';
import { DlsIk } from '../../../drivers/sim/ik.js';
import { topDownFrame } from '../../../drivers/sim/plan.js';
import { runEpisode } from '../../../drivers/sim/episode.js';
import { bodyZ } from '../../../drivers/sim/signals.js';
import { Role, roleOfGeomName } from '../../../drivers/sim/scenes/naming.js';
import { policyNamed, series } from './helpers.js';

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

  it('puts the TCP where the URDF link lengths say at the zero pose (hand-summed)', () => {
    const out = new Float64Array(3);
    ik.tcp([0, 0, 0, 0, 0], out);
    // x: pan offset 0.0388 − 0.0304 + elbow 0.028 + forearm 0.1349 + wrist 0.0611 + TCP 0.085
    expect(out[0]).toBeCloseTo(0.0388 - 0.0304 + 0.028 + 0.1349 + 0.0611 + 0.085, 6);
    expect(out[1]).toBeCloseTo(0, 9);
    expect(out[2]).toBeCloseTo(0.0624 + 0.0542 + 0.1126 + 0.005, 6);
  });

  it('IK reaches a grasp frame to within 0.5 mm and turns the wrist to the requested finger line', () => {
    const q = Float64Array.from(scene.home.slice(0, 5));
    const res = ik.solve(topDownFrame(scene, [0.17, 0.03, 0.07], 0.2), q);
    expect(res.positionError).toBeLessThan(5e-4);
    const out = new Float64Array(3);
    ik.tcp(q, out);
    expect(Math.hypot(out[0]! - 0.17, out[1]! - 0.03, out[2]! - 0.07)).toBeLessThan(5e-4);
    expect(q[4]).not.toBeCloseTo(0, 2);
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
    const c = world.contacts().filter((x) => (x.role1 === Role.Target && x.role2 === Role.Furniture) || (x.role2 === Role.Target && x.role1 === Role.Furniture));
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
    expect(Array.from(series(c, 'target_furniture_contact_force'))).not.toEqual(Array.from(series(a, 'target_furniture_contact_force')));
  });
});
