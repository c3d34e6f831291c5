/**
 * QpSolveOptions.resume: a solve continues the iterate the previous solve of the same problem
 * stopped at — e.g. the chunk CBF's loose round finished at the tight tolerance. Checked on a
 * box-constrained least-distance QP whose solution is the clamp of c onto the box (hand-computed),
 * with one coupling row so that A·x is more than the identity.
 */
import { describe, expect, it } from 'vitest';
import { QpSolver } from '../../src/qp/index.js';
import { toProblem } from './support/build.js';
import { rng } from './support/random-qp.js';

const N = 12;
const big = 1e30;

/**
 * minimise ½Σ p_i x_i² − c·x over lo ≤ x ≤ hi (rows scaled by s_i, so the solver's Ruiz scaling is
 * far from the identity) and Σx ≥ floor (inactive): x_i = clamp(c_i / p_i, lo_i, hi_i)
 */
function boxProblem(seed: number) {
  const r = rng(seed);
  const p = Array.from({ length: N }, (_, i) => [0.05, 1, 30][i % 3]!);
  const s = Array.from({ length: N }, (_, i) => [200, 1, 0.01][(i + 1) % 3]!);
  const c = Array.from({ length: N }, (_, i) => p[i]! * (4 * r() - 2));
  const lo = Array.from({ length: N }, () => -1 + 0.5 * r());
  const hi = Array.from({ length: N }, () => 1 - 0.5 * r());
  const P = Array.from({ length: N }, (_, i) => Array.from({ length: N }, (_, j) => (i === j ? p[i]! : 0)));
  const A = [
    ...Array.from({ length: N }, (_, i) => Array.from({ length: N }, (_, j) => (i === j ? s[i]! : 0))),
    Array.from({ length: N }, () => 1),
  ];
  const problem = toProblem({
    n: N,
    P,
    q: c.map((v) => -v),
    A,
    l: [...lo.map((v, i) => v * s[i]!), -10 * N],
    u: [...hi.map((v, i) => v * s[i]!), big],
  });
  const solution = c.map((v, i) => Math.min(hi[i]!, Math.max(lo[i]!, v / p[i]!)));
  return { problem, solution };
}

const maxDiff = (a: ArrayLike<number>, b: readonly number[]): number => {
  let d = 0;
  for (let i = 0; i < b.length; i++) d = Math.max(d, Math.abs(a[i]! - b[i]!));
  return d;
};

describe('QpSolver resume', () => {
  it('a loose solve resumed at a tight tolerance reaches the tight solution, in fewer iterations than starting again', () => {
    for (let seed = 1; seed <= 5; seed++) {
      const { problem, solution } = boxProblem(seed);
      const solver = new QpSolver(problem);
      const fresh = solver.solve(problem, { epsAbs: 1e-9, epsRel: 1e-9 });
      expect(fresh.status).toBe('solved');
      const freshIterations = fresh.iterations;
      expect(maxDiff(fresh.x, solution)).toBeLessThan(1e-4);
      const loose = solver.solve(problem, { epsAbs: 1e-2, epsRel: 1e-2 });
      expect(loose.status).toBe('solved');
      const looseIterations = loose.iterations;
      // the loose iterate is not the solution yet
      expect(maxDiff(loose.x, solution)).toBeGreaterThan(1e-4);
      const resumed = solver.solve(problem, { epsAbs: 1e-9, epsRel: 1e-9, resume: true });
      expect(resumed.status).toBe('solved');
      expect(maxDiff(resumed.x, solution)).toBeLessThan(1e-4);
      // counted from where the loose solve stopped, not from the start
      expect(resumed.iterations).toBeLessThan(freshIterations);
      expect(looseIterations + resumed.iterations).toBeLessThanOrEqual(freshIterations + 2);
    }
  });

  it('without a previous solve that loaded the problem, resume is a numerical error, not a silent start', () => {
    const { problem } = boxProblem(7);
    const solver = new QpSolver(problem);
    const r = solver.solve(problem, { resume: true });
    expect(r.status).toBe('numerical-error');
    // a previous solve whose data did not load (NaN in q) leaves nothing to resume either
    solver.solve(problem, { epsAbs: 1e-2, epsRel: 1e-2 });
    const bad = { ...problem, q: Float64Array.from(problem.q, (v, i) => (i === 0 ? NaN : v)) };
    expect(solver.solve(bad).status).toBe('numerical-error');
    expect(solver.solve(bad, { resume: true }).status).toBe('numerical-error');
    // nor does a polished solve: its point sits on the active rows, not in the interior
    const polished = solver.solve(problem, { epsAbs: 1e-9, epsRel: 1e-9, polish: true });
    expect(polished.status).toBe('solved');
    expect(polished.polished).toBe(true);
    expect(solver.solve(problem, { resume: true }).status).toBe('numerical-error');
  });

  it('resume continues only the problem object that was loaded, not another of the same shape', () => {
    const { problem } = boxProblem(7);
    const other = { ...problem, q: Float64Array.from(problem.q, (v) => -v) };
    const solver = new QpSolver(problem);
    expect(solver.solve(problem, { epsAbs: 1e-2, epsRel: 1e-2 }).status).toBe('solved');
    const r = solver.solve(other, { epsAbs: 1e-9, epsRel: 1e-9, resume: true });
    expect(r.status === 'numerical-error' ? r.reason : r.status).toMatch(/^resume:/);
    // the loaded one still resumes
    expect(solver.solve(problem, { epsAbs: 1e-9, epsRel: 1e-9, resume: true }).status).toBe('solved');
  });
});
