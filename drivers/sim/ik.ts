/**
 * Damped-least-squares inverse kinematics on MuJoCo's own site Jacobians (mj_jacSite), on a
 * scratch MjData so the episode's state is untouched. Solves for the TCP site's position and
 * orientation (orientation weighted lower so a 5-DoF arm settles on the nearest reachable frame).
 */
import type { MjData, Mujoco } from './mujoco.js';
import type { Vec3 } from './scenes/types.js';
import { OBJ_JOINT, type SimWorld } from './world.js';

export interface IkResult {
  readonly positionError: number;
  readonly orientationError: number;
  readonly iterations: number;
}

/** A target frame: TCP position and the world directions of the site's x (approach) and y (finger) axes. */
export interface TcpFrame {
  readonly pos: Vec3;
  readonly approach: Vec3;
  readonly fingers: Vec3;
}

const LAMBDA = 0.02;
const ROT_WEIGHT = 0.3;
const MAX_STEP = 0.15;

export class DlsIk {
  private readonly scratch: MjData;
  private readonly nv: number;
  private readonly qposAdr: Int32Array;
  private readonly dofAdr: Int32Array;
  private readonly lo: Float64Array;
  private readonly hi: Float64Array;
  private readonly jacp: { GetView(): Float64Array; delete(): void };
  private readonly jacr: { GetView(): Float64Array; delete(): void };
  private readonly n: number;

  constructor(
    private readonly mj: Mujoco,
    private readonly world: SimWorld,
  ) {
    const m = world.model;
    this.scratch = new mj.MjData(m);
    this.nv = m.nv;
    this.n = world.nArm;
    const jq = m.jnt_qposadr as Int32Array;
    const jd = m.jnt_dofadr as Int32Array;
    const range = m.jnt_range as Float64Array;
    const ids = world.scene.armJoints.map((name) => mj.mj_name2id(m, OBJ_JOINT, name));
    this.qposAdr = Int32Array.from(ids, (j) => jq[j] ?? 0);
    this.dofAdr = Int32Array.from(ids, (j) => jd[j] ?? 0);
    this.lo = Float64Array.from(ids, (j) => range[2 * j] ?? -Math.PI);
    this.hi = Float64Array.from(ids, (j) => range[2 * j + 1] ?? Math.PI);
    this.jacp = new mj.DoubleBuffer(3 * this.nv) as unknown as { GetView(): Float64Array; delete(): void };
    this.jacr = new mj.DoubleBuffer(3 * this.nv) as unknown as { GetView(): Float64Array; delete(): void };
  }

  /** Forward kinematics of the TCP for arm joints `q`. */
  tcp(q: ArrayLike<number>, out: Float64Array): void {
    this.pose(q);
    const x = this.scratch.site_xpos as Float64Array;
    const s = this.world.tcpSiteId;
    for (let i = 0; i < 3; i++) out[i] = x[3 * s + i] ?? NaN;
  }

  /** Solve in place: `q` holds the seed on entry and the solution on return. */
  solve(target: TcpFrame, q: Float64Array, maxIterations = 300): IkResult {
    const n = this.n;
    const e = new Float64Array(6);
    const J = new Float64Array(6 * n);
    const A = new Float64Array(36);
    const y = new Float64Array(6);
    const s = this.world.tcpSiteId;
    // A parallel gripper is symmetric: closing along +fingers or −fingers is the same grasp, so
    // aim for whichever is nearer the present wrist (no needless half-turn of the last joint).
    this.pose(q);
    const xm0 = this.scratch.site_xmat as Float64Array;
    const y0: Vec3 = [xm0[9 * s + 1] ?? 0, xm0[9 * s + 4] ?? 0, xm0[9 * s + 7] ?? 0];
    const flip = y0[0] * target.fingers[0] + y0[1] * target.fingers[1] + y0[2] * target.fingers[2] < 0;
    const fingers: Vec3 = flip ? [-target.fingers[0], -target.fingers[1], -target.fingers[2]] : target.fingers;
    const zt = cross(target.approach, fingers);
    let pe = Infinity;
    let re = Infinity;
    let it = 0;
    for (; it < maxIterations; it++) {
      this.pose(q);
      const xp = this.scratch.site_xpos as Float64Array;
      const xm = this.scratch.site_xmat as Float64Array;
      for (let i = 0; i < 3; i++) e[i] = (target.pos[i] ?? 0) - (xp[3 * s + i] ?? 0);
      // Site axes are the columns of the row-major site_xmat.
      const col = (c: number): Vec3 => [xm[9 * s + c] ?? 0, xm[9 * s + 3 + c] ?? 0, xm[9 * s + 6 + c] ?? 0];
      const r = add3(add3(cross(col(0), target.approach), cross(col(1), fingers)), cross(col(2), zt));
      for (let i = 0; i < 3; i++) e[3 + i] = 0.5 * (r[i] ?? 0) * ROT_WEIGHT;
      pe = Math.hypot(e[0] ?? 0, e[1] ?? 0, e[2] ?? 0);
      re = Math.hypot(e[3] ?? 0, e[4] ?? 0, e[5] ?? 0) / ROT_WEIGHT;
      if (pe < 2e-4 && re < 2e-3) break;
      this.mj.mj_jacSite(this.world.model, this.scratch, this.jacp, this.jacr, s);
      const jp = this.jacp.GetView();
      const jr = this.jacr.GetView();
      for (let row = 0; row < 3; row++) {
        for (let c = 0; c < n; c++) {
          J[row * n + c] = jp[row * this.nv + (this.dofAdr[c] ?? 0)] ?? 0;
          J[(row + 3) * n + c] = (jr[row * this.nv + (this.dofAdr[c] ?? 0)] ?? 0) * ROT_WEIGHT;
        }
      }
      for (let a = 0; a < 6; a++) {
        for (let b = 0; b < 6; b++) {
          let sum = a === b ? LAMBDA * LAMBDA : 0;
          for (let c = 0; c < n; c++) sum += (J[a * n + c] ?? 0) * (J[b * n + c] ?? 0);
          A[a * 6 + b] = sum;
        }
      }
      y.set(e);
      solveSpd6(A, y);
      let maxStep = 0;
      const dq = new Float64Array(n);
      for (let c = 0; c < n; c++) {
        let sum = 0;
        for (let a = 0; a < 6; a++) sum += (J[a * n + c] ?? 0) * (y[a] ?? 0);
        dq[c] = sum;
        maxStep = Math.max(maxStep, Math.abs(sum));
      }
      const scale = maxStep > MAX_STEP ? MAX_STEP / maxStep : 1;
      for (let c = 0; c < n; c++) {
        q[c] = Math.min(this.hi[c] ?? Infinity, Math.max(this.lo[c] ?? -Infinity, (q[c] ?? 0) + (dq[c] ?? 0) * scale));
      }
    }
    return { positionError: pe, orientationError: re, iterations: it };
  }

  dispose(): void {
    this.jacp.delete();
    this.jacr.delete();
    this.scratch.delete();
  }

  private pose(q: ArrayLike<number>): void {
    const qpos = this.scratch.qpos as Float64Array;
    for (let c = 0; c < this.n; c++) qpos[this.qposAdr[c] ?? 0] = q[c] ?? 0;
    this.mj.mj_kinematics(this.world.model, this.scratch);
    this.mj.mj_comPos(this.world.model, this.scratch);
  }
}

function cross(a: Vec3, b: Vec3): Vec3 {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}
function add3(a: Vec3, b: Vec3): Vec3 {
  return [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
}

/** Solve A x = y in place (A symmetric positive definite 6×6, Gaussian elimination). */
function solveSpd6(A: Float64Array, y: Float64Array): void {
  const n = 6;
  for (let k = 0; k < n; k++) {
    const piv = A[k * n + k] ?? 1;
    for (let i = k + 1; i < n; i++) {
      const f = (A[i * n + k] ?? 0) / piv;
      for (let j = k; j < n; j++) A[i * n + j] = (A[i * n + j] ?? 0) - f * (A[k * n + j] ?? 0);
      y[i] = (y[i] ?? 0) - f * (y[k] ?? 0);
    }
  }
  for (let i = n - 1; i >= 0; i--) {
    let s = y[i] ?? 0;
    for (let j = i + 1; j < n; j++) s -= (A[i * n + j] ?? 0) * (y[j] ?? 0);
    y[i] = s / (A[i * n + i] ?? 1);
  }
}
