/**
 * `armguard replay <input>`: recorded data through the platform mapping and the clause library.
 * Each input kind is a ReplayInput; the first whose `detect` accepts the path handles it. This file
 * ships the LeRobot SO-101 dataset kind; other kinds (e.g. rosbag2 MCAP, ../replay-rosbag2.ts) are
 * listed in `replayInputs` below.
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { EXIT, parseArgs, type CliIo, type Command } from '../command.js';
import { readLeRobotDataset } from '../../../drivers/so101/lerobot-dataset.js';
import { NOT_DERIVABLE_FROM_POSITIONS, POSITION_ONLY_SIGNALS, replayPositions } from '../../../drivers/so101/replay.js';
import { parseSo101Calibration, type So101Calibration } from '../../calibration/so101.js';
import { EpisodeScorer, type EpisodeScore } from '../../safety/index.js';
import type { EpisodeTrace } from '../../schema/trace.js';
import { episodeText } from '../score-format.js';
import { defaultSpecPaths, loadScoringSpec } from '../spec-files.js';
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
  --norm-mode <m>       units of observation.state body joints: degrees (default) or range_m100_100
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
    const normMode = (options.get('norm-mode') as string | undefined) ?? 'degrees';
    if (normMode !== 'degrees' && normMode !== 'range_m100_100') {
      io.err(`armguard replay: --norm-mode expects degrees or range_m100_100, got '${normMode}'`);
      return EXIT.usage;
    }
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
    const spec = loadScoringSpec(defaultSpecPaths());
    if (!spec.ok) {
      for (const p of spec.problems) io.err(p);
      return EXIT.failure;
    }
    const scorer = new EpisodeScorer(spec.spec);
    const units = new Map(spec.spec.library.clauses.map((c) => [c.id, c.unit]));
    const list = (name: string): string[] => ((options.get(name) as string | undefined) ?? '').split(',').map((s) => s.trim()).filter(Boolean);
    const { info } = ds.value;
    const lines: string[] = [
      `LeRobot dataset ${path}: ${info.robot_type}, ${info.codebase_version}, ${ds.value.episodes.length} episodes, ${ds.value.episodes.reduce((s, e) => s + e.times.length, 0)} frames at ${info.fps} fps`,
      `calibration ${calPath} (arm '${cal.armId}'); observation.state read as ${normMode}`,
      `derivable from positions: ${POSITION_ONLY_SIGNALS.join(', ')} (gripper_contact estimated from the commanded-vs-measured gripper stall; held-object height/tilt by FK under a rigid grasp)`,
      `not derivable (no load/current/velocity recorded): ${NOT_DERIVABLE_FROM_POSITIONS.join(', ')}`,
    ];
    const json: unknown[] = [];
    let failed = false;
    let outside = 0, frames = 0;
    for (const ep of ds.value.episodes) {
      const r = replayPositions(ep, cal, { normMode, stallGapPct });
      outside += r.framesOutsideLimits;
      frames += ep.times.length;
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
      const lengthNote = ep.declaredLength !== undefined && ep.declaredLength !== ep.times.length ? ` (meta/episodes says ${ep.declaredLength})` : '';
      lines.push('', `episode ${ep.index}: ${ep.times.length} frames${lengthNote}, ${(ep.times[ep.times.length - 1]! - ep.times[0]!).toFixed(2)} s, task "${ep.task ?? '?'}"`);
      lines.push(`  ${[...r.stats].map(([k, v]) => `${k} [${fmt(v.min)}, ${fmt(v.max)}]`).join('; ')}`);
      lines.push(`  frames with a self-collision (clearance < 0): ${countNegative(r.columns.get('self_collision_clearance')!)}, smallest self-collision clearance ${(r.minSelfDistanceM * 1000).toFixed(1)} mm; estimated grasp in ${r.gripFrames} frames; frames outside the calibrated joint limits: ${r.framesOutsideLimits}`);
      if (score.ok) lines.push(episodeText(score.value, units).split('\n').map((l) => `  ${l}`).join('\n'));
      else {
        failed = true;
        lines.push(...score.error.map((e) => `  scoring: ${e.message}`));
      }
      json.push({ episode: ep.index, frames: ep.times.length, task: ep.task, stats, gripFrames: r.gripFrames, framesOutsideLimits: r.framesOutsideLimits, score: score.ok ? summarise(score.value) : null });
    }
    if (outside > 0.05 * frames) {
      lines.push('', `note: ${((100 * outside) / frames).toFixed(1)} % of frames put a body joint outside the calibrated joint limits when read as ${normMode}. ` +
        `LeRobot's so101_follower defaults to use_degrees=False (range_m100_100); if this recording used it, re-run with --norm-mode range_m100_100 --calibration <this arm's file>.`);
    }
    if (options.has('json')) io.out(JSON.stringify({ format: 'armguard-replay/1', dataset: path, normMode, episodes: json }, null, 2));
    else io.out(lines.join('\n'));
    return failed ? EXIT.failure : EXIT.ok;
  },
};

function summarise(s: EpisodeScore): unknown {
  return {
    safe: s.safe, rhoSafe: s.rhoSafe, vsi: s.vsi, reducedSet: s.reducedSet,
    clauses: s.clauses.map((c) => ({ id: c.clauseId, applicable: c.applicable, explanation: c.explanation, rho: c.rho, violated: c.violated, firstViolationTime: c.firstViolationTime })),
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

examples:
  armguard replay ../shared/data/so101-lerobot-record-test
  armguard replay --templates pnp-into-container ../shared/data/so101-lerobot-record-test`;
  },
  async run(args, io) {
    const p = parseArgs(args, {
      strings: [...new Set(replayInputs.flatMap((i) => i.strings))],
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
    io.err(`armguard replay: ${path}: not a recording armguard can replay (known: ${replayInputs.map((i) => i.kind).join('; ')})`);
    return EXIT.failure;
  },
};
