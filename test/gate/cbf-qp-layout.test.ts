/**
 * The filter's QP must be the QP src/qp is built and tested for: rebuild the problem that
 * ../shared/qp/gen-chunk-qp.mjs writes (same toy kinematics, obstacles, nominal chunk and q0) with
 * ChunkQp and compare P, q, A, l, u entry by entry.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChunkQp } from '../../src/gate/index.js';
import { LINE_BARRIER } from './support/line-barrier.js';
import { generatorObstacles, ToyBarrier } from './support/toy-so101.js';
import { sharedDir } from '../support/paths.js';

interface GenCsc {
  m: number;
  n: number;
  p: number[];
  i: number[];
  x: number[];
}
interface GenProblem {
  n: number;
  m: number;
  P: GenCsc;
  q: number[];
  A: GenCsc;
  l: number[];
  u: number[];
  unom: number[];
  q0: number[];
  meta: { H: number; n: number; pairs: number; lambda: number; rho: number; gamma: number; dq: number };
}

function densify(M: {
  rows: number;
  cols: number;
  colPtr: ArrayLike<number>;
  rowIndex: ArrayLike<number>;
  values: ArrayLike<number>;
}): Float64Array {
  const D = new Float64Array(M.rows * M.cols);
  for (let j = 0; j < M.cols; j++)
    for (let t = M.colPtr[j]!; t < M.colPtr[j + 1]!; t++) D[M.rowIndex[t]! * M.cols + j] = M.values[t]!;
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
  for (const [H, n, seed] of [
    [6, 6, 3],
    [5, 7, 11],
  ] as const) {
    it(`H=${H}, n=${n}, seed ${seed}`, () => {
      const out = execFileSync(
        process.execPath,
        [
          join(sharedDir, 'qp/gen-chunk-qp.mjs'),
          '--H',
          String(H),
          '--n',
          String(n),
          '--pairs',
          '2',
          '--seed',
          String(seed),
        ],
        { encoding: 'utf8' },
      );
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

describe('ChunkQp.linearise back-off', () => {
  // one joint, one pair, h(q) = q: the rows are u_k − 0.8·u_{k−1} ≥ 0 (row 0: u_0 ≥ 0.8·q0)
  const line = LINE_BARRIER;
  it('tightens each CBF row by min(backOff, γ·h̄_{k−1}/2), nothing else', () => {
    const H = 4;
    const q0 = Float64Array.from([0.01]);
    const ref = Float64Array.from([0.004, 0.0001, 0, -0.002]); // h̄ one step earlier: 0.01, 0.004, 0.0001, 0
    const plain = new ChunkQp(H, 1, 1);
    const tight = new ChunkQp(H, 1, 1);
    for (const qp of [plain, tight]) qp.setNominal(ref, q0, [-1], [1], [0.5], { lambda: 5, rho: 1000 });
    plain.linearise(line, ref, q0, 0.2);
    tight.linearise(line, ref, q0, 0.2, 2e-4);
    const cbf = 2 * H; // rows: limits (H), motion (H), CBF (H), slack (H)
    // by hand: γ·h̄/2 = 1e-3, 4e-4, 1e-5, 0 → capped at 2e-4 in the first two
    const expected = [2e-4, 2e-4, 1e-5, 0];
    for (let i = 0; i < tight.problem.m; i++) {
      const extra = tight.problem.l[i]! - plain.problem.l[i]!;
      if (i >= cbf && i < cbf + H) expect(extra).toBeCloseTo(expected[i - cbf]!, 15);
      else expect(extra).toBe(0);
      expect(tight.problem.u[i]).toBe(plain.problem.u[i]);
    }
    // standing still (u_k = q0, no slack) still meets every tightened row: u_0 ≥ l_0, u_k − 0.8·u_{k−1} ≥ l_k
    expect(0.01).toBeGreaterThanOrEqual(tight.problem.l[cbf]!);
    for (let k = 1; k < H; k++) expect(0.2 * 0.01).toBeGreaterThanOrEqual(tight.problem.l[cbf + k]!);
  });
});
