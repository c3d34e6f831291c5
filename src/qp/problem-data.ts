import type { RuizScaling } from './scaling.js';
import { INFINITE_BOUND } from './types.js';
import type { QpProblem, QpStatus } from './types.js';
import {
  R_HASL,
  R_HASU,
  R_HI,
  R_INVE,
  R_LO,
  ROW_BOTH,
  ROW_EQUAL,
  ROW_FREE,
  ROW_LOWER,
  ROW_UPPER,
} from './workspace.js';
import type { QpWorkspace } from './workspace.js';

export function isLowerFinite(v: number): boolean {
  return v > -INFINITE_BOUND;
}
export function isUpperFinite(v: number): boolean {
  return v < INFINITE_BOUND;
}

/**
 * Copies the first `to.length` values of `from` into `to`; returns the index of the first value that
 * is not finite, or −1. (v·0 is 0 for a finite v and NaN for ±∞ and NaN: one sum tells whether to
 * look for the entry, without a branch per value.)
 */
function copyFinite(from: ArrayLike<number>, to: Float64Array): number {
  const len = to.length;
  let probe = 0;
  for (let t = 0; t < len; t++) {
    const v = from[t]!;
    probe += v * 0;
    to[t] = v;
  }
  if (probe === 0) return -1;
  for (let t = 0; t < len; t++) if (!Number.isFinite(from[t]!)) return t;
  return -1;
}

/** Why a problem's data cannot be solved (becomes the result's status and reason). */
export interface DataFailure {
  status: QpStatus;
  reason: string;
}

/**
 * Copies the problem's values into the workspace, scales them (Ruiz plus cost scaling), classifies
 * the rows (equality, lower, upper, both, free) and scales the bounds; returns a failure if the
 * data are unusable (too short, NaN/∞, l > u). `problem` must have the workspace's shape.
 */
export function loadScaledData(ws: QpWorkspace, scaling: RuizScaling, problem: QpProblem): DataFailure | undefined {
  const { n, m, Pv, Av, qs, rowKind } = ws;
  if (problem.q.length < n)
    return { status: 'numerical-error', reason: `q has ${problem.q.length} entries, expected ${n}` };
  if (problem.l.length < m)
    return { status: 'numerical-error', reason: `l has ${problem.l.length} entries, expected ${m}` };
  if (problem.u.length < m)
    return { status: 'numerical-error', reason: `u has ${problem.u.length} entries, expected ${m}` };
  const pFailure = copyFinite(problem.P.values, Pv);
  if (pFailure >= 0) return { status: 'numerical-error', reason: `P has a non-finite value at entry ${pFailure}` };
  const aFailure = copyFinite(problem.A.values, Av);
  if (aFailure >= 0) return { status: 'numerical-error', reason: `A has a non-finite value at entry ${aFailure}` };
  const qFailure = copyFinite(problem.q, qs);
  if (qFailure >= 0) return { status: 'numerical-error', reason: `q[${qFailure}] is not finite` };
  for (let i = 0; i < m; i++) {
    const l = problem.l[i]!;
    const u = problem.u[i]!;
    if (Number.isNaN(l) || Number.isNaN(u)) return { status: 'numerical-error', reason: `bound of row ${i} is NaN` };
    if (l > u) return { status: 'infeasible', reason: `row ${i} has l > u` };
  }
  scaling.equilibrate(ws.P, Pv, ws.A, Av, qs);
  const { cscIndex } = ws.rowsOfA;
  const rowValues = ws.rowValues;
  for (let e = 0; e < cscIndex.length; e++) rowValues[e] = Av[cscIndex[e]!]!;
  const { E, D, c } = scaling;
  const eqRows = ws.eqRows;
  const R = ws.rows;
  const oLo = R_LO * m;
  const oHi = R_HI * m;
  const oHasL = R_HASL * m;
  const oHasU = R_HASU * m;
  const oInvE = R_INVE * m;
  let eqCount = 0;
  let nBounds = 0;
  for (let i = 0; i < m; i++) {
    const l = problem.l[i]!;
    const u = problem.u[i]!;
    const hasL = isLowerFinite(l);
    const hasU = isUpperFinite(u);
    R[oInvE + i] = 1 / E[i]!;
    if (hasL && hasU && u - l <= 1e-12 * Math.max(1, Math.abs(l), Math.abs(u))) {
      rowKind[i] = ROW_EQUAL;
      R[oLo + i] = 0.5 * (l + u) * E[i]!;
      R[oHi + i] = R[oLo + i]!;
      R[oHasL + i] = 0;
      R[oHasU + i] = 0;
      eqRows[eqCount++] = i;
    } else {
      rowKind[i] = hasL ? (hasU ? ROW_BOTH : ROW_LOWER) : hasU ? ROW_UPPER : ROW_FREE;
      R[oLo + i] = hasL ? l * E[i]! : 0;
      R[oHi + i] = hasU ? u * E[i]! : 0;
      R[oHasL + i] = hasL ? 1 : 0;
      R[oHasU + i] = hasU ? 1 : 0;
      nBounds += (hasL ? 1 : 0) + (hasU ? 1 : 0);
    }
  }
  ws.eqCount = eqCount;
  ws.nBounds = nBounds;
  const { colPtr, rowIndex } = ws.A;
  const { boundedColPtr, boundedRowIndex, boundedValues } = ws;
  let kept = 0;
  for (let j = 0; j < n; j++) {
    boundedColPtr[j] = kept;
    for (let t = colPtr[j]!; t < colPtr[j + 1]!; t++) {
      const i = rowIndex[t]!;
      if (rowKind[i] === ROW_FREE) continue;
      boundedRowIndex[kept] = i;
      boundedValues[kept] = Av[t]!;
      kept++;
    }
  }
  boundedColPtr[n] = kept;
  const dualUnscale = ws.dualUnscale;
  for (let j = 0; j < n; j++) dualUnscale[j] = 1 / (c * D[j]!);
  return undefined;
}
