/**
 * Episode recording throughput and the per-sample cost it adds to the monitor loop (issue 7).
 * A sample = one SignalFrame (15 signals) + one per-clause robustness record (8 clauses); optional
 * raw input = one FrankaRobotState CDR message per sample (1 kHz robot state). Flush (close chunk,
 * write, fsync) every 1,000 samples = every second at 1 kHz.
 *
 * Wall-time quantiles of the record calls are per call; on a loaded shared machine the p99 and
 * mean mostly measure descheduling, so the CPU time per sample (process.cpuUsage over the whole
 * run, flushes included) is the robust figure for the added cost.
 *
 * usage: npx tsx bench/episode-write.ts [samples=200000]
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createRos2Codec, fullDefinition } from '../src/mcap/index.js';
import { EpisodeRecorder, NodeFileWritable, MemoryFileWritable, type FileWritable } from '../src/episode/index.js';
import { SIGNAL_COUNT, SignalFrame } from '../src/schema/signals.js';
import { ManualClock, ManualTimers } from '../src/util/index.js';
import { frankaRobotState } from '../test/mcap/support/franka-fixtures.js';

const N = Number(process.argv[2] ?? 200_000);
const CLAUSES = ['c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'c8'];
const FLUSH_EVERY = 1000;
const T0 = 1_764_400_000;
const STATE_TOPIC = '/franka_robot_state_broadcaster/robot_state';

function frames(): SignalFrame[] {
  // a small pool of distinct frames, so the loop measures recording, not frame construction
  return Array.from({ length: 64 }, (_, k) => {
    const f = new SignalFrame();
    for (let i = 0; i < SIGNAL_COUNT; i++) f.set(i, Math.sin(k + i) * 10, T0 + k * 0.001, `src${i % 3}`);
    return f;
  });
}

function quantile(sorted: Float64Array, q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

async function run(
  label: string,
  out: FileWritable,
  ros: 'none' | 'encode' | 'serialized',
): Promise<Record<string, string | number>> {
  const timers = new ManualTimers(new ManualClock(0));
  const rec = EpisodeRecorder.start(
    out,
    { episodeId: 'bench', robotId: 'bench', startedAt: new Date(0).toISOString(), t0: T0, clauses: CLAUSES },
    { timers, file: 'bench.mcap' },
  );
  if (ros !== 'none') await rec.addRosTopic({ topic: STATE_TOPIC, type: 'franka_msgs/msg/FrankaRobotState' });
  const pool = frames();
  const rho = new Float64Array(CLAUSES.length);
  const state = frankaRobotState(BigInt(T0) * 1_000_000_000n, 0);
  const stateCdr = createRos2Codec(
    'franka_msgs/msg/FrankaRobotState',
    fullDefinition('franka_msgs/msg/FrankaRobotState'),
  ).encode(state);
  const perSample = new Float64Array(N);
  let flushMs = 0;
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  for (let k = 0; k < N; k++) {
    const f = pool[k & 63]!;
    f.t = T0 + k * 0.001;
    for (let c = 0; c < rho.length; c++) rho[c] = 5 - ((k + c) % 100) * 0.1;
    const a = performance.now();
    if (ros === 'encode') rec.rosMessage(STATE_TOPIC, f.t, state);
    else if (ros === 'serialized') rec.rosSerialized(STATE_TOPIC, f.t, stateCdr);
    rec.frame(f);
    rec.robustness(f.t, rho);
    perSample[k] = performance.now() - a;
    if ((k + 1) % FLUSH_EVERY === 0) {
      const b = performance.now();
      if (!(await rec.flush())) throw new Error('flush failed');
      flushMs += performance.now() - b;
    }
  }
  await rec.end(T0 + N * 0.001, 'bench');
  const totalS = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpu0);
  perSample.sort();
  const mean = perSample.reduce((s, v) => s + v, 0) / N;
  return {
    run: label,
    samples: N,
    'samples/s (incl. flush)': Math.round(N / totalS),
    'record µs p50': +(quantile(perSample, 0.5) * 1000).toFixed(2),
    'record µs p99': +(quantile(perSample, 0.99) * 1000).toFixed(2),
    'record µs mean': +(mean * 1000).toFixed(2),
    'CPU µs/sample (all)': +((cpu.user + cpu.system) / N).toFixed(2),
    'flush ms mean': +(flushMs / (N / FLUSH_EVERY)).toFixed(2),
    'bytes/sample': Math.round(rec.stats().bytesWritten / N),
  };
}

const dir = mkdtempSync(join(tmpdir(), 'armguard-bench-'));
try {
  const rows = [];
  rows.push(await run('memory, frame+ρ', new MemoryFileWritable(), 'none'));
  const file1 = join(dir, 'a.mcap');
  rows.push(await run('file+fsync, frame+ρ', await NodeFileWritable.create(file1), 'none'));
  const file2 = join(dir, 'b.mcap');
  rows.push(
    await run('file+fsync, frame+ρ+FrankaRobotState (raw CDR)', await NodeFileWritable.create(file2), 'serialized'),
  );
  const file3 = join(dir, 'c.mcap');
  rows.push(await run('file+fsync, frame+ρ+FrankaRobotState (encode)', await NodeFileWritable.create(file3), 'encode'));
  console.table(rows);
  console.log(
    `file sizes: ${[file1, file2, file3].map((f) => `${(statSync(f).size / 1e6).toFixed(1)} MB`).join(', ')} for ${N} samples each`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
