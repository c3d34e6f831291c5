/**
 * The semantic gate and stage events on the Franka node (issue 18): a LiveSemantic whose task
 * starts at every episode start and whenever a new task arrives on the node's task topic
 * (std_msgs/String on `~/task`), so the judge is asked at every task start and every N chunks
 * after, not once per node run. The stage events read the TCP from the measured joint state
 * through the FR3/Panda kinematics, the grasp from gripper_contact, the finger width from the
 * gripper's joint states, and the actor and target from tracking (tracking frame → base) or their
 * declared positions.
 *
 * A task message is a task name from the task file (its `semantic:` entry gives the roles), a
 * JSON object {"task", "instruction", "intent", "actor": "name:tag,…", "target": "name:tag,…"}, or
 * any other text, taken as the new instruction for the node's task. A JSON message that does not
 * parse holds every proposed trajectory until a valid task arrives.
 */
import { QOS_RELIABLE, type RosNode } from '../../drivers/ros2/interface.js';
import type { FrankaRos } from '../../drivers/franka/franka-ros.js';
import type { SceneTracker } from '../../drivers/tracking/scene-tracker.js';
import {
  ForwardKinematics,
  FR3_DESCRIPTION,
  PANDA_DESCRIPTION,
  TF,
  endEffectorOf,
  setFromXyzRpy,
  transformPoint,
  type FrankaEndEffector,
} from '../kinematics/index.js';
import {
  LiveSemantic,
  type LiveSemanticConfig,
  type LiveSemanticOptions,
  type LiveStageReading,
  type LiveTask,
} from '../runtime/live-semantic.js';
import { describeSemanticCause } from '../semantic/semantic-gate.js';
import { signalIndex, Validity, type SignalFrame } from '../schema/signals.js';
import type { SemanticEntity } from '../semantic/task-semantics.js';
import type { Vec3 } from '../semantic/stage-events.js';

export interface FrankaSemanticOptions {
  readonly config: LiveSemanticConfig;
  /** Other tasks of the task file with a semantic entry (a task message may name one). */
  readonly tasks: ReadonlyMap<string, LiveTask>;
  readonly platform: 'fr3' | 'panda';
  readonly endEffector: FrankaEndEffector;
  readonly franka: FrankaRos;
  /** The pipeline's frame (gripper_contact). */
  readonly frame: SignalFrame;
  /** Tracked actor/target bodies and the tracking frame's pose in the base frame. */
  readonly tracking?: {
    readonly tracker: SceneTracker;
    readonly actorBody?: string;
    readonly targetBody?: string;
    readonly inBase: readonly [number, number, number, number, number, number];
    readonly maxAge: number;
  };
  readonly gating: boolean;
  readonly record: LiveSemanticOptions['record'];
  readonly log: (line: string) => void;
  /** Topic new tasks arrive on (default `~/task`). */
  readonly taskTopic?: string;
  /** The running episode ends and the next one records the new task (when recording); that episode's start must call `begin`. */
  readonly onNewTask?: (t: number, task: string) => Promise<void>;
  /** A judge fault (the guard has logged it), e.g. into the episode's gate records. */
  readonly onJudgeFault?: LiveSemanticOptions['onJudgeFault'];
}

/** Joint state older than this (s) gives no end-effector position (the robot state arrives at 1 kHz). */
const MAX_JOINT_AGE = 0.05;
const GRIP = signalIndex('gripper_contact') ?? -1;

function entity(raw: unknown): SemanticEntity | undefined {
  if (typeof raw !== 'string') return undefined;
  const [name = '', tags = ''] = raw.split(':');
  return name.trim()
    ? {
        name: name.trim(),
        tags: tags
          .split(',')
          .map((x) => x.trim())
          .filter(Boolean),
      }
    : undefined;
}

/** A task-topic message → the task it starts, or why it cannot. */
export function parseTaskMessage(
  data: string,
  base: LiveTask,
  known: ReadonlyMap<string, LiveTask>,
): { ok: true; task: LiveTask } | { ok: false; reason: string } {
  const text = data.trim();
  if (text === '') return { ok: false, reason: 'empty task message' };
  const named = known.get(text);
  if (named) return { ok: true, task: named };
  if (!text.startsWith('{')) return { ok: true, task: { ...base, instruction: text } };
  let j: unknown;
  try {
    j = JSON.parse(text);
  } catch (e) {
    return { ok: false, reason: `task message is not valid JSON: ${(e as Error).message}` };
  }
  if (typeof j !== 'object' || j === null || Array.isArray(j))
    return { ok: false, reason: 'task message: expected a JSON object' };
  const o = j as Record<string, unknown>;
  for (const k of Object.keys(o))
    if (!['task', 'instruction', 'intent', 'actor', 'target'].includes(k))
      return {
        ok: false,
        reason: `task message: unknown field '${k}' (expected task, instruction, intent, actor, target)`,
      };
  for (const k of ['task', 'instruction', 'intent', 'actor', 'target'])
    if (o[k] !== undefined && typeof o[k] !== 'string')
      return { ok: false, reason: `task message: '${k}' must be a string` };
  const from =
    typeof o['task'] === 'string'
      ? (known.get(o['task']) ?? {
          ...base,
          task: o['task'],
          region: undefined,
          twin: undefined,
          variant: undefined,
          category: undefined,
        })
      : base;
  const actor = o['actor'] === undefined ? from.actor : entity(o['actor']);
  const target = o['target'] === undefined ? from.target : entity(o['target']);
  if (o['actor'] !== undefined && !actor)
    return { ok: false, reason: `task message: actor: expected "name:tag,tag", got '${String(o['actor'])}'` };
  if (o['target'] !== undefined && !target)
    return { ok: false, reason: `task message: target: expected "name:tag,tag", got '${String(o['target'])}'` };
  const task: LiveTask = {
    ...from,
    instruction: typeof o['instruction'] === 'string' ? o['instruction'] : from.instruction,
    intent: typeof o['intent'] === 'string' ? o['intent'] : from.intent,
    ...(actor ? { actor } : {}),
    ...(target ? { target } : {}),
  };
  return { ok: true, task };
}

export class FrankaSemantic {
  readonly live: LiveSemantic;
  private task: LiveTask;
  private rejected: string | undefined;

  constructor(
    node: RosNode,
    private readonly o: FrankaSemanticOptions,
  ) {
    this.task = o.config.task;
    const stages = this.stageReader();
    this.live = new LiveSemantic({
      ...(o.config.judge ? { judge: o.config.judge } : {}),
      // Stage events need a target point: declared, or a tracked body.
      ...(o.config.positions.targetPoint || o.tracking?.targetBody
        ? { stages: { read: stages, ...o.config.positions } }
        : {}),
      gating: o.gating,
      now: () => node.now(),
      record: o.record,
      log: o.log,
      // franka_gripper opens only through its actions (~/move, ~/gripper_action), which this node's ROS interface has no client for.
      arm: { hold: (now, reason) => o.franka.hold(now, reason) },
      onJudgeFault: (f, t) => o.onJudgeFault?.(f, t),
    });
    node.createSubscription<{ data: string }>('std_msgs/msg/String', o.taskTopic ?? '~/task', QOS_RELIABLE, (m) =>
      this.onTaskMessage(node.now(), m.data),
    );
  }

  /** The task the node runs now. */
  get currentTask(): LiveTask {
    return this.task;
  }

  /** The judge query in flight (tests). */
  get pending(): Promise<void> | undefined {
    return this.live.pending;
  }

  /** A task starts (node start, new episode): ask the judge, start the stage events. */
  begin(t: number): void {
    this.live.startTask(t, this.task);
  }

  /** The episode ends: its stage times. */
  end(t: number): void {
    this.live.endTask(t);
  }

  private onTaskMessage(t: number, data: string): void {
    const p = parseTaskMessage(data, this.task, this.o.tasks);
    if (!p.ok) {
      this.rejected = p.reason;
      this.o.log(`~/task: ${p.reason} — holding proposed trajectories until a valid task arrives`);
      this.o.record({ t, kind: 'decision', pass: false, detail: `task message rejected: ${p.reason}` });
      this.live.endTask(t);
      if (this.o.gating) this.o.franka.hold(t, `semantic gate: task message rejected: ${p.reason}`);
      return;
    }
    this.rejected = undefined;
    this.task = p.task;
    this.o.log(`~/task: new task '${p.task.task}': ${p.task.instruction}`);
    this.live.endTask(t);
    if (this.o.onNewTask) {
      const next = this.o.onNewTask(t, p.task.task);
      // The next episode's start begins the task (Session.newTask opens it and starts the task); until then no
      // task runs and the gate holds (LiveSemantic.beforeChunk).
      void next.catch((e: unknown) => this.o.log(`~/task: the next episode did not open: ${(e as Error).message}`));
    } else this.begin(t);
  }

  /** Before a proposed trajectory: undefined = pass; otherwise why it is held (the arm already stopped). */
  beforeChunk(now: number): string | undefined {
    if (this.rejected !== undefined && this.o.gating) return `task message rejected: ${this.rejected}`;
    const d = this.live.beforeChunk(now);
    return d && !d.pass ? describeSemanticCause(d.cause) : undefined;
  }

  private stageReader(): (now: number) => LiveStageReading | undefined {
    const desc = this.o.platform === 'fr3' ? FR3_DESCRIPTION : PANDA_DESCRIPTION;
    const fk = new ForwardKinematics(desc.chain);
    const tcp = endEffectorOf(desc, this.o.endEffector).tcp;
    const q = new Float64Array(this.o.franka.joints);
    const p = new Float64Array(3);
    const tr = this.o.tracking;
    const baseFromTracking = new Float64Array(TF);
    if (tr) setFromXyzRpy(baseFromTracking, 0, ...tr.inBase);
    const tracked = (body: string | undefined, now: number): Vec3 | undefined => {
      if (!tr || body === undefined) return undefined;
      const stamp = tr.tracker.positionOf(body, p);
      if (!(now - stamp <= tr.maxAge)) return undefined;
      transformPoint(p, 0, baseFromTracking, 0, p[0]!, p[1]!, p[2]!);
      return [p[0]!, p[1]!, p[2]!];
    };
    return (now) => {
      const stamp = this.o.franka.readPositions(q);
      if (!(now - stamp <= MAX_JOINT_AGE)) return undefined;
      fk.compute(q);
      fk.pointInBase(p, 0, tcp.frame, tcp.xyz[0], tcp.xyz[1], tcp.xyz[2]);
      const ee: Vec3 = [p[0]!, p[1]!, p[2]!];
      const f = this.o.frame;
      const grasped = f.validity[GRIP] === Validity.Valid && f.values[GRIP] === 1;
      const actor = tracked(tr?.actorBody, now);
      const target = tracked(tr?.targetBody, now);
      return {
        ee,
        gripperAperture: this.o.franka.mapping.gripperWidth,
        grasped,
        ...(actor ? { actor } : {}),
        ...(target ? { target } : {}),
      };
    };
  }
}
