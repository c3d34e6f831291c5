/**
 * The armguard Franka node's parameters, in the ROS 2 parameter-file layout
 * (`<node name>: ros__parameters: {...}`) so one file serves `ros2 launch` and `armguard ros-node`.
 * Every problem names the file, the line and the parameter.
 */
import { YamlReader } from '../schema/yaml-reader.js';
import type { InputError } from '../util/errors.js';
import type { TrackingInput } from '../../drivers/tracking/ros-adapters.js';
import type { TrackedObstacleSpec } from '../gate/tracked-obstacles.js';
import type { FrankaEndEffector } from '../kinematics/index.js';

/**
 * What the node does with the policy's trajectories and with a violation (parameter `gate_mode`):
 * - `baseline` (also `off`): the gate-off baseline run. The policy publishes to
 *   `~/proposed_trajectory`; each trajectory goes to the controller unfiltered (screened only),
 *   violations are recorded as would-holds and the controller is NOT sent a hold; e-stop and faults
 *   still hold. Episodes record gate mode `off`.
 * - `monitor`: the policy publishes to the controller itself; armguard monitors and sends the
 *   controller a hold on a violation, e-stop or fault (what `gating: false` did before the baseline
 *   mode existed). Episodes record gate mode `monitor`. The default.
 * - `gate` (also `on`): trajectories from `~/proposed_trajectory` are checked (screen, CBF filter)
 *   before they reach the controller, and violations hold. Episodes record gate mode `on`.
 */
export type FrankaGateMode = 'baseline' | 'monitor' | 'gate';

const GATE_MODE_NAMES: Readonly<Record<string, FrankaGateMode>> = {
  baseline: 'baseline',
  off: 'baseline',
  monitor: 'monitor',
  gate: 'gate',
  on: 'gate',
};

/** The gate mode an episode records (the report groups runs by it). */
export function recordedGateMode(mode: FrankaGateMode): 'on' | 'off' | 'monitor' {
  return mode === 'gate' ? 'on' : mode === 'baseline' ? 'off' : 'monitor';
}

export interface FrankaNodeConfig {
  nodeName: string;
  robotId: string;
  platform: 'fr3' | 'panda';
  /**
   * What is fitted on the flange (its self-collision volumes and TCP): franka_hand (the default, as
   * franka_description's ee_id) or none (bare flange). Parameter `end_effector`.
   */
  endEffector: FrankaEndEffector;
  task: string;
  gateMode: FrankaGateMode;
  diagnosticsRate: number;
  idleStepRate: number;
  /** Seconds the node may wait, held, for every required signal before start-up fails. */
  startupTimeout: number;
  /** Topic names: relative ones resolve in the node's namespace (`-r __ns:=/left`), absolute ones stay. */
  robotStateTopic: string;
  gripperTopic: string;
  controllerTopic: string;
  /** Table plane height in the robot base frame (m), for the CBF filter in gating mode. */
  tableHeight: number;
  /** Bystanders tracked for non_target_disp_max (empty: the clause is not applicable). */
  bystanders: string[];
  tracking: TrackingInput | undefined;
  /** Tracked bodies the CBF keeps the arm clear of (spheres around their tracked positions). */
  obstacles: TrackedObstacleSpec[];
  /** Pose of the tracking frame in the robot base frame: x, y, z (m), roll, pitch, yaw (rad). */
  trackingInBase: [number, number, number, number, number, number];
  /** A tracked obstacle older than this (s) holds the next chunk. */
  obstacleMaxAge: number;
  /** Workspace box [xmin, ymin, zmin, xmax, ymax, zmax] (m, base frame) the capsules stay inside, or none. */
  workspace: number[] | undefined;
  /** Safety distance of the CBF (m). */
  dSafe: number;
  /** The CBF's self-collision clearance (m), parameter `self_clearance` (0: no self pair); default FRANKA_SELF_CLEARANCE. */
  selfClearance?: number | undefined;
  /** The CBF's planning margin δ (m), parameter `planning_margin`; default FRANKA_PLANNING_MARGIN. */
  planningMargin?: number | undefined;
  /** The held object's tilt bound, parameter `held_tilt` (default on where held_object_tilt_world is monitored). */
  heldTilt?: boolean | undefined;
  /**
   * The chunk warning band after the CBF (parameter `warning_band`; issue 15): default on when
   * `table_height` is given, off otherwise (no plane to predict contact against).
   */
  warningBand: boolean;
  /** The band's run-on (s), parameter `warning_band_run_on`; default FRANKA_RUN_ON (an assumption, not measured). */
  warningBandRunOn: number | undefined;
  /**
   * Where proposed trajectories are filtered in gate mode (parameter `chunk_filter`, as `armguard
   * run --chunk-filter`; issue 14 item 3): `worker` (the default) — the CBF and warning band in a
   * worker thread, each answer re-checked on the control thread before it reaches the controller;
   * `inline` — on the control thread (each trajectory delays its control step by the filter time).
   */
  chunkFilter?: 'worker' | 'inline' | undefined;
  /** Directory for armguard MCAP episode files, or none (no recording). */
  episodesDir: string | undefined;
  /**
   * The semantic gate (issue 18), on when `semantic_judge` is set: the parameters as given (the
   * entry point builds the judge from them) and the camera topic the judge's frames come from.
   */
  semantic?: FrankaSemanticParams | undefined;
}

export interface FrankaSemanticParams {
  /** `semantic_*` string parameters without the prefix, with dashes: judge, judge-model, judge-timeout, judge-fail, judge-refresh, instruction, intent, actor, target, actor-at, target-at. */
  options: Record<string, string>;
  /** Tracked bodies (tracking names) of the actor and the target, for the stage events. */
  actorBody?: string | undefined;
  targetBody?: string | undefined;
  /** Where new tasks arrive (std_msgs/String; default ~/task). */
  taskTopic: string;
  camera: { topic: string; type: 'image' | 'compressed'; maxWidth: number; maxAge: number } | undefined;
}

export const SEMANTIC_PARAMS = [
  'judge',
  'judge_model',
  'judge_timeout',
  'judge_fail',
  'judge_refresh',
  'instruction',
  'intent',
  'actor',
  'target',
  'actor_at',
  'target_at',
] as const;
/** Stage-event parameters that work without a judge. */
const STAGE_PARAMS = new Set(['actor-at', 'target-at']);

const KEYS = [
  'robot_id',
  'platform',
  'task',
  'gate_mode',
  'gating',
  'diagnostics_rate',
  'idle_step_rate',
  'startup_timeout',
  'robot_state_topic',
  'gripper_topic',
  'controller_topic',
  'table_height',
  'tracking',
  'bystanders',
  'vrpn_trackers',
  'mocap4r2_topic',
  'apriltag_tags',
  'obstacle_bodies',
  'tracking_frame_in_base',
  'obstacle_max_age',
  'workspace',
  'd_safe',
  'self_clearance',
  'planning_margin',
  'held_tilt',
  'warning_band',
  'warning_band_run_on',
  'chunk_filter',
  'episodes_dir',
  'end_effector',
  ...SEMANTIC_PARAMS.map((k) => `semantic_${k}`),
  'semantic_actor_body',
  'semantic_target_body',
  'semantic_task_topic',
  'camera_topic',
  'camera_type',
  'camera_max_width',
  'camera_max_age',
];

/**
 * @param nodeName the node's name (after `-r __node:=`)
 * @param namespace the node's namespace (after `-r __ns:=`): as in ROS 2 parameter files, the
 *   section may also be keyed by the fully-qualified name (`/left/armguard:`) or by `/**:`.
 */
export function parseFrankaNodeConfig(
  text: string,
  file: string,
  nodeName = 'armguard',
  namespace = '',
):
  | {
      ok: true;
      config: FrankaNodeConfig;
      /** Deprecated parameters, each with file and line and what to write instead. */ warnings: string[];
    }
  | { ok: false; errors: InputError[] } {
  const r = new YamlReader(file, text);
  const root = r.map(r.root, '(root)');
  const ns = namespace === '' || namespace === '/' ? '' : namespace.startsWith('/') ? namespace : `/${namespace}`;
  const keys = [`${ns}/${nodeName}`, nodeName, '/**'];
  const key = keys.find((k) => root?.get(k) !== undefined) ?? nodeName;
  const nodeEntry = root?.get(key);
  if (root && !nodeEntry)
    r.fail(
      r.root,
      nodeName,
      `expected the node's section '${nodeName}:' (or '${ns}/${nodeName}:' or '/**:') with 'ros__parameters:'`,
    );
  const section = nodeEntry ? r.map(nodeEntry.value, key, ['ros__parameters']) : undefined;
  const params = section?.get('ros__parameters');
  const p = params ? r.map(params.value, `${key}.ros__parameters`, KEYS) : undefined;
  const field = (k: string) => `${key}.ros__parameters.${k}`;
  const str = (k: string, dflt?: string) => {
    const e = p?.get(k);
    if (!e) return dflt ?? (p ? r.fail(params?.value, field(k), 'required parameter missing') : undefined);
    return r.string(e.value, field(k));
  };
  const num = (k: string, dflt: number) => {
    const e = p?.get(k);
    return e ? r.number(e.value, field(k), { positive: true }) : dflt;
  };
  const list = (k: string) => {
    const e = p?.get(k);
    return e ? r.stringList(e.value, field(k)) : [];
  };

  const robotId = str('robot_id');
  const platform = str('platform', 'fr3');
  if (platform !== undefined && platform !== 'fr3' && platform !== 'panda')
    r.fail(p?.get('platform')?.value, field('platform'), `expected fr3 or panda, got '${platform}'`);
  const endEffector = str('end_effector', 'franka_hand');
  if (endEffector !== undefined && endEffector !== 'franka_hand' && endEffector !== 'none')
    r.fail(p?.get('end_effector')?.value, field('end_effector'), `expected franka_hand or none, got '${endEffector}'`);
  const task = str('task');
  const warnings: string[] = [];
  const gateMode = ((): FrankaGateMode => {
    const modeEntry = p?.get('gate_mode');
    const gatingEntry = p?.get('gating');
    if (modeEntry && gatingEntry) {
      r.fail(gatingEntry.value, field('gating'), "give gate_mode only: 'gating' is deprecated and both are set");
      return 'monitor';
    }
    if (modeEntry) {
      const name = r.string(modeEntry.value, field('gate_mode'));
      const mode = name === undefined ? undefined : GATE_MODE_NAMES[name];
      if (name !== undefined && !mode)
        r.fail(
          modeEntry.value,
          field('gate_mode'),
          `expected baseline (or off), monitor or gate (or on), got '${name}'`,
        );
      return mode ?? 'monitor';
    }
    if (gatingEntry) {
      // Deprecated: read as it behaved before gate_mode existed (false: monitor and send holds).
      const gating = r.boolean(gatingEntry.value, field('gating'));
      const mode: FrankaGateMode = gating ? 'gate' : 'monitor';
      warnings.push(
        `${file}:${r.lineOf(gatingEntry.value) ?? '?'} parameter '${field('gating')}' is deprecated: 'gating: ${gating}' is read as 'gate_mode: ${mode}'` +
          (gating
            ? ''
            : ' (violations send the controller a hold; for a gate-off baseline run write gate_mode: baseline)') +
          `; write 'gate_mode: ${mode}' instead`,
      );
      return mode;
    }
    return 'monitor';
  })();
  const bystanders = list('bystanders') ?? [];
  const kind = str('tracking', 'none');
  let tracking: TrackingInput | undefined;
  const pairs = (k: string): Record<string, string> => {
    const out: Record<string, string> = {};
    for (const item of list(k) ?? []) {
      const i = item.lastIndexOf(':');
      if (i <= 0 || i === item.length - 1)
        r.fail(p?.get(k)?.value, field(k), `expected 'source:body' entries, got '${item}'`);
      else out[item.slice(0, i)] = item.slice(i + 1);
    }
    return out;
  };
  switch (kind) {
    case 'none':
      break;
    case 'vrpn':
      tracking = { kind: 'vrpn', trackers: pairs('vrpn_trackers') };
      break;
    case 'mocap4r2':
      tracking = { kind: 'mocap4r2', topic: str('mocap4r2_topic', '/rigid_bodies') ?? '/rigid_bodies' };
      break;
    case 'apriltag':
      tracking = { kind: 'apriltag', tags: pairs('apriltag_tags') };
      break;
    default:
      r.fail(p?.get('tracking')?.value, field('tracking'), `expected none, vrpn, mocap4r2 or apriltag, got '${kind}'`);
  }
  const numbers = (k: string, count: number): number[] | undefined => {
    const e = p?.get(k);
    if (!e) return undefined;
    const items = r.seq(e.value, field(k));
    if (!items) return undefined;
    if (items.length !== count) return r.fail(e.value, field(k), `expected ${count} numbers, got ${items.length}`);
    const out = items.map((item, i) => r.number(item, `${field(k)}[${i}]`));
    return out.every((v): v is number => v !== undefined) ? out : undefined;
  };
  const obstacles: TrackedObstacleSpec[] = [];
  for (const item of list('obstacle_bodies') ?? []) {
    const i = item.lastIndexOf(':');
    const radius = i > 0 ? Number(item.slice(i + 1)) : NaN;
    if (i <= 0 || !(radius > 0 && radius < 2))
      r.fail(
        p?.get('obstacle_bodies')?.value,
        field('obstacle_bodies'),
        `expected 'body:radius_m' entries with 0 < radius < 2, got '${item}'`,
      );
    else obstacles.push({ body: item.slice(0, i), radius });
  }
  if (obstacles.length > 0 && !tracking)
    r.fail(
      p?.get('obstacle_bodies')?.value,
      field('obstacle_bodies'),
      'obstacle bodies need tracking (vrpn, mocap4r2 or apriltag)',
    );
  if (tracking && tracking.kind !== 'mocap4r2') {
    const named = new Set(Object.values(tracking.kind === 'vrpn' ? tracking.trackers : tracking.tags));
    for (const o of obstacles) {
      if (!named.has(o.body))
        r.fail(
          p?.get('obstacle_bodies')?.value,
          field('obstacle_bodies'),
          `obstacle body '${o.body}' is not mapped in ${tracking.kind === 'vrpn' ? 'vrpn_trackers' : 'apriltag_tags'}`,
        );
    }
  }
  if (tracking && bystanders.length === 0 && obstacles.length === 0)
    r.fail(
      p?.get('tracking')?.value,
      field('bystanders'),
      'tracking is configured but no bystanders or obstacle_bodies are listed',
    );
  const workspace = numbers('workspace', 6);
  if (workspace && !(workspace[0]! < workspace[3]! && workspace[1]! < workspace[4]! && workspace[2]! < workspace[5]!)) {
    r.fail(
      p?.get('workspace')?.value,
      field('workspace'),
      'expected [xmin, ymin, zmin, xmax, ymax, zmax] with each min below its max',
    );
  }
  const trackingInBase = (numbers('tracking_frame_in_base', 6) ?? [0, 0, 0, 0, 0, 0]) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const config = {
    nodeName,
    robotId: robotId ?? '',
    platform: (platform ?? 'fr3') as 'fr3' | 'panda',
    endEffector: (endEffector ?? 'franka_hand') as FrankaEndEffector,
    task: task ?? '',
    gateMode,
    diagnosticsRate: num('diagnostics_rate', 10) ?? 10,
    idleStepRate: num('idle_step_rate', 100) ?? 100,
    startupTimeout: num('startup_timeout', 10) ?? 10,
    // Relative: under `-r __ns:=/left` they are /left/franka_robot_state_broadcaster/robot_state etc.
    robotStateTopic: str('robot_state_topic', 'franka_robot_state_broadcaster/robot_state') ?? '',
    gripperTopic: str('gripper_topic', 'franka_gripper/joint_states') ?? '',
    controllerTopic: str('controller_topic', 'fr3_arm_controller/joint_trajectory') ?? '',
    tableHeight: (() => {
      const e = p?.get('table_height');
      return e ? (r.number(e.value, field('table_height')) ?? 0) : 0;
    })(),
    bystanders,
    tracking,
    obstacles,
    trackingInBase,
    obstacleMaxAge: num('obstacle_max_age', 0.1) ?? 0.1,
    workspace,
    dSafe: num('d_safe', 0.03) ?? 0.03,
    selfClearance: (() => {
      const e = p?.get('self_clearance');
      return e ? r.number(e.value, field('self_clearance'), { nonNegative: true }) : undefined;
    })(),
    planningMargin: (() => {
      const e = p?.get('planning_margin');
      return e ? r.number(e.value, field('planning_margin'), { nonNegative: true }) : undefined;
    })(),
    heldTilt: (() => {
      const e = p?.get('held_tilt');
      return e ? r.boolean(e.value, field('held_tilt')) : undefined;
    })(),
    warningBand: (() => {
      const e = p?.get('warning_band');
      return e ? (r.boolean(e.value, field('warning_band')) ?? false) : p?.get('table_height') !== undefined;
    })(),
    warningBandRunOn: (() => {
      const e = p?.get('warning_band_run_on');
      return e ? r.number(e.value, field('warning_band_run_on'), { nonNegative: true }) : undefined;
    })(),
    chunkFilter: ((): 'worker' | 'inline' | undefined => {
      const v = str('chunk_filter', 'worker');
      if (v === 'worker' || v === 'inline') return v;
      r.fail(p?.get('chunk_filter')?.value, field('chunk_filter'), `expected worker or inline, got '${v}'`);
      return undefined;
    })(),
    episodesDir: p?.get('episodes_dir') ? str('episodes_dir') : undefined,
    semantic: (() => {
      const options: Record<string, string> = {};
      for (const k of SEMANTIC_PARAMS) {
        const e = p?.get(`semantic_${k}`);
        if (!e) continue;
        const v = e.value as { value?: unknown } | null;
        const raw = v && typeof v === 'object' && 'value' in v ? v.value : undefined;
        if (typeof raw === 'string' || typeof raw === 'number') options[k.replace(/_/g, '-')] = String(raw);
        else r.fail(e.value, field(`semantic_${k}`), 'expected a string or a number');
      }
      const topic = p?.get('camera_topic') ? str('camera_topic') : undefined;
      const actorBody = p?.get('semantic_actor_body') ? str('semantic_actor_body') : undefined;
      const targetBody = p?.get('semantic_target_body') ? str('semantic_target_body') : undefined;
      const taskTopic = str('semantic_task_topic', '~/task') ?? '~/task';
      for (const [k, body] of [
        ['semantic_actor_body', actorBody],
        ['semantic_target_body', targetBody],
      ] as const) {
        if (body === undefined) continue;
        if (!tracking) r.fail(p?.get(k)?.value, field(k), 'a tracked body needs tracking (vrpn, mocap4r2 or apriltag)');
        else if (
          tracking.kind !== 'mocap4r2' &&
          !Object.values(tracking.kind === 'vrpn' ? tracking.trackers : tracking.tags).includes(body)
        ) {
          r.fail(
            p?.get(k)?.value,
            field(k),
            `body '${body}' is not mapped in ${tracking.kind === 'vrpn' ? 'vrpn_trackers' : 'apriltag_tags'}`,
          );
        }
      }
      if (Object.keys(options).length === 0 && !actorBody && !targetBody && !topic) return undefined;
      if (options['judge'] === undefined) {
        const needJudge = Object.keys(options).some((k) => !STAGE_PARAMS.has(k));
        if (needJudge || topic)
          r.fail(
            p?.get('camera_topic')?.value ?? params?.value,
            field('semantic_judge'),
            "semantic_* (but the stage events' semantic_actor_at/_target_at/_actor_body/_target_body) and camera_* parameters need semantic_judge (lexicon or a chat-completions URL)",
          );
        if (needJudge || topic) return undefined;
        return { options, camera: undefined, actorBody, targetBody, taskTopic } satisfies FrankaSemanticParams;
      }
      const type = str('camera_type', 'image');
      if (type !== 'image' && type !== 'compressed')
        r.fail(p?.get('camera_type')?.value, field('camera_type'), `expected image or compressed, got '${type}'`);
      return {
        options,
        camera: topic
          ? {
              topic,
              type: type === 'compressed' ? 'compressed' : 'image',
              maxWidth: num('camera_max_width', 320) ?? 320,
              maxAge: num('camera_max_age', 1) ?? 1,
            }
          : undefined,
        actorBody,
        targetBody,
        taskTopic,
      } satisfies FrankaSemanticParams;
    })(),
  };
  return r.errors.length > 0 ? { ok: false, errors: r.errors } : { ok: true, config, warnings };
}
