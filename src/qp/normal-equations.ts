import { ArmguardError } from '../util/errors.js';
import { BlockTridiagonal } from './block-tridiagonal.js';
import { stepToBoundary } from './kernels.js';
import type { QpStructure } from './structure.js';
import {
  R_ADX,
  R_DSL,
  R_DSU,
  R_DZL,
  R_DYE,
  R_DZU,
  R_G,
  R_HASL,
  R_HASU,
  R_INVSL,
  R_INVSU,
  R_LAM,
  R_RCL,
  R_RCU,
  R_RPL,
  R_RPU,
  R_SL,
  R_SU,
  R_W,
  R_ZEROROWS,
  R_ZL,
  R_ZU,
} from './workspace.js';
import type { QpWorkspace } from './workspace.js';

/** equality rows enter the normal matrix with weight 1/EQ_REG (regularised KKT, scaled space) */
const EQ_REG = 1e-9;
/** primal regularisation of the normal matrix (scaled space) */
const PRIMAL_REG = 1e-11;

/** complementarity right-hand side of a Newton direction */
export const PREDICTOR = 0;
export const CORRECTOR = 1;
export const CENTRALITY = 2;

/**
 * The Newton systems of the interior point reduced to the normal equations (P + A'WA) dx = r,
 * whose matrix is block-tridiagonal in the detected stage order and is factorised with
 * {@link BlockTridiagonal}. Inequalities get their own slack and multiplier; equality rows enter
 * through a regularised (quasi-definite) KKT elimination with weight 1/EQ_REG. Reads and writes
 * the workspace it was built for; allocates nothing after construction.
 */
export class NormalEquations {
  private readonly ws: QpWorkspace;
  /** the normal matrix (assembled values and factor), in stage order */
  readonly kkt: BlockTridiagonal;
  /** variables in stage order */
  private readonly order: Int32Array;
  /** P nnz → offset in kkt.values */
  private readonly pTarget: Int32Array;
  /** per row, where each product a_r a_c (r ≥ c in row order) lands in kkt.values */
  private readonly rowPairStart: Int32Array;
  private readonly pairTarget: Int32Array;
  /**
   * The pairs of each row entry a (b from the row's first entry to a) as runs of consecutive
   * targets: run r adds a_a·a_b for b in [runFirst[r], runEnd[r]) to kkt.values from runTarget[r]
   * on; entry a's runs are [entryRunStart[a], entryRunStart[a + 1]). In the chunk layout a CBF row's
   * 2n + 1 entries give (2n + 1)(n + 1) pairs in 3n + 2 runs (u_{k−1}, u_k and ξ_k lie contiguously
   * in the stage blocks), so the inner loop walks a block row without a target lookup per pair.
   */
  private readonly entryRunStart: Int32Array;
  private readonly runTarget: Int32Array;
  private readonly runFirst: Int32Array;
  private readonly runEnd: Int32Array;
  /**
   * One array for the sums and the rows they are summed from: the triangle (a, b ≤ a) at
   * a(a+1)/2 + b, then four rows' values. The sum loop reads and writes only this array (V8
   * reloads every typed array's base in a loop that stores; see workspace.ts).
   */
  private readonly groupScratch: Float64Array;
  /** a group's rows with a non-zero weight (the screen frees some) and their weights, padded to a multiple of four */
  private readonly groupLive: Int32Array;
  private readonly groupWeight: Float64Array;
  /** kkt offset of every diagonal element, by variable */
  private readonly diagTarget: Int32Array;
  /** P + primal regularisation in kkt.values' layout: the same in every iteration of a solve */
  private readonly constantPart: Float64Array;

  constructor(ws: QpWorkspace, st: QpStructure) {
    this.ws = ws;
    const { n, m, P } = ws;
    const rows = ws.rowsOfA;
    this.order = st.order;
    this.kkt = new BlockTridiagonal(st.stageStart);
    const pnnz = P.colPtr[n]!;
    this.pTarget = new Int32Array(pnnz);
    for (let j = 0; j < n; j++) {
      for (let t = P.colPtr[j]!; t < P.colPtr[j + 1]!; t++) {
        this.pTarget[t] = this.kkt.offsetOf(st.positionOf[P.rowIndex[t]!]!, st.positionOf[j]!, st.stageOfPosition);
      }
    }
    this.diagTarget = new Int32Array(n);
    for (let j = 0; j < n; j++)
      this.diagTarget[j] = this.kkt.offsetOf(st.positionOf[j]!, st.positionOf[j]!, st.stageOfPosition);
    this.constantPart = new Float64Array(this.kkt.values.length);
    const rs = rows.rowStart;
    this.rowPairStart = new Int32Array(m + 1);
    for (let i = 0; i < m; i++) {
      const k = rs[i + 1]! - rs[i]!;
      this.rowPairStart[i + 1] = this.rowPairStart[i]! + (k * (k + 1)) / 2;
    }
    const npairs = this.rowPairStart[m]!;
    this.pairTarget = new Int32Array(npairs);
    let at = 0;
    for (let i = 0; i < m; i++) {
      for (let e1 = rs[i]!; e1 < rs[i + 1]!; e1++) {
        for (let e2 = rs[i]!; e2 <= e1; e2++) {
          const off = this.kkt.offsetOf(
            st.positionOf[rows.column[e1]!]!,
            st.positionOf[rows.column[e2]!]!,
            st.stageOfPosition,
          );
          if (off < 0) throw new ArmguardError(`internal: row ${i} of A does not fit the stage structure`);
          this.pairTarget[at] = off;
          at++;
        }
      }
    }
    // a row group's Σ w a a' is summed in a dense triangle and added to the normal matrix once
    const widest = rows.widestGroup;
    this.groupScratch = new Float64Array((widest * (widest + 1)) / 2 + 4 * widest);
    this.groupLive = new Int32Array(rows.tallestGroup + 3);
    this.groupWeight = new Float64Array(rows.tallestGroup + 3);
    const nnz = rs[m]!;
    this.entryRunStart = new Int32Array(nnz + 1);
    let runs = 0;
    for (let i = 0, p = 0; i < m; i++) {
      for (let a = rs[i]!; a < rs[i + 1]!; a++) {
        for (let b = rs[i]!; b <= a; b++, p++)
          if (b === rs[i]! || this.pairTarget[p] !== this.pairTarget[p - 1]! + 1) runs++;
        this.entryRunStart[a + 1] = runs;
      }
    }
    this.runTarget = new Int32Array(runs);
    this.runFirst = new Int32Array(runs);
    this.runEnd = new Int32Array(runs);
    let r = -1;
    for (let i = 0, p = 0; i < m; i++) {
      for (let a = rs[i]!; a < rs[i + 1]!; a++) {
        for (let b = rs[i]!; b <= a; b++, p++) {
          if (b === rs[i]! || this.pairTarget[p] !== this.pairTarget[p - 1]! + 1) {
            r++;
            this.runTarget[r] = this.pairTarget[p]!;
            this.runFirst[r] = b;
          }
          this.runEnd[r] = b + 1;
        }
      }
    }
  }

  /** Sets the part of the normal matrix that does not change over a solve (P, regularisation); once per solve, after the data are loaded. */
  loadConstantPart(): void {
    const { constantPart, pTarget, diagTarget } = this;
    const { n, Pv } = this.ws;
    constantPart.fill(0);
    for (let t = 0; t < Pv.length; t++) constantPart[pTarget[t]!]! += Pv[t]!;
    for (let j = 0; j < n; j++) constantPart[diagTarget[j]!]! += PRIMAL_REG;
  }

  /** Row weights W of the current iterate (and 1/s), then P + A'WA factorised; false on NaN/∞. */
  factorise(): boolean {
    const ws = this.ws;
    const { m, eqRows } = ws;
    const eqCount = ws.eqCount;
    const D = ws.rows;
    const oHasL = R_HASL * m;
    const oHasU = R_HASU * m;
    const oSL = R_SL * m;
    const oSU = R_SU * m;
    const oZL = R_ZL * m;
    const oZU = R_ZU * m;
    const oInvSL = R_INVSL * m;
    const oInvSU = R_INVSU * m;
    const oW = R_W * m;
    let maxWeight = 0;
    for (let i = 0; i < m; i++) {
      const il = D[oHasL + i]! / D[oSL + i]!;
      const iu = D[oHasU + i]! / D[oSU + i]!;
      D[oInvSL + i] = il;
      D[oInvSU + i] = iu;
      const wi = D[oZL + i]! * il + D[oZU + i]! * iu;
      D[oW + i] = wi;
      if (wi > maxWeight) maxWeight = wi;
    }
    for (let k = 0; k < eqCount; k++) D[oW + eqRows[k]!] = 1 / EQ_REG;
    if (eqCount > 0 && 1 / EQ_REG > maxWeight) maxWeight = 1 / EQ_REG;
    ws.maxWeight = maxWeight;
    return this.assembleAndFactorise();
  }

  /**
   * Factorises P + A'WA with the row weights the caller wrote into slot R_W (the active-set polish:
   * a penalty on its active rows, 0 elsewhere); false on NaN/∞. The next factorise() overwrites them.
   */
  factoriseWithWeights(): boolean {
    return this.assembleAndFactorise();
  }

  /** out = (P + A'WA)⁻¹ b with the last factorisation (b and out per variable, in variable order; out may be b). */
  solveVariables(b: Float64Array, out: Float64Array): void {
    const { n, perm } = this.ws;
    const order = this.order;
    for (let p = 0; p < n; p++) perm[p] = b[order[p]!]!;
    this.kkt.solveInPlace(perm);
    for (let p = 0; p < n; p++) out[order[p]!] = perm[p]!;
  }

  /** Assembles P + A'WA (+ regularisation, W the row slot R_W) in stage order and factorises it (P and the regularisation from loadConstantPart). */
  private assembleAndFactorise(): boolean {
    const { kkt, rowPairStart, pairTarget, entryRunStart, runTarget, runFirst, runEnd } = this;
    const { groupOfRow, groupEnd } = this.ws.rowsOfA;
    const { m, rowValues } = this.ws;
    const rowStart = this.ws.rowsOfA.rowStart;
    const R = this.ws.rows;
    const oW = R_W * m;
    const M = kkt.values;
    M.set(this.constantPart);
    for (let i = 0; i < m; i++) {
      const g = groupOfRow[i]!;
      if (g >= 0) {
        this.addGroup(g);
        i = groupEnd[g]! - 1;
        continue;
      }
      const wi = R[oW + i]!;
      if (wi === 0) continue;
      const p = rowPairStart[i]!;
      const e0 = rowStart[i]!;
      const e1 = rowStart[i + 1]!;
      if (e1 - e0 === 1) {
        // a bound on one variable (joint limits, ξ ≥ 0): one diagonal term, no pair loops
        const v = rowValues[e0]!;
        M[pairTarget[p]!]! += wi * v * v;
        continue;
      }
      if (e1 - e0 === 2) {
        // a difference of two variables (motion bounds): the three products, in the pair order below
        const v0 = rowValues[e0]!;
        const v1 = rowValues[e0 + 1]!;
        const w1 = wi * v1;
        M[pairTarget[p]!]! += wi * v0 * v0;
        M[pairTarget[p + 1]!]! += w1 * v0;
        M[pairTarget[p + 2]!]! += w1 * v1;
        continue;
      }
      // a longer row in no group: each entry's products run along contiguous stretches of a block row
      for (let a = e0; a < e1; a++) {
        const va = wi * rowValues[a]!;
        const r1 = entryRunStart[a + 1]!;
        for (let r = entryRunStart[a]!; r < r1; r++) {
          let t = runTarget[r]!;
          const b1 = runEnd[r]!;
          for (let b = runFirst[r]!; b < b1; b++) M[t++]! += va * rowValues[b]!;
        }
      }
    }
    return kkt.factorize();
  }

  /**
   * Adds Σ w a a' of row group g to the normal matrix: the rows with a weight are summed four at a
   * time in the scratch triangle (one pass over it per four rows), then the triangle is added
   * through the first row's pair targets. The last four are padded with weight-0 rows (each adds
   * exact zeros): one code path whatever the screen left weighted. A loop for the leftover rows
   * would run or not from one solve to the next as the screen frees rows, and V8 threw away the
   * interior point's optimised code the first time one ran that had not run before (seen with
   * --trace-deopt at the fragile pilot's first bent chunk).
   */
  private addGroup(g: number): void {
    const { groupLive: live, groupWeight: weight, rowPairStart, pairTarget } = this;
    const { groupFirst, groupEnd, groupWidth } = this.ws.rowsOfA;
    const X = this.groupScratch;
    const { m, rowValues } = this.ws;
    const rowStart = this.ws.rowsOfA.rowStart;
    const R = this.ws.rows;
    const oW = R_W * m;
    const first = groupFirst[g]!;
    const end = groupEnd[g]!;
    let count = 0;
    for (let r = first; r < end; r++) {
      const w = R[oW + r]!;
      if (w === 0) continue;
      live[count] = r;
      weight[count++] = w;
    }
    if (count === 0) return;
    while (count % 4 !== 0) {
      live[count] = first;
      weight[count++] = 0;
    }
    const k = groupWidth[g]!;
    const np = (k * (k + 1)) / 2;
    const o0 = np;
    const o1 = np + k;
    const o2 = np + 2 * k;
    const o3 = np + 3 * k;
    X.fill(0, 0, np);
    for (let c = 0; c < count; c += 4) {
      const w0 = weight[c]!;
      const w1 = weight[c + 1]!;
      const w2 = weight[c + 2]!;
      const w3 = weight[c + 3]!;
      const e0 = rowStart[live[c]!]!;
      const e1 = rowStart[live[c + 1]!]!;
      const e2 = rowStart[live[c + 2]!]!;
      const e3 = rowStart[live[c + 3]!]!;
      for (let a = 0; a < k; a++) {
        X[o0 + a] = rowValues[e0 + a]!;
        X[o1 + a] = rowValues[e1 + a]!;
        X[o2 + a] = rowValues[e2 + a]!;
        X[o3 + a] = rowValues[e3 + a]!;
      }
      let p = 0;
      for (let a = 0; a < k; a++) {
        const v0 = w0 * X[o0 + a]!;
        const v1 = w1 * X[o1 + a]!;
        const v2 = w2 * X[o2 + a]!;
        const v3 = w3 * X[o3 + a]!;
        for (let b = 0; b <= a; b++, p++)
          X[p] = X[p]! + v0 * X[o0 + b]! + v1 * X[o1 + b]! + v2 * X[o2 + b]! + v3 * X[o3 + b]!;
      }
    }
    const M = this.kkt.values;
    const p0 = rowPairStart[first]!;
    for (let p = 0; p < np; p++) M[pairTarget[p0 + p]!]! += X[p]!;
  }

  /**
   * Newton direction for complementarity targets rcL/rcU (s∘z − target) with the current factor:
   * solves the normal equations and recovers slack and multiplier steps; sets ws.stepMax and
   * ws.gapCurve (refinement is applied by the caller to the final direction only).
   */
  direction(mode: number): void {
    const ws = this.ws;
    const { n, m, perm, dx, eqRows } = ws;
    const eqCount = ws.eqCount;
    const order = this.order;
    const D = ws.rows;
    const oSL = R_SL * m;
    const oSU = R_SU * m;
    const oZL = R_ZL * m;
    const oZU = R_ZU * m;
    const oDSL = R_DSL * m;
    const oDZL = R_DZL * m;
    const oDSU = R_DSU * m;
    const oDZU = R_DZU * m;
    const oRCL = R_RCL * m;
    const oRCU = R_RCU * m;
    const oInvSL = R_INVSL * m;
    const oInvSU = R_INVSU * m;
    const oHasL = R_HASL * m;
    const oHasU = R_HASU * m;
    const oG = R_G * m;
    const oADX = R_ADX * m;
    const oW = R_W * m;
    const oDYE = R_DYE * m;
    const oRpLIn = R_RPL * m;
    // a centrality corrector has zero primal/dual residuals on the right-hand side
    const withResiduals = mode !== CENTRALITY;
    const oRpL = (withResiduals ? R_RPL : R_ZEROROWS) * m;
    const oRpU = (withResiduals ? R_RPU : R_ZEROROWS) * m;
    const rd = withResiduals ? ws.rd : ws.zeroVars;
    // complementarity targets rc = s∘z − target, fused with the reduced right-hand side g
    if (mode === CENTRALITY) {
      for (let i = 0; i < m; i++) D[oG + i] = D[oRCL + i]! * D[oInvSL + i]! - D[oRCU + i]! * D[oInvSU + i]!;
    } else {
      const corrector = mode === CORRECTOR;
      const sigmaMu = corrector ? ws.sigmaMu : 0;
      for (let i = 0; i < m; i++) {
        const zl = D[oZL + i]!;
        const zu = D[oZU + i]!;
        let cl = D[oSL + i]! * zl;
        let cu = D[oSU + i]! * zu;
        if (corrector) {
          cl += D[oDSL + i]! * D[oDZL + i]! - sigmaMu;
          cu += D[oDSU + i]! * D[oDZU + i]! - sigmaMu;
        }
        D[oRCL + i] = cl;
        D[oRCU + i] = cu;
        D[oG + i] = (cl + zl * D[oRpL + i]!) * D[oInvSL + i]! - (cu + zu * D[oRpU + i]!) * D[oInvSU + i]!;
      }
    }
    for (let k = 0; k < eqCount; k++) {
      const i = eqRows[k]!;
      D[oG + i] = D[oRpLIn + i]! / EQ_REG;
    }
    // −rd − A'g straight into stage order (A' column by column: the same sums as multiplyAT; g is
    // zero on free rows, so their terms are skipped)
    const { boundedColPtr: colPtr, boundedRowIndex: rowIndex, boundedValues: Av } = ws;
    for (let p = 0; p < n; p++) {
      const j = order[p]!;
      let s = 0;
      const t1 = colPtr[j + 1]!;
      for (let t = colPtr[j]!; t < t1; t++) s += Av[t]! * D[oG + rowIndex[t]!]!;
      perm[p] = -rd[j]! - s;
    }
    this.kkt.solveInPlace(perm);
    for (let p = 0; p < n; p++) dx[order[p]!] = perm[p]!;
    ws.multiplyA(dx, R_ADX);
    // recover slack and multiplier steps; fused: step to the boundary and Σ ds∘dz (the affine gap's
    // curvature; its slope Σ(s∘dz + z∘ds) = −Σ rc holds by construction)
    let alpha = 1;
    let curve = 0;
    for (let i = 0; i < m; i++) {
      const a = D[oADX + i]!;
      const sl = D[oSL + i]!;
      const su = D[oSU + i]!;
      const zl = D[oZL + i]!;
      const zu = D[oZU + i]!;
      const dl = D[oHasL + i]! * (a + D[oRpL + i]!);
      const du = D[oHasU + i]! * (D[oRpU + i]! - a);
      const el = -(D[oRCL + i]! + zl * dl) * D[oInvSL + i]!;
      const eu = -(D[oRCU + i]! + zu * du) * D[oInvSU + i]!;
      D[oDSL + i] = dl;
      D[oDZL + i] = el;
      D[oDSU + i] = du;
      D[oDZU + i] = eu;
      alpha = stepToBoundary(alpha, sl, dl);
      alpha = stepToBoundary(alpha, zl, el);
      alpha = stepToBoundary(alpha, su, du);
      alpha = stepToBoundary(alpha, zu, eu);
      curve += dl * el + du * eu;
    }
    ws.stepMax = alpha;
    ws.gapCurve = curve;
    for (let k = 0; k < eqCount; k++) {
      const i = eqRows[k]!;
      D[oDYE + i] = -(D[oW + i]! * D[oADX + i]! + D[oG + i]!);
    }
  }

  /**
   * Iterative refinement on the full Newton system. The slack and complementarity equations hold
   * exactly by construction; only stationarity P dx − A'dλ = −rd carries the error of the
   * ill-conditioned normal equations (weights z/s → ∞ near the solution). Its residual is computed
   * from the actual dλ and corrected with one more solve with the same factor.
   */
  refine(): void {
    const ws = this.ws;
    const { n, m, rhs, perm, dx, px, rd, eqRows } = ws;
    const eqCount = ws.eqCount;
    const order = this.order;
    const D = ws.rows;
    const oLam = R_LAM * m;
    const oDSL = R_DSL * m;
    const oDZL = R_DZL * m;
    const oDSU = R_DSU * m;
    const oDZU = R_DZU * m;
    const oDYE = R_DYE * m;
    const oZL = R_ZL * m;
    const oZU = R_ZU * m;
    const oInvSL = R_INVSL * m;
    const oInvSU = R_INVSU * m;
    const oHasL = R_HASL * m;
    const oHasU = R_HASU * m;
    const oADX = R_ADX * m;
    const oW = R_W * m;
    // the correction's A·d lands in the free slot R_G
    const oADC = R_G * m;
    for (let i = 0; i < m; i++) D[oLam + i] = D[oDZL + i]! - D[oDZU + i]! + D[oDYE + i]!;
    ws.multiplyP(dx, px);
    // −rd − P dx + A'λ straight into stage order (A' column by column: the same sums as multiplyAT;
    // λ is zero on free rows)
    const { boundedColPtr: colPtr, boundedRowIndex: rowIndex, boundedValues: Av } = ws;
    for (let p = 0; p < n; p++) {
      const j = order[p]!;
      let s = 0;
      const t1 = colPtr[j + 1]!;
      for (let t = colPtr[j]!; t < t1; t++) s += Av[t]! * D[oLam + rowIndex[t]!]!;
      perm[p] = -rd[j]! - px[j]! + s;
    }
    this.kkt.solveInPlace(perm);
    for (let p = 0; p < n; p++) rhs[order[p]!] = perm[p]!;
    for (let j = 0; j < n; j++) dx[j]! += rhs[j]!;
    ws.multiplyA(rhs, R_G);
    for (let i = 0; i < m; i++) {
      const da = D[oADC + i]!;
      D[oADX + i]! += da;
      D[oDSL + i]! += D[oHasL + i]! * da;
      D[oDZL + i]! -= D[oZL + i]! * D[oInvSL + i]! * da;
      D[oDSU + i]! -= D[oHasU + i]! * da;
      D[oDZU + i]! += D[oZU + i]! * D[oInvSU + i]! * da;
    }
    for (let k = 0; k < eqCount; k++) {
      const i = eqRows[k]!;
      D[oDYE + i]! -= D[oW + i]! * D[oADC + i]!;
    }
  }
}
