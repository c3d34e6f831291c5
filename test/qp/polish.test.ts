import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseQpJson, QpSolver } from '../../src/qp/index.js';
import type { QpProblem, QpResult } from '../../src/qp/index.js';
import { toProblem } from './support/build.js';
import { solveByActiveSetEnumeration } from './support/dense-reference.js';
import type { DenseQp } from './support/dense-reference.js';
import { makeInfeasible, randomStagedQp } from './support/random-qp.js';
import { sharedDir } from '../support/paths.js';
import { solveActiveSetQp } from '../gate/support/active-set-qp.js';

const POLISH = { polish: true, maxIterations: 60 } as const;

/** max_j |(Px + q + A'y)_j| and the largest multiplier of the wrong sign, on the dense data */
function kktOf(qp: DenseQp, x: ArrayLike<number>, y: ArrayLike<number>): { stationarity: number; wrongSign: number } {
  let stationarity = 0;
  for (let j = 0; j < qp.n; j++) {
    let s = qp.q[j]!;
    for (let k = 0; k < qp.n; k++) s += qp.P[j]![k]! * x[k]!;
    for (let i = 0; i < qp.A.length; i++) s += qp.A[i]![j]! * y[i]!;
    stationarity = Math.max(stationarity, Math.abs(s));
  }
  let wrongSign = 0;
  for (let i = 0; i < qp.A.length; i++) {
    // OSQP sign: y > 0 needs a finite upper bound, y < 0 a finite lower one
    if (y[i]! > 0 && !(qp.u[i]! < 1e20)) wrongSign = Math.max(wrongSign, y[i]!);
    if (y[i]! < 0 && !(qp.l[i]! > -1e20)) wrongSign = Math.max(wrongSign, -y[i]!);
  }
  return { stationarity, wrongSign };
}

function solveBoth(problem: QpProblem): { ip: QpResult; polished: QpResult; solver: QpSolver } {
  const solver = new QpSolver(problem);
  const ip = solver.solve(problem, { maxIterations: 60 });
  const ipCopy = { ...ip, x: Float64Array.from(ip.x), y: Float64Array.from(ip.y) };
  const polished = solver.solve(problem, POLISH);
  return { ip: ipCopy, polished, solver };
}

describe('active-set polish against the dense enumeration reference', () => {
  it('a polished result is the exact optimum (x within 1e-9) with verified multipliers; rejected guesses leave the interior point right', () => {
    let polishedCount = 0;
    let rejected = 0;
    let attempts = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const s = randomStagedQp(seed, 2 + (seed % 3), 1 + (seed % 2), 1 + (seed % 6));
      const ref = solveByActiveSetEnumeration(s.qp);
      expect(ref.feasible).toBe(true);
      if (!ref.feasible) continue;
      const problem = toProblem(s.qp, { kind: 'stages', stageOfVariable: Int32Array.from(s.stageOf) });
      const { ip, polished: r, solver } = solveBoth(problem);
      attempts += solver.polishCounts.attempts;
      rejected += solver.polishCounts.attempts - solver.polishCounts.accepted;
      expect(ip.polished).toBe(false);
      expect(r.status).toBe('solved');
      expect(Math.abs(r.objective - ref.objective)).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(ref.objective)));
      const kkt = kktOf(s.qp, r.x, r.y);
      expect(kkt.wrongSign).toBe(0);
      if (r.polished) {
        polishedCount++;
        for (let j = 0; j < s.qp.n; j++)
          expect(Math.abs(r.x[j]! - ref.x[j]!)).toBeLessThanOrEqual(1e-9 * (1 + Math.abs(ref.x[j]!)));
        expect(r.maxViolation).toBeLessThanOrEqual(1e-12);
        expect(kkt.stationarity).toBeLessThanOrEqual(1e-8);
        // never fewer iterations' worth of accuracy than the interior point alone
        expect(r.iterations).toBeLessThanOrEqual(ip.iterations);
      } else {
        for (let j = 0; j < s.qp.n; j++)
          expect(Math.abs(r.x[j]! - ref.x[j]!)).toBeLessThanOrEqual(1e-4 * (1 + Math.abs(ref.x[j]!)));
      }
    }
    // the polish answers most of these small problems (its rejections: the seeds below)
    expect(polishedCount).toBeGreaterThan(200);
    expect(rejected).toBeLessThanOrEqual(attempts - polishedCount);
  });

  // 16 variables in 8 stages, 40 rows: too many for the enumeration; the dense primal active-set
  // reference (test/gate/support) answers instead. These seeds were found by listing
  // polishCounts over seeds 1–200: on 73 and 115 the first guess fails verification and one
  // correction is accepted; on 82 and 112 three guesses fail and the interior point goes on.
  it.each([
    [73, 'accepted after a correction'],
    [115, 'accepted after a correction'],
    [82, 'rejected: the interior point goes on'],
    [112, 'rejected: the interior point goes on'],
  ])(
    'a wrong first guess is caught by the verification (seed %i, %s) and the answer is the reference optimum',
    (seed, what) => {
      const s = randomStagedQp(seed, 8, 2, 40);
      const problem = toProblem(s.qp);
      const ref = solveActiveSetQp(problem);
      expect(ref.status).toBe('solved');
      const solver = new QpSolver(problem);
      const r = solver.solve(problem, { ...POLISH, maxIterations: 100 });
      const counts = solver.polishCounts;
      expect(r.status).toBe('solved');
      expect(counts.sweeps).toBeGreaterThan(counts.attempts);
      const accepted = what.startsWith('accepted');
      expect(r.polished).toBe(accepted);
      expect(counts.accepted).toBe(accepted ? 1 : 0);
      const scale = Math.max(1, Math.abs(ref.objective));
      expect(Math.abs(r.objective - ref.objective)).toBeLessThanOrEqual((accepted ? 1e-10 : 1e-7) * scale);
      for (let j = 0; j < s.qp.n; j++)
        expect(Math.abs(r.x[j]! - ref.x[j]!)).toBeLessThanOrEqual((accepted ? 1e-9 : 1e-5) * (1 + Math.abs(ref.x[j]!)));
      expect(kktOf(s.qp, r.x, r.y).wrongSign).toBe(0);
    },
  );

  it('polishFromWarmStart: a re-solve whose active set is unchanged is answered before the first step; a changed one is caught', () => {
    let before = 0;
    let caught = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const s = randomStagedQp(seed, 8, 2, 40);
      const problem = toProblem(s.qp);
      const solver = new QpSolver(problem);
      const first = solver.solve(problem, { ...POLISH, maxIterations: 100 });
      expect(first.status).toBe('solved');
      const warm = Float64Array.from(first.x);
      const warmDual = Float64Array.from(first.y);
      // a small change of the cost keeps the active set; a large one (q reversed) does not
      for (const change of [1e-6, -2] as const) {
        const q = Float64Array.from(problem.q, (v, j) => (change > 0 ? v + change * Math.sin(j + seed) : change * v));
        const changed: QpProblem = { ...problem, q };
        const ref = solveActiveSetQp(changed);
        expect(ref.status).toBe('solved');
        const r = solver.solve(changed, {
          polishFromWarmStart: true,
          warmStart: warm,
          warmStartDual: warmDual,
          maxIterations: 100,
        });
        expect(r.status).toBe('solved');
        const scale = Math.max(1, Math.abs(ref.objective));
        expect(Math.abs(r.objective - ref.objective)).toBeLessThanOrEqual((r.polished ? 1e-10 : 1e-7) * scale);
        for (let j = 0; j < s.qp.n; j++)
          expect(Math.abs(r.x[j]! - ref.x[j]!)).toBeLessThanOrEqual(
            (r.polished ? 1e-9 : 1e-5) * (1 + Math.abs(ref.x[j]!)),
          );
        if (change > 0 && r.polished && r.iterations === 0) before++;
        if (change < 0 && r.iterations > 0) caught++;
      }
    }
    expect(before).toBeGreaterThanOrEqual(30);
    expect(caught).toBeGreaterThanOrEqual(30);
  });

  it('hand-computed: min ½‖x − (2, 2)‖² s.t. x₁ + x₂ ≤ 2, x₁ ≥ 0 → (1, 1), y = (1, 0)', () => {
    const p = toProblem({
      n: 2,
      P: [
        [1, 0],
        [0, 1],
      ],
      q: [-2, -2],
      A: [
        [1, 1],
        [1, 0],
      ],
      l: [-Infinity, 0],
      u: [2, Infinity],
    });
    const r = new QpSolver(p).solve(p, POLISH);
    expect(r.status).toBe('solved');
    expect(r.polished).toBe(true);
    expect(Math.abs(r.x[0]! - 1)).toBeLessThan(1e-12);
    expect(Math.abs(r.x[1]! - 1)).toBeLessThan(1e-12);
    // Px + q + A'y = 0: (1 − 2) + y₁ = 0 → y₁ = 1 (the upper bound is active, so y > 0)
    expect(Math.abs(r.y[0]! - 1)).toBeLessThan(1e-12);
    expect(Math.abs(r.y[1]!)).toBe(0);
    expect(Math.abs(r.objective - -3)).toBeLessThan(1e-12);
  });

  it('keeps the infeasible status (Farkas certificate) on contradictory rows', () => {
    for (let seed = 1; seed <= 60; seed++) {
      const s = makeInfeasible(randomStagedQp(seed, 2 + (seed % 2), 1 + (seed % 2), seed % 4), seed);
      const problem = toProblem(s.qp);
      const r = new QpSolver(problem).solve(problem, { ...POLISH, maxIterations: 100 });
      expect(r.status).toBe('infeasible');
      expect(r.polished).toBe(false);
    }
  });

  it('keeps the dual-infeasible status on a problem unbounded below', () => {
    // min −x₁ with x₁ − x₂ ≤ 1 only: unbounded along (1, 1)
    const p = toProblem({
      n: 2,
      P: [
        [0, 0],
        [0, 0],
      ],
      q: [-1, 0],
      A: [[1, -1]],
      l: [-Infinity],
      u: [1],
    });
    const r = new QpSolver(p).solve(p, { ...POLISH, maxIterations: 100 });
    expect(r.status).toBe('infeasible');
    expect(r.polished).toBe(false);
  });

  it('on the shared chunk QP (H = 50, tolerance 1e-9): the OSQP reference objective, fewer iterations, no violation', () => {
    const file = join(sharedDir, 'qp', 'chunk_H50_n6.json');
    const chunk = parseQpJson(readFileSync(file, 'utf8'), file)[0]!;
    const { ip, polished: r } = solveBoth(chunk);
    expect(r.status).toBe('solved');
    expect(r.polished).toBe(true);
    expect(r.iterations).toBeLessThan(ip.iterations);
    // OSQP (eps 1e-9, polished): −36.1870867688
    expect(Math.abs(r.objective - -36.1870867688) / 36.19).toBeLessThan(1e-9);
    expect(r.maxViolation).toBeLessThanOrEqual(1e-12);
    expect(Math.abs(r.objective - ip.objective) / 36.19).toBeLessThan(1e-8);
  });

  it('polish is off by default: the interior point alone answers', () => {
    const file = join(sharedDir, 'qp', 'chunk_H50_n6.json');
    const chunk = parseQpJson(readFileSync(file, 'utf8'), file)[0]!;
    const solver = new QpSolver(chunk);
    const r = solver.solve(chunk);
    expect(r.polished).toBe(false);
    expect(solver.polishCounts.attempts).toBe(0);
  });
});
