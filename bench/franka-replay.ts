/**
 * Issue 5 benchmark: replay 60 s of 1 kHz FrankaRobotState (a real rosbag2 MCAP file written first)
 * through the live node's code — CDR decode → FrankaRos mapping → all applicable clauses → gate.
 * Prints the per-sample latency of sample → signals → clauses → gate decision (p50/p99/max, µs)
 * and the replay throughput as a multiple of real time (whole replay incl. file read and decode).
 *
 *   npx tsx bench/franka-replay.ts [seconds=60]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileSource } from '../src/platform/file-source.js';
import { defaultSpecPaths, loadScoringSpec } from '../src/cli/spec-files.js';
import { replayFrankaBag } from '../src/nodes/franka-replay.js';
import { writeFrankaBag } from '../test/support/franka-bag.js';

const seconds = Number(process.argv[2] ?? 60);
const spec = loadScoringSpec(defaultSpecPaths());
if (!spec.ok) throw new Error(spec.problems.join('\n'));
const dir = mkdtempSync(join(tmpdir(), 'armguard-bench-'));
const path = join(dir, 'franka.mcap');
const w0 = performance.now();
await writeFrankaBag(path, { seconds, spikes: [[seconds / 2, seconds / 2 + 0.05, 5, 13]] });
const writeS = (performance.now() - w0) / 1000;

const r0 = performance.now();
const report = await replayFrankaBag(
  fileSource(path),
  { spec: spec.spec, platform: 'fr3', task: 'libero-spatial-pick-bowl' },
  { now: () => performance.now() },
);
const replayS = (performance.now() - r0) / 1000;
const steps = report.stepTimes!;
const sorted = Float64Array.from(steps).sort();
const q = (p: number) => (sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]! * 1000).toFixed(1);
console.log(
  JSON.stringify({
    recorded_s: seconds,
    samples: report.steps,
    active_clauses: report.clauses.filter((c) => c.active).map((c) => c.id),
    step_latency_us: { p50: q(0.5), p99: q(0.99), max: (sorted[sorted.length - 1]! * 1000).toFixed(1) },
    replay_s: replayS.toFixed(2),
    x_real_time: (seconds / replayS).toFixed(1),
    bag_write_s: writeS.toFixed(1),
    holds: report.gateEvents.filter((e) => e.to === 'hold').length,
  }),
);
rmSync(dir, { recursive: true, force: true });
