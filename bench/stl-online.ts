/**
 * STL online monitor throughput (design §11, issue 2).
 *
 *   npx tsx bench/stl-online.ts [samples]
 *
 * 1. The 8 safe-tier clauses of design §3 as one conjunction, 1,000,000 irregular samples (~1 kHz):
 *    µs per sample for push() including copying the sample's 9 values into the row buffer.
 * 2. Windowed operators at 100-sample vs 10,000-sample windows (uniform 1 ms samples): µs per
 *    sample for each, and their ratio (target within 1.5×).
 * Best of 5 runs each, as process CPU time (user+system) per sample: the machine's 2 cores are
 * shared with other work, so wall time mostly measures waiting for a core; wall time is printed too.
 */
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { OnlineMonitor, type Formula } from '../src/stl/index.js';
import { parseOrThrow, SAFE_TIER_CONJUNCTION, SAFE_TIER_ORDER, SAFE_TIER_SIGNALS, synthTrace } from './stl-common.js';

const N = Number(process.argv[2] ?? 1_000_000);
const RUNS = 5;

function timeMonitor(
  f: Formula,
  order: readonly string[],
  times: Float64Array,
  rows: Float64Array,
  width: number,
): { usPerSample: number; wallUsPerSample: number; monitor: OnlineMonitor } {
  const m = new OnlineMonitor(f, order);
  const row = new Float64Array(width);
  let best = Infinity;
  let bestWall = Infinity;
  for (let run = 0; run < RUNS; run++) {
    m.reset();
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < times.length; i++) {
      const o = i * width;
      for (let k = 0; k < width; k++) row[k] = rows[o + k] as number;
      m.push(times[i] as number, row);
    }
    m.finish();
    const wall = performance.now() - t0;
    const cpu = process.cpuUsage(c0);
    best = Math.min(best, (cpu.user + cpu.system) / 1000);
    bestWall = Math.min(bestWall, wall);
  }
  return { usPerSample: (best * 1000) / times.length, wallUsPerSample: (bestWall * 1000) / times.length, monitor: m };
}

// 1. Safe-tier conjunction
const trace = synthTrace(N);
const safe = parseOrThrow(SAFE_TIER_CONJUNCTION, SAFE_TIER_SIGNALS);
const r1 = timeMonitor(safe, SAFE_TIER_ORDER, trace.times, trace.rows, 9);
console.log(
  `safe-tier 8-clause conjunction, ${N.toLocaleString('en')} samples: ${r1.usPerSample.toFixed(3)} µs/sample CPU (target ≤ 0.5), ${r1.wallUsPerSample.toFixed(3)} µs wall; load average ${loadavg()[0]?.toFixed(1)}`,
);
console.log(
  `  final ρ ${r1.monitor.final.toFixed(3)}, first violation at ${r1.monitor.firstViolationTime.toFixed(4)} s, longest run ${r1.monitor.longestViolation.samples} samples / ${(r1.monitor.longestViolation.seconds * 1000).toFixed(2)} ms, operators ${r1.monitor.operatorCount}`,
);

// 2. Window-length independence: uniform 1 ms samples, windows of 100 and 10,000 samples.
const W_N = Math.min(N, 1_000_000);
const uni = new Float64Array(W_N);
const vals = new Float64Array(W_N * 2);
{
  let s = 12345;
  for (let i = 0; i < W_N; i++) {
    uni[i] = i * 0.001;
    s = (s * 1103515245 + 12345) % 2147483648;
    vals[2 * i] = Math.sin(i * 0.0007) * 3 + (s / 2147483648 - 0.5);
    vals[2 * i + 1] = Math.cos(i * 0.0011) * 2;
  }
}
const WSIG = [
  { name: 'x', type: 'real' as const },
  { name: 'y', type: 'real' as const },
];
const shapes: [string, (w: string) => string][] = [
  ['always[0:w]', (w) => `always (always[0:${w}] (x < 2))`],
  ['eventually[0:w]', (w) => `always (eventually[0:${w}] (x > 0))`],
  ['historically[0:w]', (w) => `always (historically[0:${w}] (x < 2))`],
  ['once[0:w]', (w) => `always (once[0:${w}] (x > 0))`],
  ['until[0:w]', (w) => `always ((x < 2.5) until[0:${w}] (y > 1))`],
  ['since[0:w]', (w) => `always ((x < 2.5) since[0:${w}] (y > 1))`],
];
console.log(`\nwindowed operators, ${W_N.toLocaleString('en')} uniform 1 ms samples (µs/sample):`);
console.log('| operator | 100-sample window | 10,000-sample window | ratio |');
console.log('|---|---|---|---|');
for (const [label, make] of shapes) {
  const small = timeMonitor(parseOrThrow(make('0.099'), WSIG), ['x', 'y'], uni, vals, 2).usPerSample;
  const large = timeMonitor(parseOrThrow(make('9.999'), WSIG), ['x', 'y'], uni, vals, 2).usPerSample;
  console.log(`| ${label} | ${small.toFixed(3)} | ${large.toFixed(3)} | ${(large / small).toFixed(2)}× |`);
}

// 3. Top-level bounded-future clauses: ρ at the first sample stays undecided for a whole window,
// and the gate reads its bounds (low/high) every sample, as MonitorBank does. µs per sample over
// the first 6 s (6,000 samples at 1 ms), push + low + high, wall time.
console.log(`\ntop-level future clauses, bounds read every sample (first 6,000 samples, µs/sample wall):`);
console.log('| clause | mean | max |');
console.log('|---|---|---|');
for (const text of [
  'eventually[0:4] (x > 2.9)',
  '(x < 2.5) until[0:4] (y > 1.9)',
  'always[0:2] (eventually[0:1] (x > 2.9))',
]) {
  const m = new OnlineMonitor(parseOrThrow(text, WSIG), ['x', 'y']);
  const row = new Float64Array(2);
  let sum = 0;
  let max = 0;
  let inverted = 0;
  for (let run = 0; run < 2; run++) {
    m.reset();
    sum = 0;
    max = 0;
    for (let i = 0; i < 6000; i++) {
      row[0] = vals[2 * i]!;
      row[1] = vals[2 * i + 1]!;
      const t0 = performance.now();
      m.push(uni[i]!, row);
      if (m.low > m.high) inverted++;
      const dt = performance.now() - t0;
      sum += dt;
      max = Math.max(max, dt);
    }
  }
  console.log(
    `| ${text} | ${((sum * 1000) / 6000).toFixed(2)} | ${(max * 1000).toFixed(0)} |${inverted > 0 ? ` (${inverted} samples with low > high)` : ''}`,
  );
}
