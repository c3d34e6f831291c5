/**
 * Stage-structured QP solver (pure core: Float64Array, no dependencies, no I/O, no clock).
 *
 *   const solver = new QpSolver(problem);          // once per shape: analysis + all allocation
 *   const r = solver.solve(problem, { maxIterations: 40, deadline: () => clock.now() > t1 });
 *   if (r.status === 'solved') use(r.x); else hold(r.reason);
 */
export { QpSolver } from './interior-point.js';
export { parseQpJson } from './load.js';
export { detectStructure } from './structure.js';
export type { QpStructure } from './structure.js';
export { BlockTridiagonal } from './block-tridiagonal.js';
export { INFINITE_BOUND, reusableSolveOptions } from './types.js';
export type {
  CscMatrix,
  QpProblem,
  QpResult,
  QpSolveOptions,
  QpStatus,
  ReusableQpSolveOptions,
  StageHint,
} from './types.js';
