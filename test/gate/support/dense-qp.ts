/**
 * A slow, dense reference QP solver for tests only: primal–dual interior point with Mehrotra's
 * predictor–corrector on  min ½x'Px + q'x  s.t.  l ≤ Ax ≤ u,  rewritten as Gx ≤ h. Dense Cholesky
 * each iteration — fine for the tens of variables the filter tests use; not for production.
 */
import type { QpProblem, QpResult, QpSolveOptions } from '../../../src/qp/types.js';

const BIG = 1e20;

function dense(M: QpProblem['A']): number[][] {
  const D = Array.from({ length: M.rows }, () => new Array<number>(M.cols).fill(0));
  for (let j = 0; j < M.cols; j++) for (let t = M.colPtr[j]!; t < M.colPtr[j + 1]!; t++) D[M.rowIndex[t]!]![j] = M.values[t]!;
  return D;
}

function cholSolve(K: number[][], b: number[]): number[] | null {
  const n = b.length;
  const L = K.map((r) => r.slice());
  for (let j = 0; j < n; j++) {
    let d = L[j]![j]!;
    for (let k = 0; k < j; k++) d -= L[j]![k]! ** 2;
    if (!(d > 0)) return null;
    d = Math.sqrt(d);
    L[j]![j] = d;
    for (let i = j + 1; i < n; i++) {
      let s = L[i]![j]!;
      for (let k = 0; k < j; k++) s -= L[i]![k]! * L[j]![k]!;
      L[i]![j] = s / d;
    }
  }
  const y = b.slice();
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < i; k++) y[i]! -= L[i]![k]! * y[k]!;
    y[i]! /= L[i]![i]!;
  }
  for (let i = n - 1; i >= 0; i--) {
    for (let k = i + 1; k < n; k++) y[i]! -= L[k]![i]! * y[k]!;
    y[i]! /= L[i]![i]!;
  }
  return y;
}

export function solveDenseQp(pr: QpProblem, opts: QpSolveOptions = {}): QpResult {
  const n = pr.n;
  const Pu = dense(pr.P);
  const P = Pu.map((r, i) => r.map((v, j) => (j >= i ? v : Pu[j]![i]!)));
  const A = dense(pr.A);
  const G: number[][] = [];
  const h: number[] = [];
  const rowOf: { row: number; sign: 1 | -1 }[] = [];
  for (let i = 0; i < pr.m; i++) {
    if (pr.u[i]! < BIG) {
      G.push(A[i]!);
      h.push(pr.u[i]!);
      rowOf.push({ row: i, sign: 1 });
    }
    if (pr.l[i]! > -BIG) {
      G.push(A[i]!.map((v) => -v));
      h.push(-pr.l[i]!);
      rowOf.push({ row: i, sign: -1 });
    }
  }
  const mi = G.length;
  const nz = G.map((g) => g.flatMap((v, i) => (v !== 0 ? [i] : [])));
  const gtv = (v: number[]) => {
    const out = new Array<number>(n).fill(0);
    for (let k = 0; k < mi; k++) for (const i of nz[k]!) out[i]! += G[k]![i]! * v[k]!;
    return out;
  };
  const q = Array.from(pr.q);
  let x = new Array<number>(n).fill(0);
  let s = h.map((hi, i) => Math.max(1, hi - dot(G[i]!, x)));
  let z = new Array<number>(mi).fill(1);
  const maxIt = opts.maxIterations ?? 100;
  const eps = opts.epsAbs ?? 1e-9;
  let it = 0;
  let status: QpResult['status'] = 'max-iterations';
  for (; it < maxIt; it++) {
    if (opts.deadline?.()) {
      status = 'time-limit';
      break;
    }
    const gz = gtv(z);
    const rd = P.map((r, i) => dot(r, x) + q[i]! + gz[i]!);
    const rp = G.map((g, i) => dot(g, x) + s[i]! - h[i]!);
    const mu = dot(s, z) / mi;
    if (norm(rd) <= eps * (1 + norm(q)) && norm(rp) <= eps * (1 + norm(h)) && mu <= eps * 1e-2) {
      status = 'solved';
      break;
    }
    const w = s.map((si, i) => z[i]! / si);
    const K = P.map((r, i) => r.map((v, j) => v + (i === j ? 1e-12 : 0)));
    for (let k = 0; k < mi; k++) {
      const g = G[k]!;
      for (const i of nz[k]!) for (const j of nz[k]!) K[i]![j]! += g[i]! * w[k]! * g[j]!;
    }
    const dir = (rc: number[]) => {
      const t = gtv(rp.map((v, k) => w[k]! * v - rc[k]! / s[k]!));
      const rhs = rd.map((v, i) => -v - t[i]!);
      const dx = cholSolve(K, rhs);
      if (!dx) return null;
      const dz = G.map((g, k) => w[k]! * (dot(g, dx) + rp[k]!) - rc[k]! / s[k]!);
      const ds = s.map((si, k) => -(rc[k]! + si * dz[k]!) / z[k]!);
      return { dx, dz, ds };
    };
    const aff = dir(s.map((si, k) => si * z[k]!));
    if (!aff) {
      status = 'numerical-error';
      break;
    }
    const aAff = Math.min(stepTo(s, aff.ds), stepTo(z, aff.dz));
    const muAff = s.reduce((acc, si, k) => acc + (si + aAff * aff.ds[k]!) * (z[k]! + aAff * aff.dz[k]!), 0) / mi;
    const sigma = (muAff / mu) ** 3;
    const cor = dir(s.map((si, k) => si * z[k]! + aff.ds[k]! * aff.dz[k]! - sigma * mu));
    if (!cor) {
      status = 'numerical-error';
      break;
    }
    const a = Math.min(1, 0.99 * Math.min(stepTo(s, cor.ds), stepTo(z, cor.dz)));
    x = x.map((v, i) => v + a * cor.dx[i]!);
    s = s.map((v, i) => v + a * cor.ds[i]!);
    z = z.map((v, i) => v + a * cor.dz[i]!);
  }
  const xs = Float64Array.from(x);
  const y = new Float64Array(pr.m);
  rowOf.forEach((r, k) => (y[r.row]! += r.sign * z[k]!));
  let obj = 0;
  for (let i = 0; i < n; i++) obj += q[i]! * x[i]! + 0.5 * x[i]! * dot(P[i]!, x);
  let viol = 0;
  for (let i = 0; i < pr.m; i++) {
    const ax = dot(A[i]!, x);
    viol = Math.max(viol, pr.l[i]! - ax, ax - pr.u[i]!);
  }
  const fields = {
    objective: obj,
    iterations: it,
    maxViolation: viol,
    primalResidual: NaN,
    dualResidual: NaN,
    complementarity: dot(s, z) / mi,
    x: xs,
    y,
  };
  return status === 'solved' ? { ...fields, status } : { ...fields, status, reason: `dense reference: ${status} after ${it} iterations` };
}

function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}
function norm(a: number[]): number {
  return a.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
}
function stepTo(v: number[], dv: number[]): number {
  let a = 1;
  for (let i = 0; i < v.length; i++) if (dv[i]! < 0) a = Math.min(a, -v[i]! / dv[i]!);
  return a;
}

/** The test solver as a QpSolverFactory. */
export const denseSolverFactory = (problem: QpProblem) => ({ solve: (o: QpSolveOptions) => solveDenseQp(problem, o) });
