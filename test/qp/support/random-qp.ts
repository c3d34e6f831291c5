import { boxMuller, mulberry32 as rng } from '../../../src/util/rng.js';
import type { DenseQp } from './dense-reference.js';

/** mulberry32: deterministic test randomness from a fast-check seed */
export { rng };

/** Standard normal from a [0, 1) stream: the offset keeps a drawn 0 away from log. */
export function gauss(r: () => number): number {
  return boxMuller(r() + 1e-12, r());
}

export interface StagedQp {
  qp: DenseQp;
  stageOf: number[];
  /** a point satisfying every row, when built feasible */
  xFeasible: number[];
}

const NO_BOUND = [Infinity, 1e20, 1e30];

/** A row over stages k-1..k (or k only): random coefficients on a non-empty subset. */
function randomRow(r: () => number, stageOf: number[], stages: number): number[] {
  const n = stageOf.length;
  const k = Math.floor(r() * stages);
  const lo = k > 0 && r() < 0.6 ? k - 1 : k;
  const row = new Array<number>(n).fill(0);
  let any = false;
  for (let j = 0; j < n; j++) {
    if (stageOf[j]! >= lo && stageOf[j]! <= k && r() < 0.7) {
      row[j] = gauss(r);
      any = true;
    }
  }
  if (!any) {
    const inStage = stageOf.map((s, j) => (s === k ? j : -1)).filter((j) => j >= 0);
    row[inStage[Math.floor(r() * inStage.length)]!] = 1 + r();
  }
  return row;
}

/**
 * Random strictly convex QP with block-tridiagonal structure (stages × size variables), rows
 * coupling at most two consecutive stages, feasible by construction (bounds around A·xFeasible,
 * some of them tight), with two-sided, one-sided (±∞, ±1e20, ±1e30) and equality rows.
 */
export function randomStagedQp(seed: number, stages: number, size: number, rows: number): StagedQp {
  const r = rng(seed);
  const n = stages * size;
  const stageOf = Array.from({ length: n }, (_, j) => Math.floor(j / size));
  // P = B'B + 0.1 I with B block lower bidiagonal → P block tridiagonal, positive definite
  const B = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) if (stageOf[j]! === stageOf[i]! || stageOf[j]! === stageOf[i]! - 1) B[i]![j] = gauss(r);
  const P = Array.from({ length: n }, (_, i) =>
    Array.from({ length: n }, (_, j) => {
      let s = i === j ? 0.1 : 0;
      for (let t = 0; t < n; t++) s += B[t]![i]! * B[t]![j]!;
      return s;
    }),
  );
  const q = Array.from({ length: n }, () => 3 * gauss(r));
  const xFeasible = Array.from({ length: n }, () => gauss(r));
  const A: number[][] = [];
  const l: number[] = [];
  const u: number[] = [];
  for (let i = 0; i < rows; i++) {
    const row = randomRow(r, stageOf, stages);
    let v = 0;
    for (let j = 0; j < n; j++) v += row[j]! * xFeasible[j]!;
    const margin = () => (r() < 0.25 ? 0 : r());
    const kind = r();
    const none = NO_BOUND[Math.floor(r() * NO_BOUND.length)]!;
    A.push(row);
    if (kind < 0.1) {
      l.push(v);
      u.push(v);
    } else if (kind < 0.5) {
      l.push(v - margin());
      u.push(v + margin());
    } else if (kind < 0.75) {
      l.push(v - margin());
      u.push(none);
    } else {
      l.push(-none);
      u.push(v + margin());
    }
  }
  return { qp: { n, P, q, A, l, u }, stageOf, xFeasible };
}

/**
 * Appends three rows a1'x ≥ c1, a2'x ≥ c2, (a1+a2)'x ≤ c1 + c2 − gap (gap > 0): infeasible
 * (adding the first two contradicts the third), each row within two consecutive stages.
 */
export function makeInfeasible(s: StagedQp, seed: number): StagedQp {
  const r = rng(seed ^ 0x5bd1e995);
  const stages = Math.max(...s.stageOf) + 1;
  const n = s.qp.n;
  const k = Math.floor(r() * stages);
  const lo = k > 0 ? k - 1 : k;
  const a1 = new Array<number>(n).fill(0);
  const a2 = new Array<number>(n).fill(0);
  for (let j = 0; j < n; j++) {
    if (s.stageOf[j]! >= lo && s.stageOf[j]! <= k) {
      a1[j] = gauss(r);
      a2[j] = gauss(r);
    }
  }
  const c1 = gauss(r);
  const c2 = gauss(r);
  const gap = 0.5 + r();
  const A = [...s.qp.A, a1, a2, a1.map((v, j) => v + a2[j]!)];
  const l = [...s.qp.l, c1, c2, -Infinity];
  const u = [...s.qp.u, Infinity, 1e30, c1 + c2 - gap];
  return { ...s, qp: { ...s.qp, A, l, u } };
}
