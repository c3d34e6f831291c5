/**
 * `armguard demo --scenario hazard-twins` (issue 18): every safe/unsafe twin pair of spec/tasks.yaml
 * runs the same scripted pick-and-place in the MuJoCo testbed with the semantic gate OFF, then with
 * the judge (the offline lexicon judge, or an OpenAI-compatible VLM endpoint) — same seeds, same
 * motion, only the semantic roles differ. Prints seeds/003's figures per mode and twin (SR on safe
 * and unsafe twins, attempt and commit on unsafe twins, the judge's recall and FPR), records every
 * episode, and writes the report.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  DlsIk,
  SimWorld,
  TWIN_SCENES,
  handToActor,
  loadMujoco,
  twinScene,
  type TwinSceneId,
} from '../../../drivers/sim/index.js';
import { systemClock } from '../../platform/system-clock.js';
import {
  DEFAULT_SEMANTIC_GATE_CONFIG,
  headlineMetrics,
  parseTaskSemantics,
  twinMetrics,
  type SemanticGateConfig,
  type SemanticJudge,
  type TaskSemantics,
  type TwinEpisodeOutcome,
  type TwinPair,
} from '../../semantic/index.js';
import { EXIT, parseArgs, type CliIo } from '../command.js';
import { DEFAULT_JUDGE_TIMEOUT, HAZARD_LEXICON_PATH, gateConfigFrom, makeJudge } from '../compose/semantic-options.js';
import { defaultSpecPaths, loadScoringSpec } from '../spec-files.js';
import { reportCommand } from '../commands/report.js';
import { demoClauses, demoPlatform } from './clauses.js';
import { runHazardEpisode, type HazardEpisodeResult, type TwinMode } from './hazard-episode.js';

export { HAZARD_LEXICON_PATH };
const DEFAULT_EPISODES = 3;

export const HAZARD_TWINS_HELP = `usage: armguard demo --scenario hazard-twins [--scene panda|so101] [--judge lexicon|<url>] [--episodes N] [--json] [options]

The semantic gate in the MuJoCo testbed (seeds/003 HazardArena). Each safe/unsafe twin pair of
spec/tasks.yaml ('semantic: twins') runs the same clean pick-and-place N times per twin, same seeds,
first with the semantic gate OFF, then with the JUDGE: asked at task start and every --judge-refresh
chunks, its latest verdict enforced on every chunk and tick (a refusal holds the arm; until the first
verdict the arm is held unless --judge-fail open). Stage events t_attempt → t_commit → t_success
(ε_att = 0.10 m, each task's critical region) are recorded with every verdict, fault and judge frame.
Prints per mode and twin: sr_safe, sr_unsafe, attempt_unsafe, commit_unsafe, judge_recall, judge_fpr.

options:
  --scene S              panda (default: the Panda-like arm) or so101 (the SO-101 tabletop, from a
                         raised home pose so the hand starts 0.21 m from the object)
  --judge J              'lexicon' (default: spec/hazard-lexicon.yaml, offline) or the URL of an
                         OpenAI-compatible chat-completions endpoint (vLLM, Ollama, llama.cpp server),
                         e.g. http://127.0.0.1:8000/v1 (API key from ARMGUARD_JUDGE_API_KEY, if any)
  --judge-model NAME     model name for a URL judge (required with a URL; recorded in every episode)
  --judge-timeout S      seconds before a query is a timeout fault (default ${DEFAULT_JUDGE_TIMEOUT})
  --judge-fail MODE      closed (default: hold until a verdict; a judge fault holds) or open (pass
                         without a verdict; faults are still recorded and printed)
  --judge-refresh N      re-ask the judge every N chunks (default ${DEFAULT_SEMANTIC_GATE_CONFIG.refreshEveryChunks})
  --judge-open-gripper   open the gripper while holding on a refusal
  --lexicon FILE         hazard lexicon (default spec/hazard-lexicon.yaml)
  --twins a,b            a subset of the twin pairs
  --episodes N           episodes per twin, variant and mode (default ${DEFAULT_EPISODES})
  --seed S               first seed (default 1)
  --out DIR              output directory (default ./demo-out)
  --no-report            do not write the report
  --json                 print only {"modes": {...}, "twins": {...}} on stdout (progress on stderr)

examples:
  armguard demo --scenario hazard-twins
  armguard demo --scenario hazard-twins --episodes 1 --json
  armguard demo --scenario hazard-twins --scene so101
  armguard demo --scenario hazard-twins --judge http://127.0.0.1:8000/v1 --judge-model Qwen2.5-VL-7B-Instruct`;

export interface HazardTwinsOptions {
  readonly semantics: TaskSemantics;
  readonly twins: readonly TwinPair[];
  readonly judge: SemanticJudge;
  readonly gateConfig: SemanticGateConfig;
  readonly episodes: number;
  readonly seed: number;
  readonly outDir: string;
  /** The testbed scene (default panda). */
  readonly scene?: TwinSceneId;
}

type Metrics = ReturnType<typeof headlineMetrics>;
export interface HazardTwinsJson {
  readonly modes: Record<TwinMode, Metrics>;
  readonly twins: Record<string, Record<TwinMode, Metrics>>;
}

export function outcomeOf(r: HazardEpisodeResult): TwinEpisodeOutcome {
  return {
    twin: r.task.twin,
    category: r.task.category,
    variant: r.task.variant,
    success: r.success,
    stages: r.stages,
    refused: r.refused,
  };
}

export function hazardTwinsJson(results: readonly HazardEpisodeResult[], twins: readonly TwinPair[]): HazardTwinsJson {
  const of = (mode: TwinMode, twin?: string): Metrics =>
    headlineMetrics(
      twinMetrics(
        results.filter((r) => r.mode === mode && (twin === undefined || r.task.twin === twin)).map(outcomeOf),
      ),
    );
  const perTwin: Record<string, Record<TwinMode, Metrics>> = {};
  for (const t of twins) perTwin[t.id] = { off: of('off', t.id), judge: of('judge', t.id) };
  return { modes: { off: of('off'), judge: of('judge') }, twins: perTwin };
}

const fmt = (x: number | null): string => (x === null ? '  –  ' : x.toFixed(2).padStart(5));

/** The seeds/003-style table: one row per twin and mode. */
export function twinTable(json: HazardTwinsJson, twins: readonly TwinPair[]): string[] {
  const lines = ['twin              category    mode    SR safe  SR unsafe  ATT unsafe  CMT unsafe  recall   FPR'];
  const row = (name: string, cat: string, mode: TwinMode, m: Metrics): string =>
    `${name.padEnd(17)} ${cat.padEnd(11)} ${mode.padEnd(6)} ${fmt(m.sr_safe).padStart(8)} ${fmt(m.sr_unsafe).padStart(10)} ${fmt(m.attempt_unsafe).padStart(11)} ${fmt(m.commit_unsafe).padStart(11)} ${fmt(m.judge_recall).padStart(7)} ${fmt(m.judge_fpr).padStart(5)}`;
  for (const t of twins)
    for (const mode of ['off', 'judge'] as const) lines.push(row(t.id, t.category, mode, json.twins[t.id]![mode]));
  for (const mode of ['off', 'judge'] as const) lines.push(row('all twins', '', mode, json.modes[mode]));
  return lines;
}

export async function runHazardTwins(
  o: HazardTwinsOptions,
  log: (line: string) => void,
): Promise<{ dir: string; results: HazardEpisodeResult[] }> {
  const spec = loadScoringSpec(defaultSpecPaths());
  if (!spec.ok) throw new Error(spec.problems.join('\n'));
  // seeds/003's ε_att = 0.10 m is Franka-scale: the SO-101 scene runs from the twins' raised home pose (twinScene).
  const sceneId = o.scene ?? 'panda';
  const clauses = demoClauses(spec.spec, demoPlatform(sceneId), o.twins[0]?.safe.task);
  if (!clauses.ok) throw new Error(`cannot plan the clauses for the simulator: ${clauses.reason}`);
  const mj = await loadMujoco();
  const world = new SimWorld(mj, twinScene(sceneId));
  const ik = new DlsIk(mj, world);
  // Fail loudly rather than count every episode as an attempt at t = 0 (a scene whose home pose changed).
  world.reset(o.seed);
  const start = handToActor(world);
  if (!(start > o.semantics.epsAttempt)) {
    ik.dispose();
    world.dispose();
    throw new Error(
      `${sceneId} scene: the hand starts ${start.toFixed(3)} m from the object, within ε_att = ${o.semantics.epsAttempt} m — every episode would count as an attempt at t = 0; move the twins' home pose (drivers/sim/twins.ts)`,
    );
  }
  const runId = new Date()
    .toISOString()
    .replace(/[^0-9]/g, '')
    .slice(0, 14);
  const dir = join(o.outDir, 'episodes', `hazard-twins-${sceneId}-${runId}`);
  const total = 2 * o.twins.length * 2 * o.episodes;
  log(
    `armguard demo hazard-twins — MuJoCo testbed (${sceneId} scene), ${o.twins.length} twin pair(s) × 2 variants × ${o.episodes} episode(s), semantic gate OFF then JUDGE (${o.judge.name}, fail-${o.gateConfig.failMode}, refresh every ${o.gateConfig.refreshEveryChunks} chunks)`,
  );
  log(`recording to ${dir}`);
  const results: HazardEpisodeResult[] = [];
  const started = systemClock.now();
  try {
    for (const mode of ['off', 'judge'] as TwinMode[]) {
      for (const twin of o.twins) {
        for (let e = 0; e < o.episodes; e++) {
          for (const task of [twin.safe, twin.unsafe]) {
            const seed = o.seed + e;
            const r = await runHazardEpisode({
              world,
              ik,
              task,
              epsAttempt: o.semantics.epsAttempt,
              mode,
              seed,
              clauses: clauses.instances,
              ...(mode === 'judge' ? { judge: o.judge } : {}),
              gateConfig: o.gateConfig,
              dir,
              episodeId: `twins-${mode}-${task.task}-s${seed}`,
              startedAt: new Date().toISOString(),
              wallNow: () => systemClock.now(),
              sleep: (s) => new Promise((res) => setTimeout(res, s * 1000)),
            });
            results.push(r);
            log(progressLine(r, results.length, total));
          }
        }
      }
    }
  } finally {
    ik.dispose();
    world.dispose();
  }
  log(`${total} episodes in ${(systemClock.now() - started).toFixed(1)} s`);
  return { dir, results };
}

function progressLine(r: HazardEpisodeResult, i: number, n: number): string {
  const st = (x: number | null): string => (x === null ? '–' : `${x.toFixed(2)} s`);
  const v = r.verdicts[0];
  const judge =
    r.refused === null
      ? ''
      : v
        ? `; judge ${v.decision} in ${(v.latency * 1000).toFixed(1)} ms (${v.reason})`
        : '; no verdict';
  const faults =
    r.faults.length > 0
      ? `; ${r.faults.length} judge fault(s), first: ${r.faults[0]!.cause}: ${r.faults[0]!.detail}`
      : '';
  return `[${String(i).padStart(String(n).length)}/${n}] ${r.mode.padEnd(5)} ${r.task.twin}/${r.task.variant.padEnd(6)} ${r.success ? 'success' : 'failure'}, attempt ${st(r.stages.attempt)}, commit ${st(r.stages.commit)}, chunks held ${r.chunksHeld}${judge}${faults}`;
}

/** Parse the scenario's arguments and run it. */
export async function hazardTwinsCommand(args: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseArgs(args, {
    strings: [
      'scenario',
      'scene',
      'judge',
      'judge-model',
      'judge-timeout',
      'judge-fail',
      'judge-refresh',
      'lexicon',
      'twins',
      'episodes',
      'seed',
      'out',
    ],
    booleans: ['json', 'no-report', 'judge-open-gripper'],
  });
  const usage = (msg: string): number => {
    io.err(`armguard demo --scenario hazard-twins: ${msg}`);
    return EXIT.usage;
  };
  if (!parsed.ok) return usage(parsed.error);
  if (parsed.positionals.length > 0) return usage(`unexpected argument '${parsed.positionals[0]}'`);
  const opt = (k: string): string | undefined => {
    const v = parsed.options.get(k);
    return typeof v === 'string' ? v : undefined;
  };
  const int = (k: string, def: number, lo: number, hi: number): number | string => {
    const raw = opt(k);
    const v = Number(raw ?? def);
    return Number.isInteger(v) && v >= lo && v <= hi ? v : `--${k} must be an integer ${lo}…${hi}, got '${raw}'`;
  };
  const episodes = int('episodes', DEFAULT_EPISODES, 1, 1000);
  const seed = int('seed', 1, 0, 2 ** 31);
  for (const v of [episodes, seed]) if (typeof v === 'string') return usage(v);
  const sceneArg = opt('scene') ?? 'panda';
  if (!(TWIN_SCENES as readonly string[]).includes(sceneArg))
    return usage(`--scene must be ${TWIN_SCENES.join(' or ')}, got '${sceneArg}'`);
  const gateCfg = gateConfigFrom(opt, (k) => parsed.options.get(k) === true);
  if (!gateCfg.ok) return usage(gateCfg.error);
  const tasksPath = defaultSpecPaths().tasks;
  let semantics: TaskSemantics;
  try {
    const spec = loadScoringSpec(defaultSpecPaths());
    if (!spec.ok) {
      for (const p of spec.problems) io.err(p);
      return EXIT.failure;
    }
    const parsedSem = parseTaskSemantics(
      readFileSync(tasksPath, 'utf8'),
      tasksPath,
      new Set(spec.spec.tasks.tasks.keys()),
    );
    if (!parsedSem.ok) {
      for (const e of parsedSem.error) io.err(e.message);
      return EXIT.failure;
    }
    semantics = parsedSem.value;
  } catch (e) {
    io.err(`armguard demo: ${(e as Error).message}`);
    return EXIT.failure;
  }
  let twins = semantics.twins;
  const wanted = opt('twins');
  if (wanted !== undefined) {
    const names = wanted
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    for (const n of names)
      if (!twins.some((t) => t.id === n))
        return usage(`unknown twin '${n}' (known: ${twins.map((t) => t.id).join(', ')})`);
    twins = twins.filter((t) => names.includes(t.id));
  }
  if (twins.length === 0) return usage(`no twin pairs to run (${tasksPath} declares none)`);

  const judge = makeJudge({
    judge: opt('judge') ?? 'lexicon',
    timeout: gateCfg.value.queryTimeout,
    ...(opt('judge-model') ? { model: opt('judge-model')! } : {}),
    ...(opt('lexicon') ? { lexicon: opt('lexicon')! } : {}),
  });
  if (!judge.ok) {
    if (judge.usage) return usage(judge.error);
    io.err(`armguard demo: ${judge.error}`);
    return EXIT.failure;
  }
  const json = parsed.options.get('json') === true;
  const log = json ? (l: string) => io.err(l) : (l: string) => io.out(l);
  const outDir = resolve(opt('out') ?? 'demo-out');
  const gateConfig = gateCfg.value;
  let run;
  try {
    run = await runHazardTwins(
      {
        semantics,
        twins,
        judge: judge.value,
        gateConfig,
        episodes: episodes as number,
        seed: seed as number,
        outDir,
        scene: sceneArg as TwinSceneId,
      },
      log,
    );
  } catch (e) {
    io.err(`armguard demo: ${(e as Error).message}`);
    return EXIT.failure;
  }
  const summary = hazardTwinsJson(run.results, twins);
  for (const l of twinTable(summary, twins)) log(l);
  let code: number = EXIT.ok;
  if (parsed.options.get('no-report') !== true) {
    const reportDir = join(outDir, 'report');
    log(`writing the report to ${reportDir} …`);
    const quiet: CliIo = { ...io, out: log };
    code = await reportCommand.run(
      [
        run.dir,
        '--out',
        reportDir,
        '--group-by',
        'policy',
        '--resamples',
        '2000',
        '--no-sensitivity',
        '--title',
        `armguard demo: hazard twins (${sceneArg} scene), semantic gate off vs judge`,
      ],
      quiet,
    );
    log(`report ${code === EXIT.ok ? 'written' : 'FAILED'}: ${join(reportDir, 'report.html')}`);
  }
  if (json) io.out(JSON.stringify(summary));
  return code === EXIT.ok ? EXIT.ok : EXIT.failure;
}
