/**
 * Benchmark (issue 7, design §11): `armguard report` over 2,000 synthetic episodes × 600 steps —
 * every clause, 10,000-resample bootstraps, the Table 11 threshold-sensitivity re-scoring and trace
 * plots of the 10 worst unsafe episodes — target ≤ 20 s. The episodes are written to a temp dir
 * first (not timed); only the report (read, score, aggregate, render, write) is timed.
 *
 * Run: npx tsx bench/report-bench.ts [episodes=2000] [steps=600] [format=csv|jsonl|mcap] [no-sensitivity]
 */
import { mkdtempSync, rmSync, statSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { EpisodeRecorder, NodeFileWritable } from '../src/episode/index.js';
import { Xoshiro128 } from '../src/report/metrics/index.js';
import { buildReportFromDir, writeReport } from '../src/report/build-run.js';
import { EpisodeScorer } from '../src/safety/index.js';
import { SignalFrame, signalIndex } from '../src/schema/signals.js';
import { ManualClock, ManualTimers } from '../src/util/index.js';
import { defaultSpecPaths, loadScoringSpec } from '../src/cli/spec-files.js';

const EPISODES = Number(process.argv[2] ?? 2000);
const STEPS = Number(process.argv[3] ?? 600);
const FORMAT = (process.argv[4] ?? 'csv') as 'csv' | 'jsonl' | 'mcap';
const SENSITIVITY = process.argv[5] !== 'no-sensitivity';
const DT = 0.05;
const T0 = 1_764_400_000;
const NAMES = [
  'arm_furniture_contact_force',
  'target_furniture_contact_force',
  'contact_force_max',
  'non_target_disp_max',
  'target_obj_tilt_world_deg',
  'obj_above_table',
  'gripper_contact',
  'max_joint_torque',
  'self_collision_clearance',
  'ee_speed',
  'ee_acc',
  'ee_jerk',
  'target_obj_speed',
  'release_speed',
  'arm_no_furniture_contact',
];
const TASKS = ['libero-spatial-pick-bowl', 'libero-goal-task-9-wine-rack', 'libero-goal-task-5-push-plate'];
const POLICIES = ['pi0', 'smolvla'];

/** One pick-and-place-like episode (grasp, lift, transport with tilt, occasional force spike, bystander bump, slip). */
function synthesize(rng: Xoshiro128): number[][] {
  const graspAt = Math.floor(STEPS * (0.15 + 0.15 * rng.nextFloat()));
  const releaseAt = Math.floor(STEPS * (0.65 + 0.25 * rng.nextFloat()));
  const spikeAt = rng.nextInt(STEPS - 10);
  const spike = rng.nextFloat() < 0.3 ? 150 + rng.nextFloat() * 250 : 0;
  const tiltPeak = rng.nextFloat() * 25;
  const slip = rng.nextFloat() < 0.1 ? -0.04 * rng.nextFloat() : 0;
  const bump = rng.nextFloat() < 0.2 ? rng.nextFloat() * 0.012 : 0;
  const torqueBase = 20 + rng.nextFloat() * 40;
  const rows: number[][] = [];
  for (let i = 0; i < STEPS; i++) {
    const held = i >= graspAt && i < releaseAt;
    const noise = rng.nextFloat();
    const f = 5 + 10 * noise + (i >= spikeAt && i < spikeAt + 3 ? spike : 0);
    const tf = held ? 3 * noise : 0;
    rows.push(
      [
        f,
        tf,
        Math.max(f, tf),
        i > spikeAt ? bump : 0,
        held ? tiltPeak * Math.sin((Math.PI * (i - graspAt)) / (releaseAt - graspAt)) : 0,
        held ? Math.min(0.15, (i - graspAt) * 0.002) + (i > releaseAt - 20 ? slip : 0) : 0,
        held ? 1 : 0,
        torqueBase + 10 * noise,
        0,
        0.3 + 0.5 * noise,
        2 + 2 * noise,
        20 + 40 * noise,
        held ? 0.2 * noise : 0,
        0.1 * noise,
        f < 0.5 ? 1 : 0,
      ].map((v) => Math.round(v * 1e4) / 1e4),
    );
  }
  return rows;
}

async function writeEpisode(dir: string, k: number, rng: Xoshiro128): Promise<void> {
  const rows = synthesize(rng);
  const id = `ep-${String(k).padStart(5, '0')}`;
  const meta = {
    episode: id,
    success: rng.nextFloat() < 0.75,
    platform: 'sim',
    task: TASKS[k % TASKS.length]!,
    policy: POLICIES[k % 2]!,
    templates: [],
    objects: [],
    manual: {},
  };
  if (FORMAT === 'csv') {
    const lines = [`# armguard-trace/1 ${JSON.stringify(meta)}`, ['t', ...NAMES].join(',')];
    rows.forEach((r, i) => lines.push(`${(i * DT).toFixed(2)},${r.join(',')}`));
    writeFileSync(join(dir, `${id}.csv`), `${lines.join('\n')}\n`);
  } else if (FORMAT === 'jsonl') {
    const lines = [JSON.stringify({ format: 'armguard-trace/1', ...meta, columns: ['t', ...NAMES] })];
    rows.forEach((r, i) => lines.push(JSON.stringify([Math.round(i * DT * 100) / 100, ...r])));
    writeFileSync(join(dir, `${id}.jsonl`), `${lines.join('\n')}\n`);
  } else {
    const timers = new ManualTimers(new ManualClock(0));
    const rec = EpisodeRecorder.start(
      await NodeFileWritable.create(join(dir, `${id}.mcap`)),
      {
        episodeId: id,
        robotId: `arm-${k % 4}`,
        platform: 'sim',
        task: meta.task,
        policy: meta.policy,
        startedAt: '2026-11-29T00:00:00Z',
        t0: T0,
        clauses: [],
      },
      { timers, file: `${id}.mcap` },
    );
    const idx = NAMES.map((n) => signalIndex(n)!);
    const f = new SignalFrame();
    rows.forEach((r, i) => {
      f.t = T0 + i * DT;
      r.forEach((v, j) => f.set(idx[j]!, v, f.t, 'bench'));
      rec.frame(f);
    });
    rec.label({ success: meta.success, t: T0 + STEPS * DT });
    await rec.end(T0 + STEPS * DT, 'done');
  }
}

const dir = mkdtempSync(join(tmpdir(), 'armguard-report-bench-'));
const rng = new Xoshiro128(42);
const g0 = performance.now();
for (let k = 0; k < EPISODES; k++) await writeEpisode(dir, k, rng);
const bytes = readdirSync(dir).reduce((s, n) => s + statSync(join(dir, n)).size, 0);
console.log(
  `generated ${EPISODES} ${FORMAT} episodes × ${STEPS} steps in ${((performance.now() - g0) / 1000).toFixed(1)} s (${(bytes / 1e6).toFixed(0)} MB) in ${dir}`,
);

const loaded = loadScoringSpec(defaultSpecPaths(resolve(import.meta.dirname, '../spec')));
if (!loaded.ok) throw new Error(loaded.problems.join('\n'));
const load0 = loadavg()[0]!;
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const data = await buildReportFromDir(dir, {
  scorer: new EpisodeScorer(loaded.spec),
  bootstrap: { resamples: 10_000, seed: 20260529 },
  ...(SENSITIVITY ? { sensitivity: loaded.spec.library.sensitivity } : {}),
  groupBy: 'policy',
  compare: ['pi0', 'smolvla'],
  worst: 10,
  source: dir,
  generatedAt: new Date().toISOString(),
});
const tBuild = performance.now();
const written = await writeReport(join(dir, 'report'), data);
const t1 = performance.now();
const cpu = process.cpuUsage(cpu0);
const mem = process.memoryUsage();
console.log(
  `episodes ${data.episodes} (skipped ${data.skipped.length}); SR ${data.summary.sr.k}/${data.summary.sr.n}, SBU ${data.summary.sbu.k}, VSI ${data.summary.vsi.estimate.toFixed(3)} [${data.summary.vsi.lo.toFixed(3)}, ${data.summary.vsi.hi.toFixed(3)}], ${data.worst.length} plots, ${data.sensitivity.length} sensitivity rows`,
);
console.log(
  `read + score + sensitivity + metrics: ${((tBuild - t0) / 1000).toFixed(1)} s wall; render + write: ${((t1 - tBuild) / 1000).toFixed(2)} s (report.html ${(statSync(written[0]!).size / 1e3).toFixed(0)} kB)`,
);
console.log(
  `REPORT TOTAL: ${((t1 - t0) / 1000).toFixed(1)} s wall, ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s CPU (target ≤ 20 s); heap ${(mem.heapUsed / 1e6).toFixed(0)} MB, rss ${(mem.rss / 1e6).toFixed(0)} MB; load average ${load0.toFixed(1)} → ${loadavg()[0]!.toFixed(1)}`,
);
rmSync(dir, { recursive: true, force: true });
