/**
 * Child process of test/qp/ratio-test-deopts.test.ts, run with --trace-deopt: one solver first
 * solves box QPs whose variables have lower bounds only (the upper bounds' ratio tests never limit a
 * step), enough for V8 to optimise the solver, then QPs of the same shape with upper bounds that
 * stop the steps. Prints one line: the phase marker the test splits the trace at.
 */
import { QpSolver } from '../../../src/qp/index.js';
import type { QpProblem } from '../../../src/qp/types.js';

const n = 40;
const colPtr = Int32Array.from({ length: n + 1 }, (_, j) => j);
const rowIndex = Int32Array.from({ length: n }, (_, j) => j);
// min ½‖x‖² − c'x  s.t.  l ≤ x ≤ u, one row per variable
const problem: QpProblem = {
  n,
  m: n,
  P: { rows: n, cols: n, colPtr, rowIndex, values: new Float64Array(n).fill(1) },
  q: new Float64Array(n),
  A: { rows: n, cols: n, colPtr, rowIndex, values: new Float64Array(n).fill(1) },
  l: new Float64Array(n),
  u: new Float64Array(n),
};
const solver = new QpSolver(problem);
const options = { maxIterations: 50, epsAbs: 1e-8, epsRel: 1e-8 };
function solveAll(count: number, upper: boolean): void {
  for (let s = 0; s < count; s++) {
    for (let j = 0; j < n; j++) {
      // optimum c_j clipped to the box: half of them at a bound
      problem.q[j] = -(((j * 7 + s * 3) % 11) - 5);
      problem.l[j] = -2;
      problem.u[j] = upper ? 1 + ((j + s) % 3) * 0.5 : Infinity;
    }
    const r = solver.solve(problem, options);
    if (r.status !== 'solved') throw new Error(`solve ${s}: ${r.status}`);
  }
}
solveAll(400, false);
console.log('=== upper bounds from here');
solveAll(200, true);
