/**
 * Chunk-level CBF filter, end to end (barrier evaluation + linearisation + up to 3 QP solves with
 * src/qp's interior point + nonlinear re-check), on the scenarios of ../shared/qp/gen-chunk-qp.mjs
 * (`--seq 20`: a reach sweeping the tool through a sphere, obstacles drifting): the generator's
 * nominal chunk and q0 per cycle, its toy kinematics as the barrier model, H = 50, 2–4 pairs,
 * 6 and 7 joints, three seeds. Then the SO-101 capsule barrier (src/kinematics) with 2–4 obstacle
 * pairs on pan sweeps through a tracked object, heap growth over repeated filtering of one shape,
 * and the bytes allocated per filter call, garbage included (bench/sampled-allocation.ts).
 *
 *   node --expose-gc --import tsx bench/gate-cbf.ts [heapFilters=2000] [skipToy]
 */
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import {
  CapsuleBarrier,
  ChunkCbfFilter,
  DEFAULT_CBF_TOLERANCE,
  DEFAULT_CBF_WEIGHTS,
  interiorPointSolver,
  obstacleGroups,
} from '../src/gate/index.js';
import type { CbfOutcome, QpSolverFactory } from '../src/gate/index.js';
import { CapsuleModel, SO101_CHAIN, SO101_FRAMES, SO101_MODEL } from '../src/kinematics/index.js';
import { generatorObstacles, ToyBarrier } from '../test/gate/support/toy-so101.js';
import { calibrationMs } from './machine-speed.js';
import { sampledAllocation } from './sampled-allocation.js';

const shared = process.env.ARMGUARD_SHARED ?? resolve(fileURLToPath(new URL('..', import.meta.url)), '../shared');
const gen = resolve(shared, 'qp/gen-chunk-qp.mjs');
const H = 50;

interface GenProblem {
  unom: number[];
  q0: number[];
  meta: { cycle: number; dq: number };
}

function q(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
}

/** src/qp's solver, with the time spent inside solve() accumulated (to separate QP from barrier cost). */
let qpMs = 0;
const timedSolver: QpSolverFactory = (problem) => {
  const s = interiorPointSolver(problem);
  return {
    solve: (o) => {
      const t0 = performance.now();
      const r = s.solve(o);
      qpMs += performance.now() - t0;
      return r;
    },
  };
};

function makeFilter(n: number, pairs: number, cycle: number) {
  const qmax = [1.9, 1.75, 1.6, 1.65, 2.8, 1.0, 2.9, 2.9].slice(0, n);
  const qmin = qmax.map((v, j) => (j === 5 ? -0.1 : -v));
  const barrier = new ToyBarrier(n, generatorObstacles(H, n, cycle), pairs);
  return new ChunkCbfFilter(barrier, timedSolver, {
    ...DEFAULT_CBF_WEIGHTS,
    qmin,
    qmax,
    maxSpeed: new Array<number>(n).fill(0.05), // dq = 0.05 rad per step at dt = 1
    maxRounds: 3,
    slackTolerance: 1e-6,
    cbfTolerance: DEFAULT_CBF_TOLERANCE,
    maxIterations: 40,
  });
}

console.log(
  JSON.stringify({
    bench: 'gate-cbf',
    loadavg_start: loadavg().map((v) => +v.toFixed(2)),
    calibration_1e8_madd_cpu_ms: calibrationMs(),
  }),
);

const summary: Record<string, unknown>[] = [];
const medians = new Map<number, number>();
for (const n of process.argv[3] === 'skipToy' ? [] : [6, 7]) {
  const times: number[] = [];
  const solveTimes: number[] = [];
  const qpPerSolve: number[] = [];
  const unsafeWhy = new Map<string, number>();
  const status = new Map<string, number>();
  const byRounds = new Map<number, number[]>();
  let maxIter = 0;
  // Everything the timed passes need is generated, parsed and allocated first (one filter per
  // cycle's obstacle position: the barrier model holds the obstacles), so no garbage the benchmark
  // itself makes is collected inside a timed filter call.
  const cases: { f: ChunkCbfFilter; unom: Float64Array; q0: number[] }[] = [];
  for (const pairs of [2, 3, 4]) {
    for (const seed of [1, 2, 3]) {
      const out = execFileSync(
        process.execPath,
        [gen, '--H', String(H), '--n', String(n), '--pairs', String(pairs), '--seq', '20', '--seed', String(seed)],
        { encoding: 'utf8', maxBuffer: 1 << 28 },
      );
      for (const p of (JSON.parse(out) as { problems: GenProblem[] }).problems)
        cases.push({ f: makeFilter(n, pairs, p.meta.cycle), unom: Float64Array.from(p.unom), q0: p.q0 });
    }
  }
  const passes = 2;
  const dts = new Float64Array(passes * cases.length);
  const qps = new Float64Array(passes * cases.length);
  const rounds = new Int32Array(passes * cases.length);
  for (const c of cases) c.f.filter(c.unom, H, c.q0, 1); // warms the JIT and the per-shape allocation
  (globalThis as { gc?: () => void }).gc?.();
  for (let rep = 0; rep < passes; rep++) {
    for (let i = 0; i < cases.length; i++) {
      const c = cases[i]!;
      qpMs = 0;
      const t0 = performance.now();
      const o: CbfOutcome = c.f.filter(c.unom, H, c.q0, 1);
      const k = rep * cases.length + i;
      dts[k] = performance.now() - t0;
      qps[k] = qpMs;
      rounds[k] = o.rounds;
      if (rep > 0) continue;
      if (o.status === 'unsafe') {
        const why = o.detail.startsWith('present position')
          ? 'q0 inside d_safe'
          : o.detail.includes('slack')
            ? 'slack needed'
            : 'h < 0 after re-check';
        unsafeWhy.set(why, (unsafeWhy.get(why) ?? 0) + 1);
      }
      status.set(o.status, (status.get(o.status) ?? 0) + 1);
      maxIter = Math.max(maxIter, o.rounds > 0 ? Math.ceil(o.iterations / o.rounds) : 0);
    }
  }
  for (let k = 0; k < dts.length; k++) {
    times.push(dts[k]!);
    const r = rounds[k]!;
    byRounds.set(r, [...(byRounds.get(r) ?? []), dts[k]!]);
    if (r > 0) {
      qpPerSolve.push(qps[k]! / r);
      solveTimes.push(dts[k]! / r);
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
    qp_solve_median_ms: +q(qpPerSolve, 0.5).toFixed(3),
    qp_solve_p99_ms: +q(qpPerSolve, 0.99).toFixed(3),
    unsafe_reasons: Object.fromEntries(unsafeWhy),
    max_mean_iterations_per_solve: maxIter,
    outcomes: Object.fromEntries(status),
    by_rounds: Object.fromEntries(
      [...byRounds]
        .sort((a, b) => a[0] - b[0])
        .map(([r, ts]) => [
          r,
          { chunks: ts.length, median_ms: +q(ts, 0.5).toFixed(3), max_ms: +Math.max(...ts).toFixed(3) },
        ]),
    ),
  });
}
for (const s of summary) console.log(JSON.stringify(s));
if (medians.size === 2)
  console.log(JSON.stringify({ ratio_7_over_6_median: +(medians.get(7)! / medians.get(6)!).toFixed(2) }));

// SO-101 capsules: pan sweeps from 21 start positions towards a goal past a sphere just below the path.
function so101Filter(pairs: number): ChunkCbfFilter {
  const QMIN = SO101_CHAIN.joints.map((j) => j.lower!);
  const QMAX = SO101_CHAIN.joints.map((j) => j.upper!);
  const m = new CapsuleModel(SO101_MODEL);
  m.update([0, -0.5, 0.5, 0.5, 0, 0.3]);
  const mid = new Float64Array(3);
  m.fk.pointInBase(mid, 0, SO101_FRAMES.tcp, 0, 0, 0);
  const spheres = [mid[0]!, mid[1]!, mid[2]! - 0.03, 0.03];
  if (pairs >= 3) spheres.push(mid[0]! + 0.05, mid[1]! - 0.12, mid[2]! + 0.05, 0.03);
  const obstacles = {
    planes: Float64Array.from([0, 0, 1, 0]),
    spheres: Float64Array.from(spheres),
    box: pairs >= 4 ? Float64Array.from([-0.1, -0.45, -0.05, 0.5, 0.45, 0.5]) : null,
  };
  const barrier = new CapsuleBarrier(new CapsuleModel(SO101_MODEL), obstacleGroups(obstacles), 0.02);
  if (barrier.pairs !== pairs) throw new Error(`expected ${pairs} pairs, got ${barrier.pairs}`);
  return new ChunkCbfFilter(barrier, timedSolver, {
    ...DEFAULT_CBF_WEIGHTS,
    qmin: QMIN,
    qmax: QMAX,
    maxSpeed: new Array<number>(6).fill(1.5),
    maxRounds: 3,
    slackTolerance: 1e-6,
    cbfTolerance: DEFAULT_CBF_TOLERANCE,
    maxIterations: 40,
  });
}

/** One call filters the 21 sweeps (start positions preallocated); returns the number of filter calls. */
function so101Sweeps(pairs: number): () => number {
  const f = so101Filter(pairs);
  const nominal = new Float64Array(50 * 6);
  const starts = Array.from({ length: 21 }, (_, i) => [-0.6 + 0.03 * i, -0.5, 0.5, 0.5, 0, 0.3]);
  return () => {
    for (let s = 0; s < starts.length; s++) {
      const q0 = starts[s]!;
      for (let k = 0; k < 50; k++)
        for (let j = 0; j < 6; j++) nominal[k * 6 + j] = j === 0 ? Math.min(0.6, q0[0]! + 0.024 * (k + 1)) : q0[j]!;
      f.filter(nominal, 50, q0, 0.02);
    }
    return starts.length;
  };
}

{
  for (const pairs of [2, 3, 4]) {
    const f = so101Filter(pairs);
    const times: number[] = [];
    const qpTimes: number[] = [];
    const status = new Map<string, number>();
    const nominal = new Float64Array(50 * 6);
    for (let rep = 0; rep < 4; rep++) {
      for (let i = 0; i <= 20; i++) {
        const q0 = [-0.6 + 0.03 * i, -0.5, 0.5, 0.5, 0, 0.3];
        for (let k = 0; k < 50; k++)
          for (let j = 0; j < 6; j++) nominal[k * 6 + j] = j === 0 ? Math.min(0.6, q0[0]! + 0.024 * (k + 1)) : q0[j]!;
        qpMs = 0;
        const t0 = performance.now();
        const o = f.filter(nominal, 50, q0, 0.02);
        const dt = performance.now() - t0;
        if (rep === 0) continue;
        times.push(dt);
        if (o.rounds > 0) qpTimes.push(qpMs);
        status.set(o.status, (status.get(o.status) ?? 0) + 1);
      }
    }
    console.log(
      JSON.stringify({
        so101_pairs: pairs,
        chunks: times.length,
        median_ms: +q(times, 0.5).toFixed(3),
        p99_ms: +q(times, 0.99).toFixed(3),
        qp_ms_per_chunk_median: qpTimes.length ? +q(qpTimes, 0.5).toFixed(3) : null,
        outcomes: Object.fromEntries(status),
      }),
    );
  }
}

const gc = (globalThis as { gc?: () => void }).gc;
if (gc) {
  const out = execFileSync(
    process.execPath,
    [gen, '--H', '50', '--n', '6', '--pairs', '2', '--seq', '1', '--seed', '1'],
    { encoding: 'utf8' },
  );
  const p = JSON.parse(out) as GenProblem;
  const f = makeFilter(6, 2, 0);
  const unom = Float64Array.from(p.unom);
  for (let i = 0; i < 200; i++) f.filter(unom, H, p.q0, 1);
  gc();
  const before = process.memoryUsage().heapUsed;
  const N = Number(process.argv[2] ?? 2000);
  for (let i = 0; i < N; i++) f.filter(unom, H, p.q0, 1);
  gc();
  const after = process.memoryUsage().heapUsed;
  console.log(
    JSON.stringify({
      heap_growth_bytes_over_filters: after - before,
      filters: N,
      status: f.outcome.status,
      rounds: f.outcome.rounds,
    }),
  );
  // Allocation per filter call, garbage included (heap growth above shows only what is retained).
  const toy = await sampledAllocation(() => (f.filter(unom, H, p.q0, 1), 1), 2000);
  console.log(
    JSON.stringify({
      sampled_alloc_bytes_per_filter: {
        generator_toy_model: toy,
        so101_capsules_4_pairs: await sampledAllocation(so101Sweeps(4), 50),
      },
    }),
  );
} else {
  console.log('(run with node --expose-gc --import tsx for the heap-growth figure)');
}
console.log(
  JSON.stringify({ loadavg_end: loadavg().map((v) => +v.toFixed(2)), calibration_1e8_madd_cpu_ms: calibrationMs() }),
);
