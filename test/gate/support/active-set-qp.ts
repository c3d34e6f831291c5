/**
 * An independent reference QP solver for tests: a dense primal active-set method (Nocedal & Wright,
 * Numerical Optimization, Algorithm 16.3) on  min ½x'Px + q'x  s.t.  l ≤ Ax ≤ u, with a phase 1
 * (minimise the largest violation t over (x, t), itself solved by the same method) for a feasible
 * start. Every step solves the equality-constrained subproblem in the null space of the working
 * set; a singular reduced Hessian (P only positive semidefinite, as in the CBF QP whose slacks ξ
 * carry a linear cost) is handled by stepping along a zero-curvature descent direction to the
 * first blocking constraint. No interior point, no scaling, no shared code with src/qp: it
 * answers the same question by a different method. Dense and O(n³) per step — for the tens of
 * variables the gate and runtime tests use, not for production.
 *
 * Iterations count working-set changes (both phases); `maxIterations` (default 500) and `deadline`
 * are honoured like the production solver's (the factory scales the filter's cap, see
 * ACTIVE_SET_STEPS_PER_ITERATION).
 */
import type { QpProblem, QpResult, QpSolveOptions } from '../../../src/qp/types.js';

const NO_BOUND = 1e20;
/** feasibility tolerance (absolute, on a'x − b) and the relative size of a step taken as zero */
const FEAS_TOL = 1e-9;
const STEP_TOL = 1e-11;

/** a'x ≥ b, from row `row` of A (sign +1: lower bound l; −1: upper bound u as −a'x ≥ −u) */
interface Constraint {
  a: number[];
  b: number;
  row: number;
  sign: 1 | -1;
}

type Outcome =
  | { kind: 'optimal'; x: number[]; working: number[]; mult: number[]; iterations: number }
  | { kind: 'unbounded' | 'max-iterations' | 'time-limit' | 'numerical-error'; x: number[]; iterations: number };

function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

function matVec(M: number[][], v: number[]): number[] {
  return M.map((r) => dot(r, v));
}

/** Incremental orthonormal basis (modified Gram–Schmidt, two passes). */
class OrthonormalBasis {
  readonly vectors: number[][] = [];
  constructor(private readonly n: number) {}

  /** Adds v if it is independent of the basis (relative residual above 1e-10); true if added. */
  add(v: number[]): boolean {
    const w = v.slice();
    const scale = Math.sqrt(dot(w, w));
    for (let pass = 0; pass < 2; pass++) {
      for (const b of this.vectors) {
        const c = dot(w, b);
        for (let i = 0; i < this.n; i++) w[i]! -= c * b[i]!;
      }
    }
    const norm = Math.sqrt(dot(w, w));
    if (!(norm > 1e-10 * Math.max(scale, 1e-300))) return false;
    this.vectors.push(w.map((x) => x / norm));
    return true;
  }
}

/** Orthonormal basis Z of the orthogonal complement of the row space of `rows`, in R^n. */
function nullSpace(rows: number[][], n: number): number[][] {
  const basis = new OrthonormalBasis(n);
  for (const r of rows) basis.add(r);
  const rowRank = basis.vectors.length;
  for (let j = 0; j < n && basis.vectors.length < n; j++) {
    const e = new Array<number>(n).fill(0);
    e[j] = 1;
    basis.add(e);
  }
  return basis.vectors.slice(rowRank);
}

/** Cholesky solve of a symmetric positive definite system; undefined if not numerically positive definite. */
function choleskySolve(K: number[][], b: number[]): number[] | undefined {
  const n = b.length;
  const L = K.map((r) => r.slice());
  let maxDiag = 0;
  for (let i = 0; i < n; i++) maxDiag = Math.max(maxDiag, Math.abs(K[i]![i]!));
  for (let j = 0; j < n; j++) {
    let d = L[j]![j]!;
    for (let k = 0; k < j; k++) d -= L[j]![k]! ** 2;
    if (!(d > 1e-12 * maxDiag)) return undefined;
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

/** Cyclic Jacobi eigen-decomposition of a symmetric matrix: eigenvalues and eigenvectors (columns of V). */
function symmetricEigen(S: number[][]): { values: number[]; V: number[][] } {
  const r = S.length;
  const M = S.map((row) => row.slice());
  const V = Array.from({ length: r }, (_, i) => Array.from({ length: r }, (_, j): number => (i === j ? 1 : 0)));
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    let total = 0;
    for (let i = 0; i < r; i++) {
      for (let j = 0; j < r; j++) {
        if (i === j) total += M[i]![j]! ** 2;
        else off += M[i]![j]! ** 2;
      }
    }
    if (off <= 1e-26 * (total + off) || off === 0) break;
    for (let p = 0; p < r; p++) {
      for (let k = p + 1; k < r; k++) {
        const apk = M[p]![k]!;
        if (apk === 0) continue;
        const theta = (M[k]![k]! - M[p]![p]!) / (2 * apk);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let i = 0; i < r; i++) {
          const mip = M[i]![p]!;
          const mik = M[i]![k]!;
          M[i]![p] = c * mip - s * mik;
          M[i]![k] = s * mip + c * mik;
        }
        for (let i = 0; i < r; i++) {
          const mpi = M[p]![i]!;
          const mki = M[k]![i]!;
          M[p]![i] = c * mpi - s * mki;
          M[k]![i] = s * mpi + c * mki;
        }
        for (let i = 0; i < r; i++) {
          const vip = V[i]![p]!;
          const vik = V[i]![k]!;
          V[i]![p] = c * vip - s * vik;
          V[i]![k] = s * vip + c * vik;
        }
      }
    }
  }
  return { values: M.map((row, i) => row[i]!), V };
}

/**
 * Step p minimising ½p'Pp + g'p over p = Z w: Newton step on the reduced Hessian Z'PZ when it is
 * positive definite; otherwise, if g has a component along the reduced Hessian's kernel, a
 * descent direction of zero curvature (`unbounded` below along it until a constraint blocks),
 * else the minimum-norm minimiser.
 */
function nullSpaceStep(P: number[][], g: number[], Z: number[][]): { p: number[]; zeroCurvature: boolean } {
  const n = g.length;
  const r = Z.length;
  const p = new Array<number>(n).fill(0);
  if (r === 0) return { p, zeroCurvature: false };
  const PZ = Z.map((z) => matVec(P, z));
  const H = Z.map((zi) => PZ.map((pzj) => dot(zi, pzj)));
  const gz = Z.map((z) => -dot(z, g));
  let w = choleskySolve(H, gz);
  let zeroCurvature = false;
  if (!w) {
    const { values, V } = symmetricEigen(H);
    const big = Math.max(1e-300, ...values.map(Math.abs));
    const kernel = values.map((v) => Math.abs(v) <= 1e-10 * Math.max(1, big));
    const coeff = values.map((_, k) => V.reduce((s, row, i) => s + row[k]! * gz[i]!, 0));
    const gScale = Math.sqrt(dot(g, g));
    zeroCurvature = coeff.some((c, k) => kernel[k] && Math.abs(c) > 1e-10 * Math.max(1, gScale));
    w = new Array<number>(r).fill(0);
    for (let k = 0; k < r; k++) {
      // along the kernel: the descent direction itself; elsewhere: the Newton component (min-norm if no descent)
      const c = zeroCurvature ? (kernel[k] ? coeff[k]! : 0) : kernel[k] ? 0 : coeff[k]! / values[k]!;
      for (let i = 0; i < r; i++) w[i]! += V[i]![k]! * c;
    }
  }
  for (let k = 0; k < r; k++) for (let i = 0; i < n; i++) p[i]! += Z[k]![i]! * w[k]!;
  return { p, zeroCurvature };
}

/** The starting working set: constraints active at x, as long as they are linearly independent. */
function activeIndependent(cons: Constraint[], x: number[]): number[] {
  const n = x.length;
  const working: number[] = [];
  const basis = new OrthonormalBasis(n);
  for (let k = 0; k < cons.length; k++) {
    const c = cons[k]!;
    if (Math.abs(dot(c.a, x) - c.b) > FEAS_TOL * (1 + Math.abs(c.b))) continue;
    if (basis.add(c.a)) working.push(k);
  }
  return working;
}

/** Primal active-set method from a feasible x (Algorithm 16.3), starting with the constraints active at x. */
function primalActiveSet(
  P: number[][],
  q: number[],
  cons: Constraint[],
  x0: number[],
  budget: { iterations: number; max: number; deadline: (() => boolean) | undefined },
): Outcome {
  const n = q.length;
  const x = x0.slice();
  const working = activeIndependent(cons, x);
  for (;;) {
    if (budget.deadline?.()) return { kind: 'time-limit', x, iterations: budget.iterations };
    if (budget.iterations >= budget.max) return { kind: 'max-iterations', x, iterations: budget.iterations };
    const g = matVec(P, x).map((v, i) => v + q[i]!);
    const Aw = working.map((k) => cons[k]!.a);
    const Z = nullSpace(Aw, n);
    const { p, zeroCurvature } = nullSpaceStep(P, g, Z);
    const xScale = Math.max(1, ...x.map(Math.abs));
    const pNorm = Math.max(0, ...p.map(Math.abs));
    if (!p.every(Number.isFinite)) return { kind: 'numerical-error', x, iterations: budget.iterations };
    if (!zeroCurvature && pNorm <= STEP_TOL * xScale) {
      // x minimises over the working set: multipliers from A_W'μ = g (least squares, normal equations)
      const k = working.length;
      let mult: number[] = [];
      if (k > 0) {
        const G = Aw.map((ai) => Aw.map((aj) => dot(ai, aj)));
        const m = choleskySolve(G, matVec(Aw, g));
        if (!m) return { kind: 'numerical-error', x, iterations: budget.iterations };
        mult = m;
      }
      let worst = -1;
      for (let t = 0; t < k; t++)
        if (mult[t]! < -1e-10 * Math.max(1, Math.sqrt(dot(g, g))) && (worst < 0 || mult[t]! < mult[worst]!)) worst = t;
      if (worst < 0) return { kind: 'optimal', x, working, mult, iterations: budget.iterations };
      working.splice(worst, 1);
      budget.iterations++;
      continue;
    }
    // longest step along p (1 for a Newton step, unbounded along a zero-curvature direction) until a constraint blocks
    let alpha = zeroCurvature ? Infinity : 1;
    let blocking = -1;
    const inWorking = new Set(working);
    for (let k = 0; k < cons.length; k++) {
      if (inWorking.has(k)) continue;
      const c = cons[k]!;
      const ap = dot(c.a, p);
      if (ap >= -1e-14 * Math.sqrt(dot(c.a, c.a)) * pNorm) continue;
      const step = Math.max(0, (c.b - dot(c.a, x)) / ap);
      if (step < alpha) {
        alpha = step;
        blocking = k;
      }
    }
    if (alpha === Infinity) return { kind: 'unbounded', x, iterations: budget.iterations };
    for (let i = 0; i < n; i++) x[i]! += alpha * p[i]!;
    if (blocking >= 0) working.push(blocking);
    budget.iterations++;
  }
}

function denseSymmetric(M: QpProblem['P']): number[][] {
  const D = Array.from({ length: M.rows }, () => new Array<number>(M.cols).fill(0));
  for (let j = 0; j < M.cols; j++) {
    for (let t = M.colPtr[j]!; t < M.colPtr[j + 1]!; t++) {
      D[M.rowIndex[t]!]![j] = M.values[t]!;
      D[j]![M.rowIndex[t]!] = M.values[t]!;
    }
  }
  return D;
}

function dense(M: QpProblem['A']): number[][] {
  const D = Array.from({ length: M.rows }, () => new Array<number>(M.cols).fill(0));
  for (let j = 0; j < M.cols; j++)
    for (let t = M.colPtr[j]!; t < M.colPtr[j + 1]!; t++) D[M.rowIndex[t]!]![j] = M.values[t]!;
  return D;
}

/** Solves `pr` with the active-set reference. Result fields as QpResult (y in OSQP sign); residual fields are NaN. */
export function solveActiveSetQp(pr: QpProblem, opts: QpSolveOptions = {}): QpResult {
  const n = pr.n;
  const P = denseSymmetric(pr.P);
  const A = dense(pr.A);
  const q = Array.from(pr.q);
  const cons: Constraint[] = [];
  for (let i = 0; i < pr.m; i++) {
    if (pr.l[i]! > pr.u[i]!)
      return result(pr, 'infeasible', `row ${i} has l > u`, new Array<number>(n).fill(0), new Float64Array(pr.m), 0);
    if (pr.l[i]! > -NO_BOUND) cons.push({ a: A[i]!, b: pr.l[i]!, row: i, sign: 1 });
    if (pr.u[i]! < NO_BOUND) cons.push({ a: A[i]!.map((v) => -v), b: -pr.u[i]!, row: i, sign: -1 });
  }
  const budget = { iterations: 0, max: opts.maxIterations ?? 500, deadline: opts.deadline };
  const x0 =
    opts.warmStart !== undefined && opts.warmStart.length === n
      ? Array.from(opts.warmStart)
      : new Array<number>(n).fill(0);
  // phase 1 over (x, t): min t  s.t.  a'x + t ≥ b for every constraint, t ≥ 0
  const t0 = Math.max(0, ...cons.map((c) => c.b - dot(c.a, x0)));
  let x = x0;
  if (t0 > FEAS_TOL) {
    const P1 = Array.from({ length: n + 1 }, () => new Array<number>(n + 1).fill(0));
    const q1 = new Array<number>(n + 1).fill(0);
    q1[n] = 1;
    const cons1: Constraint[] = cons.map((c) => ({ ...c, a: [...c.a, 1] }));
    const tBound: number[] = new Array<number>(n + 1).fill(0);
    tBound[n] = 1;
    cons1.push({ a: tBound, b: 0, row: -1, sign: 1 });
    const phase1 = primalActiveSet(P1, q1, cons1, [...x0, t0], budget);
    if (phase1.kind !== 'optimal')
      return result(
        pr,
        statusOf(phase1.kind),
        `active-set reference: phase 1 ${phase1.kind}`,
        phase1.x.slice(0, n),
        new Float64Array(pr.m),
        budget.iterations,
      );
    const scale = Math.max(1, ...cons.map((c) => Math.abs(c.b)));
    if (phase1.x[n]! > FEAS_TOL * scale)
      return result(
        pr,
        'infeasible',
        `active-set reference: least possible violation ${phase1.x[n]}`,
        phase1.x.slice(0, n),
        new Float64Array(pr.m),
        budget.iterations,
      );
    x = phase1.x.slice(0, n);
  }
  const outcome = primalActiveSet(P, q, cons, x, budget);
  if (outcome.kind !== 'optimal')
    return result(
      pr,
      statusOf(outcome.kind),
      `active-set reference: ${outcome.kind}`,
      outcome.x,
      new Float64Array(pr.m),
      budget.iterations,
    );
  const y = new Float64Array(pr.m);
  outcome.working.forEach((k, t) => (y[cons[k]!.row]! += -cons[k]!.sign * outcome.mult[t]!));
  return result(pr, 'solved', '', outcome.x, y, budget.iterations);
}

function statusOf(kind: Exclude<Outcome['kind'], 'optimal'>): QpResult['status'] {
  return kind === 'unbounded' ? 'infeasible' : kind;
}

function result(
  pr: QpProblem,
  status: QpResult['status'],
  reason: string,
  x: number[],
  y: Float64Array,
  iterations: number,
): QpResult {
  const P = denseSymmetric(pr.P);
  const A = dense(pr.A);
  let objective = 0;
  for (let i = 0; i < pr.n; i++) objective += pr.q[i]! * x[i]! + 0.5 * x[i]! * dot(P[i]!, x);
  let maxViolation = 0;
  for (let i = 0; i < pr.m; i++) {
    const ax = dot(A[i]!, x);
    if (pr.l[i]! > -NO_BOUND) maxViolation = Math.max(maxViolation, pr.l[i]! - ax);
    if (pr.u[i]! < NO_BOUND) maxViolation = Math.max(maxViolation, ax - pr.u[i]!);
  }
  const fields = {
    objective,
    iterations,
    maxViolation,
    primalResidual: NaN,
    dualResidual: NaN,
    complementarity: NaN,
    x: Float64Array.from(x),
    y,
    polished: false,
  };
  return status === 'solved' ? { ...fields, status } : { ...fields, status, reason };
}

/**
 * Working-set changes allowed per unit of the interior point's `maxIterations`: the filter's cap is
 * sized for an interior point (10–40 iterations, each touching every constraint), while an
 * active-set step adds or drops one constraint (the planar H = 20 filter QPs take 20–110 steps).
 */
export const ACTIVE_SET_STEPS_PER_ITERATION = 10;

/** The active-set reference as a QpSolverFactory (the filter's iteration cap scaled by ACTIVE_SET_STEPS_PER_ITERATION). */
export const activeSetSolverFactory = (problem: QpProblem) => ({
  solve: (o: QpSolveOptions) =>
    solveActiveSetQp(problem, { ...o, maxIterations: ACTIVE_SET_STEPS_PER_ITERATION * (o.maxIterations ?? 50) }),
});
