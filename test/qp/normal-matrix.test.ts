import { describe, expect, it } from 'vitest';
import { NormalEquations } from '../../src/qp/normal-equations.js';
import { detectStructure, rowView } from '../../src/qp/structure.js';
import { QpWorkspace, R_HASL, R_HASU, R_SL, R_SU, R_ZL, R_ZU } from '../../src/qp/workspace.js';
import type { QpProblem } from '../../src/qp/index.js';
import { toProblem } from './support/build.js';
import type { DenseQp } from './support/dense-reference.js';
import { gauss, randomStagedQp, rng } from './support/random-qp.js';

/**
 * The normal matrix P + A'WA (+ 1e-11 I, the primal regularisation) that NormalEquations assembles
 * block by block — one-entry rows, two-entry rows and longer rows each by their own loop — checked
 * against the same matrix built densely from its definition, through y = M x.
 */

/** Chunk layout of src/gate/cbf-qp.ts: x = [u_0..u_{H−1} (n each), ξ_0..ξ_{H−1}]; limit, motion, CBF and ξ rows. */
function chunkShapedQp(seed: number, H: number, n: number, pairs: number): DenseQp {
  const r = rng(seed);
  const nx = H * n + H;
  const P = Array.from({ length: nx }, () => new Array<number>(nx).fill(0));
  for (let k = 0; k < H; k++)
    for (let j = 0; j < n; j++) {
      const v = k * n + j;
      P[v]![v] = 2 + (k < H - 1 ? 2 : 1) * 0.5;
      if (k > 0) {
        P[v]![v - n] = -0.5;
        P[v - n]![v] = -0.5;
      }
    }
  const A: number[][] = [];
  const row = (): number[] => new Array<number>(nx).fill(0);
  for (let v = 0; v < H * n; v++) {
    const a = row();
    a[v] = 1;
    A.push(a);
  }
  for (let k = 0; k < H; k++)
    for (let j = 0; j < n; j++) {
      const a = row();
      a[k * n + j] = 1;
      if (k > 0) a[(k - 1) * n + j] = -1;
      A.push(a);
    }
  for (let k = 0; k < H; k++)
    for (let p = 0; p < pairs; p++) {
      const a = row();
      for (let j = 0; j < n; j++) {
        a[k * n + j] = gauss(r);
        if (k > 0) a[(k - 1) * n + j] = gauss(r);
      }
      a[H * n + k] = 1;
      A.push(a);
    }
  for (let k = 0; k < H; k++) {
    const a = row();
    a[H * n + k] = 1;
    A.push(a);
  }
  const m = A.length;
  return {
    n: nx,
    P,
    q: new Array<number>(nx).fill(0),
    A,
    l: new Array<number>(m).fill(-1),
    u: new Array<number>(m).fill(1),
  };
}

/**
 * `zeroRow(i)`: rows given weight 0 (a free row, as the CBF screen leaves them), on top of the
 * random zeros below.
 */
function checkNormalMatrix(
  qp: DenseQp,
  problem: QpProblem,
  seed: number,
  zeroRow: (i: number) => boolean = () => false,
): void {
  const { n } = qp;
  const m = qp.A.length;
  const rows = rowView(problem.A);
  const structure = detectStructure(problem, rows);
  const ws = new QpWorkspace(problem.P, problem.A, rows);
  ws.Pv.set(problem.P.values);
  for (let e = 0; e < rows.cscIndex.length; e++) ws.rowValues[e] = problem.A.values[rows.cscIndex[e]!]!;
  const r = rng(seed);
  const w = new Array<number>(m);
  for (let i = 0; i < m; i++) {
    // W_i = zL/sL + zU/sU; some rows with zero weight, some one-sided
    const free = zeroRow(i);
    const hasL = !free && r() < 0.8 ? 1 : 0;
    const hasU = !free && r() < 0.8 ? 1 : 0;
    const sl = 0.1 + r();
    const su = 0.1 + r();
    const zl = hasL * (r() < 0.1 ? 0 : r() * 10);
    const zu = hasU * (r() < 0.1 ? 0 : r() * 10);
    ws.rows[R_HASL * m + i] = hasL;
    ws.rows[R_HASU * m + i] = hasU;
    ws.rows[R_SL * m + i] = sl;
    ws.rows[R_SU * m + i] = su;
    ws.rows[R_ZL * m + i] = zl;
    ws.rows[R_ZU * m + i] = zu;
    w[i] = (zl * hasL) / sl + (zu * hasU) / su;
  }
  const normal = new NormalEquations(ws, structure);
  normal.loadConstantPart();
  expect(normal.factorise()).toBe(true);
  // naive: M x = P x + A'(W (A x)) + 1e-11 x, in variable order
  const x = Array.from({ length: n }, () => gauss(r));
  const ax = qp.A.map((a) => a.reduce((s, v, j) => s + v * x[j]!, 0));
  const expected = x.map((xj, j) => {
    let s = 1e-11 * xj;
    for (let t = 0; t < n; t++) s += qp.P[j]![t]! * x[t]!;
    for (let i = 0; i < m; i++) s += qp.A[i]![j]! * w[i]! * ax[i]!;
    return s;
  });
  const xPerm = new Float64Array(n);
  for (let p = 0; p < n; p++) xPerm[p] = x[structure.order[p]!]!;
  const yPerm = new Float64Array(n);
  normal.kkt.multiply(xPerm, yPerm);
  const scale = Math.max(...expected.map(Math.abs));
  for (let p = 0; p < n; p++) expect(Math.abs(yPerm[p]! - expected[structure.order[p]!]!)).toBeLessThan(1e-12 * scale);
}

describe('NormalEquations: the assembled normal matrix', () => {
  it('equals P + A′WA built densely, on chunk-shaped QPs (bound, difference and CBF rows)', () => {
    for (const [seed, H, n, pairs] of [
      [1, 4, 3, 2],
      [2, 5, 6, 3],
      [3, 3, 7, 4],
    ] as const) {
      const qp = chunkShapedQp(seed, H, n, pairs);
      checkNormalMatrix(qp, toProblem(qp, { kind: 'chunk', horizon: H, joints: n }), seed + 100);
    }
  });

  it('sums the CBF rows of a step as one group for any number of pairs, with some or all of a step’s rows free', () => {
    // pairs 1–9 reach the group's four-row, two-row and one-row passes; rows of a step are free in
    // a pattern that leaves 0..pairs of them weighted, and every row of step 1 is free
    for (let pairs = 1; pairs <= 9; pairs++) {
      const H = 4;
      const n = 3;
      const qp = chunkShapedQp(300 + pairs, H, n, pairs);
      const firstCbf = 2 * H * n;
      const free = (i: number): boolean => {
        const c = i - firstCbf;
        if (c < 0 || c >= H * pairs) return false;
        const k = Math.floor(c / pairs);
        const p = c % pairs;
        return k === 1 || (k === 2 && p % 3 === 1) || (k === 3 && p >= pairs - 2);
      };
      checkNormalMatrix(qp, toProblem(qp, { kind: 'chunk', horizon: H, joints: n }), 400 + pairs, free);
    }
  });

  it('equals P + A′WA built densely, on random staged QPs (rows of any length, level-set stages)', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const { qp } = randomStagedQp(seed, 2 + (seed % 4), 1 + (seed % 3), 10 + seed);
      checkNormalMatrix(qp, toProblem(qp), seed + 200);
    }
  });
});
