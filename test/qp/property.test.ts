import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { QpSolver } from '../../src/qp/index.js';
import type { StageHint } from '../../src/qp/index.js';
import { solveByActiveSetEnumeration } from './support/dense-reference.js';
import { toProblem } from './support/build.js';
import { makeInfeasible, randomStagedQp } from './support/random-qp.js';
import type { StagedQp } from './support/random-qp.js';

const shape = fc.record({
  seed: fc.integer({ min: 0, max: 0x7fffffff }),
  stages: fc.integer({ min: 2, max: 3 }),
  size: fc.integer({ min: 1, max: 2 }),
  hinted: fc.boolean(),
});

function hintOf(s: StagedQp, hinted: boolean): StageHint | undefined {
  return hinted ? { kind: 'stages', stageOfVariable: Int32Array.from(s.stageOf) } : undefined;
}

describe('interior point vs dense active-set enumeration', () => {
  it('matches objective, solution and feasibility on random feasible stage-structured QPs', () => {
    fc.assert(
      fc.property(shape, fc.integer({ min: 1, max: 6 }), ({ seed, stages, size, hinted }, rows) => {
        const s = randomStagedQp(seed, stages, size, rows);
        const ref = solveByActiveSetEnumeration(s.qp);
        expect(ref.feasible).toBe(true);
        if (!ref.feasible) return;
        const problem = toProblem(s.qp, hintOf(s, hinted));
        const solver = new QpSolver(problem);
        expect(solver.structure.kind).toBe(hinted ? 'stages' : solver.structure.stageCount > 1 ? 'levels' : 'dense');
        const r = solver.solve(problem, { maxIterations: 60 });
        expect(r.status).toBe('solved');
        expect(Math.abs(r.objective - ref.objective)).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(ref.objective)));
        expect(r.maxViolation).toBeLessThanOrEqual(1e-6);
        for (let j = 0; j < s.qp.n; j++)
          expect(Math.abs(r.x[j]! - ref.x[j]!)).toBeLessThanOrEqual(1e-4 * (1 + Math.abs(ref.x[j]!)));
      }),
      { numRuns: 300 },
    );
  });

  // Cases found by this property (and by local sweeps of 180,000 runs), checked every run.
  // 127227023, 265071441, 767690445: the iterate cycled near a degenerate vertex, the gap growing
  // tenfold on some steps ('max-iterations'; fixed by limitGapGrowth in src/qp/interior-point.ts).
  // 1681881531, 1358452979, 522570182: an equality row with a coefficient of 7e-5 / 2e-4 / 1e-5 turns
  // the solver's row tolerance (residual ≤ 1e-9) into up to 1e-5 in x — within the contract at the
  // default tolerance (not a solver fault), so they are checked at 1e-12.
  const fixedCases = [
    { seed: 127227023, stages: 3, size: 1, hinted: false, rows: 3, eps: undefined },
    { seed: 127227023, stages: 3, size: 1, hinted: true, rows: 3, eps: undefined },
    { seed: 265071441, stages: 3, size: 2, hinted: true, rows: 4, eps: undefined },
    { seed: 767690445, stages: 3, size: 1, hinted: true, rows: 6, eps: undefined },
    { seed: 1681881531, stages: 2, size: 1, hinted: false, rows: 5, eps: 1e-12 },
    { seed: 522570182, stages: 2, size: 2, hinted: false, rows: 3, eps: 1e-12 },
    { seed: 1358452979, stages: 2, size: 2, hinted: true, rows: 4, eps: 1e-12 },
  ];
  for (const { seed, stages, size, hinted, rows, eps } of fixedCases) {
    it(`matches the reference on the found case seed ${seed} (${stages}×${size}, ${rows} rows, ${hinted ? 'hinted' : 'unhinted'})`, () => {
      const s = randomStagedQp(seed, stages, size, rows);
      const ref = solveByActiveSetEnumeration(s.qp);
      if (!ref.feasible) throw new Error('reference infeasible');
      const problem = toProblem(s.qp, hintOf(s, hinted));
      const r = new QpSolver(problem).solve(problem, { maxIterations: 60, epsAbs: eps, epsRel: eps });
      expect(r.status).toBe('solved');
      expect(Math.abs(r.objective - ref.objective)).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(ref.objective)));
      expect(r.maxViolation).toBeLessThanOrEqual(1e-6);
      for (let j = 0; j < s.qp.n; j++)
        expect(Math.abs(r.x[j]! - ref.x[j]!)).toBeLessThanOrEqual(1e-4 * (1 + Math.abs(ref.x[j]!)));
    });
  }

  it('reports infeasible when rows contradict (and the reference agrees)', () => {
    fc.assert(
      fc.property(shape, fc.integer({ min: 0, max: 3 }), ({ seed, stages, size, hinted }, rows) => {
        const s = makeInfeasible(randomStagedQp(seed, stages, size, rows), seed);
        expect(solveByActiveSetEnumeration(s.qp).feasible).toBe(false);
        const problem = toProblem(s.qp, hintOf(s, hinted));
        const r = new QpSolver(problem).solve(problem, { maxIterations: 100 });
        expect(r.status).toBe('infeasible');
      }),
      { numRuns: 100 },
    );
  });
});
