/**
 * KKT assembly and factorisation: each Newton system of the interior point is reduced to the
 * normal equations (P + A'WA + δI) dx = r, whose matrix is block-tridiagonal in the detected stage
 * order and is factorised with {@link BlockTridiagonal}. Equality rows enter with weight 1/EQ_REG
 * (a regularised, quasi-definite KKT elimination).
 */
import { ArmguardError } from '../util/errors.js';
import { BlockTridiagonal } from './block-tridiagonal.js';
import type { QpStructure, RowView } from './structure.js';
import type { CscMatrix } from './types.js';
import { R_HASL, R_HASU, R_INVSL, R_INVSU, R_SL, R_SU, R_W, R_ZL, R_ZU } from './workspace.js';
import type { QpWorkspace } from './workspace.js';

/** equality rows enter the normal matrix with weight 1/EQ_REG (regularised KKT, scaled space) */
export const EQ_REG = 1e-9;
/** primal regularisation of the normal matrix (scaled space) */
const PRIMAL_REG = 1e-11;

/**
 * The normal matrix of one problem shape: where every product of P and A'WA lands in the
 * block-tridiagonal storage (computed once), its factor, and the permuted vector it solves in.
 */
export class NormalEquations {
  private readonly kkt: BlockTridiagonal;
  /** stage order: permuted position p holds variable order[p] */
  readonly order: Int32Array;
  /** right-hand side and solution in stage order, for {@link NormalEquations.solvePermuted} */
  readonly permuted: Float64Array;
  /** P nnz → offset in kkt.values */
  private readonly pTarget: Int32Array;
  /** kkt offset of every diagonal element, by variable */
  private readonly diagTarget: Int32Array;
  /** per row, where each product a_r a_c (r ≥ c in row order) lands in kkt.values */
  private readonly rowPairStart: Int32Array;
  private readonly pairTarget: Int32Array;
  private readonly rowStart: Int32Array;

  constructor(n: number, m: number, P: CscMatrix, rows: RowView, structure: QpStructure) {
    const st = structure;
    this.kkt = new BlockTridiagonal(st.stageStart);
    this.order = st.order;
    this.permuted = new Float64Array(n);
    this.rowStart = rows.rowStart;
    this.pTarget = new Int32Array(P.colPtr[n]!);
    for (let j = 0; j < n; j++) {
      for (let t = P.colPtr[j]!; t < P.colPtr[j + 1]!; t++) {
        this.pTarget[t] = this.kkt.offsetOf(st.positionOf[P.rowIndex[t]!]!, st.positionOf[j]!, st.stageOfPosition);
      }
    }
    this.diagTarget = new Int32Array(n);
    for (let j = 0; j < n; j++) this.diagTarget[j] = this.kkt.offsetOf(st.positionOf[j]!, st.positionOf[j]!, st.stageOfPosition);
    const rs = rows.rowStart;
    this.rowPairStart = new Int32Array(m + 1);
    for (let i = 0; i < m; i++) {
      const k = rs[i + 1]! - rs[i]!;
      this.rowPairStart[i + 1] = this.rowPairStart[i]! + (k * (k + 1)) / 2;
    }
    this.pairTarget = new Int32Array(this.rowPairStart[m]!);
    let at = 0;
    for (let i = 0; i < m; i++) {
      for (let e1 = rs[i]!; e1 < rs[i + 1]!; e1++) {
        for (let e2 = rs[i]!; e2 <= e1; e2++) {
          const off = this.kkt.offsetOf(st.positionOf[rows.column[e1]!]!, st.positionOf[rows.column[e2]!]!, st.stageOfPosition);
          if (off < 0) throw new ArmguardError(`internal: row ${i} of A does not fit the stage structure`);
          this.pairTarget[at] = off;
          at++;
        }
      }
    }
  }

  /**
   * Row weights W = zL/sL + zU/sU of the current iterate (also 1/s into R_INVSL/R_INVSU, the largest
   * weight into ws.maxWeight), then P + A'WA assembled and factorised. False if the factor is not
   * finite.
   */
  factorise(ws: QpWorkspace): boolean {
    const { m, rows: D } = ws;
    let maxWeight = 0;
    for (let i = 0; i < m; i++) {
      const il = D[R_HASL * m + i]! / D[R_SL * m + i]!;
      const iu = D[R_HASU * m + i]! / D[R_SU * m + i]!;
      D[R_INVSL * m + i] = il;
      D[R_INVSU * m + i] = iu;
      const wi = D[R_ZL * m + i]! * il + D[R_ZU * m + i]! * iu;
      D[R_W * m + i] = wi;
      if (wi > maxWeight) maxWeight = wi;
    }
    for (let k = 0; k < ws.eqCount; k++) D[R_W * m + ws.eqRows[k]!] = 1 / EQ_REG;
    if (ws.eqCount > 0 && 1 / EQ_REG > maxWeight) maxWeight = 1 / EQ_REG;
    ws.maxWeight = maxWeight;
    return this.assembleAndFactorise(ws);
  }

  /** Assembles P + A'WA (+ regularisation) in stage order from the weights in R_W and factorises it. */
  private assembleAndFactorise(ws: QpWorkspace): boolean {
    const { m, rows: D, Pv, rowValues } = ws;
    const { kkt, pTarget, rowPairStart, pairTarget, rowStart } = this;
    const M = kkt.values;
    M.fill(0);
    for (let t = 0; t < Pv.length; t++) M[pTarget[t]!]! += Pv[t]!;
    for (let j = 0; j < ws.n; j++) M[this.diagTarget[j]!]! += PRIMAL_REG;
    for (let i = 0; i < m; i++) {
      const wi = D[R_W * m + i]!;
      if (wi === 0) continue;
      let p = rowPairStart[i]!;
      const e0 = rowStart[i]!;
      const e1 = rowStart[i + 1]!;
      for (let a = e0; a < e1; a++) {
        const va = wi * rowValues[a]!;
        for (let b = e0; b <= a; b++) M[pairTarget[p++]!]! += va * rowValues[b]!;
      }
    }
    return kkt.factorize();
  }

  /** Solves with the last factor in place on {@link NormalEquations.permuted} (stage order). */
  solvePermuted(): void {
    this.kkt.solveInPlace(this.permuted);
  }
}
