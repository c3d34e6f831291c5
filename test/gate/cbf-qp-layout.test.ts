/**
 * The filter's QP must be the QP src/qp is built and tested for: rebuild the problem that
 * ../shared/qp/gen-chunk-qp.mjs writes (same toy kinematics, obstacles, nominal chunk and q0) with
 * ChunkQp and compare P, q, A, l, u entry by entry.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChunkQp } from '../../src/gate/index.js';
import type { BarrierModel } from '../../src/gate/index.js';
import { sharedDir } from '../support/paths.js';

interface GenCsc { m: number; n: number; p: number[]; i: number[]; x: number[] }
interface GenProblem { n: number; m: number; P: GenCsc; q: number[]; A: GenCsc; l: number[]; u: number[]; unom: number[]; q0: number[]; meta: { H: number; n: number; pairs: number; lambda: number; rho: number; gamma: number; dq: number } }

// The generator's toy SO-101-like kinematics and obstacles (gen-chunk-qp.mjs), restated.
function fkPoints(q: ArrayLike<number>): number[][] {
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
function generatorObstacles(H: number, n: number): { c: number[]; r: number }[] {
  const qStart = [-0.6, 0.2, 0.4, 0.6, 0, 0.3, 0, 0].slice(0, n);
  const qGoal = [0.6, 0.5, 0.1, 0.9, 0.5, 0.6, 0.2, -0.2].slice(0, n);
  const t = Math.floor((H + 10) / 2);
  const s = 0.5 - 0.5 * Math.cos(Math.PI * Math.min(1, t / (H + 10)));
  const mid = fkPoints(qStart.map((v, j) => v + s * (qGoal[j]! - v)));
  return [
    { c: [mid[0]![0]! + 0.01, mid[0]![1]! - 0.01, mid[0]![2]! + 0.005], r: 0.04 },
    { c: [mid[1]![0]! + 0.06, mid[1]![1]! + 0.03, mid[1]![2]! - 0.02], r: 0.03 },
  ];
}
class ToyBarrier implements BarrierModel {
  readonly pairs = 2;
  private readonly qp: Float64Array;
  private readonly qm: Float64Array;
  constructor(readonly joints: number, private readonly obs: { c: number[]; r: number }[]) {
    this.qp = new Float64Array(joints);
    this.qm = new Float64Array(joints);
  }
  pair(q: ArrayLike<number>, p: number): number {
    const pt = fkPoints(q)[p % 4]!;
    const o = this.obs[p % this.obs.length]!;
    return Math.hypot(pt[0]! - o.c[0]!, pt[1]! - o.c[1]!, pt[2]! - o.c[2]!) - o.r - 0.03;
  }
  h(q: Float64Array, out: Float64Array): number {
    for (let p = 0; p < 2; p++) out[p] = this.pair(q, p);
    return Math.min(out[0]!, out[1]!);
  }
  gradient(q: Float64Array, hOut: Float64Array, grad: Float64Array): void {
    const e = 1e-6;
    for (let p = 0; p < 2; p++) {
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

function densify(M: { rows: number; cols: number; colPtr: ArrayLike<number>; rowIndex: ArrayLike<number>; values: ArrayLike<number> }): Float64Array {
  const D = new Float64Array(M.rows * M.cols);
  for (let j = 0; j < M.cols; j++) for (let t = M.colPtr[j]!; t < M.colPtr[j + 1]!; t++) D[M.rowIndex[t]! * M.cols + j] = M.values[t]!;
  return D;
}
const fromGen = (c: GenCsc) => ({ rows: c.m, cols: c.n, colPtr: c.p, rowIndex: c.i, values: c.x });

function expectClose(a: ArrayLike<number>, b: ArrayLike<number>, tol: number, what: string): void {
  expect(a.length, what).toBe(b.length);
  let worst = 0;
  let at = -1;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i]! - b[i]!);
    if (!(d <= worst)) {
      worst = d;
      at = i;
    }
  }
  expect(worst, `${what}: worst difference at ${at}`).toBeLessThanOrEqual(tol);
}

describe('ChunkQp matches gen-chunk-qp.mjs', () => {
  for (const [H, n, seed] of [[6, 6, 3], [5, 7, 11]] as const) {
    it(`H=${H}, n=${n}, seed ${seed}`, () => {
      const out = execFileSync(process.execPath, [join(sharedDir, 'qp/gen-chunk-qp.mjs'), '--H', String(H), '--n', String(n), '--pairs', '2', '--seed', String(seed)], { encoding: 'utf8' });
      const g = JSON.parse(out) as GenProblem;
      const qmax = [1.9, 1.75, 1.6, 1.65, 2.8, 1.0, 2.9, 2.9].slice(0, n);
      const qmin = qmax.map((v, j) => (j === 5 ? -0.1 : -v));
      const qp = new ChunkQp(H, n, 2);
      const unom = Float64Array.from(g.unom);
      const q0 = Float64Array.from(g.q0);
      qp.setNominal(unom, q0, qmin, qmax, new Array<number>(n).fill(g.meta.dq), g.meta);
      qp.linearise(new ToyBarrier(n, generatorObstacles(H, n)), unom, q0, g.meta.gamma);
      const p = qp.problem;
      expect([p.n, p.m]).toEqual([g.n, g.m]);
      expectClose(densify(p.P), densify(fromGen(g.P)), 1e-12, 'P');
      expectClose(p.q, g.q, 1e-12, 'q');
      expectClose(densify(p.A), densify(fromGen(g.A)), 1e-9, 'A');
      expectClose(p.l, g.l, 1e-9, 'l');
      expectClose(p.u, g.u, 0, 'u');
      expect(p.stageHint).toEqual({ kind: 'chunk', horizon: H, joints: n });
    });
  }
});
