/**
 * One recorded hazard-twin episode (issue 18): the clean pick-and-place in the MuJoCo testbed under
 * a twin's semantic roles. Mode `off`: the policy runs unchecked. Mode `judge`: the semantic gate
 * asks the judge at task start and every N chunks (asynchronously: the cached verdict stays in force
 * while a refresh is in flight) and enforces the latest verdict on every chunk and every tick; a
 * held chunk is not consumed (the policy proposes it again, as a VLA re-planning from an unchanged
 * observation would). While a query is outstanding the simulation never runs ahead of the wall
 * clock, so a judge's real latency costs simulated time. Stage events, judge records, the frames
 * the judge saw, signal frames and ρ go to the episode's MCAP file.
 */
import type { DlsIk, SimWorld } from '../../../drivers/sim/index.js';
import {
  CHUNK_HORIZON,
  POLICIES,
  ScriptedPolicy,
  TwinObserver,
  planContext,
  renderTopView,
  simPorts,
  targetInBox,
} from '../../../drivers/sim/index.js';
import { encodePngRgb } from '../../../drivers/camera/png.js';
import type { SemanticRecord } from '../../episode/types.js';
import type { JointChunk } from '../../ports/index.js';
import { MonitorBank } from '../../runtime/monitor-bank.js';
import { frameRecord, semanticEventRecord } from '../../runtime/semantic-guard.js';
import type { TaskSemantic } from '../../runtime/session.js';
import { SimSessionClock, noBarrier, simRig } from '../../rigs/sim.js';
import type { ClauseInstance } from '../../safety/index.js';
import { SignalFrame } from '../../schema/signals.js';
import {
  JudgeScheduler,
  SemanticGate,
  StageTracker,
  describeSemanticCause,
  type CameraFrame,
  type JudgeRequest,
  type SemanticEvent,
  type SemanticGateConfig,
  type SemanticJudge,
  type SemanticTask,
  type StageTimes,
} from '../../semantic/index.js';
import { demoPlatform } from './clauses.js';
import { startDemoSession } from './demo-session.js';

export type TwinMode = 'off' | 'judge';

export interface HazardEpisodeInput {
  readonly world: SimWorld;
  readonly ik: DlsIk;
  readonly task: SemanticTask;
  readonly epsAttempt: number;
  readonly mode: TwinMode;
  readonly seed: number;
  readonly clauses: readonly ClauseInstance[];
  readonly judge?: SemanticJudge;
  readonly gateConfig: SemanticGateConfig;
  readonly dir: string;
  readonly episodeId: string;
  readonly startedAt: string;
  /** Wall clock (s) and sleep, for pacing while a judge query is in flight. */
  readonly wallNow: () => number;
  readonly sleep: (seconds: number) => Promise<void>;
  /** Frames sent to the judge are drawn this many pixels per metre (the record keeps them). */
  readonly pixelsPerMetre?: number;
}

export interface HazardEpisodeResult {
  readonly episodeId: string;
  readonly path: string;
  readonly task: SemanticTask;
  readonly mode: TwinMode;
  readonly seed: number;
  readonly success: boolean;
  readonly stages: StageTimes;
  /** Null when the judge was not consulted (mode off). */
  readonly refused: boolean | null;
  readonly verdicts: readonly {
    readonly t: number;
    readonly decision: string;
    readonly latency: number;
    readonly reason: string;
  }[];
  readonly faults: readonly { readonly t: number; readonly cause: string; readonly detail: string }[];
  readonly chunksHeld: number;
  readonly chunksExecuted: number;
  readonly ticks: number;
}

/** Extra chunks an episode may spend held beyond its plan before it ends (the task is then failed). */
const HOLD_ALLOWANCE_CHUNKS = 4;

export async function runHazardEpisode(input: HazardEpisodeInput): Promise<HazardEpisodeResult> {
  const { world, task, mode } = input;
  const dt = world.scene.controlDt;
  const policyLabel = `hazard-twins/${mode}`;
  const bank = MonitorBank.fromClauses(input.clauses, { minSampleInterval: 0.5 * dt });
  world.reset(input.seed);
  const ports = simPorts(world);
  ports.signals.begin();
  const clean = POLICIES.find((p) => p.name === 'clean');
  if (!clean) throw new Error('the clean policy is missing');
  const policy = new ScriptedPolicy(clean, world.scene, input.ik, planContext(world));
  const rows = policy.rows;
  const nJ = policy.joints;
  const maxTicks = policy.ticks + HOLD_ALLOWANCE_CHUNKS * CHUNK_HORIZON;
  // The signals start from the scene at t = 0 (as drivers/sim runEpisode starts them); the
  // session's first step, after the first tick, polls them again.
  ports.source.poll(new SignalFrame(), 0);
  const observer = new TwinObserver(world);
  const tracker = new StageTracker(task.region, input.epsAttempt);
  const judged = mode === 'judge' && input.judge !== undefined;
  const gate = judged ? new SemanticGate(input.gateConfig) : undefined;
  const verdicts: HazardEpisodeResult['verdicts'][number][] = [];
  const faults: HazardEpisodeResult['faults'][number][] = [];
  let refused = false;
  // The loop's side of a held chunk (set below): the rows played so far are done, the rest is proposed again.
  let holdArm: (now: number, openGripper: boolean) => void = () => undefined;
  let checkMidChunk: () => boolean = () => false;
  /** The tick after the step at which the semantic gate stopped a playing chunk (that tick proposes nothing). */
  let heldBeforeTick = -1;
  let record: (r: SemanticRecord) => void = () => undefined;
  const semantic: TaskSemantic = {
    startTask: (t) =>
      record({
        t,
        kind: 'task',
        task: task.task,
        twin: task.twin,
        variant: task.variant,
        category: task.category,
        instruction: task.instruction,
        intent: task.intent,
        actor: task.actor,
        target: task.target,
        region: { eps_xy: task.region.epsXy, eps_z: task.region.epsZ },
        eps_attempt: input.epsAttempt,
        mode,
        judge: judged ? input.judge?.name : null,
        fail_mode: gate?.config.failMode ?? null,
        refresh_every_chunks: gate?.config.refreshEveryChunks ?? null,
      }),
    endTask: () => undefined,
    // Each step (the session's, at the end of a tick): while a chunk plays, a verdict or timeout that
    // has landed stops the arm at once, as live-semantic.ts does on the hardware rigs.
    step: (now) => {
      if (!gate || !checkMidChunk()) return;
      gate.tick(now, input.judge?.name);
      const d = gate.decide(now);
      if (!d.pass) {
        holdArm(now, d.openGripper);
        heldBeforeTick = tick + 1;
      }
    },
    beforeChunk: (now) => {
      const d = gate?.decide(now);
      if (!d || d.pass) return undefined;
      holdArm(now, d.openGripper);
      return `semantic gate: ${describeSemanticCause(d.cause)}`;
    },
    chunkForwarded: () => undefined,
    label: () => undefined,
  };
  const { rig, clock } = simRig({
    world,
    platform: demoPlatform(world.scene.id),
    monitors: bank,
    source: ports.source,
    sink: ports.sink,
    joints: ports.joints,
    barrier: noBarrier(world),
  });
  const { session, path } = await startDemoSession({
    rig,
    gating: false,
    dir: input.dir,
    episodeId: input.episodeId,
    startedAt: input.startedAt,
    robotId: `sim-${world.scene.id}`,
    task: task.task,
    policy: policyLabel,
    clauses: input.clauses.map((c) => c.clause.id),
    semantic: (s) => {
      record = s.record;
      return semantic;
    },
  });
  const sim = new SimSessionClock(session, clock);
  // Simulated time of the episode, read by the judge scheduler: answers are stamped in sim time.
  let simT = 0;
  gate?.onEvent((e: SemanticEvent) => {
    record(semanticEventRecord(e));
    if (e.kind === 'verdict') {
      verdicts.push({ t: e.t, decision: e.verdict.decision, latency: e.verdict.latency, reason: e.verdict.reason });
      if (e.verdict.decision === 'refuse') refused = true;
    } else if (e.kind === 'fault') {
      faults.push({ t: e.t, cause: e.fault.cause, detail: e.fault.detail });
      session.recordFault(e.t, { kind: 'judge', source: e.fault.source, cause: e.fault.cause, detail: e.fault.detail });
    } else if (e.kind === 'decision') {
      session.recordEvent(e.t, e.pass ? 'semantic-pass' : 'semantic-hold', e.detail);
    }
  });
  const scheduler = gate && input.judge ? new JudgeScheduler(gate, input.judge, () => simT) : undefined;
  const wallStart = input.wallNow();
  const request = (): JudgeRequest => {
    const view = renderTopView(world, input.pixelsPerMetre);
    const png = encodePngRgb(view.width, view.height, view.rgb);
    const cam: CameraFrame = {
      t: simT,
      source: 'sim/top-view',
      mime: 'image/png',
      width: view.width,
      height: view.height,
      data: png,
    };
    record(frameRecord(cam));
    const p = new Float64Array(3);
    world.bodyPos(world.targetBodyId, p);
    const b = world.scene.box.center;
    return {
      task: task.task,
      instruction: task.instruction,
      intent: task.intent,
      frames: [cam],
      scene: [
        {
          name: task.actor.name,
          tags: task.actor.tags,
          role: 'actor',
          position: [p[0] ?? NaN, p[1] ?? NaN, p[2] ?? NaN],
        },
        {
          name: task.target.name,
          tags: task.target.tags,
          role: 'target',
          position: [b[0], b[1], world.scene.box.wallTop],
        },
      ],
    };
  };
  // Wait until the wall clock has caught up with simulated time (only while a query is in flight).
  const pace = async (): Promise<void> => {
    while (scheduler?.pending) {
      const ahead = simT - (input.wallNow() - wallStart);
      if (ahead <= 0) return;
      await Promise.race([scheduler.pending, input.sleep(Math.min(ahead, 0.02))]);
    }
  };
  let cursor = 0; // next plan row to execute
  let chunkStart = 0; // plan row the playing chunk started at
  let playing = false;
  let ticksInChunk = 0;
  let ticksHeld = 0;
  let chunkIndex = 0;
  let chunksHeld = 0;
  let chunksExecuted = 0;
  let tick = 0;
  /**
   * A chunk is playing with rows left, and another tick follows: the session's step that ends this
   * tick checks the semantic gate mid-chunk (the next tick would play the chunk's next row).
   */
  checkMidChunk = () => playing && ticksInChunk < CHUNK_HORIZON && tick + 1 < maxTicks;
  const proposeChunk = (now: number): JointChunk => {
    const targets = new Float64Array(CHUNK_HORIZON * nJ);
    const last = rows[rows.length - 1] ?? new Float64Array(nJ);
    for (let k = 0; k < CHUNK_HORIZON; k++) targets.set(rows[cursor + k] ?? last, k * nJ);
    return { id: `clean#${chunkIndex}@${cursor}`, stamp: now, horizon: CHUNK_HORIZON, joints: nJ, dt, targets };
  };
  holdArm = (now: number, openGripper: boolean): void => {
    if (playing) {
      cursor = chunkStart + ticksInChunk; // the rows played so far are done; the rest is proposed again
      ports.sink.hold(now, 'semantic gate');
    }
    playing = false;
    ticksHeld = 0;
    if (openGripper) ports.sink.openGripper(now);
  };
  const check = async (now: number): Promise<boolean> => {
    await pace();
    gate?.tick(now, input.judge?.name);
    return gate ? gate.decide(now).pass : true;
  };
  for (; tick < maxTicks; tick++) {
    const now = tick * dt;
    simT = now;
    let propose: boolean;
    if (playing) {
      // Mid-chunk the session's step checks the semantic gate (the port's `step`, above).
      propose = ticksInChunk >= CHUNK_HORIZON;
      if (propose) {
        cursor = chunkStart + CHUNK_HORIZON;
        playing = false;
      }
    } else if (heldBeforeTick === tick) {
      propose = false; // the gate stopped the chunk at the step that ended the last tick: its hold period starts
    } else {
      // Holding (or starting): propose at once when the gate would pass, else once per chunk period.
      propose = tick === 0 || ticksHeld >= CHUNK_HORIZON || (await check(now));
    }
    if (propose) {
      if (cursor >= rows.length) break; // the plan is done
      scheduler?.atChunk(chunkIndex, request);
      if (scheduler?.pending) await new Promise<void>((r) => setImmediate(r));
      await pace();
      gate?.tick(now, input.judge?.name);
      const chunk = proposeChunk(now);
      // The session records it, asks the semantic gate (a refusal has held the arm: holdArm) and
      // forwards it to the arm through its chunk path.
      const r = sim.submit(chunk, now);
      if (r.verdict === 'executed' || r.verdict === 'filtered') {
        playing = true;
        chunkStart = cursor;
        ticksInChunk = 0;
        chunksExecuted++;
      } else {
        if (r.code !== 'semantic') holdArm(now, false); // the chunk path held it (a stop reason): the arm is held
        chunksHeld++;
      }
      chunkIndex++;
    }
    ports.sink.tick(now);
    world.stepTick();
    if (playing) ticksInChunk++;
    else ticksHeld++;
    const t = now + dt;
    const stage = tracker.observe(observer.observe(t, targetInBox(world).success));
    if (stage) record({ t, kind: 'stage', stage });
    // The session polls the sim's signals, steps the monitors, the gate and the semantic gate (a
    // mid-chunk check: simulated time first waits for the wall clock while a query is in flight),
    // and records frame and ρ.
    if (gate && checkMidChunk()) {
      simT = t;
      await pace();
    }
    sim.step(t);
  }
  // Let an answer still in flight land in the record (it changes nothing now).
  if (scheduler?.pending) await Promise.race([scheduler.pending, input.sleep(input.gateConfig.queryTimeout)]);
  const end = tick * dt;
  const outcome = targetInBox(world);
  const stages = tracker.times;
  clock.set(end);
  record({
    t: end,
    kind: 'stages',
    attempt: stages.attempt,
    commit: stages.commit,
    success: stages.success,
    terminal_success: outcome.success,
  });
  const labelled = session.label({
    t: end,
    source: 'predicate',
    by: 'targetInBox',
    success: outcome.success,
    taskId: task.task,
    policy: policyLabel,
    note: outcome.reason,
  });
  await session.close(end, 'completed');
  if (!labelled.ok) throw new Error(`episode ${input.episodeId}: ${labelled.reason}`);
  return {
    episodeId: input.episodeId,
    path,
    task,
    mode,
    seed: input.seed,
    success: outcome.success,
    stages,
    refused: judged ? refused : null,
    verdicts,
    faults,
    chunksHeld,
    chunksExecuted,
    ticks: tick,
  };
}
