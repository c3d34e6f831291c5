import type { RuizScaling } from './scaling.js';
import { R_ADX, R_HI, R_LAM, R_LO, ROW_BOTH, ROW_EQUAL, ROW_LOWER, ROW_UPPER } from './workspace.js';
import type { QpWorkspace } from './workspace.js';

/** relative tolerance of the infeasibility certificates */
const EPS_INFEASIBLE = 1e-8;

/**
 * Farkas certificate on the current multipliers y = −λ (OSQP sign; λ = row slot R_LAM from the last
 * residuals): ‖A'y‖∞ small relative to ‖y‖∞ while u'y₊ + l'y₋ < 0, with y₊ = 0 on rows without an
 * upper bound (and y₋ likewise).
 */
export function certifiesInfeasible(ws: QpWorkspace, scaling: RuizScaling): boolean {
  const { m, n, rowKind, A, Av } = ws;
  const R = ws.rows;
  const oLam = R_LAM * m;
  const oLo = R_LO * m;
  const oHi = R_HI * m;
  const E = scaling.E;
  const D = scaling.D;
  let yNorm = 0;
  for (let i = 0; i < m; i++) yNorm = Math.max(yNorm, Math.abs(R[oLam + i]! * E[i]!));
  if (!(yNorm > 0)) return false;
  let support = 0;
  for (let i = 0; i < m; i++) {
    const y = -R[oLam + i]! * E[i]!; // unscaled up to the common factor 1/c
    const kind = rowKind[i]!;
    if (y > 0) {
      if (kind === ROW_UPPER || kind === ROW_BOTH || kind === ROW_EQUAL) support += y * (R[oHi + i]! / E[i]!);
      else if (y > EPS_INFEASIBLE * yNorm) return false;
    } else if (y < 0) {
      if (kind === ROW_LOWER || kind === ROW_BOTH || kind === ROW_EQUAL) support += y * (R[oLo + i]! / E[i]!);
      else if (-y > EPS_INFEASIBLE * yNorm) return false;
    }
  }
  if (!(support < -EPS_INFEASIBLE * yNorm)) return false;
  // ‖A'y‖∞ in unscaled terms: (A'y)_j = (Ā'λ̄)_j / D_j (up to 1/c)
  for (let j = 0; j < n; j++) {
    let s = 0;
    for (let t = A.colPtr[j]!; t < A.colPtr[j + 1]!; t++) s += Av[t]! * R[oLam + A.rowIndex[t]!]!;
    if (Math.abs(s / D[j]!) > EPS_INFEASIBLE * yNorm) return false;
  }
  return true;
}

/**
 * Dual infeasibility certificate (OSQP's test) on the Newton direction d = ws.dx: ‖Pd‖∞ and the
 * bound-violating part of Ad small relative to ‖d‖∞ while q'd < 0, all in unscaled terms.
 * Overwrites row slot R_ADX and ws.px.
 */
export function certifiesUnbounded(ws: QpWorkspace, scaling: RuizScaling): boolean {
  const { n, m, dx, px, rowKind, qs } = ws;
  const { D, E, c } = scaling;
  let dNorm = 0;
  for (let j = 0; j < n; j++) dNorm = Math.max(dNorm, Math.abs(dx[j]! * D[j]!));
  if (!(dNorm > 0)) return false;
  const eps = EPS_INFEASIBLE * dNorm;
  let qd = 0;
  for (let j = 0; j < n; j++) qd += qs[j]! * dx[j]!;
  if (!(qd / c < -eps)) return false;
  ws.multiplyA(dx, R_ADX);
  const R = ws.rows;
  const oADX = R_ADX * m;
  for (let i = 0; i < m; i++) {
    const kind = rowKind[i]!;
    const a = R[oADX + i]! / E[i]!;
    if ((kind === ROW_LOWER || kind === ROW_BOTH || kind === ROW_EQUAL) && a < -eps) return false;
    if ((kind === ROW_UPPER || kind === ROW_BOTH || kind === ROW_EQUAL) && a > eps) return false;
  }
  ws.multiplyP(dx, px);
  for (let j = 0; j < n; j++) if (Math.abs(px[j]! / (c * D[j]!)) > eps) return false;
  return true;
}
