import { ArmguardError } from '../util/errors.js';
import type { CscMatrix } from './types.js';

/** True if both matrices have the same dimensions and sparsity pattern. */
export function samePattern(a: CscMatrix, b: CscMatrix): boolean {
  if (a.rows !== b.rows || a.cols !== b.cols) return false;
  const nnz = a.colPtr[a.cols]!;
  if (b.colPtr[b.cols] !== nnz) return false;
  for (let j = 0; j <= a.cols; j++) if (a.colPtr[j] !== b.colPtr[j]) return false;
  for (let t = 0; t < nnz; t++) if (a.rowIndex[t] !== b.rowIndex[t]) return false;
  return true;
}

/** A copy of the pattern with zeroed values. */
export function copyPattern(a: CscMatrix): CscMatrix {
  const nnz = a.colPtr[a.cols]!;
  return {
    rows: a.rows,
    cols: a.cols,
    colPtr: a.colPtr.slice(),
    rowIndex: a.rowIndex.slice(0, nnz),
    values: new Float64Array(nnz),
  };
}

/** Throws if the matrix is not a well-formed CSC matrix (setup only). */
export function validateCsc(name: string, a: CscMatrix, rows: number, cols: number, upperOnly: boolean): void {
  if (a.rows !== rows || a.cols !== cols)
    throw new ArmguardError(`${name} is ${a.rows}×${a.cols}, expected ${rows}×${cols}`);
  if (a.colPtr.length !== cols + 1 || a.colPtr[0] !== 0)
    throw new ArmguardError(`${name}.colPtr must have ${cols + 1} entries starting at 0`);
  const nnz = a.colPtr[cols]!;
  if (a.rowIndex.length < nnz || a.values.length < nnz)
    throw new ArmguardError(`${name} has ${nnz} entries per colPtr but fewer row indices/values`);
  for (let j = 0; j < cols; j++) {
    if (a.colPtr[j + 1]! < a.colPtr[j]!) throw new ArmguardError(`${name}.colPtr decreases at column ${j}`);
    let prev = -1;
    for (let t = a.colPtr[j]!; t < a.colPtr[j + 1]!; t++) {
      const i = a.rowIndex[t]!;
      if (i <= prev || i >= rows)
        throw new ArmguardError(`${name} column ${j}: row indices must be ascending, unique and < ${rows} (got ${i})`);
      if (upperOnly && i > j)
        throw new ArmguardError(`${name}(${i},${j}) lies below the diagonal; give the upper triangle only`);
      prev = i;
    }
  }
}
