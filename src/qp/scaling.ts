import type { CscMatrix } from './types.js';

const MIN_NORM = 1e-4;
const MAX_NORM = 1e4;

function clampNorm(v: number): number {
  if (v < MIN_NORM) return 1;
  return v > MAX_NORM ? MAX_NORM : v;
}

/**
 * Modified Ruiz equilibration of the KKT matrix [P A'; A 0] plus cost scaling (as in OSQP):
 * P̄ = c·D P D, q̄ = c·D q, Ā = E A D. Works in place on the value arrays it is given, using
 * preallocated scratch, so it allocates nothing per solve.
 */
export class RuizScaling {
  /** variable scaling D (x = D x̄) */
  readonly D: Float64Array;
  /** row scaling E (Ā = E A D) */
  readonly E: Float64Array;
  /** cost scaling c */
  c = 1;
  private readonly colNorm: Float64Array;
  private readonly rowNorm: Float64Array;

  constructor(
    readonly n: number,
    readonly m: number,
    readonly iterations = 15,
  ) {
    this.D = new Float64Array(n);
    this.E = new Float64Array(m);
    this.colNorm = new Float64Array(n);
    this.rowNorm = new Float64Array(m);
  }

  /**
   * Scales `pValues` (pattern of P, upper), `aValues` (pattern of A) and `q` in place and records
   * D, E, c. Bounds are scaled separately by the caller with E.
   */
  equilibrate(P: CscMatrix, pValues: Float64Array, A: CscMatrix, aValues: Float64Array, q: Float64Array): void {
    const { n, m, D, E, colNorm, rowNorm } = this;
    // the patterns in locals: the loops below read them per entry (a maximum is exact in any order)
    const pPtr = P.colPtr;
    const pRow = P.rowIndex;
    const aPtr = A.colPtr;
    const aRow = A.rowIndex;
    D.fill(1);
    E.fill(1);
    this.c = 1;
    for (let it = 0; it < this.iterations; it++) {
      colNorm.fill(0);
      rowNorm.fill(0);
      for (let j = 0; j < n; j++) {
        let cj = colNorm[j]!;
        const p1 = pPtr[j + 1]!;
        for (let t = pPtr[j]!; t < p1; t++) {
          const i = pRow[t]!;
          const v = Math.abs(pValues[t]!);
          if (v > cj) cj = v;
          if (v > colNorm[i]!) colNorm[i] = v;
        }
        const a1 = aPtr[j + 1]!;
        for (let t = aPtr[j]!; t < a1; t++) {
          const i = aRow[t]!;
          const v = Math.abs(aValues[t]!);
          if (v > cj) cj = v;
          if (v > rowNorm[i]!) rowNorm[i] = v;
        }
        // a diagonal entry of P raised colNorm[j] itself in the loop above
        if (cj > colNorm[j]!) colNorm[j] = cj;
      }
      let converged = true;
      for (let j = 0; j < n; j++) {
        const s = 1 / Math.sqrt(clampNorm(colNorm[j]!));
        if (Math.abs(s - 1) > 1e-3) converged = false;
        colNorm[j] = s;
        D[j]! *= s;
      }
      for (let i = 0; i < m; i++) {
        const s = 1 / Math.sqrt(clampNorm(rowNorm[i]!));
        if (Math.abs(s - 1) > 1e-3) converged = false;
        rowNorm[i] = s;
        E[i]! *= s;
      }
      for (let j = 0; j < n; j++) {
        const dj = colNorm[j]!;
        const p1 = pPtr[j + 1]!;
        for (let t = pPtr[j]!; t < p1; t++) pValues[t]! *= dj * colNorm[pRow[t]!]!;
        const a1 = aPtr[j + 1]!;
        for (let t = aPtr[j]!; t < a1; t++) aValues[t]! *= dj * rowNorm[aRow[t]!]!;
        q[j]! *= dj;
      }
      if (converged) break;
    }
    // cost scaling: bring the mean column norm of P̄ and ‖q̄‖∞ to about one
    colNorm.fill(0);
    for (let j = 0; j < n; j++) {
      const p1 = pPtr[j + 1]!;
      for (let t = pPtr[j]!; t < p1; t++) {
        const i = pRow[t]!;
        const v = Math.abs(pValues[t]!);
        if (v > colNorm[j]!) colNorm[j] = v;
        if (v > colNorm[i]!) colNorm[i] = v;
      }
    }
    let mean = 0;
    let qMax = 0;
    for (let j = 0; j < n; j++) {
      mean += colNorm[j]!;
      qMax = Math.max(qMax, Math.abs(q[j]!));
    }
    mean = n > 0 ? mean / n : 0;
    const c = 1 / clampNorm(Math.max(mean, qMax));
    this.c = c;
    for (let t = 0; t < pValues.length; t++) pValues[t]! *= c;
    for (let j = 0; j < n; j++) q[j]! *= c;
  }
}
