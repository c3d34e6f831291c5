/**
 * The arm's geometry along a proposed chunk from its robot description (the ChunkMotionModel of
 * the warning band on hardware; issue 15): per row, forward kinematics of the arm's capsules
 * (src/kinematics) gives the smallest surface clearance of an environment capsule to the configured
 * table plane and the tool-centre-point height, and — when the platform has a calibrated gravity
 * model — the static gravity load, max over the body joints of |g_j(q)|. Without one the load is 0
 * and `gravityModelled` is false: a commanded_load prediction then counts only what the chunk
 * commands beyond reach (callers report it so). Pure, no allocation per chunk.
 */
import type { CapsuleModel } from '../kinematics/capsules.js';
import { capsulePlaneDistance } from '../kinematics/distance.js';
import type { Vec3 } from '../kinematics/description.js';
import type { ChunkMotionModel, MotionTrace } from './warning-band.js';

/** Static joint torques at a configuration (the SO-101's calibrated free-motion model at q̇ = 0). */
export interface GravityTorques {
  /** Number of torques produced (the body joints). */
  readonly joints: number;
  /** Torques (N·m) at q (rad) and q̇ (rad/s) into out. */
  predict(q: ArrayLike<number>, qd: ArrayLike<number>, out: Float64Array): void;
}

export interface KinematicMotionOptions {
  /** The arm's capsules (its robot description with the fitted end effector). */
  readonly model: CapsuleModel;
  /** The furniture surface as a plane n·x = c in the base frame (nx, ny, nz, c; n unit, free side n·x > c). */
  readonly plane: readonly [number, number, number, number];
  /** Tool centre point: a point fixed to a chain frame (m). */
  readonly tcp: { readonly frame: number; readonly xyz: Vec3 };
  /** Gravity torques; absent: the load is 0 (not modelled). */
  readonly gravity?: GravityTorques;
}

export class KinematicChunkMotion implements ChunkMotionModel {
  readonly gravityModelled: boolean;
  private q = new Float64Array(0);
  private readonly zero: Float64Array;
  private readonly torques: Float64Array;
  private readonly point = new Float64Array(3);

  constructor(readonly o: KinematicMotionOptions) {
    const [nx, ny, nz, c] = o.plane;
    if (![nx, ny, nz, c].every(Number.isFinite) || Math.abs(Math.hypot(nx, ny, nz) - 1) > 1e-9)
      throw new RangeError(
        `kinematic motion: the plane needs a finite unit normal and offset, got ${o.plane.join(', ')}`,
      );
    if (!(o.tcp.frame >= 0 && o.tcp.frame < o.model.fk.frameCount))
      throw new RangeError(`kinematic motion: TCP frame ${o.tcp.frame} out of range`);
    this.gravityModelled = o.gravity !== undefined;
    const n = Math.max(o.model.fk.joints, o.gravity?.joints ?? 0);
    this.zero = new Float64Array(n + 1);
    this.torques = new Float64Array(o.gravity?.joints ?? 0);
  }

  trace(q0: ArrayLike<number>, targets: Float64Array, horizon: number, columns: number, out: MotionTrace): void {
    if (this.q.length !== Math.max(columns, this.zero.length))
      this.q = new Float64Array(Math.max(columns, this.zero.length));
    const q = this.q;
    q.fill(0);
    for (let j = 0; j < q.length; j++) q[j] = j < columns ? (q0[j] ?? NaN) : 0;
    this.measure(out, 0);
    for (let k = 0; k < horizon; k++) {
      for (let j = 0; j < columns; j++) q[j] = targets[k * columns + j]!;
      this.measure(out, k + 1);
    }
  }

  private measure(out: MotionTrace, at: number): void {
    const { model, plane, tcp, gravity } = this.o;
    model.update(this.q);
    let clearance = Infinity;
    const w = model.world;
    for (let i = 0; i < model.count; i++) {
      if (!model.environment[i]) continue;
      const d = capsulePlaneDistance(w, 6 * i, 6 * i + 3, model.radii[i]!, plane[0], plane[1], plane[2], plane[3]);
      if (d < clearance || d !== d) clearance = d;
      if (d !== d) break;
    }
    out.surfaceClearance[at] = clearance;
    model.fk.pointInBase(this.point, 0, tcp.frame, tcp.xyz[0], tcp.xyz[1], tcp.xyz[2]);
    out.tcpHeight[at] = this.point[2]!;
    let load = 0;
    if (gravity) {
      gravity.predict(this.q, this.zero, this.torques);
      for (let j = 0; j < this.torques.length; j++) {
        const t = Math.abs(this.torques[j]!);
        if (t > load || t !== t) load = t;
      }
    }
    out.gravityLoad[at] = load;
  }
}
