/** Sparse matrix-vector products of the interior point; they write into preallocated arrays. */
import type { RowView } from './structure.js';
import type { CscMatrix } from './types.js';

/**
 * The ratio test of a step to the boundary: the largest α' ≤ `alpha` with s + α'·d ≥ 0 (for s ≥ 0).
 * Every bound's ratio test (lower and upper slacks and multipliers, in the step length and in the
 * Newton direction) goes through this one function on purpose. V8 compiles an operation that has
 * not run before the code is optimised into a deoptimisation, and on that kind ("insufficient type
 * feedback") it keeps the code: the division for a bound kind that had not limited a step before
 * deoptimised the whole row loop again at every later such row — the fragile pilot's Panda
 * deoptimised the step length's loop some 20 times in its first three episodes (`--trace-deopt`).
 * Inlined from one function, every site shares one division's type feedback.
 */
export function stepToBoundary(alpha: number, s: number, d: number): number {
  return alpha * d < -s ? -s / d : alpha;
}

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
  const { rowStart, column, groupOfRow, groupEnd, groupWidth } = rows;
  for (let i = 0; i < m; i++) {
    const g = groupOfRow[i]!;
    if (g >= 0) {
      // a row group: four rows at a time read each column's v once; every row's sum keeps its own
      // order (the same bits as one row at a time), four chains of dependent additions in flight
      const end = groupEnd[g]!;
      const w = groupWidth[g]!;
      let r = i;
      for (; r + 3 < end; r += 4) {
        const e0 = rowStart[r]!;
        let s0 = 0;
        let s1 = 0;
        let s2 = 0;
        let s3 = 0;
        for (let t = 0; t < w; t++) {
          const x = v[column[e0 + t]!]!;
          s0 += rowValues[e0 + t]! * x;
          s1 += rowValues[e0 + w + t]! * x;
          s2 += rowValues[e0 + 2 * w + t]! * x;
          s3 += rowValues[e0 + 3 * w + t]! * x;
        }
        out[outOffset + r] = s0;
        out[outOffset + r + 1] = s1;
        out[outOffset + r + 2] = s2;
        out[outOffset + r + 3] = s3;
      }
      for (; r < end; r++) {
        const e0 = rowStart[r]!;
        let s = 0;
        for (let t = 0; t < w; t++) s += rowValues[e0 + t]! * v[column[e0 + t]!]!;
        out[outOffset + r] = s;
      }
      i = end - 1;
      continue;
    }
    let s = 0;
    const e1 = rowStart[i + 1]!;
    for (let e = rowStart[i]!; e < e1; e++) s += rowValues[e]! * v[column[e]!]!;
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
