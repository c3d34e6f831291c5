import { describe, expect, it } from 'vitest';
import type { QpProblem } from '../../src/qp/types.js';
import { toProblem } from '../qp/support/build.js';
import { solveByActiveSetEnumeration } from '../qp/support/dense-reference.js';
import type { DenseQp } from '../qp/support/dense-reference.js';
import { gauss, rng } from '../qp/support/random-qp.js';
import { solveActiveSetQp } from './support/active-set-qp.js';

const INF = Infinity;
const solve = (qp: DenseQp, o = {}) => solveActiveSetQp(toProblem(qp), o);

/** KKT residuals of (x, y) in OSQP sign: stationarity, primal feasibility, sign and complementarity of y. */
function kktError(qp: DenseQp, x: ArrayLike<number>, y: ArrayLike<number>): number {
  let err = 0;
  for (let i = 0; i < qp.n; i++) {
    let s = qp.q[i]!;
    for (let j = 0; j < qp.n; j++) s += qp.P[i]![j]! * x[j]!;
    for (let r = 0; r < qp.A.length; r++) s += qp.A[r]![i]! * y[r]!;
    err = Math.max(err, Math.abs(s));
  }
  for (let r = 0; r < qp.A.length; r++) {
    let ax = 0;
    for (let j = 0; j < qp.n; j++) ax += qp.A[r]![j]! * x[j]!;
    err = Math.max(err, qp.l[r]! - ax, ax - qp.u[r]!);
    // y > 0 only at an active upper bound, y < 0 only at an active lower bound
    if (y[r]! > 0) err = Math.max(err, Math.min(y[r]!, Math.abs(qp.u[r]! - ax)));
    if (y[r]! < 0) err = Math.max(err, Math.min(-y[r]!, Math.abs(ax - qp.l[r]!)));
  }
  return err;
}

describe('active-set reference QP (test support)', () => {
  it('projection onto a half-plane: x + y ≤ 2 from (2, 2) gives (1, 1) with multiplier 2', () => {
    // min (x−2)² + (y−2)²  →  ½x'(2I)x + (−4, −4)'x
    const r = solve({
      n: 2,
      P: [
        [2, 0],
        [0, 2],
      ],
      q: [-4, -4],
      A: [[1, 1]],
      l: [-INF],
      u: [2],
    });
    expect(r.status).toBe('solved');
    expect(r.x[0]).toBeCloseTo(1, 12);
    expect(r.x[1]).toBeCloseTo(1, 12);
    expect(r.y[0]).toBeCloseTo(2, 12);
  });

  it("a box: min ½‖x‖² − (3, −1, 0.5)'x with 0 ≤ x ≤ 1 clips each coordinate: (1, 0, 0.5), y = (2, −1, 0)", () => {
    const r = solve({
      n: 3,
      P: [
        [1, 0, 0],
        [0, 1, 0],
        [0, 0, 1],
      ],
      q: [-3, 1, -0.5],
      A: [
        [1, 0, 0],
        [0, 1, 0],
        [0, 0, 1],
      ],
      l: [0, 0, 0],
      u: [1, 1, 1],
    });
    expect(r.status).toBe('solved');
    expect(Array.from(r.x).map((v) => +v.toFixed(12))).toEqual([1, 0, 0.5]);
    expect(Array.from(r.y).map((v) => +v.toFixed(12))).toEqual([2, -1, 0]);
  });

  it('an equality row: min x² + y² with x + 2y = 5 gives (1, 2), y = −2', () => {
    const r = solve({
      n: 2,
      P: [
        [2, 0],
        [0, 2],
      ],
      q: [0, 0],
      A: [[1, 2]],
      l: [5],
      u: [5],
    });
    expect(r.status).toBe('solved');
    expect(r.x[0]).toBeCloseTo(1, 12);
    expect(r.x[1]).toBeCloseTo(2, 12);
    expect(r.y[0]).toBeCloseTo(-2, 12); // 2x + y·1 = 0
  });

  it('a slack with linear cost only (P semidefinite, as in the CBF QP): min (u−1)² + 10ξ s.t. u + ξ ≤ 0.5, ξ ≥ 0', () => {
    // ξ = 0 is optimal when the marginal cost 10 exceeds 2(1 − u) at u = 0.5: u = 0.5, ξ = 0
    const r = solve({
      n: 2,
      P: [
        [2, 0],
        [0, 0],
      ],
      q: [-2, 10],
      A: [
        [1, 1],
        [0, 1],
      ],
      l: [-INF, 0],
      u: [0.5, INF],
    });
    expect(r.status).toBe('solved');
    expect(r.x[0]).toBeCloseTo(0.5, 12);
    expect(r.x[1]).toBeCloseTo(0, 12);
    // cheap slack: min (u−1)² + 0.2ξ s.t. u − ξ ≤ 0 (ξ buys room), ξ ≥ 0 → 2(u − 1) + 0.2 = 0 → u = ξ = 0.9
    const cheap = solve({
      n: 2,
      P: [
        [2, 0],
        [0, 0],
      ],
      q: [-2, 0.2],
      A: [
        [1, -1],
        [0, 1],
      ],
      l: [-INF, 0],
      u: [0, INF],
    });
    expect(cheap.status).toBe('solved');
    expect(cheap.x[0]).toBeCloseTo(0.9, 12);
    expect(cheap.x[1]).toBeCloseTo(0.9, 12);
  });

  it('reports an infeasible problem (x ≥ 1 and x ≤ 0) and an unbounded one (min −x, x ≥ 0)', () => {
    expect(solve({ n: 1, P: [[1]], q: [0], A: [[1], [1]], l: [1, -INF], u: [INF, 0] }).status).toBe('infeasible');
    expect(solve({ n: 1, P: [[0]], q: [-1], A: [[1]], l: [0], u: [INF] }).status).toBe('infeasible');
  });

  it('honours maxIterations and deadline', () => {
    const qp: DenseQp = {
      n: 3,
      P: [
        [1, 0, 0],
        [0, 1, 0],
        [0, 0, 1],
      ],
      q: [-3, 1, -0.5],
      A: [
        [1, 0, 0],
        [0, 1, 0],
        [0, 0, 1],
      ],
      l: [0, 0, 0],
      u: [1, 1, 1],
    };
    expect(solve(qp, { maxIterations: 1 }).status).toBe('max-iterations');
    expect(solve(qp, { deadline: () => true }).status).toBe('time-limit');
  });

  it('agrees with active-set enumeration and satisfies the KKT conditions on random strictly convex QPs', () => {
    for (let seed = 1; seed <= 60; seed++) {
      const r = rng(seed);
      const n = 2 + Math.floor(r() * 4);
      const m = 1 + Math.floor(r() * 6);
      const B = Array.from({ length: n }, () => Array.from({ length: n }, () => gauss(r)));
      const P = B.map((_, i) => B.map((__, j) => B.reduce((s, row) => s + row[i]! * row[j]!, i === j ? 0.1 : 0)));
      const A = Array.from({ length: m }, () => Array.from({ length: n }, () => gauss(r)));
      const x0 = Array.from({ length: n }, () => gauss(r));
      const l: number[] = [];
      const u: number[] = [];
      for (const row of A) {
        const v = row.reduce((s, a, j) => s + a * x0[j]!, 0);
        const k = r();
        l.push(k < 0.3 ? -INF : v - r());
        u.push(k > 0.7 ? INF : v + (k < 0.1 ? 0 : r()));
        if (k < 0.1) l[l.length - 1] = v;
      }
      const qp: DenseQp = { n, P, q: Array.from({ length: n }, () => 3 * gauss(r)), A, l, u };
      const ref = solveByActiveSetEnumeration(qp);
      const got = solve(qp);
      expect(ref.feasible).toBe(true);
      expect(got.status).toBe('solved');
      if (!ref.feasible) continue;
      for (let j = 0; j < n; j++)
        expect(Math.abs(got.x[j]! - ref.x[j]!)).toBeLessThan(1e-7 * (1 + Math.abs(ref.x[j]!)));
      expect(kktError(qp, got.x, got.y)).toBeLessThan(1e-8);
    }
  });

  it('starts from a warm start outside the feasible set and still finds the optimum', () => {
    const qp: DenseQp = {
      n: 2,
      P: [
        [2, 0],
        [0, 2],
      ],
      q: [-4, -4],
      A: [[1, 1]],
      l: [-INF],
      u: [2],
    };
    const p: QpProblem = toProblem(qp);
    const r = solveActiveSetQp(p, { warmStart: Float64Array.from([5, -7]) });
    expect(r.status).toBe('solved');
    expect(r.x[0]).toBeCloseTo(1, 12);
    expect(r.x[1]).toBeCloseTo(1, 12);
  });
});
