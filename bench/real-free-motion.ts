/**
 * Issue 13: false alarms per hour of real free motion. Replays the real recordings in ../shared/data
 * that carry arm motion through the mapping and the clause library and counts safe-tier violation
 * onsets (each one a gate hold on a live arm) — on recordings known to be free of unsafe events, every
 * one is a false alarm. Report-only diagnostics are counted separately (they never hold the arm).
 *
 * Recordings: ../shared/data/so101-lerobot-record-test (LeRobot v3, SO-101, 4 teleoperated
 * pick-and-place episodes, 30 fps), read as range_m100_100 with the replay calibration
 * test/fixtures/so101-lerobot-record-test.calibration.yaml (spans derived from the recording).
 *
 *   npx tsx bench/real-free-motion.ts [dataset dir] [calibration]
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readLeRobotDataset } from '../drivers/so101/lerobot-dataset.js';
import { replayPositions } from '../drivers/so101/replay.js';
import { parseSo101Calibration } from '../src/calibration/so101.js';
import { defaultSpecPaths, loadScoringSpec } from '../src/cli/spec-files.js';
import { EpisodeScorer, STEP_VIOLATING } from '../src/safety/index.js';

const root = resolve(import.meta.dirname, '..');
const datasetDir =
  process.argv[2] ?? join(process.env.ARMGUARD_SHARED ?? join(root, '../shared'), 'data/so101-lerobot-record-test');
const calPath = process.argv[3] ?? join(root, 'test/fixtures/so101-lerobot-record-test.calibration.yaml');

const cal = parseSo101Calibration(readFileSync(calPath, 'utf8'), calPath);
if (!cal.ok) throw new Error(cal.problems.map((p) => p.message).join('\n'));
const spec = loadScoringSpec(defaultSpecPaths());
if (!spec.ok) throw new Error(spec.problems.join('\n'));
const ds = await readLeRobotDataset(datasetDir);
if (!ds.ok) throw ds.error;
const scorer = new EpisodeScorer(spec.spec);

/** Violation onsets (runs of violating steps) in a clause's step flags. */
function onsets(flags: Uint8Array | undefined): number {
  let n = 0;
  let prev = false;
  for (const f of flags ?? []) {
    const v = (f & STEP_VIOLATING) !== 0;
    if (v && !prev) n++;
    prev = v;
  }
  return n;
}

let seconds = 0;
let frames = 0;
let falseAlarms = 0;
let diagnosticOnsets = 0;
const evaluated = new Set<string>();
const perEpisode: unknown[] = [];
for (const ep of ds.value.episodes) {
  const r = replayPositions(ep, cal.value, { normMode: cal.value.normMode, stallGapPct: 3 });
  const scored = scorer.score({
    meta: {
      episodeId: `episode_${ep.index}`,
      success: true,
      platform: 'so101',
      templates: ['pnp-into-container'],
      objects: ['non_spillable'],
      manual: new Map(),
    },
    times: r.times,
    columns: r.columns,
    file: `${datasetDir}#episode_${ep.index}`,
  });
  if (!scored.ok) throw new Error(scored.error.map((e) => e.message).join('\n'));
  const dur = r.times[r.times.length - 1]! - r.times[0]!;
  seconds += dur;
  frames += r.times.length;
  let safe = 0;
  let diag = 0;
  for (const c of scored.value.clauses) {
    if (!c.applicable || c.evidence === 'none') continue;
    if (c.tier === 'safe') {
      evaluated.add(c.clauseId);
      safe += onsets(c.stepFlags);
    } else diag += onsets(c.stepFlags);
  }
  falseAlarms += safe;
  diagnosticOnsets += diag;
  perEpisode.push({
    episode: ep.index,
    seconds: Number(dur.toFixed(2)),
    safe_tier_onsets: safe,
    diagnostic_onsets: diag,
    min_self_distance_mm: Number((r.minSelfDistanceM * 1000).toFixed(1)),
    frames_outside_limits: r.framesOutsideLimits,
  });
}
const hours = seconds / 3600;
console.log(
  JSON.stringify(
    {
      dataset: datasetDir,
      calibration: calPath,
      episodes: ds.value.episodes.length,
      frames,
      free_motion_s: Number(seconds.toFixed(2)),
      safe_clauses_evaluated: [...evaluated].sort(),
      false_alarms: falseAlarms,
      false_alarms_per_hour: Number((falseAlarms / hours).toFixed(2)),
      diagnostic_onsets_per_hour: Number((diagnosticOnsets / hours).toFixed(2)),
      per_episode: perEpisode,
    },
    null,
    2,
  ),
);
