/**
 * Ridge least squares: minimise ‖A·x − b‖² + λ·‖D·x‖², D = column norms of A (so the ridge is scale
 * free), via the normal equations and Cholesky. Rank-deficient columns (e.g. gravity terms a joint
 * cannot feel) get 0. Calibration-time code: allocates freely.
 */
export function ridgeLeastSquares(
  A: Float64Array,
  rows: number,
  cols: number,
  b: Float64Array,
  lambda = 1e-9,
): Float64Array {
  const N = new Float64Array(cols * cols);
  const r = new Float64Array(cols);
  for (let i = 0; i < rows; i++) {
    const o = i * cols;
    const bi = b[i]!;
    for (let p = 0; p < cols; p++) {
      const ap = A[o + p]!;
      if (ap === 0) continue;
      r[p]! += ap * bi;
      for (let q = p; q < cols; q++) N[p * cols + q]! += ap * A[o + q]!;
    }
  }
  for (let p = 0; p < cols; p++) for (let q = 0; q < p; q++) N[p * cols + q] = N[q * cols + p]!;
  let maxDiag = 0;
  for (let p = 0; p < cols; p++) maxDiag = Math.max(maxDiag, N[p * cols + p]!);
  const floor = maxDiag * 1e-14;
  for (let p = 0; p < cols; p++) N[p * cols + p]! += lambda * N[p * cols + p]! + floor;
  return choleskySolve(N, cols, r);
}

/** Solve the SPD system M·x = y (M is overwritten). */
export function choleskySolve(M: Float64Array, n: number, y: Float64Array): Float64Array {
  for (let j = 0; j < n; j++) {
    let d = M[j * n + j]!;
    for (let k = 0; k < j; k++) d -= M[j * n + k]! ** 2;
    if (!(d > 0)) throw new RangeError(`matrix not positive definite at column ${j}`);
    const l = Math.sqrt(d);
    M[j * n + j] = l;
    for (let i = j + 1; i < n; i++) {
      let s = M[i * n + j]!;
      for (let k = 0; k < j; k++) s -= M[i * n + k]! * M[j * n + k]!;
      M[i * n + j] = s / l;
    }
  }
  const x = Float64Array.from(y);
  for (let i = 0; i < n; i++) {
    let s = x[i]!;
    for (let k = 0; k < i; k++) s -= M[i * n + k]! * x[k]!;
    x[i] = s / M[i * n + i]!;
  }
  for (let i = n - 1; i >= 0; i--) {
    let s = x[i]!;
    for (let k = i + 1; k < n; k++) s -= M[k * n + i]! * x[k]!;
    x[i] = s / M[i * n + i]!;
  }
  return x;
}
