/** Sparse matrix-vector products of the interior point; they write into preallocated arrays. */
import type { RowView } from './structure.js';
import type { CscMatrix } from './types.js';

/** out = A v, row by row over A's values in row order (`rowValues`, gathers only). */
export function multiplyRows(
  m: number,
  rows: RowView,
  rowValues: Float64Array,
  v: Float64Array,
  out: Float64Array,
): void {
  const { rowStart, column } = rows;
  for (let i = 0; i < m; i++) {
    let s = 0;
    for (let e = rowStart[i]!; e < rowStart[i + 1]!; e++) s += rowValues[e]! * v[column[e]!]!;
    out[i] = s;
  }
}

/** out = A' r, column by column over the CSC values `values` of A's pattern. */
export function multiplyTransposed(A: CscMatrix, values: Float64Array, r: Float64Array, out: Float64Array): void {
  for (let j = 0; j < A.cols; j++) {
    let s = 0;
    for (let t = A.colPtr[j]!; t < A.colPtr[j + 1]!; t++) s += values[t]! * r[A.rowIndex[t]!]!;
    out[j] = s;
  }
}

/** out = P v for symmetric P given as its upper triangle (pattern `P`, values `values`). */
export function multiplySymmetric(P: CscMatrix, values: Float64Array, v: Float64Array, out: Float64Array): void {
  out.fill(0);
  for (let j = 0; j < P.cols; j++) {
    const vj = v[j]!;
    for (let t = P.colPtr[j]!; t < P.colPtr[j + 1]!; t++) {
      const i = P.rowIndex[t]!;
      const pv = values[t]!;
      out[i]! += pv * vj;
      if (i !== j) out[j]! += pv * v[i]!;
    }
  }
}
