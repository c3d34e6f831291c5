/**
 * Newton directions of the interior point on a factorised normal matrix: the predictor and
 * Mehrotra corrector, Gondzio's centrality correctors, iterative refinement on the full Newton
 * system, and the longest step to the boundary. Results go into the workspace (dx, R_DSL..R_DZU,
 * R_ADX, R_DYE, ws.stepMax, ws.gapCurve).
 */
import { multiplyRows, multiplySymmetric, multiplyTransposed } from './kernels.js';
import { EQ_REG } from './normal-equations.js';
import type { NormalEquations } from './normal-equations.js';
import type { RowView } from './structure.js';
import type { CscMatrix } from './types.js';
import {
  R_ADX, R_DSL, R_DSU, R_DYE, R_DZL, R_DZU, R_G, R_HASL, R_HASU, R_INVSL, R_INVSU, R_KEEP_ADX, R_KEEP_DSL, R_KEEP_DYE,
  R_LAM, R_RCL, R_RCU, R_RPL, R_RPU, R_SL, R_SU, R_W, R_ZEROROWS, R_ZL, R_ZU,
} from './workspace.js';
import type { QpWorkspace } from './workspace.js';

/** complementarity right-hand side of a Newton direction */
export const PREDICTOR = 0;
export const CORRECTOR = 1;
export const CENTRALITY = 2;

const GONDZIO_BETA_MIN = 0.1;
const GONDZIO_BETA_MAX = 10;

/** Gondzio's target change of a complementarity product v: into [lo, hi], large ones by at most hi */
function centralityTarget(v: number, lo: number, hi: number): number {
  if (v < lo) return lo - v;
  if (v > hi) return Math.max(hi - v, -hi);
  return 0;
}

export class NewtonDirection {
  constructor(
    private readonly ws: QpWorkspace,
    private readonly normal: NormalEquations,
    private readonly P: CscMatrix,
    private readonly A: CscMatrix,
    private readonly rowView: RowView,
  ) {}

  /**
   * Newton direction for complementarity targets R_RCL/R_RCU (s∘z − target): PREDICTOR (affine,
   * target 0), CORRECTOR (Mehrotra: σμ = ws.sigmaMu plus the second-order term of the direction in
   * the workspace) or CENTRALITY (targets already in R_RCL/R_RCU, zero residuals). Solves the
   * normal equations and recovers slack and multiplier steps (refinement is applied by the caller
   * to the final direction only).
   */
  compute(mode: number): void {
    const ws = this.ws;
    const { n, m, rhs, dx, rows: D } = ws;
    const order = this.normal.order;
    const perm = this.normal.permuted;
    // a centrality corrector has zero primal/dual residuals on the right-hand side
    const withResiduals = mode !== CENTRALITY;
    const oRpL = (withResiduals ? R_RPL : R_ZEROROWS) * m;
    const oRpU = (withResiduals ? R_RPU : R_ZEROROWS) * m;
    const rd = withResiduals ? ws.rd : ws.zeroVars;
    // complementarity targets rc = s∘z − target, fused with the reduced right-hand side g
    if (mode === CENTRALITY) {
      for (let i = 0; i < m; i++) D[R_G * m + i] = D[R_RCL * m + i]! * D[R_INVSL * m + i]! - D[R_RCU * m + i]! * D[R_INVSU * m + i]!;
    } else {
      const corrector = mode === CORRECTOR;
      const sigmaMu = corrector ? ws.sigmaMu : 0;
      for (let i = 0; i < m; i++) {
        const zl = D[R_ZL * m + i]!;
        const zu = D[R_ZU * m + i]!;
        let cl = D[R_SL * m + i]! * zl;
        let cu = D[R_SU * m + i]! * zu;
        if (corrector) {
          cl += D[R_DSL * m + i]! * D[R_DZL * m + i]! - sigmaMu;
          cu += D[R_DSU * m + i]! * D[R_DZU * m + i]! - sigmaMu;
        }
        D[R_RCL * m + i] = cl;
        D[R_RCU * m + i] = cu;
        D[R_G * m + i] = (cl + zl * D[oRpL + i]!) * D[R_INVSL * m + i]! - (cu + zu * D[oRpU + i]!) * D[R_INVSU * m + i]!;
      }
    }
    for (let k = 0; k < ws.eqCount; k++) {
      const i = ws.eqRows[k]!;
      D[R_G * m + i] = D[R_RPL * m + i]! / EQ_REG;
    }
    multiplyTransposed(this.A, ws.Av, D, R_G * m, rhs);
    for (let p = 0; p < n; p++) {
      const j = order[p]!;
      perm[p] = -rd[j]! - rhs[j]!;
    }
    this.normal.solvePermuted();
    for (let p = 0; p < n; p++) dx[order[p]!] = perm[p]!;
    multiplyRows(m, this.rowView, ws.rowValues, dx, D, R_ADX * m);
    // recover slack and multiplier steps; fused: step to the boundary and Σ ds∘dz (the affine gap's
    // curvature; its slope Σ(s∘dz + z∘ds) = −Σ rc holds by construction)
    let alpha = 1;
    let curve = 0;
    for (let i = 0; i < m; i++) {
      const a = D[R_ADX * m + i]!;
      const sl = D[R_SL * m + i]!;
      const su = D[R_SU * m + i]!;
      const zl = D[R_ZL * m + i]!;
      const zu = D[R_ZU * m + i]!;
      const dl = D[R_HASL * m + i]! * (a + D[oRpL + i]!);
      const du = D[R_HASU * m + i]! * (D[oRpU + i]! - a);
      const el = -(D[R_RCL * m + i]! + zl * dl) * D[R_INVSL * m + i]!;
      const eu = -(D[R_RCU * m + i]! + zu * du) * D[R_INVSU * m + i]!;
      D[R_DSL * m + i] = dl;
      D[R_DZL * m + i] = el;
      D[R_DSU * m + i] = du;
      D[R_DZU * m + i] = eu;
      if (alpha * dl < -sl) alpha = -sl / dl;
      if (alpha * el < -zl) alpha = -zl / el;
      if (alpha * du < -su) alpha = -su / du;
      if (alpha * eu < -zu) alpha = -zu / eu;
      curve += dl * el + du * eu;
    }
    ws.stepMax = alpha;
    ws.gapCurve = curve;
    for (let k = 0; k < ws.eqCount; k++) {
      const i = ws.eqRows[k]!;
      D[R_DYE * m + i] = -(D[R_W * m + i]! * D[R_ADX * m + i]! + D[R_G * m + i]!);
    }
  }

  /**
   * Gondzio's multiple-centrality corrector: products s_i z_i that the current direction would
   * leave far outside [β_min, β_max]·σμ (at a somewhat longer trial step) are pulled back by an extra
   * solve with the same factor and zero residuals. Kept (true, stepMax updated) only if it
   * lengthens the step. Cures the stalls Mehrotra's direction shows on degenerate (non-strictly
   * complementary) slack/CBF pairs.
   */
  centralityCorrector(): boolean {
    const ws = this.ws;
    const { n, m, keepDx: keep, dx, rows: D } = ws;
    const alpha = ws.stepMax;
    const sigmaMu = ws.sigmaMu;
    const trial = Math.min(1, 1.5 * alpha + 0.1);
    const lo = GONDZIO_BETA_MIN * sigmaMu;
    const hi = GONDZIO_BETA_MAX * sigmaMu;
    for (let i = 0; i < m; i++) {
      D[R_RCL * m + i] = -centralityTarget((D[R_SL * m + i]! + trial * D[R_DSL * m + i]!) * (D[R_ZL * m + i]! + trial * D[R_DZL * m + i]!), lo, hi);
      D[R_RCU * m + i] = -centralityTarget((D[R_SU * m + i]! + trial * D[R_DSU * m + i]!) * (D[R_ZU * m + i]! + trial * D[R_DZU * m + i]!), lo, hi);
    }
    // the Mehrotra direction (dx, ds, dz, A·dx, dyE) is kept while the corrector is tried on top of it
    keep.set(dx);
    D.copyWithin(R_KEEP_DSL * m, R_DSL * m, (R_DZU + 1) * m);
    D.copyWithin(R_KEEP_ADX * m, R_ADX * m, (R_ADX + 1) * m);
    D.copyWithin(R_KEEP_DYE * m, R_DYE * m, (R_DYE + 1) * m);
    this.compute(CENTRALITY);
    for (let j = 0; j < n; j++) dx[j]! += keep[j]!;
    for (let i = 0; i < 4 * m; i++) D[R_DSL * m + i]! += D[R_KEEP_DSL * m + i]!;
    for (let i = 0; i < m; i++) {
      D[R_ADX * m + i]! += D[R_KEEP_ADX * m + i]!;
      D[R_DYE * m + i]! += D[R_KEEP_DYE * m + i]!;
    }
    this.updateStepMax();
    if (ws.stepMax >= 1.01 * alpha) return true;
    ws.stepMax = alpha;
    dx.set(keep);
    D.copyWithin(R_DSL * m, R_KEEP_DSL * m, (R_KEEP_DSL + 4) * m);
    D.copyWithin(R_ADX * m, R_KEEP_ADX * m, (R_KEEP_ADX + 1) * m);
    D.copyWithin(R_DYE * m, R_KEEP_DYE * m, (R_KEEP_DYE + 1) * m);
    return false;
  }

  /**
   * Iterative refinement on the full Newton system. The slack and complementarity equations hold
   * exactly by construction; only stationarity P dx − A'dλ = −rd carries the error of the
   * ill-conditioned normal equations (weights z/s → ∞ near the solution). Its residual is computed
   * from the actual dλ and corrected with one more solve with the same factor. Overwrites R_LAM,
   * R_G and px.
   */
  refine(): void {
    const ws = this.ws;
    const { n, m, rhs, px, rd, dx, rows: D } = ws;
    const order = this.normal.order;
    const perm = this.normal.permuted;
    for (let i = 0; i < m; i++) D[R_LAM * m + i] = D[R_DZL * m + i]! - D[R_DZU * m + i]! + D[R_DYE * m + i]!;
    multiplyTransposed(this.A, ws.Av, D, R_LAM * m, rhs);
    multiplySymmetric(this.P, ws.Pv, dx, px);
    for (let p = 0; p < n; p++) {
      const j = order[p]!;
      perm[p] = -rd[j]! - px[j]! + rhs[j]!;
    }
    this.normal.solvePermuted();
    for (let p = 0; p < n; p++) rhs[order[p]!] = perm[p]!;
    for (let j = 0; j < n; j++) dx[j]! += rhs[j]!;
    // A times the correction, into R_G (free until the next direction)
    multiplyRows(m, this.rowView, ws.rowValues, rhs, D, R_G * m);
    for (let i = 0; i < m; i++) {
      const da = D[R_G * m + i]!;
      D[R_ADX * m + i]! += da;
      D[R_DSL * m + i]! += D[R_HASL * m + i]! * da;
      D[R_DZL * m + i]! -= D[R_ZL * m + i]! * D[R_INVSL * m + i]! * da;
      D[R_DSU * m + i]! -= D[R_HASU * m + i]! * da;
      D[R_DZU * m + i]! += D[R_ZU * m + i]! * D[R_INVSU * m + i]! * da;
    }
    for (let k = 0; k < ws.eqCount; k++) {
      const i = ws.eqRows[k]!;
      D[R_DYE * m + i]! -= D[R_W * m + i]! * D[R_G * m + i]!;
    }
  }

  /** Largest α ≤ 1 keeping all slacks and multipliers non-negative along the current direction, into ws.stepMax. */
  updateStepMax(): void {
    const ws = this.ws;
    const { m, rows: D } = ws;
    let alpha = 1;
    for (let i = 0; i < m; i++) {
      const sl = D[R_SL * m + i]!;
      const zl = D[R_ZL * m + i]!;
      const su = D[R_SU * m + i]!;
      const zu = D[R_ZU * m + i]!;
      const dl = D[R_DSL * m + i]!;
      const el = D[R_DZL * m + i]!;
      const du = D[R_DSU * m + i]!;
      const eu = D[R_DZU * m + i]!;
      if (alpha * dl < -sl) alpha = -sl / dl;
      if (alpha * el < -zl) alpha = -zl / el;
      if (alpha * du < -su) alpha = -su / du;
      if (alpha * eu < -zu) alpha = -zu / eu;
    }
    ws.stepMax = alpha;
  }
}
