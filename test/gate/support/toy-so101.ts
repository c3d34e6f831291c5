/**
 * The toy SO-101-like kinematics, obstacles and barrier of ../shared/qp/gen-chunk-qp.mjs, restated
 * as a BarrierModel (pair p: link point p mod 4 vs obstacle p mod 2; gradient by central
 * differences with step 1e-6, as the generator does). Used by the QP-layout test and the benchmark.
 */
import type { BarrierModel } from '../../../src/gate/index.js';
import { length3 } from '../../../src/kinematics/index.js';

/** The generator's four link points for q, written into out (12 numbers: 4 × xyz). */
export function fkPointsInto(q: ArrayLike<number>, out: Float64Array): void {
  const yaw = q[0]!,
    s = q[1]!,
    e = q[2]!,
    w = q[3]!;
  const L0 = 0.12,
    L1 = 0.116,
    L2 = 0.135,
    L3 = 0.1;
  const a1 = Math.PI / 2 - s,
    a2 = a1 - e,
    a3 = a2 - w;
  const r1 = L1 * Math.cos(a1),
    z1 = L0 + L1 * Math.sin(a1);
  const r2 = r1 + L2 * Math.cos(a2),
    z2 = z1 + L2 * Math.sin(a2);
  const r3 = r2 + L3 * Math.cos(a3),
    z3 = z2 + L3 * Math.sin(a3);
  const c = Math.cos(yaw),
    sn = Math.sin(yaw);
  out[0] = r3 * c;
  out[1] = r3 * sn;
  out[2] = z3;
  out[3] = r2 * c;
  out[4] = r2 * sn;
  out[5] = z2;
  const rm = (r2 + r3) / 2;
  out[6] = rm * c;
  out[7] = rm * sn;
  out[8] = (z2 + z3) / 2;
  out[9] = r1 * c;
  out[10] = r1 * sn;
  out[11] = z1;
}

export function fkPoints(q: ArrayLike<number>): number[][] {
  const out = new Float64Array(12);
  fkPointsInto(q, out);
  return [0, 1, 2, 3].map((k) => [out[3 * k]!, out[3 * k + 1]!, out[3 * k + 2]!]);
}
export function generatorObstacles(H: number, n: number, cycle = 0): { c: number[]; r: number }[] {
  const qStart = [-0.6, 0.2, 0.4, 0.6, 0, 0.3, 0, 0].slice(0, n);
  const qGoal = [0.6, 0.5, 0.1, 0.9, 0.5, 0.6, 0.2, -0.2].slice(0, n);
  const t = Math.floor((H + 10) / 2);
  const s = 0.5 - 0.5 * Math.cos(Math.PI * Math.min(1, t / (H + 10)));
  const mid = fkPoints(qStart.map((v, j) => v + s * (qGoal[j]! - v)));
  return [
    { c: [mid[0]![0]! + 0.01 + 0.002 * cycle, mid[0]![1]! - 0.01, mid[0]![2]! + 0.005], r: 0.04 },
    { c: [mid[1]![0]! + 0.06, mid[1]![1]! + 0.03, mid[1]![2]! - 0.02], r: 0.03 },
  ];
}
export class ToyBarrier implements BarrierModel {
  private readonly qp: Float64Array;
  private readonly qm: Float64Array;
  private readonly pts = new Float64Array(12);
  private readonly ptsPlus = new Float64Array(12);
  private readonly ptsMinus = new Float64Array(12);
  constructor(
    readonly joints: number,
    private readonly obs: { c: number[]; r: number }[],
    readonly pairs = 2,
  ) {
    this.qp = new Float64Array(joints);
    this.qm = new Float64Array(joints);
  }
  private pairAt(pts: Float64Array, p: number): number {
    const k = 3 * (p % 4);
    const o = this.obs[p % this.obs.length]!;
    return length3(pts[k]! - o.c[0]!, pts[k + 1]! - o.c[1]!, pts[k + 2]! - o.c[2]!) - o.r - 0.03;
  }
  pair(q: ArrayLike<number>, p: number): number {
    fkPointsInto(q, this.pts);
    return this.pairAt(this.pts, p);
  }
  h(q: Float64Array, out: Float64Array): number {
    fkPointsInto(q, this.pts);
    let min = Infinity;
    for (let p = 0; p < this.pairs; p++) {
      out[p] = this.pairAt(this.pts, p);
      min = Math.min(min, out[p]!);
    }
    return min;
  }
  /** Central differences with step 1e-6 as the generator does, one FK per perturbed q for all pairs. */
  gradient(q: Float64Array, hOut: Float64Array, grad: Float64Array): void {
    const e = 1e-6;
    this.h(q, hOut);
    for (let j = 0; j < this.joints; j++) {
      this.qp.set(q);
      this.qm.set(q);
      this.qp[j]! += e;
      this.qm[j]! -= e;
      fkPointsInto(this.qp, this.ptsPlus);
      fkPointsInto(this.qm, this.ptsMinus);
      for (let p = 0; p < this.pairs; p++)
        grad[p * this.joints + j] = (this.pairAt(this.ptsPlus, p) - this.pairAt(this.ptsMinus, p)) / (2 * e);
    }
  }
}
