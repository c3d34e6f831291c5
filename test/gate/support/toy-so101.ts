/**
 * The toy SO-101-like kinematics, obstacles and barrier of ../shared/qp/gen-chunk-qp.mjs, restated
 * as a BarrierModel (pair p: link point p mod 4 vs obstacle p mod 2; gradient by central
 * differences with step 1e-6, as the generator does). Used by the QP-layout test and the benchmark.
 */
import type { BarrierModel } from '../../../src/gate/index.js';

export function fkPoints(q: ArrayLike<number>): number[][] {
  const [yaw, s, e, w] = [q[0]!, q[1]!, q[2]!, q[3]!];
  const L0 = 0.12, L1 = 0.116, L2 = 0.135, L3 = 0.1;
  const a1 = Math.PI / 2 - s, a2 = a1 - e, a3 = a2 - w;
  const r1 = L1 * Math.cos(a1), z1 = L0 + L1 * Math.sin(a1);
  const r2 = r1 + L2 * Math.cos(a2), z2 = z1 + L2 * Math.sin(a2);
  const r3 = r2 + L3 * Math.cos(a3), z3 = z2 + L3 * Math.sin(a3);
  const c = Math.cos(yaw), sn = Math.sin(yaw);
  const P = (r: number, z: number) => [r * c, r * sn, z];
  return [P(r3, z3), P(r2, z2), P((r2 + r3) / 2, (z2 + z3) / 2), P(r1, z1)];
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
  constructor(
    readonly joints: number,
    private readonly obs: { c: number[]; r: number }[],
    readonly pairs = 2,
  ) {
    this.qp = new Float64Array(joints);
    this.qm = new Float64Array(joints);
  }
  pair(q: ArrayLike<number>, p: number): number {
    const pt = fkPoints(q)[p % 4]!;
    const o = this.obs[p % this.obs.length]!;
    return Math.hypot(pt[0]! - o.c[0]!, pt[1]! - o.c[1]!, pt[2]! - o.c[2]!) - o.r - 0.03;
  }
  h(q: Float64Array, out: Float64Array): number {
    let min = Infinity;
    for (let p = 0; p < this.pairs; p++) {
      out[p] = this.pair(q, p);
      min = Math.min(min, out[p]!);
    }
    return min;
  }
  gradient(q: Float64Array, hOut: Float64Array, grad: Float64Array): void {
    const e = 1e-6;
    for (let p = 0; p < this.pairs; p++) {
      hOut[p] = this.pair(q, p);
      for (let j = 0; j < this.joints; j++) {
        this.qp.set(q);
        this.qm.set(q);
        this.qp[j]! += e;
        this.qm[j]! -= e;
        grad[p * this.joints + j] = (this.pair(this.qp, p) - this.pair(this.qm, p)) / (2 * e);
      }
    }
  }
}

