/** Sparse matrix-vector products of the interior point; they write into preallocated arrays. */
import type { RowView } from './structure.js';
import type { CscMatrix } from './types.js';

/**
 * out[outOffset + i] = (A v)_i, row by row over A's values in row order (`rowValues`, gathers only).
 * The offset lets the result land in a slot of the interior point's row array.
 */
export function multiplyRows(
  m: number,
  rows: RowView,
  rowValues: Float64Array,
  v: Float64Array,
  out: Float64Array,
  outOffset: number,
): void {
  const { rowStart, column } = rows;
  let e = 0;
  for (let i = 0; i < m; i++) {
    let s = 0;
    const e1 = rowStart[i + 1]!;
    for (; e < e1; e++) s += rowValues[e]! * v[column[e]!]!;
    out[outOffset + i] = s;
  }
}

/** out = A' r, r = rows[rOffset ..], column by column over the CSC values `values` of A's pattern. */
export function multiplyTransposed(
  A: CscMatrix,
  values: Float64Array,
  rows: Float64Array,
  rOffset: number,
  out: Float64Array,
): void {
  const { colPtr, rowIndex } = A;
  const cols = A.cols;
  let t = 0;
  for (let j = 0; j < cols; j++) {
    let s = 0;
    const t1 = colPtr[j + 1]!;
    for (; t < t1; t++) s += values[t]! * rows[rOffset + rowIndex[t]!]!;
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
