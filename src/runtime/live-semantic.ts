/**
 * The semantic gate and stage events of one live task (issue 18), for `armguard run so101` and the
 * Franka node alike: at every task start (a new episode, or a new task on the Franka node's task
 * topic) a fresh SemanticGate whose judge is asked at once and every N chunks after (SemanticGuard),
 * and a LiveStageTracker fed each control step from the arm's observable state. It records the
 * task, every judge event, frame and stage event as /armguard/semantic records, stops the arm (and
 * optionally opens the gripper) when the gate stops passing mid-chunk, reports judge faults to
 * `onJudgeFault` (MQTT, logs), and closes each task with a 'stages' record. With gating off (a
 * baseline run) the judge is still asked and recorded but never enforced. Entry points keep only
 * the calls; the behaviour lives here.
 */
import type { SemanticRecord } from '../episode/types.js';
import { LiveStageTracker, type LiveStageInput } from '../semantic/live-stages.js';
import {
  SemanticGate,
  describeSemanticCause,
  type SemanticDecision,
  type SemanticGateConfig,
} from '../semantic/semantic-gate.js';
import { EPS_ATTEMPT, type CriticalRegion, type Vec3 } from '../semantic/stage-events.js';
import type { TwinVariant } from '../semantic/task-semantics.js';
import type { CameraSource, JudgeFault, SemanticJudge } from '../semantic/types.js';
import { SemanticGuard, type SemanticTaskInput } from './semantic-guard.js';

/** A task as the live gate runs it: the judge's input and, from spec/tasks.yaml, its twin entry. */
export interface LiveTask extends SemanticTaskInput {
  readonly twin?: string;
  readonly variant?: TwinVariant;
  readonly category?: string;
  /** The task's critical region (its `semantic:` entry); without it there are no stage events. */
  readonly region?: CriticalRegion;
  readonly epsAttempt?: number;
}

/** What the arm shows this step, for the stage events (LiveStageInput without its time). */
export type LiveStageReading = Omit<LiveStageInput, 't'>;

/** The semantic gate of a live run as configured: the judge (if any), the task as it runs, and declared positions for the stage events. */
export interface LiveSemanticConfig {
  readonly judge?: LiveSemanticOptions['judge'];
  readonly task: LiveTask;
  /** Declared positions (robot base frame, m): the actor's start and the target's reference point. */
  readonly positions: { readonly actorStart?: Vec3; readonly targetPoint?: Vec3 };
}

export interface LiveSemanticOptions {
  /** The task `startTask(t)` starts when given none (the run's configured task). */
  readonly task?: LiveTask;
  /** The judge and its gate settings; none: stage events only. */
  readonly judge?: {
    readonly judge: SemanticJudge;
    readonly camera?: CameraSource;
    readonly gateConfig: SemanticGateConfig;
  };
  /** The arm's observable state each step; undefined when it has none usable now. None: no stage events. */
  readonly stages?: {
    readonly read: (now: number) => LiveStageReading | undefined;
    readonly actorStart?: Vec3;
    readonly targetPoint?: Vec3;
  };
  /** false: a baseline run — verdicts are recorded, never enforced. */
  readonly gating: boolean;
  readonly now: () => number;
  readonly record: (r: SemanticRecord) => void;
  readonly log: (line: string) => void;
  /** Stops the arm when the gate stops passing mid-chunk; `openGripper` where the arm can. */
  readonly arm: { hold(now: number, reason: string): void; openGripper?(now: number): void };
  /** A judge fault (timeout, HTTP status, malformed answer, …) with its cause. */
  readonly onJudgeFault?: (fault: JudgeFault, t: number) => void;
}

/** The decisions between tasks (shared: step runs every control step and allocates nothing). */
const NO_TASK_FAIL_OPEN: SemanticDecision = { pass: true, basis: 'fail-open' };
const NO_TASK_FAIL_CLOSED: SemanticDecision = {
  pass: false,
  cause: { kind: 'awaiting-verdict' },
  openGripper: false,
};

const vec = (p: Vec3 | undefined): number[] | null => (p ? [p[0], p[1], p[2]] : null);

export class LiveSemantic {
  private guard: SemanticGuard | undefined;
  private stages: LiveStageTracker | undefined;
  private current: LiveTask | undefined;
  /** The gate has stopped the arm and no chunk passed since (nothing to stop before the first pass). */
  private held = true;
  private gripperOpened = false;

  constructor(private readonly o: LiveSemanticOptions) {}

  /** The running task, if any. */
  get task(): LiveTask | undefined {
    return this.current;
  }

  /** The judge query in flight, if any (tests wait on it). */
  get pending(): Promise<void> | undefined {
    return this.guard?.pending;
  }

  /**
   * A task starts at t (ends the running one first): its record, a fresh gate asking the judge now,
   * fresh stage events. Without `task`, the configured one (options.task); with neither, no task runs.
   */
  startTask(t: number, next?: LiveTask): void {
    this.endTask(t);
    const o = this.o;
    const task = next ?? o.task;
    if (!task) return;
    this.current = task;
    // `held` is kept: a chunk forwarded under the previous task and still playing is stopped at the
    // next step, since the new task has no verdict yet.
    this.gripperOpened = false;
    const stageSetup =
      task.region && o.stages
        ? {
            region: task.region,
            ...(task.epsAttempt !== undefined ? { epsAttempt: task.epsAttempt } : {}),
            ...(o.stages.actorStart ? { actorStart: o.stages.actorStart } : {}),
            ...(o.stages.targetPoint ? { targetPoint: o.stages.targetPoint } : {}),
          }
        : undefined;
    this.stages = stageSetup ? new LiveStageTracker(stageSetup) : undefined;
    const j = o.judge;
    const gate = j ? new SemanticGate(j.gateConfig) : undefined;
    o.record({
      t,
      kind: 'task',
      task: task.task,
      instruction: task.instruction,
      intent: task.intent,
      actor: task.actor ?? null,
      target: task.target ?? null,
      ...(task.twin ? { twin: task.twin } : {}),
      ...(task.variant ? { variant: task.variant } : {}),
      ...(task.category ? { category: task.category } : {}),
      region: task.region ? { eps_xy: task.region.epsXy, eps_z: task.region.epsZ } : null,
      eps_attempt: this.stages ? (this.stages.setup.epsAttempt ?? EPS_ATTEMPT) : null,
      actor_start: vec(o.stages?.actorStart),
      target_point: vec(o.stages?.targetPoint),
      stage_events: this.stages !== undefined,
      judge: j?.judge.name ?? null,
      fail_mode: gate?.config.failMode ?? null,
      refresh_every_chunks: gate?.config.refreshEveryChunks ?? null,
      camera: j?.camera?.name ?? null,
      enforced: j !== undefined && o.gating,
    });
    if (task.region === undefined)
      o.log(`stage events off for task '${task.task}': it has no semantic entry (critical region) in the task file`);
    else if (!o.stages)
      o.log(
        `stage events off for task '${task.task}': no target position (--target-at, or semantic_target_at / semantic_target_body on the Franka node)`,
      );
    if (!j || !gate) {
      this.guard = undefined;
      return;
    }
    gate.onEvent((e) => {
      if (e.kind === 'fault') o.onJudgeFault?.(e.fault, e.t);
    });
    this.guard = new SemanticGuard({
      gate,
      judge: j.judge,
      ...(j.camera ? { camera: j.camera } : {}),
      task,
      now: o.now,
      record: o.record,
      log: o.log,
    });
    this.guard.start(t);
  }

  /**
   * Each control step: the stage events, and the gate's decision (a verdict landing mid-chunk stops
   * the arm at once). Allocates nothing unless something happens (a stage reached, a decision that
   * changes, the first unobserved step); the reader may return the same reading object every step.
   */
  step(now: number): void {
    const s = this.stages;
    if (s) {
      const reading = this.o.stages?.read(now);
      const before = s.unobserved;
      const reached = reading ? s.observeAt(now, reading) : undefined;
      if (!reading) s.unobserved++;
      if (reached) this.o.record({ t: now, kind: 'stage', stage: reached, actor_source: s.actorSource });
      if (before === 0 && s.unobserved > 0)
        this.o.log(
          `stage events: a step could not be evaluated (${reading ? s.lastGap : 'no arm state'}); such steps are counted in the episode`,
        );
    }
    const d = this.guard ? this.guard.step(now) : this.noTaskDecision();
    if (d) this.enforce(d, now);
  }

  /** With a judge and no task running (before the first, between two), nothing has been judged. */
  private noTaskDecision(): SemanticDecision | undefined {
    const j = this.o.judge;
    if (!j) return undefined;
    return j.gateConfig.failMode === 'open' ? NO_TASK_FAIL_OPEN : NO_TASK_FAIL_CLOSED;
  }

  /**
   * Before a proposed chunk: query the judge when due, then the decision. Undefined = pass (no
   * judge, or a baseline run); a decision that does not pass has already stopped the arm.
   */
  beforeChunk(now: number): SemanticDecision | undefined {
    const j = this.o.judge;
    if (!j || !this.o.gating) {
      this.guard?.beforeChunk(now);
      return undefined;
    }
    const d = this.guard ? this.guard.beforeChunk(now) : this.noTaskDecision()!;
    this.enforce(d, now);
    return d.pass ? undefined : d;
  }

  /** The chunk went to the arm: the next stop must be commanded again. */
  chunkForwarded(): void {
    this.held = false;
    this.gripperOpened = false;
  }

  /** The operator's label: a success counts as t_success when commit was reached. */
  label(success: boolean, t: number): void {
    if (success && this.stages?.succeed(t))
      this.o.record({ t, kind: 'stage', stage: 'success', actor_source: 'label' });
  }

  /** The task ends (episode end, new task): its stage times, once. */
  endTask(t: number): void {
    const task = this.current;
    if (!task) return;
    this.current = undefined;
    this.guard = undefined;
    const s = this.stages;
    this.stages = undefined;
    if (!s) return;
    const times = s.times;
    this.o.record({
      t,
      kind: 'stages',
      attempt: times.attempt,
      commit: times.commit,
      success: times.success,
      observed_steps: s.observed,
      unobserved_steps: s.unobserved,
      success_from: 'operator label',
    });
  }

  private enforce(d: SemanticDecision, now: number): void {
    if (d.pass || !this.o.gating) return;
    if (!this.held) {
      this.held = true;
      this.o.arm.hold(now, `semantic gate: ${describeSemanticCause(d.cause)}`);
    }
    if (d.openGripper && !this.gripperOpened && this.o.arm.openGripper) {
      this.gripperOpened = true;
      this.o.arm.openGripper(now);
      this.o.record({ t: now, kind: 'decision', pass: false, detail: 'gripper opened (refusal)' });
    }
  }
}
