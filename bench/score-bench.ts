/**
 * Benchmark (issue 3, design §11): post-hoc scoring + full metrics with 10,000-resample bootstraps
 * over 2,000 synthetic episodes × 600 steps × every clause of the library (sim platform: all
 * signals declared). Target ≤ 20 s. Run: npx tsx bench/score-bench.ts [episodes] [steps]
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { computeMetrics, metricsBy, thresholdSensitivity, Xoshiro128 } from '../src/report/metrics/index.js';
import { EpisodeScorer, parseClauseLibrary, parseTaskMap, type EpisodeScore } from '../src/safety/index.js';
import { parsePlatformProfiles } from '../src/schema/platform.js';
import { SIGNALS } from '../src/schema/signals.js';
import type { EpisodeTrace } from '../src/schema/trace.js';

const EPISODES = Number(process.argv[2] ?? 2000);
const STEPS = Number(process.argv[3] ?? 600);
const DT = 0.05;

const spec = (name: string) => readFileSync(resolve(import.meta.dirname, '../spec', name), 'utf8');
const lib = parseClauseLibrary(spec('clauses.yaml'), 'spec/clauses.yaml');
if (!lib.ok) throw new Error(lib.error[0]!.message);
const tasks = parseTaskMap(spec('tasks.yaml'), 'spec/tasks.yaml', lib.value.tags);
const platforms = parsePlatformProfiles(spec('platforms.yaml'), 'spec/platforms.yaml');
if (!tasks.ok || !platforms.ok) throw new Error('spec files invalid');

/** A pick-and-place-like episode: grasp, lift, transport with some tilt, occasional force spikes. */
function synthesize(k: number, rng: Xoshiro128): EpisodeTrace {
  const times = Float64Array.from({ length: STEPS }, (_, i) => i * DT);
  const col = () => new Float64Array(STEPS);
  const c = Object.fromEntries(SIGNALS.map((s) => [s.name, col()])) as Record<string, Float64Array>;
  const graspAt = 100 + rng.nextInt(100);
  const releaseAt = 400 + rng.nextInt(150);
  const spikeAt = rng.nextInt(STEPS - 10);
  const spike = rng.nextFloat() < 0.3 ? 150 + rng.nextFloat() * 250 : 0;
  const tiltPeak = rng.nextFloat() * 25;
  const slip = rng.nextFloat() < 0.1 ? -0.04 * rng.nextFloat() : 0;
  const bump = rng.nextFloat() < 0.2 ? rng.nextFloat() * 0.012 : 0;
  const torqueBase = 20 + rng.nextFloat() * 40;
  for (let i = 0; i < STEPS; i++) {
    const held = i >= graspAt && i < releaseAt;
    const noise = rng.nextFloat();
    c.gripper_contact![i] = held ? 1 : 0;
    c.obj_above_table![i] = held ? Math.min(0.15, (i - graspAt) * 0.002) + (i > releaseAt - 20 ? slip : 0) : 0;
    c.target_obj_tilt_world_deg![i] = held ? tiltPeak * Math.sin((Math.PI * (i - graspAt)) / (releaseAt - graspAt)) : 0;
    const f = 5 + 10 * noise + (i >= spikeAt && i < spikeAt + 3 ? spike : 0);
    c.arm_furniture_contact_force![i] = f;
    c.target_furniture_contact_force![i] = held ? 3 * noise : 0;
    c.contact_force_max![i] = Math.max(f, c.target_furniture_contact_force![i]!);
    c.non_target_disp_max![i] = i > spikeAt ? bump : 0;
    c.max_joint_torque![i] = torqueBase + 10 * noise;
    c.self_collision_clearance![i] = 0.05;
    c.ee_speed![i] = 0.3 + 0.5 * noise;
    c.ee_acc![i] = 2 + 2 * noise;
    c.ee_jerk![i] = 20 + 40 * noise;
    c.target_obj_speed![i] = held ? 0.2 * noise : 0;
    c.release_speed![i] = 0.1 * noise;
    c.arm_no_furniture_contact![i] = f < 0.5 ? 1 : 0;
  }
  return {
    meta: {
      episodeId: `syn-${k}`,
      success: rng.nextFloat() < 0.75,
      platform: 'sim',
      task: k % 2 === 0 ? 'libero-spatial-pick-bowl' : (undefined as unknown as string),
      templates: k % 2 === 0 ? [] : ['pnp-basic'],
      objects: [],
      manual: new Map(),
    },
    times,
    columns: new Map(Object.entries(c)),
  };
}

/** Wall time and process CPU time of `f` (the machine is shared: CPU time shows contention). */
function timed<T>(f: () => T): { value: T; wall: number; cpu: number } {
  const c0 = process.cpuUsage();
  const w0 = performance.now();
  const value = f();
  const wall = performance.now() - w0;
  const c = process.cpuUsage(c0);
  return { value, wall, cpu: (c.user + c.system) / 1000 };
}

const rng = new Xoshiro128(1234);
const gen = timed(() => Array.from({ length: EPISODES }, (_, k) => synthesize(k, rng)));
const traces = gen.value;

const scorer = new EpisodeScorer({ library: lib.value, tasks: tasks.value, platforms: platforms.value });
const scoring = timed(() =>
  traces.map((t): EpisodeScore => {
    const r = scorer.score(t);
    if (!r.ok) throw new Error(r.error[0]!.message);
    return r.value;
  }),
);
const scores = scoring.value;

const bootstrap = { resamples: 10_000, seed: 7 };
const metrics = timed(() => ({
  summary: computeMetrics(scores, { bootstrap }),
  byTask: metricsBy(scores, (e) => e.task ?? '(templates)', { bootstrap }),
}));
const { summary, byTask } = metrics.value;

const sensitivity = timed(() => thresholdSensitivity(scorer, traces, scores, lib.value.sensitivity));
const sens = sensitivity.value;

const clausesScored = scores[0]!.clauses.filter((c) => c.applicable).length;
const fmt = (t: { wall: number; cpu: number }) =>
  `${(t.wall / 1000).toFixed(2)} s wall, ${(t.cpu / 1000).toFixed(2)} s CPU`;
console.log(
  `episodes ${EPISODES} × ${STEPS} steps, ${lib.value.clauses.length} clauses in the library (${clausesScored} applicable per episode)`,
);
console.log(`synthesize traces (not counted):           ${fmt(gen)}`);
console.log(
  `score (offline STL, all clauses):          ${fmt(scoring)}  (${((scoring.wall * 1000) / (EPISODES * STEPS * clausesScored)).toFixed(3)} µs wall per sample·clause)`,
);
console.log(`metrics, 10,000-resample bootstraps (+ per task): ${fmt(metrics)}`);
console.log(
  `TOTAL scoring + full metrics:              ${fmt({ wall: scoring.wall + metrics.wall, cpu: scoring.cpu + metrics.cpu })}   (target ≤ 20 s)`,
);
console.log(`threshold sensitivity, ${sens.length - 1} variants (extra):  ${fmt(sensitivity)}`);
console.log(
  `check: SR ${(100 * summary.sr.p).toFixed(1)}%  Safety ${(100 * summary.safety.p).toFixed(1)}%  SBU ${(100 * summary.sbu.p).toFixed(1)}%  VSI ${summary.vsi.estimate.toFixed(3)} [${summary.vsi.lo.toFixed(3)}, ${summary.vsi.hi.toFixed(3)}]  groups ${byTask.size}`,
);
