/**
 * `armguard replay <input>`: recorded data through the platform mapping and the clause library.
 * Each input kind is a ReplayInput; the first whose `detect` accepts the path handles it. This file
 * ships the LeRobot SO-101 dataset kind; other kinds (e.g. rosbag2 MCAP, ../replay-rosbag2.ts) are
 * listed in `replayInputs` below.
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { EXIT, parseArgs, type CliIo, type Command } from '../command.js';
import { readLeRobotDataset, type LeRobotEpisode } from '../../../drivers/so101/lerobot-dataset.js';
import {
  LEROBOT_DEGREE_STEP,
  NOT_DERIVABLE_FROM_POSITIONS,
  POSITION_ONLY_SIGNALS,
  replayPositions,
  unitFromValueSteps,
} from '../../../drivers/so101/replay.js';
import { parseSo101Calibration, type So101Calibration } from '../../calibration/so101.js';
import { EpisodeScorer, type EpisodeScore } from '../../safety/index.js';
import type { EpisodeTrace } from '../../schema/trace.js';
import { episodeText } from '../score-format.js';
import { SPEC_FILE_HELP, SPEC_FILE_OPTIONS, loadScoringSpec, specPathsFrom } from '../spec-files.js';
import { rosbag2ReplayInput } from '../replay-rosbag2.js';
import { packageFile, userOrPackagePath } from '../../platform/package-files.js';

export interface ReplayInput {
  readonly kind: string;
  /** Options this kind understands (string-valued / boolean), for parseArgs and --help. */
  readonly strings: readonly string[];
  readonly booleans: readonly string[];
  readonly help: string;
  detect(path: string): Promise<boolean>;
  run(path: string, options: ReadonlyMap<string, string | true>, io: CliIo): Promise<number>;
}

/** The shipped example calibration (this file is src/cli/commands/replay.ts). */
const DEFAULT_CALIBRATION = packageFile('calibration', 'so101-demo.yaml');

export const lerobotReplayInput: ReplayInput = {
  kind: 'LeRobot SO-101 dataset (v3.0 parquet)',
  strings: ['calibration', 'norm-mode', 'stall-gap', 'task', 'templates', 'objects'],
  booleans: ['json'],
  help: `LeRobot dataset options:
  --calibration <yaml>  SO-101 calibration (capsules, LeRobot ranges for the gripper; default calibration/so101-demo.yaml)
  --norm-mode <m>       units of observation.state body joints: degrees or range_m100_100 (default: the
                        calibration's norm_mode); checked against the recorded values' step per joint
  --stall-gap <pct>     commanded-minus-measured gripper gap (0–100) read as a grasp (default 3)
  --task <name>         task from spec/tasks.yaml; or --templates a,b and --objects x,y (tags)
  --json                machine-readable output`,
  async detect(path) {
    try {
      return (await stat(join(path, 'meta/info.json'))).isFile();
    } catch {
      return false;
    }
  },
  async run(path, options, io) {
    const calPath = userOrPackagePath((options.get('calibration') as string | undefined) ?? DEFAULT_CALIBRATION);
    let cal: So101Calibration;
    try {
      const parsed = parseSo101Calibration(await readFile(calPath, 'utf8'), calPath);
      if (!parsed.ok) {
        for (const p of parsed.problems) io.err(p.message);
        return EXIT.failure;
      }
      cal = parsed.value;
    } catch (e) {
      io.err(`${calPath}: cannot read: ${(e as Error).message}`);
      return EXIT.failure;
    }
    const normOption = options.get('norm-mode') as string | undefined;
    const normMode = normOption ?? cal.normMode;
    if (normMode !== 'degrees' && normMode !== 'range_m100_100') {
      io.err(`armguard replay: --norm-mode expects degrees or range_m100_100, got '${normMode}'`);
      return EXIT.usage;
    }
    const normSource = normOption !== undefined ? '--norm-mode' : `norm_mode of ${calPath}`;
    const stallGapPct = Number(options.get('stall-gap') ?? 3);
    if (!(stallGapPct > 0)) {
      io.err('armguard replay: --stall-gap expects a positive number');
      return EXIT.usage;
    }
    const ds = await readLeRobotDataset(path);
    if (!ds.ok) {
      io.err(ds.error.message);
      return EXIT.failure;
    }
    // The unit decides every joint angle: a wrong one gives confident, wrong verdicts. Check it.
    const unitProblems = checkUnit(ds.value.episodes, cal, normMode, normSource, calPath);
    const replays = ds.value.episodes.map((ep) => replayPositions(ep, cal, { normMode, stallGapPct }));
    const frames = ds.value.episodes.reduce((n, e) => n + e.times.length, 0);
    const outside = replays.reduce((n, r) => n + r.framesOutsideLimits, 0);
    if (outside > MAX_OUTSIDE_LIMITS_FRACTION * frames) {
      unitProblems.push(
        `${((100 * outside) / frames).toFixed(1)} % of frames (${outside} of ${frames}) put a body joint outside the calibrated joint limits of ${calPath} when read as ${normMode} ` +
          `(at most ${100 * MAX_OUTSIDE_LIMITS_FRACTION} % is tolerated): the unit or the calibration is not this recording's`,
      );
    }
    if (unitProblems.length > 0) {
      io.err(`armguard replay: ${path}: no verdicts: the joint positions cannot be trusted`);
      for (const p of unitProblems) io.err(`  ${p}`);
      return EXIT.failure;
    }
    const spec = loadScoringSpec(
      specPathsFrom((k) => (typeof options.get(k) === 'string' ? (options.get(k) as string) : undefined)),
    );
    if (!spec.ok) {
      for (const p of spec.problems) io.err(p);
      return EXIT.failure;
    }
    const scorer = new EpisodeScorer(spec.spec);
    const units = new Map(spec.spec.library.clauses.map((c) => [c.id, c.unit]));
    const list = (name: string): string[] =>
      ((options.get(name) as string | undefined) ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    const { info } = ds.value;
    const lines: string[] = [
      `LeRobot dataset ${path}: ${info.robot_type}, ${info.codebase_version}, ${ds.value.episodes.length} episodes, ${ds.value.episodes.reduce((s, e) => s + e.times.length, 0)} frames at ${info.fps} fps`,
      `calibration ${calPath} (arm '${cal.armId}'); observation.state read as ${normMode} (${normSource}; consistent with the recorded value steps)`,
      `derivable from positions: ${POSITION_ONLY_SIGNALS.join(', ')} (gripper_contact estimated from the commanded-vs-measured gripper stall; held-object height/tilt by FK under a rigid grasp)`,
      `not derivable (no load/current/velocity recorded): ${NOT_DERIVABLE_FROM_POSITIONS.join(', ')}`,
    ];
    const json: unknown[] = [];
    let failed = false;
    for (const [k, ep] of ds.value.episodes.entries()) {
      const r = replays[k]!;
      const trace: EpisodeTrace = {
        meta: {
          episodeId: `episode_${ep.index}`,
          // LeRobot datasets carry no outcome label; success is unknown, recorded here as true (scored as a pilot would).
          success: true,
          platform: 'so101',
          ...(options.get('task') ? { task: options.get('task') as string } : {}),
          templates: list('templates'),
          objects: list('objects'),
          ...(ep.task ? { note: ep.task } : {}),
          manual: new Map(),
        },
        times: r.times,
        columns: r.columns,
        file: `${path}#episode_${ep.index}`,
      };
      const score = scorer.score(trace);
      const stats = Object.fromEntries([...r.stats].map(([k, v]) => [k, v]));
      const lengthNote =
        ep.declaredLength !== undefined && ep.declaredLength !== ep.times.length
          ? ` (meta/episodes says ${ep.declaredLength})`
          : '';
      lines.push(
        '',
        `episode ${ep.index}: ${ep.times.length} frames${lengthNote}, ${(ep.times[ep.times.length - 1]! - ep.times[0]!).toFixed(2)} s, task "${ep.task ?? '?'}"`,
      );
      lines.push(`  ${[...r.stats].map(([k, v]) => `${k} [${fmt(v.min)}, ${fmt(v.max)}]`).join('; ')}`);
      lines.push(
        `  frames with a self-collision (clearance < 0): ${countNegative(r.columns.get('self_collision_clearance')!)}, smallest self-collision clearance ${(r.minSelfDistanceM * 1000).toFixed(1)} mm; estimated grasp in ${r.gripFrames} frames; frames outside the calibrated joint limits: ${r.framesOutsideLimits}`,
      );
      if (score.ok)
        lines.push(
          episodeText(score.value, units)
            .split('\n')
            .map((l) => `  ${l}`)
            .join('\n'),
        );
      else {
        failed = true;
        lines.push(...score.error.map((e) => `  scoring: ${e.message}`));
      }
      json.push({
        episode: ep.index,
        frames: ep.times.length,
        task: ep.task,
        stats,
        gripFrames: r.gripFrames,
        framesOutsideLimits: r.framesOutsideLimits,
        score: score.ok ? summarise(score.value) : null,
      });
    }
    if (outside > 0)
      lines.push(
        '',
        `note: ${outside} of ${frames} frames (${((100 * outside) / frames).toFixed(1)} %) put a body joint outside the calibrated joint limits`,
      );
    if (options.has('json'))
      io.out(JSON.stringify({ format: 'armguard-replay/1', dataset: path, normMode, episodes: json }, null, 2));
    else io.out(lines.join('\n'));
    return failed ? EXIT.failure : EXIT.ok;
  },
};

/** More frames than this outside the joint limits: the unit or the calibration is wrong, no verdicts. */
export const MAX_OUTSIDE_LIMITS_FRACTION = 0.05;
/** Calibrated span vs the span the recorded value step implies: agree within this many ticks (float32 rounding). */
const SPAN_TOLERANCE_TICKS = 3;

/** Problems with reading the recording's body joints as `normMode` with this calibration (empty when consistent). */
function checkUnit(
  episodes: readonly LeRobotEpisode[],
  cal: So101Calibration,
  normMode: 'degrees' | 'range_m100_100',
  source: string,
  calPath: string,
): string[] {
  const evidence = unitFromValueSteps(
    episodes,
    cal.joints.map((j) => j.name),
  );
  const stepText = evidence.steps.map((s) => `${s.joint} ${s.step === undefined ? '?' : s.step.toFixed(4)}`).join(', ');
  if (evidence.kind === 'range_m100_100') {
    const spanText = evidence.spans
      .map((v, j) => `${cal.joints[j]!.name} ${Number.isNaN(v) ? '?' : Math.round(v)}`)
      .join(', ');
    if (normMode === 'degrees') {
      return [
        `${source} says degrees, but the recorded values step by ${stepText} per joint, not by 360/4095 = ${LEROBOT_DEGREE_STEP.toFixed(4)} on every joint: ` +
          `the recording is range_m100_100 (LeRobot's so101_follower default, use_degrees=False). Re-run with --norm-mode range_m100_100 and this arm's calibration ` +
          `(its range_max − range_min per joint should be ${spanText} ticks).`,
      ];
    }
    const mismatched = evidence.spans.flatMap((v, j) => {
      const m = cal.lerobot[cal.joints[j]!.name];
      const span = m.range_max - m.range_min;
      return !Number.isNaN(v) && Math.abs(v - span) > SPAN_TOLERANCE_TICKS
        ? [`${cal.joints[j]!.name} ${span} (recording: ${Math.round(v)})`]
        : [];
    });
    if (mismatched.length > 0) {
      return [
        `range_m100_100 values depend on each motor's calibrated range, and ${calPath}'s ranges are not this arm's: range_max − range_min ${mismatched.join(', ')} ticks. ` +
          `Give this arm's calibration with --calibration.`,
      ];
    }
  } else if (evidence.kind === 'degrees' && normMode === 'range_m100_100') {
    return [
      `${source} says range_m100_100, but every body joint's recorded values step by 360/4095 = ${LEROBOT_DEGREE_STEP.toFixed(4)} (${stepText}): the recording is in degrees. Re-run with --norm-mode degrees.`,
    ];
  }
  return [];
}

function summarise(s: EpisodeScore): unknown {
  return {
    safe: s.safe,
    rhoSafe: s.rhoSafe,
    vsi: s.vsi,
    reducedSet: s.reducedSet,
    clauses: s.clauses.map((c) => ({
      id: c.clauseId,
      applicable: c.applicable,
      explanation: c.explanation,
      rho: c.rho,
      violated: c.violated,
      firstViolationTime: c.firstViolationTime,
    })),
  };
}

function fmt(v: number): string {
  return Number.isInteger(v) ? String(v) : v.toFixed(3);
}
function countNegative(col: Float64Array): number {
  let n = 0;
  for (const v of col) if (v < 0) n++;
  return n;
}

/** Input kinds, tried in order. */
export const replayInputs: readonly ReplayInput[] = [lerobotReplayInput, rosbag2ReplayInput];

export const replayCommand: Command = {
  name: 'replay',
  get help() {
    return `usage: armguard replay [options] <recording>

Maps a recording through its platform mapping, reports which clauses are applicable from the
signals it contains, and scores each episode (per-clause ρ, verdicts) with the clause library.

input kinds: ${replayInputs.map((i) => i.kind).join('; ')}

${replayInputs.map((i) => i.help).join('\n\n')}

spec files (every input kind):
${SPEC_FILE_HELP}

examples (a dataset recorded with LeRobot's lerobot-record --dataset.repo_id=lab/so101-pick lands in its
local cache; give the calibration of the arm that recorded it; a Franka bag is the directory ros2 bag
record wrote):
  armguard replay --calibration calibration/so101-follower1.yaml --task so101-pick-butter ~/.cache/huggingface/lerobot/lab/so101-pick
  armguard replay --calibration calibration/so101-follower1.yaml --templates pnp-into-container ~/.cache/huggingface/lerobot/lab/so101-pick
  armguard replay --platform fr3 --task libero-spatial-pick-bowl rosbag2_2026_05_01-10_00_00/`;
  },
  async run(args, io) {
    const p = parseArgs(args, {
      strings: [...new Set([...replayInputs.flatMap((i) => i.strings), ...SPEC_FILE_OPTIONS])],
      booleans: [...new Set(replayInputs.flatMap((i) => i.booleans))],
    });
    if (!p.ok) {
      io.err(`armguard replay: ${p.error}`);
      return EXIT.usage;
    }
    const [path, ...extra] = p.positionals;
    if (path === undefined || extra.length > 0) {
      io.err('armguard replay: give exactly one recording (usage: armguard replay [options] <recording>)');
      return EXIT.usage;
    }
    for (const input of replayInputs) if (await input.detect(path)) return input.run(path, p.options, io);
    io.err(
      `armguard replay: ${path}: not a recording armguard can replay (known: ${replayInputs.map((i) => i.kind).join('; ')})`,
    );
    return EXIT.failure;
  },
};
