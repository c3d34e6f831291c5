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
        // G = M_{k,k-1} L_{k-1}^{-T}: each row g solves L_{k-1} g' = row'. Four rows at a time, then
        // two, then one: each row's sums keep their order (the same bits), and the chains of
        // dependent additions run side by side (one chain alone waits on the adder's latency).
        const pb = this.stageStart[k - 1]!;
        let r = 0;
        for (; r + 3 < d; r += 4) {
          const ga = os + r * dp;
          const gb = ga + dp;
          const gc = gb + dp;
          const gd = gc + dp;
          for (let c = 0; c < dp; c++) {
            let sa = L[ga + c]!;
            let sb = L[gb + c]!;
            let sc = L[gc + c]!;
            let sd = L[gd + c]!;
            const lc = op + c * dp;
            for (let t = 0; t < c; t++) {
              const l = L[lc + t]!;
              sa -= l * L[ga + t]!;
              sb -= l * L[gb + t]!;
              sc -= l * L[gc + t]!;
              sd -= l * L[gd + t]!;
            }
            const ic = inv[pb + c]!;
            L[ga + c] = sa * ic;
            L[gb + c] = sb * ic;
            L[gc + c] = sc * ic;
            L[gd + c] = sd * ic;
          }
        }
        for (; r + 1 < d; r += 2) {
          const ga = os + r * dp;
          const gb = ga + dp;
          for (let c = 0; c < dp; c++) {
            let sa = L[ga + c]!;
            let sb = L[gb + c]!;
            const lc = op + c * dp;
            for (let t = 0; t < c; t++) {
              const l = L[lc + t]!;
              sa -= l * L[ga + t]!;
              sb -= l * L[gb + t]!;
            }
            const ic = inv[pb + c]!;
            L[ga + c] = sa * ic;
            L[gb + c] = sb * ic;
          }
        }
        for (; r < d; r++) {
          const gr = os + r * dp;
          for (let c = 0; c < dp; c++) {
            let s = L[gr + c]!;
            const lc = op + c * dp;
            for (let t = 0; t < c; t++) s -= L[lc + t]! * L[gr + t]!;
            L[gr + c] = s * inv[pb + c]!;
          }
        }
        // D_k = M_kk − G G' (lower triangle), four columns at a time, then two, then one (independent sums)
        for (let r = 0; r < d; r++) {
          const gr = os + r * dp;
          const dr = od + r * d;
          let c = 0;
          for (; c + 3 <= r; c += 4) {
            const gc = os + c * dp;
            let sa = 0;
            let sb = 0;
            let sc = 0;
            let sd = 0;
            for (let t = 0; t < dp; t++) {
              const g = L[gr + t]!;
              sa += g * L[gc + t]!;
              sb += g * L[gc + dp + t]!;
              sc += g * L[gc + 2 * dp + t]!;
              sd += g * L[gc + 3 * dp + t]!;
            }
            L[dr + c]! -= sa;
            L[dr + c + 1]! -= sb;
            L[dr + c + 2]! -= sc;
            L[dr + c + 3]! -= sd;
          }
          for (; c + 1 <= r; c += 2) {
            const gc = os + c * dp;
            const gc1 = gc + dp;
            let sa = 0;
            let sb = 0;
            for (let t = 0; t < dp; t++) {
              const g = L[gr + t]!;
              sa += g * L[gc + t]!;
              sb += g * L[gc1 + t]!;
            }
            L[dr + c]! -= sa;
            L[dr + c + 1]! -= sb;
          }
          for (; c <= r; c++) {
            const gc = os + c * dp;
            let s = 0;
            for (let t = 0; t < dp; t++) s += L[gr + t]! * L[gc + t]!;
            L[dr + c]! -= s;
          }
        }
      }
      // dense Cholesky of the diagonal block, in place (lower); the column below a pivot two rows at a time
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
        let i = j + 1;
        for (; i + 1 < d; i += 2) {
          const ra = od + i * d;
          const rb = ra + d;
          let va = L[ra + j]!;
          let vb = L[rb + j]!;
          for (let t = 0; t < j; t++) {
            const l = L[rj + t]!;
            va -= L[ra + t]! * l;
            vb -= L[rb + t]! * l;
          }
          L[ra + j] = va * il;
          L[rb + j] = vb * il;
        }
        for (; i < d; i++) {
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
        // two rows at a time: independent sums, each in its own order
        let r = 0;
        for (; r + 1 < d; r += 2) {
          let sa = 0;
          let sb = 0;
          const ga = os + r * dp;
          const gb = ga + dp;
          for (let t = 0; t < dp; t++) {
            const y = b[pb + t]!;
            sa += L[ga + t]! * y;
            sb += L[gb + t]! * y;
          }
          b[base + r]! -= sa;
          b[base + r + 1]! -= sb;
        }
        for (; r < d; r++) {
          let s = 0;
          const gr = os + r * dp;
          for (let t = 0; t < dp; t++) s += L[gr + t]! * b[pb + t]!;
          b[base + r]! -= s;
        }
      }
      // rows i and i + 1 together: row i + 1's sum runs beside row i's over t < i and takes its
      // last term (t = i) once row i is solved — the same terms in the same order
      let i = 0;
      for (; i + 1 < d; i += 2) {
        const ra = od + i * d;
        const rb = ra + d;
        let sa = b[base + i]!;
        let sb = b[base + i + 1]!;
        for (let t = 0; t < i; t++) {
          const y = b[base + t]!;
          sa -= L[ra + t]! * y;
          sb -= L[rb + t]! * y;
        }
        const ya = sa * inv[base + i]!;
        b[base + i] = ya;
        sb -= L[rb + i]! * ya;
        b[base + i + 1] = sb * inv[base + i + 1]!;
      }
      for (; i < d; i++) {
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
        // rows r and r + 1 of G' in one pass: each b_c loses the two products in the same order
        let r = 0;
        for (; r + 1 < dn; r += 2) {
          const xa = b[nb + r]!;
          const xb = b[nb + r + 1]!;
          const ga = os + r * d;
          const gb = ga + d;
          for (let c = 0; c < d; c++) b[base + c] = b[base + c]! - L[ga + c]! * xa - L[gb + c]! * xb;
        }
        for (; r < dn; r++) {
          const xr = b[nb + r]!;
          const gr = os + r * d;
          for (let c = 0; c < d; c++) b[base + c]! -= L[gr + c]! * xr;
        }
      }
      // x_i and x_{i−1} in one pass over t < i − 1 (each b_t loses the two products in the same order)
      let i = d - 1;
      for (; i >= 1; i -= 2) {
        const ra = od + i * d;
        const rb = ra - d;
        const xa = b[base + i]! * inv[base + i]!;
        b[base + i] = xa;
        const xb = (b[base + i - 1]! - L[ra + i - 1]! * xa) * inv[base + i - 1]!;
        b[base + i - 1] = xb;
        for (let t = 0; t < i - 1; t++) b[base + t] = b[base + t]! - L[ra + t]! * xa - L[rb + t]! * xb;
      }
      for (; i >= 0; i--) {
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
