/**
 * Symmetric positive definite block-tridiagonal matrix with a block Cholesky (Riccati-like)
 * factorisation: M = L L' with L block lower bidiagonal,
 *   L_0 L_0' = M_00,   G_k = M_{k,k-1} L_{k-1}^{-T},   L_k L_k' = M_kk − G_k G_k'.
 * Cost O(Σ d_k³). Blocks may have different sizes; one block is a dense Cholesky.
 *
 * Storage is in "permuted" coordinates: position p = stageStart[k] + local index. Diagonal blocks
 * are row-major d_k × d_k (lower triangle used), sub-diagonal blocks row-major d_k × d_{k-1}.
 * Everything is allocated in the constructor; assemble/factor/solve allocate nothing.
 */
export class BlockTridiagonal {
  readonly size: number;
  readonly stageCount: number;
  /** assembled matrix (diagonal blocks then sub-diagonal blocks), written by the caller */
  readonly values: Float64Array;
  /** offset of diagonal block k in `values` */
  readonly diagOffset: Int32Array;
  /** offset of sub-diagonal block (k, k-1) in `values` (k ≥ 1) */
  readonly subOffset: Int32Array;
  /** number of pivots replaced during the last factorisation (tiny or negative) */
  modifiedPivots = 0;

  private readonly factor: Float64Array;
  /** 1 / diagonal of the factor, by position (multiplications instead of divisions in the recursions) */
  private readonly invDiag: Float64Array;

  constructor(readonly stageStart: Int32Array) {
    this.stageCount = stageStart.length - 1;
    this.size = stageStart[this.stageCount]!;
    this.diagOffset = new Int32Array(this.stageCount);
    this.subOffset = new Int32Array(this.stageCount);
    let off = 0;
    for (let k = 0; k < this.stageCount; k++) {
      const d = this.blockSize(k);
      this.diagOffset[k] = off;
      off += d * d;
    }
    for (let k = 1; k < this.stageCount; k++) {
      this.subOffset[k] = off;
      off += this.blockSize(k) * this.blockSize(k - 1);
    }
    this.values = new Float64Array(off);
    this.factor = new Float64Array(off);
    this.invDiag = new Float64Array(this.size);
  }

  blockSize(k: number): number {
    return this.stageStart[k + 1]! - this.stageStart[k]!;
  }

  /** Offset in `values` of the lower-triangle element at permuted positions (p, r), p ≥ r after ordering. */
  offsetOf(p1: number, p2: number, stageOfPosition: Int32Array): number {
    let p = p1;
    let r = p2;
    if (p < r) {
      p = p2;
      r = p1;
    }
    const kp = stageOfPosition[p]!;
    const kr = stageOfPosition[r]!;
    const lp = p - this.stageStart[kp]!;
    const lr = r - this.stageStart[kr]!;
    if (kp === kr) return this.diagOffset[kp]! + lp * this.blockSize(kp) + lr;
    if (kp === kr + 1) return this.subOffset[kp]! + lp * this.blockSize(kr) + lr;
    return -1;
  }

  /** Adds `v` to every diagonal element of the assembled matrix. */
  addToDiagonal(v: number): void {
    const a = this.values;
    for (let k = 0; k < this.stageCount; k++) {
      const d = this.blockSize(k);
      const o = this.diagOffset[k]!;
      for (let i = 0; i < d; i++) a[o + i * d + i]! += v;
    }
  }

  /**
   * Factorises the assembled matrix. A pivot below `pivotFloor` times its assembled diagonal element
   * (cancellation: the matrix is numerically singular there) is replaced by a huge value, which drives that direction of the solution to zero
   * (Wright's modified Cholesky for interior-point systems); returns false on NaN/∞.
   */
  factorize(pivotFloor = 1e-14): boolean {
    const M = this.values;
    const L = this.factor;
    const inv = this.invDiag;
    L.set(M);
    this.modifiedPivots = 0;
    for (let k = 0; k < this.stageCount; k++) {
      const d = this.blockSize(k);
      const od = this.diagOffset[k]!;
      if (k > 0) {
        const dp = this.blockSize(k - 1);
        const os = this.subOffset[k]!;
        const op = this.diagOffset[k - 1]!;
        // G = M_{k,k-1} L_{k-1}^{-T}: each row g solves L_{k-1} g' = row'
        const pb = this.stageStart[k - 1]!;
        for (let r = 0; r < d; r++) {
          const gr = os + r * dp;
          for (let c = 0; c < dp; c++) {
            let s = L[gr + c]!;
            const lc = op + c * dp;
            for (let t = 0; t < c; t++) s -= L[lc + t]! * L[gr + t]!;
            L[gr + c] = s * inv[pb + c]!;
          }
        }
        // D_k = M_kk − G G' (lower triangle)
        for (let r = 0; r < d; r++) {
          const gr = os + r * dp;
          for (let c = 0; c <= r; c++) {
            const gc = os + c * dp;
            let s = 0;
            for (let t = 0; t < dp; t++) s += L[gr + t]! * L[gc + t]!;
            L[od + r * d + c]! -= s;
          }
        }
      }
      // dense Cholesky of the diagonal block, in place (lower)
      const base = this.stageStart[k]!;
      for (let j = 0; j < d; j++) {
        const rj = od + j * d;
        let s = L[rj + j]!;
        for (let t = 0; t < j; t++) s -= L[rj + t]! * L[rj + t]!;
        if (!(s > pivotFloor * Math.abs(M[rj + j]!))) {
          if (Number.isNaN(s)) return false;
          s = 1e128;
          this.modifiedPivots++;
        }
        const ljj = Math.sqrt(s);
        const il = 1 / ljj;
        L[rj + j] = ljj;
        inv[base + j] = il;
        for (let i = j + 1; i < d; i++) {
          const ri = od + i * d;
          let v = L[ri + j]!;
          for (let t = 0; t < j; t++) v -= L[ri + t]! * L[rj + t]!;
          L[ri + j] = v * il;
        }
      }
    }
    return true;
  }

  /** Solves M x = b in place (b in permuted coordinates) with the last factorisation. */
  solveInPlace(b: Float64Array): void {
    const L = this.factor;
    const inv = this.invDiag;
    const S = this.stageCount;
    // forward: L_k y_k = b_k − G_k y_{k-1}
    for (let k = 0; k < S; k++) {
      const d = this.blockSize(k);
      const base = this.stageStart[k]!;
      const od = this.diagOffset[k]!;
      if (k > 0) {
        const dp = this.blockSize(k - 1);
        const os = this.subOffset[k]!;
        const pb = this.stageStart[k - 1]!;
        for (let r = 0; r < d; r++) {
          let s = 0;
          const gr = os + r * dp;
          for (let t = 0; t < dp; t++) s += L[gr + t]! * b[pb + t]!;
          b[base + r]! -= s;
        }
      }
      for (let i = 0; i < d; i++) {
        const ri = od + i * d;
        let s = b[base + i]!;
        for (let t = 0; t < i; t++) s -= L[ri + t]! * b[base + t]!;
        b[base + i] = s * inv[base + i]!;
      }
    }
    // backward: L_k' x_k = y_k − G_{k+1}' x_{k+1} (row-oriented: contiguous reads of G and L)
    for (let k = S - 1; k >= 0; k--) {
      const d = this.blockSize(k);
      const base = this.stageStart[k]!;
      const od = this.diagOffset[k]!;
      if (k < S - 1) {
        const dn = this.blockSize(k + 1);
        const os = this.subOffset[k + 1]!;
        const nb = this.stageStart[k + 1]!;
        for (let r = 0; r < dn; r++) {
          const xr = b[nb + r]!;
          const gr = os + r * d;
          for (let c = 0; c < d; c++) b[base + c]! -= L[gr + c]! * xr;
        }
      }
      for (let i = d - 1; i >= 0; i--) {
        const ri = od + i * d;
        const xi = b[base + i]! * inv[base + i]!;
        b[base + i] = xi;
        for (let t = 0; t < i; t++) b[base + t]! -= L[ri + t]! * xi;
      }
    }
  }

  /** y = M x with the assembled matrix (permuted coordinates). */
  multiply(x: Float64Array, y: Float64Array): void {
    const M = this.values;
    y.fill(0);
    for (let k = 0; k < this.stageCount; k++) {
      const d = this.blockSize(k);
      const base = this.stageStart[k]!;
      const od = this.diagOffset[k]!;
      for (let r = 0; r < d; r++) {
        y[base + r]! += M[od + r * d + r]! * x[base + r]!;
        for (let c = 0; c < r; c++) {
          const v = M[od + r * d + c]!;
          y[base + r]! += v * x[base + c]!;
          y[base + c]! += v * x[base + r]!;
        }
      }
      if (k > 0) {
        const dp = this.blockSize(k - 1);
        const os = this.subOffset[k]!;
        const pb = this.stageStart[k - 1]!;
        for (let r = 0; r < d; r++) {
          for (let c = 0; c < dp; c++) {
            const v = M[os + r * dp + c]!;
            y[base + r]! += v * x[pb + c]!;
            y[pb + c]! += v * x[base + r]!;
          }
        }
      }
    }
  }
}
