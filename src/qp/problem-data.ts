/**
 * Data in and out of the interior point: a problem's values are checked, copied and equilibrated
 * into the workspace (scaled space), and the scaled iterate is unscaled into the result, with
 * objective and violation evaluated on the original data.
 */
import type { RuizScaling } from './scaling.js';
import type { RowView } from './structure.js';
import { INFINITE_BOUND } from './types.js';
import type { CscMatrix, QpProblem, QpStatus } from './types.js';
import { R_AX, R_HASL, R_HASU, R_HI, R_INVE, R_LO, R_YE, R_ZL, R_ZU, ROW_BOTH, ROW_EQUAL, ROW_FREE, ROW_LOWER, ROW_UPPER } from './workspace.js';
import type { QpWorkspace } from './workspace.js';

/** the solver's result object (QpResult, writable), reused by every solve */
export interface MutableResult {
  status: QpStatus;
  reason: string;
  objective: number;
  iterations: number;
  maxViolation: number;
  primalResidual: number;
  dualResidual: number;
  complementarity: number;
  x: Float64Array;
  y: Float64Array;
}

export interface DataFailure {
  status: QpStatus;
  reason: string;
}

function isLowerFinite(v: number): boolean {
  return v > -INFINITE_BOUND;
}
function isUpperFinite(v: number): boolean {
  return v < INFINITE_BOUND;
}

/**
 * Copies and scales `problem` (already known to have the solver's shape) into `ws`: P, A and q
 * values equilibrated by `scaling`, bounds classified per row (R_LO, R_HI, R_HASL, R_HASU,
 * rowKind, eqRows, nBounds) and the unscaling factors R_INVE and dualUnscale. Returns a failure
 * if the data are unusable: a non-finite value, NaN bound or short vector ('numerical-error'),
 * l > u ('infeasible').
 */
export function loadProblem(ws: QpWorkspace, problem: QpProblem, P: CscMatrix, A: CscMatrix, rows: RowView, scaling: RuizScaling): DataFailure | undefined {
  const { n, m, Pv, Av, qs, rowKind, rows: R } = ws;
  if (problem.q.length < n) return { status: 'numerical-error', reason: `q has ${problem.q.length} entries, expected ${n}` };
  if (problem.l.length < m) return { status: 'numerical-error', reason: `l has ${problem.l.length} entries, expected ${m}` };
  if (problem.u.length < m) return { status: 'numerical-error', reason: `u has ${problem.u.length} entries, expected ${m}` };
  const pnnz = Pv.length;
  const pVals = problem.P.values;
  for (let t = 0; t < pnnz; t++) {
    const v = pVals[t]!;
    if (!Number.isFinite(v)) return { status: 'numerical-error', reason: `P has a non-finite value at entry ${t}` };
    Pv[t] = v;
  }
  const aVals = problem.A.values;
  for (let t = 0; t < Av.length; t++) {
    const v = aVals[t]!;
    if (!Number.isFinite(v)) return { status: 'numerical-error', reason: `A has a non-finite value at entry ${t}` };
    Av[t] = v;
  }
  for (let j = 0; j < n; j++) {
    const v = problem.q[j]!;
    if (!Number.isFinite(v)) return { status: 'numerical-error', reason: `q[${j}] is not finite` };
    qs[j] = v;
  }
  for (let i = 0; i < m; i++) {
    const l = problem.l[i]!;
    const u = problem.u[i]!;
    if (Number.isNaN(l) || Number.isNaN(u)) return { status: 'numerical-error', reason: `bound of row ${i} is NaN` };
    if (l > u) return { status: 'infeasible', reason: `row ${i} has l > u` };
  }
  scaling.equilibrate(P, Pv, A, Av, qs);
  const { cscIndex } = rows;
  for (let e = 0; e < cscIndex.length; e++) ws.rowValues[e] = Av[cscIndex[e]!]!;
  const { E, D, c } = scaling;
  let eqCount = 0;
  let nBounds = 0;
  for (let i = 0; i < m; i++) {
    const l = problem.l[i]!;
    const u = problem.u[i]!;
    const hasL = isLowerFinite(l);
    const hasU = isUpperFinite(u);
    R[R_INVE * m + i] = 1 / E[i]!;
    if (hasL && hasU && u - l <= 1e-12 * Math.max(1, Math.abs(l), Math.abs(u))) {
      rowKind[i] = ROW_EQUAL;
      const value = 0.5 * (l + u) * E[i]!;
      R[R_LO * m + i] = value;
      R[R_HI * m + i] = value;
      R[R_HASL * m + i] = 0;
      R[R_HASU * m + i] = 0;
      ws.eqRows[eqCount++] = i;
    } else {
      rowKind[i] = hasL ? (hasU ? ROW_BOTH : ROW_LOWER) : hasU ? ROW_UPPER : ROW_FREE;
      R[R_LO * m + i] = hasL ? l * E[i]! : 0;
      R[R_HI * m + i] = hasU ? u * E[i]! : 0;
      R[R_HASL * m + i] = hasL ? 1 : 0;
      R[R_HASU * m + i] = hasU ? 1 : 0;
      nBounds += (hasL ? 1 : 0) + (hasU ? 1 : 0);
    }
  }
  ws.eqCount = eqCount;
  ws.nBounds = nBounds;
  for (let j = 0; j < n; j++) ws.dualUnscale[j] = 1 / (c * D[j]!);
  return undefined;
}

/**
 * Unscales the iterate of `ws` into `out` (x, and y in OSQP's sign: y > 0 at an active upper
 * bound) and evaluates objective and worst bound violation on the original data of `problem`.
 * Overwrites R_AX (the next solve starts from its own A·x).
 */
export function writeResult(ws: QpWorkspace, problem: QpProblem, scaling: RuizScaling, out: MutableResult, status: QpStatus, reason: string): void {
  const { n, m, x, rows: R } = ws;
  const { D, E, c } = scaling;
  out.status = status;
  out.reason = reason;
  for (let j = 0; j < n; j++) out.x[j] = x[j]! * D[j]!;
  for (let i = 0; i < m; i++) out.y[i] = (-(R[R_ZL * m + i]! - R[R_ZU * m + i]! + R[R_YE * m + i]!) * E[i]!) / c;
  const xs = out.x;
  const P = problem.P;
  let obj = 0;
  for (let j = 0; j < n; j++) {
    const xj = xs[j]!;
    obj += problem.q[j]! * xj;
    for (let t = P.colPtr[j]!; t < P.colPtr[j + 1]!; t++) {
      const i = P.rowIndex[t]!;
      obj += (i === j ? 0.5 : 1) * P.values[t]! * xs[i]! * xj;
    }
  }
  out.objective = obj;
  const ax = R_AX * m;
  R.fill(0, ax, ax + m);
  const A = problem.A;
  for (let j = 0; j < n; j++) {
    for (let t = A.colPtr[j]!; t < A.colPtr[j + 1]!; t++) R[ax + A.rowIndex[t]!]! += A.values[t]! * xs[j]!;
  }
  let viol = 0;
  for (let i = 0; i < m; i++) {
    const l = problem.l[i]!;
    const u = problem.u[i]!;
    if (isLowerFinite(l)) viol = Math.max(viol, l - R[ax + i]!);
    if (isUpperFinite(u)) viol = Math.max(viol, R[ax + i]! - u);
  }
  out.maxViolation = viol;
}
