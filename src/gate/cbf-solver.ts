/** The production QP solver for the chunk filter: src/qp's interior point, one instance per shape. */
import { QpSolver } from '../qp/index.js';
import type { QpProblem } from '../qp/types.js';
import type { QpSolverFactory } from './cbf-types.js';

/**
 * `useStageHint: false` lets src/qp detect the stage structure itself (breadth-first levels)
 * instead of taking the chunk layout hint; both factorise block-tridiagonally.
 */
export function interiorPointSolverFactory(
  options: { useStageHint: boolean } = { useStageHint: true },
): QpSolverFactory {
  return (problem) => {
    const p: QpProblem = options.useStageHint ? problem : withoutHint(problem);
    const solver = new QpSolver(p);
    return { solve: (o) => solver.solve(p, o) };
  };
}

export const interiorPointSolver: QpSolverFactory = interiorPointSolverFactory();

/** The same arrays (so in-place updates by the filter are seen), without the stage hint. */
function withoutHint(p: QpProblem): QpProblem {
  return { n: p.n, m: p.m, P: p.P, q: p.q, A: p.A, l: p.l, u: p.u };
}
