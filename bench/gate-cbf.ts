/**
 * Chunk-level CBF filter, end to end (barrier evaluation + linearisation + up to 3 QP solves with
 * src/qp's interior point + nonlinear re-check), on the scenarios of ../shared/qp/gen-chunk-qp.mjs
 * (`--seq 20`: a reach sweeping the tool through a sphere, obstacles drifting): the generator's
 * nominal chunk and q0 per cycle, its toy kinematics as the barrier model, H = 50, 2–4 pairs,
 * 6 and 7 joints, three seeds. Then heap growth over repeated filtering of one shape.
 *
 *   node --expose-gc --import tsx bench/gate-cbf.ts        (or: npx tsx bench/gate-cbf.ts, no heap figure)
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { ChunkCbfFilter, DEFAULT_CBF_WEIGHTS, interiorPointSolver } from '../src/gate/index.js';
import type { CbfOutcome } from '../src/gate/index.js';
import { generatorObstacles, ToyBarrier } from '../test/gate/support/toy-so101.js';

const shared = process.env.ARMGUARD_SHARED ?? resolve(fileURLToPath(new URL('..', import.meta.url)), '../shared');
const gen = resolve(shared, 'qp/gen-chunk-qp.mjs');
const H = 50;

interface GenProblem { unom: number[]; q0: number[]; meta: { cycle: number; dq: number } }

function q(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
}

function makeFilter(n: number, pairs: number, cycle: number) {
  const qmax = [1.9, 1.75, 1.6, 1.65, 2.8, 1.0, 2.9, 2.9].slice(0, n);
  const qmin = qmax.map((v, j) => (j === 5 ? -0.1 : -v));
  const barrier = new ToyBarrier(n, generatorObstacles(H, n, cycle), pairs);
  return new ChunkCbfFilter(barrier, interiorPointSolver, {
    ...DEFAULT_CBF_WEIGHTS,
    qmin,
    qmax,
    maxSpeed: new Array<number>(n).fill(0.05), // dq = 0.05 rad per step at dt = 1
    maxRounds: 3,
    slackTolerance: 1e-6,
    cbfTolerance: 1e-6,
    maxIterations: 40,
  });
}

const summary: Record<string, unknown>[] = [];
const medians = new Map<number, number>();
for (const n of [6, 7]) {
  const times: number[] = [];
  const solveTimes: number[] = [];
  const status = new Map<string, number>();
  let maxIter = 0;
  for (const pairs of [2, 3, 4]) {
    for (const seed of [1, 2, 3]) {
      const out = execFileSync(process.execPath, [gen, '--H', String(H), '--n', String(n), '--pairs', String(pairs), '--seq', '20', '--seed', String(seed)], { encoding: 'utf8', maxBuffer: 1 << 28 });
      const problems = (JSON.parse(out) as { problems: GenProblem[] }).problems;
      // one filter per cycle's obstacle position (the barrier model holds the obstacles), built before timing
      const filters = problems.map((p) => makeFilter(n, pairs, p.meta.cycle));
      for (let rep = 0; rep < 3; rep++) {
        problems.forEach((p, i) => {
          const f = filters[i]!;
          const unom = Float64Array.from(p.unom);
          const t0 = performance.now();
          const o: CbfOutcome = f.filter(unom, H, p.q0, 1);
          const dt = performance.now() - t0;
          if (rep === 0) return; // first pass warms the JIT and the per-shape allocation
          times.push(dt);
          if (o.rounds > 0) solveTimes.push(dt / o.rounds);
          status.set(o.status, (status.get(o.status) ?? 0) + 1);
          maxIter = Math.max(maxIter, o.rounds > 0 ? Math.ceil(o.iterations / o.rounds) : 0);
        });
      }
    }
  }
  medians.set(n, q(times, 0.5));
  summary.push({
    joints: n,
    chunks: times.length,
    median_ms: +q(times, 0.5).toFixed(3),
    p99_ms: +q(times, 0.99).toFixed(3),
    max_ms: +Math.max(...times).toFixed(3),
    per_round_median_ms: +q(solveTimes, 0.5).toFixed(3),
    max_mean_iterations_per_solve: maxIter,
    outcomes: Object.fromEntries(status),
  });
}
for (const s of summary) console.log(JSON.stringify(s));
console.log(JSON.stringify({ ratio_7_over_6_median: +(medians.get(7)! / medians.get(6)!).toFixed(2) }));

const gc = (globalThis as { gc?: () => void }).gc;
if (gc) {
  const out = execFileSync(process.execPath, [gen, '--H', '50', '--n', '6', '--pairs', '2', '--seq', '1', '--seed', '1'], { encoding: 'utf8' });
  const p = JSON.parse(out) as GenProblem;
  const f = makeFilter(6, 2, 0);
  const unom = Float64Array.from(p.unom);
  for (let i = 0; i < 200; i++) f.filter(unom, H, p.q0, 1);
  gc();
  const before = process.memoryUsage().heapUsed;
  const N = 10_000;
  for (let i = 0; i < N; i++) f.filter(unom, H, p.q0, 1);
  gc();
  const after = process.memoryUsage().heapUsed;
  console.log(JSON.stringify({ heap_growth_bytes_over_filters: after - before, filters: N, status: f.outcome.status, rounds: f.outcome.rounds }));
} else {
  console.log('(run with node --expose-gc --import tsx for the heap-growth figure)');
}
