/**
 * One MuJoCo episode world: loads a scene, resets it from a seed, applies joint targets as
 * actuator controls and steps physics in 30 Hz control ticks. Per physics step it samples the raw
 * sources the seed paper scored (seeds/000 Table 23): contact pairs with roles and their
 * mj_contactForce magnitudes, actuator torques (qfrc_actuator) and body poses. Force and torque
 * readings are held at their peak, the self-collision clearance at its minimum, over the tick's
 * physics steps so a 30 Hz frame never misses a 2 ms impact.
 */
import type { MjData, MjModel, Mujoco } from './mujoco.js';
import { mulberry32, symmetric } from '../../src/util/rng.js';
import { Role, isFingerGeomName, roleOfGeomName } from './scenes/naming.js';
import type { SceneSpec } from './scenes/types.js';

/** Per-physics-step joint sample for emulators (e.g. the Feetech servo emulator). */
export interface JointStepSample {
  /** Simulation time (s). */
  readonly t: number;
  readonly names: readonly string[];
  /** rad, rad/s, N·m — arm joints in command order, then the gripper (command units, 0). */
  readonly positions: Float64Array;
  readonly velocities: Float64Array;
  readonly torques: Float64Array;
}
export type StepHook = (sample: JointStepSample) => void;

/** Peak raw readings over the last control tick. */
export interface TickPeaks {
  armFurniture: number;
  targetFurniture: number;
  anyPair: number;
  /** Arm–bystander contact force (N): the arm touching an object it must keep clear of. */
  armBystander: number;
  /**
   * Smallest mj_geomDistance over the arm–arm geom pairs MuJoCo's collision filter lets touch (m;
   * negative = penetration), capped at SIM_SELF_CLEARANCE_CAP; NaN when the scene does not declare
   * self_collision_clearance.
   */
  selfClearance: number;
  maxArmTorque: number;
}

/** Self-collision clearances beyond this read as this (m): mj_geomDistance's search radius. */
export const SIM_SELF_CLEARANCE_CAP = 0.1;

// mjtObj values (mujoco.h); checked against mj.mjtObj in the tests.
export const OBJ_BODY = 1;
export const OBJ_JOINT = 3;
export const OBJ_GEOM = 5;
export const OBJ_SITE = 6;
export const OBJ_ACTUATOR = 19;
const SETTLE_SECONDS = 0.3;

function isObjectRole(r: number): boolean {
  return r === Role.Target || r === Role.Bystander;
}

export class SimWorld {
  readonly model: MjModel;
  readonly data: MjData;
  readonly nArm: number;
  /** Arm joints then 'gripper'. */
  readonly jointNames: readonly string[];
  readonly tcpSiteId: number;
  readonly targetBodyId: number;
  readonly bystanderBodyIds: readonly number[];
  readonly peaks: TickPeaks = {
    armFurniture: 0,
    targetFurniture: 0,
    anyPair: 0,
    armBystander: 0,
    selfClearance: NaN,
    maxArmTorque: 0,
  };
  /** Finger–object contact at the end of the last tick. */
  fingerObjectContact = false;
  /** Seconds since the episode start (after settling). */
  time = 0;

  private readonly armQposAdr: Int32Array;
  private readonly armDofAdr: Int32Array;
  private readonly armActuator: Int32Array;
  private readonly fingerActuator: Int32Array;
  private readonly fingerQposAdr: Int32Array;
  private readonly fingerDofAdr: Int32Array;
  private readonly geomRole: Uint8Array;
  private readonly geomFinger: Uint8Array;
  /** Arm–arm geom index pairs (flat) whose self-collision clearance is measured. */
  private readonly selfGeomPairs: Int32Array;
  private readonly freeJointQposAdr: readonly number[];
  private readonly forceBuf: { GetView(): Float64Array; delete(): void };
  private readonly hooks: StepHook[] = [];
  private readonly sample: JointStepSample;
  private readonly targets: Float64Array;
  /** Targets at the start of the tick: ctrl ramps from these to `targets` over the tick. */
  private readonly previousTargets: Float64Array;

  constructor(
    private readonly mj: Mujoco,
    readonly scene: SceneSpec,
  ) {
    this.model = mj.MjModel.from_xml_string(scene.xml);
    this.data = new mj.MjData(this.model);
    const m = this.model;
    const id = (type: number, name: string): number => {
      const i = mj.mj_name2id(m, type, name);
      if (i < 0)
        throw new Error(
          `scene ${scene.id}: no ${type === OBJ_BODY ? 'body' : type === OBJ_JOINT ? 'joint' : type === OBJ_SITE ? 'site' : 'actuator'} named '${name}'`,
        );
      return i;
    };
    this.nArm = scene.armJoints.length;
    this.jointNames = [...scene.armJoints, 'gripper'];
    const jntQpos = m.jnt_qposadr as Int32Array;
    const jntDof = m.jnt_dofadr as Int32Array;
    const armJ = scene.armJoints.map((n) => id(OBJ_JOINT, n));
    this.armQposAdr = Int32Array.from(armJ, (j) => jntQpos[j] ?? -1);
    this.armDofAdr = Int32Array.from(armJ, (j) => jntDof[j] ?? -1);
    this.armActuator = Int32Array.from(scene.armJoints, (n) => id(OBJ_ACTUATOR, `act_${n}`));
    const fJ = scene.fingerJoints.map((n) => id(OBJ_JOINT, n));
    this.fingerQposAdr = Int32Array.from(fJ, (j) => jntQpos[j] ?? -1);
    this.fingerDofAdr = Int32Array.from(fJ, (j) => jntDof[j] ?? -1);
    this.fingerActuator = Int32Array.from(scene.fingerJoints, (n) => id(OBJ_ACTUATOR, `act_${n}`));
    this.tcpSiteId = id(OBJ_SITE, scene.tcpSite);
    this.targetBodyId = id(OBJ_BODY, scene.targetBody);
    this.bystanderBodyIds = scene.bystanderBodies.map((n) => id(OBJ_BODY, n));
    this.geomRole = new Uint8Array(m.ngeom);
    this.geomFinger = new Uint8Array(m.ngeom);
    for (let g = 0; g < m.ngeom; g++) {
      const name = mj.mj_id2name(m, OBJ_GEOM, g) ?? '';
      this.geomRole[g] = roleOfGeomName(name);
      this.geomFinger[g] = isFingerGeomName(name) ? 1 : 0;
    }
    this.selfGeomPairs = scene.signals.includes('self_collision_clearance')
      ? armSelfPairs(m, this.geomRole)
      : new Int32Array(0);
    const bodyJntAdr = m.body_jntadr as Int32Array;
    this.freeJointQposAdr = [this.targetBodyId, ...this.bystanderBodyIds].map(
      (b) => jntQpos[bodyJntAdr[b] ?? -1] ?? -1,
    );
    this.forceBuf = new mj.DoubleBuffer(6) as unknown as { GetView(): Float64Array; delete(): void };
    const n = this.nArm + 1;
    this.sample = {
      t: 0,
      names: this.jointNames,
      positions: new Float64Array(n),
      velocities: new Float64Array(n),
      torques: new Float64Array(n),
    };
    this.targets = new Float64Array(n);
    this.previousTargets = new Float64Array(n);
  }

  /** Reset to the home pose with seeded object perturbations, settle, and restart the clock. */
  reset(seed: number): void {
    const { mj, model: m, data: d, scene } = this;
    mj.mj_resetData(m, d);
    const qpos = d.qpos as Float64Array;
    for (let i = 0; i < this.nArm; i++) qpos[this.armQposAdr[i] ?? 0] = scene.home[i] ?? 0;
    const rng = mulberry32(seed);
    for (const adr of this.freeJointQposAdr) {
      qpos[adr] = (qpos[adr] ?? 0) + symmetric(rng, scene.perturbation.xy);
      qpos[adr + 1] = (qpos[adr + 1] ?? 0) + symmetric(rng, scene.perturbation.xy);
      const yaw = symmetric(rng, scene.perturbation.yaw);
      qpos[adr + 3] = Math.cos(yaw / 2);
      qpos[adr + 4] = 0;
      qpos[adr + 5] = 0;
      qpos[adr + 6] = Math.sin(yaw / 2);
    }
    for (let i = 0; i < this.nArm + 1; i++) this.targets[i] = scene.home[i] ?? 0;
    this.previousTargets.set(this.targets);
    this.applyTargets(1);
    mj.mj_forward(m, d);
    const settleSteps = Math.round(SETTLE_SECONDS / (scene.controlDt / scene.substeps));
    for (let k = 0; k < settleSteps; k++) mj.mj_step(m, d);
    this.time = 0;
    this.clearPeaks();
    this.sampleContacts();
  }

  /** Joint targets: arm joints (rad) then the gripper command; applied as actuator ctrl. */
  setTargets(row: ArrayLike<number>): void {
    for (let i = 0; i < this.nArm + 1; i++) {
      const v = row[i];
      if (v !== undefined && Number.isFinite(v)) this.targets[i] = v;
    }
  }

  /** Current targets (arm then gripper command). */
  currentTargets(out: Float64Array): void {
    out.set(this.targets.subarray(0, Math.min(out.length, this.targets.length)));
  }

  onStep(hook: StepHook): () => void {
    this.hooks.push(hook);
    return () => {
      const i = this.hooks.indexOf(hook);
      if (i >= 0) this.hooks.splice(i, 1);
    };
  }

  /** Advance one control tick (scene.substeps physics steps). */
  stepTick(): void {
    const { mj, model: m, data: d, scene } = this;
    this.clearPeaks();
    const h = scene.controlDt / scene.substeps;
    for (let k = 0; k < scene.substeps; k++) {
      // The servo's own motion profile: ramp to the new target over the tick, no step change.
      this.applyTargets((k + 1) / scene.substeps);
      mj.mj_step(m, d);
      this.time += h;
      this.sampleContacts();
      this.sampleTorques();
      if (this.hooks.length > 0) this.emitSample();
    }
    this.previousTargets.set(this.targets);
  }

  /** Arm joint positions then the gripper command equivalent of the finger opening. */
  readJoints(positions: Float64Array, velocities?: Float64Array): void {
    const qpos = this.data.qpos as Float64Array;
    const qvel = this.data.qvel as Float64Array;
    for (let i = 0; i < this.nArm; i++) {
      positions[i] = qpos[this.armQposAdr[i] ?? 0] ?? NaN;
      if (velocities) velocities[i] = qvel[this.armDofAdr[i] ?? 0] ?? NaN;
    }
    const f0 = this.fingerQposAdr[0] ?? 0;
    positions[this.nArm] = this.scene.gripper.command(qpos[f0] ?? 0);
    if (velocities) velocities[this.nArm] = this.scene.gripper.command(qvel[this.fingerDofAdr[0] ?? 0] ?? 0);
  }

  /** Arm actuator torques (qfrc_actuator at the arm dofs), N·m. */
  readTorques(out: Float64Array): void {
    const q = this.data.qfrc_actuator as Float64Array;
    for (let i = 0; i < this.nArm; i++) out[i] = q[this.armDofAdr[i] ?? 0] ?? NaN;
  }

  /** Body id of a named body, or −1. */
  bodyIdOf(name: string): number {
    return this.mj.mj_name2id(this.model, OBJ_BODY, name);
  }

  bodyPos(body: number, out: Float64Array | number[]): void {
    const x = this.data.xpos as Float64Array;
    out[0] = x[3 * body] ?? NaN;
    out[1] = x[3 * body + 1] ?? NaN;
    out[2] = x[3 * body + 2] ?? NaN;
  }

  bodyQuat(body: number, out: Float64Array | number[]): void {
    const q = this.data.xquat as Float64Array;
    for (let i = 0; i < 4; i++) out[i] = q[4 * body + i] ?? NaN;
  }

  tcpPos(out: Float64Array | number[]): void {
    const x = this.data.site_xpos as Float64Array;
    for (let i = 0; i < 3; i++) out[i] = x[3 * this.tcpSiteId + i] ?? NaN;
  }

  /**
   * Every current contact with its geoms, roles and linear force magnitude (allocates: for
   * diagnostics and tests, not the per-step path).
   */
  contacts(): { geom1: string; geom2: string; role1: Role; role2: Role; force: number; normal: number }[] {
    const { mj, model: m, data: d } = this;
    const out: { geom1: string; geom2: string; role1: Role; role2: Role; force: number; normal: number }[] = [];
    const list = d.contact;
    for (let i = 0; i < d.ncon; i++) {
      const c = list.get(i);
      if (!c) continue;
      mj.mj_contactForce(m, d, i, this.forceBuf);
      const v = this.forceBuf.GetView();
      out.push({
        geom1: mj.mj_id2name(m, OBJ_GEOM, c.geom1) ?? String(c.geom1),
        geom2: mj.mj_id2name(m, OBJ_GEOM, c.geom2) ?? String(c.geom2),
        role1: (this.geomRole[c.geom1] ?? Role.Other) as Role,
        role2: (this.geomRole[c.geom2] ?? Role.Other) as Role,
        force: Math.hypot(v[0] ?? 0, v[1] ?? 0, v[2] ?? 0),
        normal: v[0] ?? 0,
      });
      c.delete();
    }
    list.delete();
    return out;
  }

  dispose(): void {
    this.forceBuf.delete();
    this.data.delete();
    this.model.delete();
  }

  private applyTargets(fraction: number): void {
    const ctrl = this.data.ctrl as Float64Array;
    const at = (i: number): number => {
      const a = this.previousTargets[i] ?? 0;
      return a + ((this.targets[i] ?? 0) - a) * fraction;
    };
    for (let i = 0; i < this.nArm; i++) ctrl[this.armActuator[i] ?? 0] = at(i);
    const finger = this.scene.gripper.fingerTarget(at(this.nArm));
    for (let i = 0; i < this.fingerActuator.length; i++) ctrl[this.fingerActuator[i] ?? 0] = finger;
  }

  private clearPeaks(): void {
    const p = this.peaks;
    p.armFurniture = 0;
    p.targetFurniture = 0;
    p.anyPair = 0;
    p.armBystander = 0;
    p.selfClearance = this.selfGeomPairs.length > 0 ? Infinity : NaN;
    p.maxArmTorque = 0;
  }

  private sampleTorques(): void {
    const q = this.data.qfrc_actuator as Float64Array;
    let peak = this.peaks.maxArmTorque;
    for (let i = 0; i < this.nArm; i++) {
      const a = Math.abs(q[this.armDofAdr[i] ?? 0] ?? 0);
      if (a > peak) peak = a;
    }
    this.peaks.maxArmTorque = peak;
  }

  private sampleContacts(): void {
    const { mj, model: m, data: d } = this;
    const n = d.ncon;
    let finger = false;
    const p = this.peaks;
    if (n > 0) {
      const contacts = d.contact;
      const f = this.forceBuf;
      for (let i = 0; i < n; i++) {
        const c = contacts.get(i);
        if (!c) continue;
        const g1 = c.geom1;
        const g2 = c.geom2;
        c.delete();
        mj.mj_contactForce(m, d, i, f);
        const v = f.GetView();
        const mag = Math.hypot(v[0] ?? 0, v[1] ?? 0, v[2] ?? 0);
        const r1 = this.geomRole[g1] ?? Role.Other;
        const r2 = this.geomRole[g2] ?? Role.Other;
        if (mag > p.anyPair) p.anyPair = mag;
        if (r1 === Role.Arm && r2 === Role.Arm) continue;
        if ((r1 === Role.Arm && r2 === Role.Furniture) || (r2 === Role.Arm && r1 === Role.Furniture)) {
          if (mag > p.armFurniture) p.armFurniture = mag;
        } else if ((r1 === Role.Arm && r2 === Role.Bystander) || (r2 === Role.Arm && r1 === Role.Bystander)) {
          if (mag > p.armBystander) p.armBystander = mag;
        } else if ((r1 === Role.Target && r2 === Role.Furniture) || (r2 === Role.Target && r1 === Role.Furniture)) {
          if (mag > p.targetFurniture) p.targetFurniture = mag;
        }
        if ((this.geomFinger[g1] === 1 && isObjectRole(r2)) || (this.geomFinger[g2] === 1 && isObjectRole(r1)))
          finger = true;
      }
      contacts.delete();
    }
    this.fingerObjectContact = finger;
    const pairs = this.selfGeomPairs;
    for (let k = 0; k < pairs.length; k += 2) {
      const dist = mj.mj_geomDistance(m, d, pairs[k]!, pairs[k + 1]!, SIM_SELF_CLEARANCE_CAP, null);
      if (dist < p.selfClearance || dist !== dist) p.selfClearance = dist;
    }
  }

  private emitSample(): void {
    const s = this.sample;
    this.readJoints(s.positions, s.velocities);
    this.readTorques(s.torques);
    s.torques[this.nArm] = 0;
    (s as { t: number }).t = this.time;
    for (const h of this.hooks) h(s);
  }
}

/**
 * The arm–arm geom pairs MuJoCo's default collision filter lets collide: different bodies, neither
 * the parent of the other (filterparent), no <exclude> between their bodies, and compatible
 * contype/conaffinity bits.
 */
function armSelfPairs(m: MjModel, role: Uint8Array): Int32Array {
  const body = m.geom_bodyid as Int32Array;
  const parent = m.body_parentid as Int32Array;
  const contype = m.geom_contype as Int32Array;
  const conaffinity = m.geom_conaffinity as Int32Array;
  const excluded = new Set(Array.from(m.exclude_signature as Int32Array));
  const out: number[] = [];
  for (let g1 = 0; g1 < m.ngeom; g1++) {
    if (role[g1] !== Role.Arm) continue;
    for (let g2 = g1 + 1; g2 < m.ngeom; g2++) {
      if (role[g2] !== Role.Arm) continue;
      const b1 = body[g1]!,
        b2 = body[g2]!;
      if (b1 === b2 || parent[b1] === b2 || parent[b2] === b1) continue;
      if (excluded.has((Math.min(b1, b2) << 16) + Math.max(b1, b2))) continue;
      if (!(contype[g1]! & conaffinity[g2]! || contype[g2]! & conaffinity[g1]!)) continue;
      out.push(g1, g2);
    }
  }
  return Int32Array.from(out);
}
