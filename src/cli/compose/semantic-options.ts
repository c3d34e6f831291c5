/**
 * The semantic gate's command-line options (issue 18), shared by `armguard run` and `armguard demo
 * --scenario hazard-twins`: which judge (the lexicon file or an OpenAI-compatible URL + model), its
 * timeout, fail mode and refresh, the task's semantic roles (from spec/tasks.yaml's `semantic:`
 * entry for the task, or --instruction/--actor/--target) and the camera (snapshot URL or a V4L2
 * device through ffmpeg).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { FfmpegCamera, v4l2Input } from '../../../drivers/camera/ffmpeg.js';
import { SnapshotCamera } from '../../../drivers/camera/snapshot.js';
import { OpenAiChatJudge } from '../../../drivers/judge/openai-chat.js';
import { systemClock, systemTimers } from '../../platform/system-clock.js';
import type { LiveSemanticConfig, LiveTask } from '../../runtime/live-semantic.js';
export type { LiveSemanticConfig };
import type { Vec3 } from '../../semantic/stage-events.js';
import {
  DEFAULT_SEMANTIC_GATE_CONFIG,
  LexiconJudge,
  parseHazardLexicon,
  parseTaskSemantics,
  type JudgeFailMode,
  type SemanticEntity,
  type SemanticGateConfig,
} from '../../semantic/index.js';
import type { CameraSource, SemanticJudge } from '../../semantic/types.js';
import { DEFAULT_SPEC_DIR } from '../spec-files.js';

export const HAZARD_LEXICON_PATH = resolve(DEFAULT_SPEC_DIR, 'hazard-lexicon.yaml');
export const DEFAULT_JUDGE_TIMEOUT = 10;

export const SEMANTIC_STRINGS = [
  'judge',
  'judge-model',
  'judge-timeout',
  'judge-fail',
  'judge-refresh',
  'lexicon',
  'instruction',
  'intent',
  'actor',
  'target',
  'camera-url',
  'camera-device',
  'camera-width',
  'actor-at',
  'target-at',
] as const;
export const SEMANTIC_BOOLEANS = ['judge-open-gripper'] as const;

export const SEMANTIC_RUN_HELP = `semantic gate (issue 18; off unless --judge is given):
  --judge J             'lexicon' (spec/hazard-lexicon.yaml) or an OpenAI-compatible chat-completions
                        URL (vLLM, Ollama, llama.cpp server), e.g. http://127.0.0.1:8000/v1
  --judge-model NAME    model name (required with a URL; recorded); key from ARMGUARD_JUDGE_API_KEY
  --judge-timeout S     a query unanswered after S s is a fault (default ${DEFAULT_JUDGE_TIMEOUT})
  --judge-fail MODE     closed (default: no motion until the first verdict; a fault holds) or open
  --judge-refresh N     re-ask every N chunks (default ${DEFAULT_SEMANTIC_GATE_CONFIG.refreshEveryChunks})
  --judge-open-gripper  open the gripper while refusing (where the arm driver supports it)
  --instruction TEXT    the instruction the policy runs (default: the task's semantic entry in spec/tasks.yaml)
  --intent TAG          skill/intent tag (default: the task's, else pick-place)
  --actor "name:tag,…"  the manipulated object and its tags; --target "name:tag,…" the recipient
  --camera-url URL      snapshot URL (JPEG/PNG) for the judge's image
  --camera-device DEV   a V4L2 device (e.g. /dev/video0) read through ffmpeg
  --camera-width PX     scale camera frames to at most PX wide (ffmpeg; default 320)
stage events t_attempt → t_commit → t_success (seeds/003; for tasks with a semantic entry, judge or not):
  --actor-at x,y,z      where the manipulated object starts (m, robot base frame); while grasped it is
                        taken to ride with the gripper
  --target-at x,y,z     the target's reference point (m, base frame; e.g. the rim centre of the box);
                        without it there are no stage events (the SO-101 run has no object tracking)`;

export type SemanticParse<T> = { ok: true; value: T } | { ok: false; error: string; usage: boolean };

/** The judge named by `--judge`: the lexicon file or an OpenAI-compatible endpoint. */
export function makeJudge(o: {
  judge: string;
  model?: string;
  timeout: number;
  lexicon?: string;
}): SemanticParse<SemanticJudge> {
  if (o.judge === 'lexicon') {
    const path = resolve(o.lexicon ?? HAZARD_LEXICON_PATH);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (e) {
      return { ok: false, error: `${path}: cannot read: ${(e as Error).message}`, usage: false };
    }
    const lex = parseHazardLexicon(text, path);
    if (!lex.ok) return { ok: false, error: lex.error.map((e) => e.message).join('\n'), usage: false };
    return { ok: true, value: new LexiconJudge(lex.value, path, () => systemClock.now()) };
  }
  if (/^https?:\/\//.test(o.judge)) {
    if (!o.model)
      return { ok: false, error: '--judge-model is required with a judge URL (it is sent and recorded)', usage: true };
    const apiKey = process.env['ARMGUARD_JUDGE_API_KEY'];
    return {
      ok: true,
      value: new OpenAiChatJudge({
        url: o.judge,
        model: o.model,
        timeout: o.timeout,
        timers: systemTimers,
        now: () => systemClock.now(),
        ...(apiKey ? { apiKey } : {}),
      }),
    };
  }
  return { ok: false, error: `--judge must be 'lexicon' or an http(s) URL, got '${o.judge}'`, usage: true };
}

/** --judge-timeout, --judge-fail, --judge-refresh, --judge-open-gripper → the gate configuration. */
export function gateConfigFrom(
  str: (k: string) => string | undefined,
  flag: (k: string) => boolean,
): SemanticParse<SemanticGateConfig> {
  const timeout = Number(str('judge-timeout') ?? DEFAULT_JUDGE_TIMEOUT);
  if (!(timeout > 0 && timeout <= 600))
    return {
      ok: false,
      error: `--judge-timeout must be a number of seconds in (0, 600], got '${str('judge-timeout')}'`,
      usage: true,
    };
  const fail = str('judge-fail') ?? 'closed';
  if (fail !== 'closed' && fail !== 'open')
    return { ok: false, error: `--judge-fail must be closed or open, got '${fail}'`, usage: true };
  const refreshRaw = str('judge-refresh');
  const refresh = Number(refreshRaw ?? DEFAULT_SEMANTIC_GATE_CONFIG.refreshEveryChunks);
  if (!Number.isInteger(refresh) || refresh < 1 || refresh > 100000)
    return { ok: false, error: `--judge-refresh must be an integer 1…100000, got '${refreshRaw}'`, usage: true };
  return {
    ok: true,
    value: {
      failMode: fail as JudgeFailMode,
      openGripperOnRefuse: flag('judge-open-gripper'),
      refreshEveryChunks: refresh,
      queryTimeout: timeout,
    },
  };
}

function entity(raw: string, opt: string): SemanticParse<SemanticEntity> {
  const [name = '', tags = ''] = raw.split(':');
  if (name.trim() === '') return { ok: false, error: `${opt}: expected "name:tag,tag", got '${raw}'`, usage: true };
  return {
    ok: true,
    value: {
      name: name.trim(),
      tags: tags
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean),
    },
  };
}

/** "x,y,z" in metres. */
function point(raw: string | undefined, opt: string): SemanticParse<Vec3 | undefined> {
  if (raw === undefined) return { ok: true, value: undefined };
  const v = raw.split(',').map((x) => Number(x.trim()));
  if (v.length !== 3 || v.some((x) => !Number.isFinite(x) || Math.abs(x) > 10))
    return { ok: false, error: `${opt}: expected "x,y,z" in metres (robot base frame), got '${raw}'`, usage: true };
  return { ok: true, value: [v[0]!, v[1]!, v[2]!] };
}

/** Every task of the task file with a `semantic:` twin entry, as the live gate runs it. */
export function liveTasksFromSpec(
  tasksPath: string,
  knownTasks: ReadonlySet<string>,
): SemanticParse<Map<string, LiveTask>> {
  try {
    const sem = parseTaskSemantics(readFileSync(tasksPath, 'utf8'), tasksPath, knownTasks);
    if (!sem.ok) return { ok: false, error: sem.error.map((e) => e.message).join('\n'), usage: false };
    const out = new Map<string, LiveTask>();
    for (const [task, e] of sem.value.byTask) {
      out.set(task, {
        task,
        instruction: e.instruction,
        intent: e.intent,
        actor: e.actor,
        target: e.target,
        twin: e.twin,
        variant: e.variant,
        category: e.category,
        region: e.region,
        epsAttempt: sem.value.epsAttempt,
      });
    }
    return { ok: true, value: out };
  } catch (e) {
    return { ok: false, error: `${tasksPath}: cannot read: ${(e as Error).message}`, usage: false };
  }
}

/** The task's entry in the task file's `semantic:` twins, as a live task (undefined when it has none). */
export function liveTaskFromSpec(
  task: string,
  tasksPath: string,
  knownTasks: ReadonlySet<string>,
): SemanticParse<LiveTask | undefined> {
  const all = liveTasksFromSpec(tasksPath, knownTasks);
  return all.ok ? { ok: true, value: all.value.get(task) } : all;
}

/**
 * The `run` command's semantic gate and stage events. Undefined when there is neither --judge nor
 * a semantic entry for the task (nor declared positions). The roles come from the task's entry in
 * `tasksPath` (`semantic:` twins) unless given on the command line; the stage events need that
 * entry's critical region. `--actor-at`/`--target-at` declare where the actor starts and where the
 * target's reference point is (base frame), for arms without object tracking.
 */
export function parseSemanticRunOptions(
  str: (k: string) => string | undefined,
  flag: (k: string) => boolean,
  task: string,
  tasksPath: string,
  knownTasks: ReadonlySet<string>,
): SemanticParse<LiveSemanticConfig | undefined> {
  const judgeArg = str('judge');
  const actorAt = point(str('actor-at'), '--actor-at');
  if (!actorAt.ok) return actorAt;
  const targetAt = point(str('target-at'), '--target-at');
  if (!targetAt.ok) return targetAt;
  const positions = {
    ...(actorAt.value ? { actorStart: actorAt.value } : {}),
    ...(targetAt.value ? { targetPoint: targetAt.value } : {}),
  };
  const fromSpec = liveTaskFromSpec(task, tasksPath, knownTasks);
  if (!fromSpec.ok) return fromSpec;
  if (judgeArg === undefined) {
    const stray =
      SEMANTIC_STRINGS.find((k) => k !== 'judge' && k !== 'actor-at' && k !== 'target-at' && str(k) !== undefined) ??
      SEMANTIC_BOOLEANS.find((k) => flag(k));
    if (stray)
      return { ok: false, error: `--${stray} needs --judge (the semantic gate is off without it)`, usage: true };
    if (!fromSpec.value)
      return actorAt.value || targetAt.value
        ? {
            ok: false,
            error: `--actor-at/--target-at: task '${task}' has no semantic entry (critical region) in ${tasksPath}, so there are no stage events to place`,
            usage: true,
          }
        : { ok: true, value: undefined };
    return { ok: true, value: { task: fromSpec.value, positions } };
  }
  const cfg = gateConfigFrom(str, flag);
  if (!cfg.ok) return cfg;
  const judge = makeJudge({
    judge: judgeArg,
    timeout: cfg.value.queryTimeout,
    ...(str('judge-model') ? { model: str('judge-model')! } : {}),
    ...(str('lexicon') ? { lexicon: str('lexicon')! } : {}),
  });
  if (!judge.ok) return judge;
  const spec = fromSpec.value;
  const instruction = str('instruction') ?? spec?.instruction;
  if (!instruction)
    return {
      ok: false,
      error: `--instruction is required: task '${task}' has no semantic entry in ${tasksPath}`,
      usage: true,
    };
  let actor = spec?.actor;
  let target = spec?.target;
  if (str('actor') !== undefined) {
    const a = entity(str('actor')!, '--actor');
    if (!a.ok) return a;
    actor = a.value;
  }
  if (str('target') !== undefined) {
    const t = entity(str('target')!, '--target');
    if (!t.ok) return t;
    target = t.value;
  }
  const url = str('camera-url');
  const device = str('camera-device');
  if (url && device) return { ok: false, error: 'give at most one of --camera-url and --camera-device', usage: true };
  const width = Number(str('camera-width') ?? 320);
  if (!Number.isInteger(width) || width < 16 || width > 4096)
    return { ok: false, error: `--camera-width must be an integer 16…4096, got '${str('camera-width')}'`, usage: true };
  let camera: CameraSource | undefined;
  if (url) {
    if (!/^https?:\/\//.test(url))
      return { ok: false, error: `--camera-url must be an http(s) URL, got '${url}'`, usage: true };
    camera = new SnapshotCamera({ url, timeout: Math.min(5, cfg.value.queryTimeout), timers: systemTimers });
  } else if (device) {
    camera = new FfmpegCamera({
      input: v4l2Input(device),
      name: device,
      maxWidth: width,
      timeout: Math.min(10, cfg.value.queryTimeout),
      timers: systemTimers,
    });
  }
  const taskInput: LiveTask = {
    ...spec,
    task,
    instruction,
    intent: str('intent') ?? spec?.intent ?? 'pick-place',
    ...(actor ? { actor } : {}),
    ...(target ? { target } : {}),
  };
  return {
    ok: true,
    value: {
      judge: { judge: judge.value, ...(camera ? { camera } : {}), gateConfig: cfg.value },
      task: taskInput,
      positions,
    },
  };
}
