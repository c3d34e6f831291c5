/** `armguard/qp`: the stage-structured QP solver (OSQP form, Float64Array, no dependencies). */
export {
  BlockTridiagonal,
  INFINITE_BOUND,
  QpSolver,
  detectStructure,
  parseQpJson,
  type CscMatrix,
  type QpProblem,
  type QpResult,
  type QpSolveOptions,
  type QpStatus,
  type QpStructure,
  type StageHint,
} from '../qp/index.js';
