import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseQpJson, QpSolver } from '../../src/qp/index.js';
import type { QpProblem } from '../../src/qp/index.js';
import { sharedDir } from '../support/paths.js';

const generator = join(sharedDir, 'qp', 'gen-chunk-qp.mjs');

async function generate(args: string[]): Promise<QpProblem[]> {
  const { stdout } = await promisify(execFile)(process.execPath, [generator, '--seq', '20', ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  return parseQpJson(stdout, `gen-chunk-qp ${args.join(' ')}`);
}

/** ‖Px + q + A'y‖∞ recomputed here from the returned x, y (independent of the solver's bookkeeping) */
function stationarity(p: QpProblem, x: Float64Array, y: Float64Array): number {
  const g = Float64Array.from(p.q);
  for (let j = 0; j < p.n; j++) {
    for (let t = p.P.colPtr[j]!; t < p.P.colPtr[j + 1]!; t++) {
      const i = p.P.rowIndex[t]!;
      g[i]! += p.P.values[t]! * x[j]!;
      if (i !== j) g[j]! += p.P.values[t]! * x[i]!;
    }
    for (let t = p.A.colPtr[j]!; t < p.A.colPtr[j + 1]!; t++) g[j]! += p.A.values[t]! * y[p.A.rowIndex[t]!]!;
  }
  return g.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
}

// one generator run per (joints, pairs), each with its own seed: six seeds, 120 problems.
// --n 6 --pairs 4 --seed 1 once ended with a dual residual blown up by z/s ~ 1e17 (fixed by a
// floor on the centring target and a second refinement pass), so it stays in the list.
const cases: { joints: number; pairs: number; seed: number }[] = [
  { joints: 6, pairs: 2, seed: 12 },
  { joints: 6, pairs: 3, seed: 15 },
  { joints: 6, pairs: 4, seed: 1 },
  { joints: 7, pairs: 2, seed: 13 },
  { joints: 7, pairs: 3, seed: 16 },
  { joints: 7, pairs: 4, seed: 19 },
];
const generated = new Map<string, QpProblem[]>();
const key = (c: { joints: number; pairs: number; seed: number }) => `${c.joints}/${c.pairs}/${c.seed}`;

describe('every --seq 20 case of gen-chunk-qp.mjs solves in ≤ 40 iterations', () => {
  beforeAll(async () => {
    const runs = await Promise.all(
      cases.map((c) => generate(['--n', String(c.joints), '--pairs', String(c.pairs), '--seed', String(c.seed)])),
    );
    cases.forEach((c, k) => generated.set(key(c), runs[k]!));
  });

  it.each(cases)('--n $joints --pairs $pairs --seed $seed', (c) => {
    const problems = generated.get(key(c))!;
    expect(problems).toHaveLength(20);
    const solver = new QpSolver(problems[0]!);
    expect(solver.structure.kind).toBe('chunk');
    const outcomes = problems.map((p) => {
      const r = solver.solve(p, { maxIterations: 40 });
      // multipliers have the sign of the bound they press on (OSQP convention)
      let wrongSign = 0;
      for (let i = 0; i < p.m; i++) {
        if (r.y[i]! > 1e-7 && !(p.u[i]! < 1e20)) wrongSign++;
        if (r.y[i]! < -1e-7 && !(p.l[i]! > -1e20)) wrongSign++;
      }
      return {
        status: r.status,
        iterations: r.iterations,
        violation: r.maxViolation,
        stationarity: stationarity(p, r.x, r.y),
        wrongSign,
      };
    });
    for (const o of outcomes) {
      expect(o.status).toBe('solved');
      expect(o.iterations).toBeLessThanOrEqual(40);
      expect(o.violation).toBeLessThanOrEqual(1e-6);
      expect(o.stationarity).toBeLessThanOrEqual(1e-5);
      expect(o.wrongSign).toBe(0);
    }
  });

  it('warm-started sequence (previous solution shifted by the executed steps) stays solved and accurate', () => {
    const problems = generated.get(key(cases[1]!))!;
    const solver = new QpSolver(problems[0]!);
    const cold = new QpSolver(problems[0]!);
    const H = 50;
    const n = 6;
    const warm = new Float64Array(problems[0]!.n);
    let previous: Float64Array | undefined;
    let warmIterations = 0;
    let coldIterations = 0;
    for (const p of problems) {
      if (previous !== undefined) {
        for (let k = 0; k < H; k++) {
          const src = Math.min(k + 5, H - 1);
          for (let j = 0; j < n; j++) warm[k * n + j] = previous[src * n + j]!;
          warm[H * n + k] = previous[H * n + src]!;
        }
      }
      const r = solver.solve(p, previous === undefined ? {} : { warmStart: warm });
      const c = cold.solve(p);
      expect(r.status).toBe('solved');
      expect(Math.abs(r.objective - c.objective)).toBeLessThanOrEqual(1e-6 * Math.abs(c.objective));
      warmIterations += r.iterations;
      coldIterations += c.iterations;
      previous = Float64Array.from(r.x);
    }
    expect(warmIterations).toBeLessThan(coldIterations);
  });
  it('primal-dual warm start after a change of some rows (an SQP re-linearisation) reaches the cold solution in far fewer iterations', () => {
    const problems = generated.get(key(cases[2]!))!;
    const solver = new QpSolver(problems[0]!);
    const cold = new QpSolver(problems[0]!);
    let warmIterations = 0;
    let coldIterations = 0;
    for (const p of problems) {
      const first = solver.solve(p);
      expect(first.status).toBe('solved');
      const x = Float64Array.from(first.x);
      const y = Float64Array.from(first.y);
      // perturb every row with a finite lower and no upper bound (the CBF and slack rows): values ×1.03, bound +1e-3
      const A = { ...p.A, values: Float64Array.from(p.A.values) };
      const l = Float64Array.from(p.l);
      for (let j = 0; j < p.n; j++) {
        for (let t = A.colPtr[j]!; t < A.colPtr[j + 1]!; t++) {
          const i = A.rowIndex[t]!;
          if (p.u[i]! >= 1e20 && p.l[i]! > -1e20) A.values[t] = A.values[t]! * 1.03;
        }
      }
      for (let i = 0; i < p.m; i++) if (p.u[i]! >= 1e20 && p.l[i]! > -1e20 && p.l[i] !== 0) l[i] = l[i]! + 1e-3;
      const next: QpProblem = { ...p, A, l };
      const c = cold.solve(next);
      const w = solver.solve(next, { warmStart: x, warmStartDual: y });
      expect(c.status).toBe('solved');
      expect(w.status).toBe('solved');
      expect(Math.abs(w.objective - c.objective)).toBeLessThanOrEqual(1e-6 * Math.abs(c.objective));
      for (let j = 0; j < p.n; j++) expect(Math.abs(w.x[j]! - c.x[j]!)).toBeLessThan(1e-4);
      expect(w.maxViolation).toBeLessThanOrEqual(1e-6);
      warmIterations += w.iterations;
      coldIterations += c.iterations;
    }
    // measured 0.57 (136 / 237 with the centred cold start; 0.51 = 136 / 266 before it); primal-only 0.77
    expect(warmIterations).toBeLessThan(0.7 * coldIterations);
  });
});
