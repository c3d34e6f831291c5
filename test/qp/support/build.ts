import type { CscMatrix, QpProblem, StageHint } from '../../../src/qp/index.js';
import type { DenseQp } from './dense-reference.js';

/** CSC from a dense row-major matrix (upper triangle only if `upper`), keeping explicit pattern. */
export function denseToCsc(M: number[][], rows: number, cols: number, upper: boolean): CscMatrix {
  const colPtr = [0];
  const rowIndex: number[] = [];
  const values: number[] = [];
  for (let j = 0; j < cols; j++) {
    for (let i = 0; i < (upper ? Math.min(j + 1, rows) : rows); i++) {
      const v = M[i]![j]!;
      if (v !== 0) {
        rowIndex.push(i);
        values.push(v);
      }
    }
    colPtr.push(rowIndex.length);
  }
  return {
    rows,
    cols,
    colPtr: Int32Array.from(colPtr),
    rowIndex: Int32Array.from(rowIndex),
    values: Float64Array.from(values),
  };
}

export function toProblem(qp: DenseQp, stageHint?: StageHint): QpProblem {
  const base = {
    n: qp.n,
    m: qp.A.length,
    P: denseToCsc(qp.P, qp.n, qp.n, true),
    q: Float64Array.from(qp.q),
    A: denseToCsc(qp.A, qp.A.length, qp.n, false),
    l: Float64Array.from(qp.l),
    u: Float64Array.from(qp.u),
  };
  return stageHint === undefined ? base : { ...base, stageHint };
}
