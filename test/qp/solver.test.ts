import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseQpJson, QpSolver } from '../../src/qp/index.js';
import type { QpProblem } from '../../src/qp/index.js';
import { solveByActiveSetEnumeration } from './support/dense-reference.js';
import { toProblem } from './support/build.js';
import { sharedDir } from '../support/paths.js';

const file = join(sharedDir, 'qp', 'chunk_H50_n6.json');
const chunk = parseQpJson(readFileSync(file, 'utf8'), file)[0]!;

describe('QpSolver on hand-computed problems', () => {
  it('free rows drop out, and a solver reused across problems that free and bound a row answers as a fresh one', () => {
    // min ½‖x‖² − 3(x₁ + x₂ + x₃) s.t. x₁ ≤ 1, x₂ + x₃ ≤ 2 (bounded: (1, 1, 1); freed: (1, 3, 3)),
    // plus a row that is free in both, with large coefficients
    const problem = (secondFree: boolean): QpProblem =>
      toProblem({
        n: 3,
        P: [
          [1, 0, 0],
          [0, 1, 0],
          [0, 0, 1],
        ],
        q: [-3, -3, -3],
        A: [
          [1, 0, 0],
          [0, 1, 1],
          [1e3, -1e3, 5e2],
        ],
        l: [-Infinity, -Infinity, -Infinity],
        u: [1, secondFree ? Infinity : 2, Infinity],
      });
    const reused = new QpSolver(problem(false));
    for (const secondFree of [true, false, true, false]) {
      const p = problem(secondFree);
      const r = reused.solve(p);
      expect(r.status).toBe('solved');
      const want = secondFree ? [1, 3, 3] : [1, 1, 1];
      want.forEach((v, j) => expect(r.x[j]).toBeCloseTo(v, 6));
      // the free rows' multipliers are zero; the bounded rows' are −(Px + q) along them
      expect(Math.abs(r.y[2]!)).toBe(0);
      if (secondFree) expect(Math.abs(r.y[1]!)).toBe(0);
      else expect(r.y[1]).toBeCloseTo(2, 5);
      const fresh = new QpSolver(p).solve(p);
      expect(Array.from(r.x)).toEqual(Array.from(fresh.x));
      expect(r.iterations).toBe(fresh.iterations);
    }
  });

  it('equality row: min ½(x₁² + x₂²) s.t. x₁ + x₂ = 1 → (½, ½)', () => {
    const p = toProblem({
      n: 2,
      P: [
        [1, 0],
        [0, 1],
      ],
      q: [0, 0],
      A: [[1, 1]],
      l: [1],
      u: [1],
    });
    const r = new QpSolver(p).solve(p);
    expect(r.status).toBe('solved');
    expect(r.x[0]).toBeCloseTo(0.5, 8);
    expect(r.x[1]).toBeCloseTo(0.5, 8);
    expect(r.objective).toBeCloseTo(0.25, 9);
    // y = −(P x + q)/a = −½ (OSQP sign)
    expect(r.y[0]).toBeCloseTo(-0.5, 6);
  });

  it.each([Infinity, 1e20, 1e30])('one-sided rows with "no bound" = %s: min ½x² − 3x, x ≤ 2, x ≥ −5 → 2', (big) => {
    const p = toProblem({ n: 1, P: [[1]], q: [-3], A: [[1], [1]], l: [-big, -5], u: [2, big] });
    const r = new QpSolver(p).solve(p);
    expect(r.status).toBe('solved');
    expect(r.x[0]).toBeCloseTo(2, 8);
    expect(r.y[0]).toBeCloseTo(1, 6);
    expect(Math.abs(r.y[1]!)).toBeLessThan(1e-7);
  });

  it('linear cost with a bound (P = 0): min x s.t. 1 ≤ x ≤ 4 → 1', () => {
    const p = toProblem({ n: 1, P: [[0]], q: [1], A: [[1]], l: [1], u: [4] });
    const r = new QpSolver(p).solve(p);
    expect(r.status).toBe('solved');
    expect(r.x[0]).toBeCloseTo(1, 8);
  });
});

describe('QpSolver statuses and contract', () => {
  it('stops at the iteration cap with max-iterations and the last iterate', () => {
    const r = new QpSolver(chunk).solve(chunk, { maxIterations: 3 });
    expect(r.status).toBe('max-iterations');
    expect(r.iterations).toBe(3);
    expect(r.x.every(Number.isFinite)).toBe(true);
  });

  it('stops with time-limit when the caller-supplied deadline says so', () => {
    let calls = 0;
    const r = new QpSolver(chunk).solve(chunk, { deadline: () => ++calls > 4 });
    expect(r.status).toBe('time-limit');
    expect(calls).toBe(5);
    expect(r.iterations).toBe(4);
  });

  it('reports NaN data as numerical-error naming the entry, and l > u as infeasible', () => {
    const solver = new QpSolver(chunk);
    const q = Float64Array.from(chunk.q);
    q[7] = NaN;
    const r = solver.solve({ ...chunk, q });
    expect(r.status).toBe('numerical-error');
    if (r.status === 'numerical-error') expect(r.reason).toBe('q[7] is not finite');
    const l = Float64Array.from(chunk.l);
    l[3] = chunk.u[3]! + 1;
    const r2 = solver.solve({ ...chunk, l });
    expect(r2.status).toBe('infeasible');
    // and the solver is still good for the next problem
    expect(solver.solve(chunk).status).toBe('solved');
  });

  it('names the first non-finite entry of P, A or q (NaN, ±∞; first, middle and last entries; two bad ones)', () => {
    const solver = new QpSolver(chunk);
    const reason = (problem: QpProblem): string => {
      const r = solver.solve(problem);
      return r.status === 'numerical-error' ? r.reason : r.status;
    };
    const withBad = (values: Float64Array, at: readonly number[], bad: number): Float64Array => {
      const v = Float64Array.from(values);
      for (const t of at) v[t] = bad;
      return v;
    };
    const pLast = chunk.P.values.length - 1;
    const aLast = chunk.A.values.length - 1;
    for (const bad of [NaN, Infinity, -Infinity]) {
      for (const t of [0, pLast >> 1, pLast])
        expect(reason({ ...chunk, P: { ...chunk.P, values: withBad(chunk.P.values, [t], bad) } })).toBe(
          `P has a non-finite value at entry ${t}`,
        );
      for (const t of [0, aLast >> 1, aLast])
        expect(reason({ ...chunk, A: { ...chunk.A, values: withBad(chunk.A.values, [t], bad) } })).toBe(
          `A has a non-finite value at entry ${t}`,
        );
      expect(reason({ ...chunk, A: { ...chunk.A, values: withBad(chunk.A.values, [aLast, 5], bad) } })).toBe(
        'A has a non-finite value at entry 5',
      );
      expect(reason({ ...chunk, q: withBad(chunk.q, [chunk.n - 1], bad) })).toBe(`q[${chunk.n - 1}] is not finite`);
    }
    // a huge finite value is data: the solve may fail on it later, but not as a bad entry
    expect(reason({ ...chunk, A: { ...chunk.A, values: withBad(chunk.A.values, [3], 1e300) } })).not.toMatch(
      /at entry/,
    );
    expect(solver.solve(chunk).status).toBe('solved');
  });

  it('reports a q, l or u shorter than the shape as numerical-error naming the array (a missing bound is not "no bound")', () => {
    // min ½x² − 3x s.t. x ≤ 2: without the row the answer would be 3
    const p = toProblem({ n: 1, P: [[1]], q: [-3], A: [[1]], l: [-Infinity], u: [2] });
    const solver = new QpSolver(p);
    const none = new Float64Array(0);
    const failure = (problem: QpProblem): [string, string] => {
      const r = solver.solve(problem);
      return [r.status, r.status === 'solved' ? '' : r.reason];
    };
    expect(failure({ ...p, l: none, u: none })).toEqual(['numerical-error', 'l has 0 entries, expected 1']);
    expect(failure({ ...p, u: none })).toEqual(['numerical-error', 'u has 0 entries, expected 1']);
    expect(failure({ ...p, q: none })).toEqual(['numerical-error', 'q has 0 entries, expected 1']);
    const ok = solver.solve(p);
    expect(ok.status).toBe('solved');
    expect(ok.x[0]).toBeCloseTo(2, 8);
  });

  it('a NaN iteration cap stops at once with max-iterations (it is not "no cap")', () => {
    const r = new QpSolver(chunk).solve(chunk, { maxIterations: NaN });
    expect(r.status).toBe('max-iterations');
    expect(r.iterations).toBe(0);
  });

  it('refuses a problem of another shape (wiring error) and says which shapes it accepts', () => {
    const solver = new QpSolver(chunk);
    const other = toProblem({ n: 1, P: [[1]], q: [0], A: [[1]], l: [0], u: [1] });
    expect(solver.accepts(other)).toBe(false);
    expect(solver.accepts(chunk)).toBe(true);
    expect(() => solver.solve(other)).toThrowError(/shape/);
  });

  it('rejects a P with entries below the diagonal at construction', () => {
    const p: QpProblem = toProblem({
      n: 2,
      P: [
        [1, 0],
        [0, 1],
      ],
      q: [0, 0],
      A: [[1, 1]],
      l: [0],
      u: [1],
    });
    const lower = {
      ...p,
      P: {
        rows: 2,
        cols: 2,
        colPtr: Int32Array.from([0, 2, 3]),
        rowIndex: Int32Array.from([0, 1, 1]),
        values: Float64Array.from([1, 0.1, 1]),
      },
    };
    expect(() => new QpSolver(lower)).toThrowError(/below the diagonal/);
  });

  it('reports an unbounded problem (min −x₁ + x₂², x₁ ≥ 0) as dual infeasible', () => {
    const p = toProblem({
      n: 2,
      P: [
        [0, 0],
        [0, 2],
      ],
      q: [-1, 0],
      A: [[1, 0]],
      l: [0],
      u: [Infinity],
    });
    const r = new QpSolver(p).solve(p, { maxIterations: 60 });
    expect(r.status).toBe('infeasible');
    if (r.status === 'infeasible') expect(r.reason).toMatch(/^dual infeasible/);
  });

  it('returns the same result object every solve (no allocation) holding the latest answer', () => {
    const solver = new QpSolver(chunk);
    const a = solver.solve(chunk);
    const objective = a.objective;
    const b = solver.solve(chunk, { maxIterations: 2 });
    expect(b).toBe(a);
    expect(b.status).toBe('max-iterations');
    expect(b.objective).not.toBe(objective);
  });
});

describe('QpSolver on a degenerate vertex (gap-growth cycle)', () => {
  // randomStagedQp(127227023, 3, 1, 3) (fast-check seed 867734762): rows 1 (upper) and 2 (lower) are
  // active at the solution, row 3 is inactive but close to its lower bound. The old solver came near
  // the vertex where row 3 is active too, then Mehrotra's step carried row 3 across its range to the
  // upper bound and back: a three-iteration cycle with residuals at 1e-16 and the gap × 10 every
  // third step ('max-iterations' at 60 and at 200, objective −4.93 / −5.287).
  const qp = {
    n: 3,
    P: [
      [0.2886052597613933, 0.10164371323929956, 0],
      [0.10164371323929956, 0.38657012099767907, -0.1566555323013431],
      [0, -0.1566555323013431, 0.22375093314904818],
    ],
    q: [-1.7514228024629728, -2.3205660776833152, -2.735805951119],
    A: [
      [0, 0, 1.0745778770651668],
      [-1.010831846680048, -0.8118251212461054, 0],
      [0, -1.2539804407637145, 1.6899079604184357],
    ],
    l: [-1e30, -1.6917132352840605, -3.153647696686696],
    u: [0.4138887193949292, 1e30, -1.358709523774471],
  };
  const ref = solveByActiveSetEnumeration(qp);

  it('the dense active-set reference has rows 1 and 2 active at x ≈ (−0.66463, 2.91140, 0.38516)', () => {
    expect(ref.feasible).toBe(true);
    if (!ref.feasible) return;
    expect(ref.objective).toBeCloseTo(-5.299449996, 8);
    expect(ref.x[0]).toBeCloseTo(-0.66463, 4);
    expect(ref.x[1]).toBeCloseTo(2.9114, 4);
    expect(ref.x[2]).toBeCloseTo(0.38516, 4);
  });

  for (const hinted of [false, true]) {
    it(`converges to the reference ${hinted ? 'with a stage hint' : 'unhinted (level sets)'}`, () => {
      if (!ref.feasible) throw new Error('reference infeasible');
      const p = toProblem(qp, hinted ? { kind: 'stages', stageOfVariable: Int32Array.from([0, 1, 2]) } : undefined);
      const solver = new QpSolver(p);
      expect(solver.structure.kind).toBe(hinted ? 'stages' : 'levels');
      const r = solver.solve(p, { maxIterations: 60 });
      expect(r.status).toBe('solved');
      expect(Math.abs(r.objective - ref.objective)).toBeLessThanOrEqual(1e-6 * Math.abs(ref.objective));
      expect(r.maxViolation).toBeLessThanOrEqual(1e-6);
      for (let j = 0; j < 3; j++)
        expect(Math.abs(r.x[j]! - ref.x[j]!)).toBeLessThanOrEqual(1e-4 * (1 + Math.abs(ref.x[j]!)));
    });
  }
});
