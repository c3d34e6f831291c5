/**
 * Slow, independent reference for tiny QPs (tests only): enumerates every active set (each row
 * inactive, at its lower bound or at its upper bound), solves the
 * equality-constrained KKT system densely with Gaussian elimination, and keeps the point that is
 * primal feasible with multipliers of the right sign. With P positive definite that point is the
 * unique optimum; if no active set qualifies the problem is infeasible.
 */
export interface DenseQp {
  n: number;
  /** full symmetric n×n, row-major */
  P: number[][];
  q: number[];
  /** m×n, row-major */
  A: number[][];
  l: number[];
  u: number[];
}

export type DenseSolution = { feasible: true; x: number[]; objective: number } | { feasible: false };

const INF = 1e20;

/** Solves M z = b by Gaussian elimination with partial pivoting; undefined if (near) singular. */
export function denseSolve(M: number[][], b: number[]): number[] | undefined {
  const k = b.length;
  const a = M.map((row, i) => [...row, b[i]!]);
  let scale = 0;
  for (const row of M) for (const v of row) scale = Math.max(scale, Math.abs(v));
  for (let c = 0; c < k; c++) {
    let piv = c;
    for (let r = c + 1; r < k; r++) if (Math.abs(a[r]![c]!) > Math.abs(a[piv]![c]!)) piv = r;
    if (Math.abs(a[piv]![c]!) <= 1e-11 * Math.max(scale, 1)) return undefined;
    [a[c], a[piv]] = [a[piv]!, a[c]!];
    for (let r = c + 1; r < k; r++) {
      const f = a[r]![c]! / a[c]![c]!;
      if (f === 0) continue;
      for (let t = c; t <= k; t++) a[r]![t]! -= f * a[c]![t]!;
    }
  }
  const z = new Array<number>(k).fill(0);
  for (let r = k - 1; r >= 0; r--) {
    let s = a[r]![k]!;
    for (let t = r + 1; t < k; t++) s -= a[r]![t]! * z[t]!;
    z[r] = s / a[r]![r]!;
  }
  return z;
}

export function objectiveOf(qp: DenseQp, x: number[]): number {
  let f = 0;
  for (let i = 0; i < qp.n; i++) {
    f += qp.q[i]! * x[i]!;
    for (let j = 0; j < qp.n; j++) f += 0.5 * x[i]! * qp.P[i]![j]! * x[j]!;
  }
  return f;
}

export function solveByActiveSetEnumeration(qp: DenseQp, tol = 1e-8): DenseSolution {
  const { n, A, l, u } = qp;
  const m = A.length;
  const choices: number[][] = [];
  for (let i = 0; i < m; i++) {
    const hasL = l[i]! > -INF;
    const hasU = u[i]! < INF;
    // an equality may also stay out of the KKT system (zero multiplier): with dependent rows only
    // an independent subset of the active rows carries multipliers (Carathéodory)
    if (hasL && hasU && l[i] === u[i]) choices.push([0, 1]);
    else choices.push([0, ...(hasL ? [1] : []), ...(hasU ? [2] : [])]);
  }
  const state = new Array<number>(m).fill(0);
  let best: { x: number[]; objective: number } | undefined;
  const visit = (row: number): void => {
    if (row === m) {
      const active = [];
      for (let i = 0; i < m; i++) if (state[i] !== 0) active.push(i);
      const k = n + active.length;
      const M: number[][] = [];
      const b: number[] = [];
      for (let i = 0; i < n; i++) {
        M.push([...qp.P[i]!, ...active.map((r) => A[r]![i]!)]);
        b.push(-qp.q[i]!);
      }
      for (const r of active) {
        M.push([...A[r]!, ...new Array<number>(active.length).fill(0)]);
        b.push(state[r] === 1 ? l[r]! : u[r]!);
      }
      const z = denseSolve(M, b);
      if (z === undefined || z.length !== k) return;
      const x = z.slice(0, n);
      // P x + q + A_S' y = 0 with y ≤ 0 at a lower bound, y ≥ 0 at an upper bound (OSQP sign)
      for (let t = 0; t < active.length; t++) {
        const r = active[t]!;
        const y = z[n + t]!;
        const isEq = l[r] === u[r];
        if (!isEq && state[r] === 1 && y > tol) return;
        if (!isEq && state[r] === 2 && y < -tol) return;
      }
      for (let i = 0; i < m; i++) {
        let ax = 0;
        for (let j = 0; j < n; j++) ax += A[i]![j]! * x[j]!;
        const scale = tol * (1 + Math.abs(ax));
        if (l[i]! > -INF && ax < l[i]! - scale) return;
        if (u[i]! < INF && ax > u[i]! + scale) return;
      }
      const objective = objectiveOf(qp, x);
      if (best === undefined || objective < best.objective) best = { x, objective };
      return;
    }
    for (const c of choices[row]!) {
      state[row] = c;
      visit(row + 1);
    }
  };
  visit(0);
  return best === undefined ? { feasible: false } : { feasible: true, ...best };
}
