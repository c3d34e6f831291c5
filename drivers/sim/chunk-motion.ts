/**
 * The simulated arm's geometry along a proposed chunk, for the gate's warning band (the
 * ChunkMotionModel port): per row, the arm is posed on a scratch MjData (mj_kinematics, so the
 * episode's state is untouched) and measured — the smallest mj_geomDistance from a moving arm geom
 * to a furniture geom (table, riser, box), the TCP height, and the static gravity load (mj_rne at
 * rest) over the arm joints. Only the arm's own targets are used: a held object is not posed.
 */
import type { ChunkMotionModel, MotionTrace } from '../../src/ports/index.js';
import type { MjData, Mujoco } from './mujoco.js';
import { Role, roleOfGeomName } from './scenes/naming.js';
import { OBJ_GEOM, OBJ_JOINT, type SimWorld } from './world.js';

/** Clearances beyond this read as this (m): mj_geomDistance's search radius. */
export const MOTION_CLEARANCE_CAP = 0.1;

export class SimChunkMotion implements ChunkMotionModel {
  private readonly scratch: MjData;
  private readonly armQposAdr: Int32Array;
  private readonly armDofAdr: Int32Array;
  private readonly fingerQposAdr: Int32Array;
  /** Moving arm geom × furniture geom pairs (flat). */
  private readonly pairs: Int32Array;
  private readonly bias: { GetView(): Float64Array; delete(): void };

  constructor(
    private readonly mj: Mujoco,
    private readonly world: SimWorld,
  ) {
    const m = world.model;
    this.scratch = new mj.MjData(m);
    const jq = m.jnt_qposadr as Int32Array;
    const jd = m.jnt_dofadr as Int32Array;
    const joint = (name: string): number => mj.mj_name2id(m, OBJ_JOINT, name);
    this.armQposAdr = Int32Array.from(world.scene.armJoints, (n) => jq[joint(n)] ?? -1);
    this.armDofAdr = Int32Array.from(world.scene.armJoints, (n) => jd[joint(n)] ?? -1);
    this.fingerQposAdr = Int32Array.from(world.scene.fingerJoints, (n) => jq[joint(n)] ?? -1);
    const weld = m.body_weldid as Int32Array;
    const body = m.geom_bodyid as Int32Array;
    const arm: number[] = [];
    const furniture: number[] = [];
    for (let g = 0; g < m.ngeom; g++) {
      const role = roleOfGeomName(mj.mj_id2name(m, OBJ_GEOM, g) ?? '');
      // arm geoms welded to the world (a mounted base) never approach the furniture
      if (role === Role.Arm && weld[body[g]!] !== 0) arm.push(g);
      else if (role === Role.Furniture) furniture.push(g);
    }
    this.pairs = Int32Array.from(arm.flatMap((a) => furniture.flatMap((f) => [a, f])));
    this.bias = new mj.DoubleBuffer(m.nv) as unknown as { GetView(): Float64Array; delete(): void };
  }

  trace(q0: ArrayLike<number>, targets: Float64Array, horizon: number, columns: number, out: MotionTrace): void {
    this.measure(q0, 0, out, 0);
    for (let k = 0; k < horizon; k++) this.measure(targets, k * columns, out, k + 1);
  }

  dispose(): void {
    this.bias.delete();
    this.scratch.delete();
  }

  private measure(row: ArrayLike<number>, offset: number, out: MotionTrace, at: number): void {
    const { mj, world, scratch: d } = this;
    const m = world.model;
    const n = world.nArm;
    const qpos = d.qpos as Float64Array;
    for (let j = 0; j < n; j++) qpos[this.armQposAdr[j]!] = row[offset + j] ?? NaN;
    const finger = world.scene.gripper.fingerTarget(row[offset + n] ?? world.scene.gripper.open);
    for (const adr of this.fingerQposAdr) qpos[adr] = finger;
    mj.mj_kinematics(m, d);
    mj.mj_comPos(m, d);
    let clearance = MOTION_CLEARANCE_CAP;
    const p = this.pairs;
    for (let k = 0; k < p.length; k += 2) {
      const dist = mj.mj_geomDistance(m, d, p[k]!, p[k + 1]!, MOTION_CLEARANCE_CAP, null);
      if (dist < clearance || dist !== dist) clearance = dist;
    }
    out.surfaceClearance[at] = clearance;
    out.tcpHeight[at] = (d.site_xpos as Float64Array)[3 * world.tcpSiteId + 2] ?? NaN;
    mj.mj_rne(m, d, 0, this.bias);
    const g = this.bias.GetView();
    let load = 0;
    for (let j = 0; j < n; j++) {
      const t = Math.abs(g[this.armDofAdr[j]!] ?? NaN);
      if (t > load || t !== t) load = t;
    }
    out.gravityLoad[at] = load;
  }
}
