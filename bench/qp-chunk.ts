/**
 * Chunk-level CBF QP benchmark (design §11): H = 50 × 6 (and 7) joints, 2–4 barrier pairs, the
 * `--seq 20` sequences of shared/qp/gen-chunk-qp.mjs for several seeds.
 *
 * usage: node --expose-gc --import tsx bench/qp-chunk.ts [--seeds 1,2,3,4,5] [--rounds 5] [--heap-solves 10000] [--polish]
 *
 * Per joint count: one QpSolver per shape (setup timed separately), 2 untimed warm-up rounds, then
 * `rounds` timed rounds over all problems, every solve cold (x = 0). Reports wall-clock and
 * per-solve CPU time (process.cpuUsage, which leaves out time spent waiting for a core when the
 * machine is shared) percentiles, iterations, worst violation; then the same sequences
 * warm-started from the previous solution shifted by the executed steps; then heap growth over
 * `heap-solves` solves (with --expose-gc: growth with no GC in between, and after a full GC) and
 * the bytes allocated per solve, garbage included (sampling heap profiler, bench/sampled-allocation.ts).
 */
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { QpSolver, parseQpJson } from '../src/qp/index.js';
import type { QpProblem, QpSolveOptions } from '../src/qp/index.js';
import { calibrationMs } from './machine-speed.js';
import { sampledAllocation } from './sampled-allocation.js';

const generator = fileURLToPath(new URL('../../shared/qp/gen-chunk-qp.mjs', import.meta.url));
const arg = (name: string, fallback: string): string => {
  const k = process.argv.indexOf(`--${name}`);
  return k >= 0 && process.argv[k + 1] !== undefined ? process.argv[k + 1]! : fallback;
};
const seeds = arg('seeds', '1,2,3,4,5').split(',').map(Number);
const rounds = Number(arg('rounds', '5'));
const heapSolves = Number(arg('heap-solves', '10000'));
const gc = (globalThis as { gc?: () => void }).gc;

interface Group {
  label: string;
  problems: QpProblem[];
  solver: QpSolver;
}

function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

function groupsFor(joints: number): { groups: Group[]; setupMs: number } {
  const groups: Group[] = [];
  let setupMs = 0;
  for (const seed of seeds) {
    for (const pairs of [2, 3, 4]) {
      const text = execFileSync(
        process.execPath,
        [generator, '--seq', '20', '--n', String(joints), '--pairs', String(pairs), '--seed', String(seed)],
        { encoding: 'utf8', maxBuffer: 1 << 28 },
      );
      const problems = parseQpJson(text, `gen-chunk-qp --n ${joints} --pairs ${pairs} --seed ${seed}`);
      const t0 = performance.now();
      const solver = new QpSolver(problems[0]!);
      setupMs = Math.max(setupMs, performance.now() - t0);
      groups.push({ label: `n${joints} p${pairs} s${seed}`, problems, solver });
    }
  }
  return { groups, setupMs };
}

// --polish: every solve with QpSolveOptions.polish (the verified active-set polish)
const polish = process.argv.includes('--polish');
const COLD: QpSolveOptions = { maxIterations: 40, polish };

function coldRun(groups: Group[]) {
  const total = groups.reduce((s, g) => s + g.problems.length, 0);
  for (let w = 0; w < 2; w++) for (const g of groups) for (const p of g.problems) g.solver.solve(p, COLD);
  const wall = new Float64Array(total * rounds);
  const cpu = new Float64Array(total * rounds);
  let k = 0;
  let maxIterations = 0;
  let sumIterations = 0;
  let maxViolation = 0;
  let unsolved = 0;
  for (let r = 0; r < rounds; r++) {
    for (const g of groups) {
      for (const p of g.problems) {
        const c0 = process.cpuUsage();
        const t0 = performance.now();
        const res = g.solver.solve(p, COLD);
        wall[k] = performance.now() - t0;
        const c1 = process.cpuUsage(c0);
        cpu[k++] = (c1.user + c1.system) / 1000;
        if (res.status !== 'solved') unsolved++;
        maxIterations = Math.max(maxIterations, res.iterations);
        sumIterations += res.iterations;
        maxViolation = Math.max(maxViolation, res.maxViolation);
      }
    }
  }
  wall.sort();
  cpu.sort();
  return {
    solves: k,
    unsolved,
    wall_ms: { median: percentile(wall, 0.5), p99: percentile(wall, 0.99), max: wall[k - 1]! },
    cpu_ms: { median: percentile(cpu, 0.5), p99: percentile(cpu, 0.99), max: cpu[k - 1]! },
    iterations: { mean: sumIterations / k, max: maxIterations },
    max_violation: maxViolation,
  };
}

function warmRun(groups: Group[], joints: number) {
  const H = 50;
  const shift = 5;
  const times: number[] = [];
  let sumIterations = 0;
  let maxIterations = 0;
  let unsolved = 0;
  for (let r = 0; r < rounds + 1; r++) {
    for (const g of groups) {
      const warm = new Float64Array(g.problems[0]!.n);
      const options: QpSolveOptions = { maxIterations: 40, warmStart: warm, polish };
      let first = true;
      for (const p of g.problems) {
        const t0 = performance.now();
        const res = g.solver.solve(p, first ? COLD : options);
        const dt = performance.now() - t0;
        first = false;
        // shift the solution by the executed steps for the next cycle
        for (let k = 0; k < H; k++) {
          const src = Math.min(k + shift, H - 1);
          for (let j = 0; j < joints; j++) warm[k * joints + j] = res.x[src * joints + j]!;
          warm[H * joints + k] = res.x[H * joints + src]!;
        }
        if (r === 0) continue; // warm-up round
        times.push(dt);
        if (res.status !== 'solved') unsolved++;
        sumIterations += res.iterations;
        maxIterations = Math.max(maxIterations, res.iterations);
      }
    }
  }
  const sorted = Float64Array.from(times).sort();
  return {
    solves: sorted.length,
    unsolved,
    wall_ms: { median: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) },
    iterations: { mean: sumIterations / sorted.length, max: maxIterations },
  };
}

function heapRun(groups: Group[]) {
  if (gc === undefined) return { skipped: 'run with node --expose-gc for the heap figures' };
  const all: { solver: QpSolver; problem: QpProblem }[] = [];
  for (const g of groups) for (const p of g.problems) all.push({ solver: g.solver, problem: p });
  for (const { solver, problem } of all) solver.solve(problem, COLD);
  gc();
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let k = 0; k < heapSolves; k++) {
    const e = all[k % all.length]!;
    e.solver.solve(e.problem, COLD);
  }
  const noGc = process.memoryUsage().heapUsed - before;
  gc();
  gc();
  const afterGc = process.memoryUsage().heapUsed - before;
  return { solves: heapSolves, growth_without_gc_bytes: noGc, growth_after_gc_bytes: afterGc };
}

/** Bytes allocated per solve, garbage included (sampling heap profiler; see sampled-allocation.ts). */
async function allocationPerSolve(groups: Group[]) {
  const all: { solver: QpSolver; problem: QpProblem }[] = [];
  for (const g of groups) for (const p of g.problems) all.push({ solver: g.solver, problem: p });
  let k = 0;
  return sampledAllocation(() => {
    const e = all[k++ % all.length]!;
    e.solver.solve(e.problem, COLD);
    return 1;
  }, 2000);
}

console.log(
  JSON.stringify({
    bench: 'qp-chunk',
    seeds,
    polish,
    rounds,
    node: process.version,
    loadavg_start: loadavg().map((v) => Number(v.toFixed(2))),
    calibration_1e8_madd_cpu_ms: calibrationMs(),
  }),
);
const summary: Record<number, number> = {};
for (const joints of [6, 7]) {
  const { groups, setupMs } = groupsFor(joints);
  const cold = coldRun(groups);
  summary[joints] = cold.cpu_ms.median;
  console.log(JSON.stringify({ joints, problems: groups.length * 20, setup_ms_max: Number(setupMs.toFixed(3)), cold }));
  console.log(JSON.stringify({ joints, warm: warmRun(groups, joints) }));
  console.log(
    JSON.stringify({ joints, heap: heapRun(groups), sampled_alloc_bytes_per_solve: await allocationPerSolve(groups) }),
  );
}
console.log(
  JSON.stringify({
    ratio_7_to_6_cpu_median: Number((summary[7]! / summary[6]!).toFixed(3)),
    loadavg_end: loadavg().map((v) => Number(v.toFixed(2))),
    calibration_1e8_madd_cpu_ms: calibrationMs(),
  }),
);
