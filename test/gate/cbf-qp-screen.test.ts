/**
 * ChunkQp.screenImpliedRows frees CBF rows that the joint-limit and motion rows already imply. It is
 * exact only if every freed row holds at every feasible point; checked here against
 * - the reachable box written from its definition (|u_k − q0| ≤ (k + 1)·dq within the limits),
 * - the exact minimum of each freed row over the feasible set (the constraints are separable per
 *   joint, so that minimum is a sum of 2-D polygon minima, found by enumerating the polygon's
 *   vertices — a tighter bound than the screen's independent boxes),
 * - the optimum of the unscreened QP, from src/qp and from the dense active-set reference solver,
 * and on a row that looks far from the obstacle but is reachable within the chunk: it must stay.
 */
import { describe, expect, it } from 'vitest';
import { ChunkQp, QP_INFINITY, SCREEN_MARGIN } from '../../src/gate/cbf-qp.js';
import type { BarrierModel } from '../../src/gate/cbf-types.js';
import { QpSolver } from '../../src/qp/index.js';
import { mulberry32 } from '../../src/util/rng.js';
import { solveActiveSetQp } from './support/active-set-qp.js';

const WEIGHTS = { lambda: 5, rho: 1000 };
const TIGHT = { maxIterations: 80, epsAbs: 1e-10, epsRel: 1e-10 };

/** h_p(q) = c_p − g_p·q: a barrier whose rows do not depend on the linearisation point. */
function linearBarrier(n: number, g: number[][], c: number[]): BarrierModel {
  return {
    joints: n,
    pairs: c.length,
    h(q, out) {
      let min = Infinity;
      for (let p = 0; p < c.length; p++) {
        let s = c[p]!;
        for (let j = 0; j < n; j++) s -= g[p]![j]! * q[j]!;
        out[p] = s;
        min = Math.min(min, s);
      }
      return min;
    },
    gradient(q, hOut, grad) {
      this.h(q, hOut);
      for (let p = 0; p < c.length; p++) for (let j = 0; j < n; j++) grad[p * n + j] = -g[p]![j]!;
    },
  };
}

interface Case {
  H: number;
  n: number;
  q0: Float64Array;
  qmin: number[];
  qmax: number[];
  dq: number[];
  unom: Float64Array;
  barrier: BarrierModel;
  gamma: number;
}

/**
 * A random chunk-shaped problem: pairs with random gradients and offsets (some far, some close),
 * one pair repeated exactly (the SO-101's jaw pins give such duplicates), one with zero gradient
 * (an idle tilt face), one with the same coefficients and another offset, a nominal that walks past the motion bounds.
 */
function randomCase(seed: number): Case {
  const rnd = mulberry32(seed);
  const H = 3 + Math.floor(rnd() * 4);
  const n = 2 + Math.floor(rnd() * 2);
  const m = 4 + Math.floor(rnd() * 2);
  const qmin = Array.from({ length: n }, () => -1 - rnd());
  const qmax = Array.from({ length: n }, () => 1 + rnd());
  const dq = Array.from({ length: n }, () => 0.05 + 0.15 * rnd());
  const q0 = Float64Array.from({ length: n }, (_, j) => qmin[j]! + (0.2 + 0.6 * rnd()) * (qmax[j]! - qmin[j]!));
  const g: number[][] = [];
  const c: number[] = [];
  for (let p = 0; p < m - 3; p++) {
    const gp = Array.from({ length: n }, () => 2 * rnd() - 1);
    g.push(gp);
    // h(q0) between 0.02 and 1.5: some rows bind within the chunk, some cannot
    c.push(0.02 + 1.5 * rnd() ** 2 + gp.reduce((s, v, j) => s + v * q0[j]!, 0));
  }
  g.push([...g[0]!]);
  c.push(c[0]!);
  // the same coefficients as pair 0, 5 cm closer or further: the tighter of the two must be kept
  g.push([...g[0]!]);
  c.push(c[0]! + (rnd() < 0.5 ? -0.05 : 0.05));
  g.push(new Array<number>(n).fill(0));
  c.push(0.01);
  const unom = new Float64Array(H * n);
  const dir = Array.from({ length: n }, () => 2 * rnd() - 1);
  for (let k = 0; k < H; k++)
    for (let j = 0; j < n; j++) unom[k * n + j] = q0[j]! + (k + 1) * 0.2 * dir[j]! + 0.05 * (rnd() - 0.5);
  return { H, n, q0, qmin, qmax, dq, unom, barrier: linearBarrier(n, g, c), gamma: 0.1 + 0.3 * rnd() };
}

function build(c: Case, backOff = 0): ChunkQp {
  const qp = new ChunkQp(c.H, c.n, c.barrier.pairs);
  qp.setNominal(c.unom, c.q0, c.qmin, c.qmax, c.dq, WEIGHTS);
  qp.linearise(c.barrier, c.unom, c.q0, c.gamma, backOff);
  return qp;
}

/** Σ a_j u_kj + b_j u_{k−1,j} of CBF row (k, p), read from the problem's A (dense). */
function rowCoefficients(qp: ChunkQp, row: number): Float64Array {
  const { A } = qp.problem;
  const a = new Float64Array(A.cols);
  for (let col = 0; col < A.cols; col++)
    for (let t = A.colPtr[col]!; t < A.colPtr[col + 1]!; t++) if (A.rowIndex[t] === row) a[col] = A.values[t]!;
  return a;
}

/**
 * min of a·x + b·y over {y ∈ [ylo, yhi], x ∈ [qmin, qmax], |x − y| ≤ d} (k ≥ 1) — the exact
 * feasible set of (u_kj, u_{k−1,j}) — by enumerating the polygon's vertices.
 */
function polygonMin(a: number, b: number, ylo: number, yhi: number, lo: number, hi: number, d: number): number {
  const ys = [ylo, yhi];
  const xs = [lo, hi];
  const pts: [number, number][] = [];
  for (const y of ys) for (const x of [...xs, y - d, y + d]) pts.push([x, y]);
  for (const x of xs) for (const y of [x - d, x + d]) pts.push([x, y]);
  let best = Infinity;
  for (const [x, y] of pts) {
    const ok =
      y >= ylo - 1e-12 && y <= yhi + 1e-12 && x >= lo - 1e-12 && x <= hi + 1e-12 && Math.abs(x - y) <= d + 1e-12;
    if (ok) best = Math.min(best, a * x + b * y);
  }
  return best;
}

/** The reachable interval of u_kj from its definition. */
function reach(c: Case, k: number, j: number): [number, number] {
  return [Math.max(c.qmin[j]!, c.q0[j]! - (k + 1) * c.dq[j]!), Math.min(c.qmax[j]!, c.q0[j]! + (k + 1) * c.dq[j]!)];
}

function solve(qp: ChunkQp): Float64Array {
  const r = new QpSolver(qp.problem).solve(qp.problem, TIGHT);
  expect(r.status).toBe('solved');
  return Float64Array.from(r.x);
}

describe('ChunkQp.screenImpliedRows', () => {
  it('derives the reachable box |u_k − q0| ≤ (k + 1)·dq within the joint limits from the QP rows', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const c = randomCase(seed);
      const qp = build(c);
      qp.screenImpliedRows();
      for (let k = 0; k < c.H; k++)
        for (let j = 0; j < c.n; j++) {
          const [lo, hi] = reach(c, k, j);
          expect(qp.reachLo[k * c.n + j]).toBeCloseTo(lo, 12);
          expect(qp.reachHi[k * c.n + j]).toBeCloseTo(hi, 12);
        }
    }
  });

  it('frees only rows that hold at every feasible point (exact minimum over the feasible set)', () => {
    let freed = 0;
    let kept = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const c = randomCase(seed);
      const qp = build(c, seed % 2 ? 5e-4 : 0);
      const lower = Float64Array.from(qp.problem.l);
      qp.screenImpliedRows();
      const { H, n } = c;
      const m = c.barrier.pairs;
      for (let k = 0; k < H; k++)
        for (let p = 0; p < m; p++) {
          const row = 2 * H * n + k * m + p;
          if (!qp.screened[k * m + p]) {
            kept++;
            expect(qp.problem.l[row]).toBe(lower[row]);
            continue;
          }
          freed++;
          expect(qp.problem.l[row]).toBe(-QP_INFINITY);
          const a = rowCoefficients(qp, row);
          let least = 0;
          for (let j = 0; j < n; j++) {
            const [lo, hi] = reach(c, k, j);
            const cur = a[k * n + j]!;
            if (k === 0) least += Math.min(cur * lo, cur * hi);
            else {
              const [ylo, yhi] = reach(c, k - 1, j);
              least += polygonMin(cur, a[(k - 1) * n + j]!, ylo, yhi, lo, hi, c.dq[j]!);
            }
          }
          // either implied by the feasible set, or an exact duplicate of a kept row that is at least as tight
          if (least < lower[row]!) {
            const twin = Array.from({ length: m }, (_, r) => 2 * H * n + k * m + r).find(
              (r) =>
                r !== row &&
                !qp.screened[r - 2 * H * n] &&
                lower[r]! >= lower[row]! &&
                rowCoefficients(qp, r).every((v, i) => v === a[i]),
            );
            expect(
              twin,
              `row ${row} (k ${k}, pair ${p}) freed but reachable: min ${least} < ${lower[row]}`,
            ).toBeDefined();
          }
        }
    }
    // not vacuous: both outcomes occur
    expect(freed).toBeGreaterThan(100);
    expect(kept).toBeGreaterThan(100);
  });

  it('keeps the optimum: screened = unscreened (src/qp) = the dense active-set reference', () => {
    let worst = 0;
    let worstRef = 0;
    let active = 0;
    for (let seed = 1; seed <= 16; seed++) {
      const c = randomCase(seed);
      const full = build(c);
      const screened = build(c);
      const freed = screened.screenImpliedRows();
      expect(freed).toBeGreaterThan(0);
      const xFull = solve(full);
      const xScreened = solve(screened);
      const ref = solveActiveSetQp(full.problem);
      expect(ref.status).toBe('solved');
      for (let i = 0; i < full.nu; i++) {
        worst = Math.max(worst, Math.abs(xFull[i]! - xScreened[i]!));
        worstRef = Math.max(worstRef, Math.abs(ref.x[i]! - xScreened[i]!));
      }
      // some kept CBF row binds at the optimum (the test is not of an unconstrained QP)
      const { H, n } = c;
      const m = c.barrier.pairs;
      for (let k = 0; k < H; k++)
        for (let p = 0; p < m; p++) {
          const row = 2 * H * n + k * m + p;
          const a = rowCoefficients(full, row);
          const lhs = a.reduce((s, v, i) => s + v * ref.x[i]!, 0);
          if (lhs - full.problem.l[row]! < 1e-7) active++;
        }
    }
    expect(worst).toBeLessThan(1e-6);
    expect(worstRef).toBeLessThan(1e-6);
    expect(active).toBeGreaterThan(10);
  });

  it('keeps a row that is far at q0 but reachable later in the chunk, and the optimum rests on it', () => {
    // one joint, q0 = 0, 0.1 rad per step, an obstacle at q = 0.45 (h = 0.45 − q): 0.45 m away at
    // q0 and all along the standing-still reference, reachable from step 4 (0.5 rad) on. A screen
    // that bounded every step by one step's motion from q0 would free every row.
    const H = 8;
    const c: Case = {
      H,
      n: 1,
      q0: Float64Array.of(0),
      qmin: [-3],
      qmax: [3],
      dq: [0.1],
      unom: Float64Array.from({ length: H }, (_, k) => Math.min(1, 0.1 * (k + 1))),
      barrier: linearBarrier(1, [[1]], [0.45]),
      gamma: 1,
    };
    const qp = new ChunkQp(H, 1, 1);
    qp.setNominal(c.unom, c.q0, c.qmin, c.qmax, c.dq, WEIGHTS);
    // linearised at the standing-still chunk: every row's reference h is 0.45
    qp.linearise(c.barrier, new Float64Array(H), c.q0, c.gamma);
    const full = new ChunkQp(H, 1, 1);
    full.setNominal(c.unom, c.q0, c.qmin, c.qmax, c.dq, WEIGHTS);
    full.linearise(c.barrier, new Float64Array(H), c.q0, c.gamma);
    qp.screenImpliedRows();
    // γ = 1: row k is −u_k ≥ −0.45, implied while (k + 1)·0.1 < 0.45 − SCREEN_MARGIN
    expect(Array.from(qp.screened)).toEqual([1, 1, 1, 1, 0, 0, 0, 0]);
    expect(SCREEN_MARGIN).toBeLessThan(1e-6);
    const x = solve(qp);
    const xFull = solve(full);
    for (let k = 0; k < H; k++) expect(x[k]).toBeCloseTo(xFull[k]!, 7);
    // the nominal runs to 1 rad; the optimum stops at the obstacle
    expect(x[H - 1]).toBeCloseTo(0.45, 5);
  });

  it('keeps a row whose twin (the same coefficients) has a bound that is not a number', () => {
    // one joint, an obstacle 0.15 m away (reachable within the chunk, so the first pass keeps
    // row 0), and a second pair with the same gradient whose h is NaN: a NaN bound implies
    // nothing, so the twin with a real bound is not "the looser" of the two and stays.
    const H = 3;
    const barrier: BarrierModel = {
      joints: 1,
      pairs: 2,
      h(q, out) {
        out[0] = 0.15 - q[0]!;
        out[1] = NaN;
        return NaN;
      },
      gradient(q, hOut, grad) {
        this.h(q, hOut);
        grad[0] = -1;
        grad[1] = -1;
      },
    };
    const qp = new ChunkQp(H, 1, 2);
    const q0 = Float64Array.of(0);
    qp.setNominal(Float64Array.of(0.1, 0.2, 0.3), q0, [-3], [3], [0.1], WEIGHTS);
    qp.linearise(barrier, new Float64Array(H), q0, 0.5);
    const cbfRow = (k: number, p: number): number => 2 * H + k * 2 + p;
    qp.screenImpliedRows();
    for (let k = 0; k < H; k++) {
      expect(qp.screened[k * 2]).toBe(0);
      expect(qp.problem.l[cbfRow(k, 0)]).toBeGreaterThan(-QP_INFINITY);
    }
  });

  it('frees nothing when the box is empty (q0 outside the joint limits: the QP is infeasible as it stands)', () => {
    const c = randomCase(3);
    c.q0[0] = c.qmax[0]! + 10;
    const qp = build(c);
    const lower = Float64Array.from(qp.problem.l);
    expect(qp.screenImpliedRows()).toBe(0);
    expect(Array.from(qp.problem.l)).toEqual(Array.from(lower));
  });
});
