/**
 * One monitoring session for every platform: a platform supplies a rig (src/runtime/rig.ts) and
 * the session owns the rest — the pipeline and chunk path composed from it, the episode recording
 * (src/runtime/episode-tap.ts, on the store the entry point opened), the semantic gate, the chunk
 * server and the telemetry hooks. `armguard run so101`, the Franka ROS node, the Franka replay and
 * the MuJoCo demo each build a rig and drive `step` (a fixed-rate loop, every robot-state sample, or
 * the simulator's tick); chunks arrive through `submitChunk` (ROS trajectories, the demo's scripted
 * policies) or a ChunkServer bound with `serveChunks` (MQTT).
 * Faults end in hold with the cause recorded; a storage fault holds until a write succeeds again.
 */
import type { ExecutedChunk, GateChunk } from '../gate/chunk.js';
import { describeCause, type GateEvent } from '../gate/events.js';
import type { ChunkScreen } from '../gate/chunk-screen.js';
import type { Gate, ReleaseResult } from '../gate/gate.js';
import { faultDetail, type Fault } from '../schema/fault.js';
import type { Verdict } from '../util/result.js';
import type { LabelInput, LabelRecord } from '../episode/types.js';
import type { SignalFrame } from '../schema/signals.js';
import { ChunkServer } from './chunk-server.js';
import type { ChunkPath } from './chunk-executor.js';
import type { ChunkServerTransport } from './chunk-transport.js';
import { EpisodeTap, type EpisodeStore, type EpisodeStoreHooks } from './episode-tap.js';
import type { GateEventSink } from './events.js';
import type { MonitorBank } from './monitor-bank.js';
import type { Pipeline } from './pipeline.js';
import { composePipeline, type PlatformRig } from './rig.js';
import type { SemanticRecord } from '../episode/types.js';

/** What the session publishes and asks of the operator link (MQTT telemetry for `armguard run`). */
export interface SessionTelemetry {
  /** Once per step, before the pipeline: the remote e-stop link's and the dead-man's holds. */
  checkStep(now: number): void;
  /** Margins are built and handed over at most once per this period (s): not on every control step. */
  readonly marginsPeriodS: number;
  publishMargins(t: number, margins: Record<string, number | null>, band: Record<string, number>): void;
  publishEvent(t: number, kind: string, detail: string): void;
  publishEpisode(payload: { t: number; phase: 'start' | 'end'; episode: string; task?: string }): void;
  publishLabel(label: LabelRecord): void;
}

/**
 * The semantic gate and stage events of the running task (issue 18: runtime/live-semantic.ts,
 * wrapped by each entry point): the session tells it the episode's life and asks it about every
 * step and chunk; it commands its own stops on the arm.
 */
export interface TaskSemantic {
  /** Each episode start is a task start: a fresh gate asking the judge. */
  startTask(t: number): void;
  endTask(t: number): void;
  /** Each step: a verdict (or fault) landing mid-chunk stops the arm at once. */
  step(now: number): void;
  /** Before a proposed chunk: undefined = pass, else why it is held (the arm has already been stopped). */
  beforeChunk(now: number): string | undefined;
  /** The chunk went to the arm: the next stop must be commanded again. */
  chunkForwarded(): void;
  /** The operator's success/failure label for the running task. */
  label(success: boolean, t: number): void;
}

export interface SessionOptions {
  rig: PlatformRig;
  /** false: a baseline run (screened chunks forwarded unfiltered, clause holds recorded, not commanded). */
  gating: boolean;
  task: string;
  /** Opens the episode store, telling it the session's storage hooks; absent: nothing is recorded. */
  episodes?: (hooks: EpisodeStoreHooks) => EpisodeStore;
  /** The semantic gate (issue 18), built with the session's recording of its records and the pipeline's frame. */
  semantic?: (session: { record: (r: SemanticRecord) => void; frame: SignalFrame }) => TaskSemantic;
  log: (line: string) => void;
  /**
   * Also record each chunk the chunk path did not forward (held or rejected) as an executed-chunk
   * record with verdict 'held', besides its chunk-held/-rejected event: for a platform whose arm
   * holds when a chunk is not forwarded (the MuJoCo demo's episode loop), so that the episode's
   * held-chunk count is the arm's. Default: the event only.
   */
  recordHeldChunks?: boolean;
}

/** Same-fault records are rate-limited to one per this many seconds (a dead bus faults every tick). */
const FAULT_REPEAT_S = 1;

export class Session {
  readonly gate: Gate;
  readonly pipeline: Pipeline;
  readonly bank: MonitorBank;
  /** The chunk path composed from the rig (undefined: a monitor-only rig). */
  readonly chunks: ChunkPath | undefined;
  private readonly screen: ChunkScreen | undefined;
  private readonly store: EpisodeStore | undefined;
  private readonly tap: EpisodeTap;
  private telemetry: SessionTelemetry | undefined;
  private readonly taskSemantic: TaskSemantic | undefined;
  /** The running task (a new one may arrive: `newTask`). */
  private task: string;
  /**
   * A storage fault, re-raised every step until a write succeeds again: the gate's fault quiet
   * period must not let a release through while records are still being dropped.
   */
  private storageFault: Fault | null = null;
  private readonly lastFault = new Map<string, number>();
  private lastMarginsT = -Infinity;
  /** Last policy clock offset written to the episode (s). */
  private recordedOffset = NaN;
  private recordedResets = 0;
  /** Episode switches in flight, so labels and shutdown run in order. */
  private pending: Promise<unknown> = Promise.resolve();

  constructor(private readonly o: SessionOptions) {
    const events: GateEventSink = {
      gateEvent: (e) => this.onGateEvent(e),
      chunkResult: (r, t) => this.tap.chunkResult(r, t),
      fault: (f, t) => this.onFault(f, t),
    };
    const composed = composePipeline(o.rig, o.gating, events);
    this.gate = composed.gate;
    this.pipeline = composed.pipeline;
    this.screen = composed.screen;
    this.chunks = composed.chunks;
    this.bank = o.rig.monitors;
    this.store = o.episodes?.({ onFault: (f) => this.onStorageFault(f), onWritten: () => this.onStorageWritten() });
    this.tap = new EpisodeTap(this.bank, () => this.store?.recorder);
    this.task = o.task;
    this.taskSemantic = o.semantic?.({ record: (r) => this.tap.semantic(r), frame: this.pipeline.frame });
  }

  /** The episode store, when recording. */
  get episodes(): EpisodeStore | undefined {
    return this.store;
  }
  get semantic(): TaskSemantic | undefined {
    return this.taskSemantic;
  }
  get storageFailing(): boolean {
    return this.store?.storageFailed ?? false;
  }
  private now(): number {
    return this.o.rig.clock.now();
  }

  attachTelemetry(telemetry: SessionTelemetry): void {
    this.telemetry = telemetry;
  }

  /** Answer chunk requests from `transport` (MQTT) with this session's decisions. */
  serveChunks(transport: ChunkServerTransport): ChunkServer {
    return new ChunkServer(transport, this, this.o.rig.clock, this.o.rig.joints.joints, (r, now) =>
      this.tap.event(now, 'chunk-rejected', `${r.id}: ${r.reason}`),
    );
  }

  /** The first episode (when recording) and the semantic gate's first query. Returns the episode id. */
  async start(t: number): Promise<string | undefined> {
    const id = this.store ? await this.store.start(t) : undefined;
    this.episodeStarted(t, id);
    return id;
  }

  /** End the running episode and open the next (operator 'n'). */
  newEpisode(t: number): Promise<string> {
    return this.serially(() => this.openNext(t));
  }

  /** A new task (the Franka node's task topic): the running episode ends unlabelled and the next one records `task`. */
  newTask(t: number, task: string): Promise<string> {
    return this.serially(async () => {
      this.taskSemantic?.endTask(t);
      await this.store?.end(t, `new task '${task}' on the task topic`);
      this.task = task;
      if (this.store) this.store.task = task;
      return this.openNext(t);
    });
  }

  private async openNext(t: number): Promise<string> {
    if (!this.store) throw new Error('no episode store: nothing is recorded');
    this.taskSemantic?.endTask(t);
    const id = await this.store.start(t);
    this.episodeStarted(t, id);
    return id;
  }

  private episodeStarted(t: number, id: string | undefined): void {
    this.bank.reset();
    this.recordedOffset = NaN; // each episode records the policy clock offset again
    this.taskSemantic?.startTask(t);
    if (id === undefined) return;
    this.telemetry?.publishEpisode({ t, phase: 'start', episode: id, task: this.task });
    this.o.log(`episode ${id} → ${this.store?.path}`);
  }

  /** One monitoring step at `now`: pipeline, semantic gate, recording, telemetry. Throws only when a recorder or telemetry hook does. */
  step(now: number): void {
    if (this.storageFault) this.gate.fault(now, this.storageFault);
    this.telemetry?.checkStep(now);
    this.pipeline.step(now);
    this.taskSemantic?.step(now);
    // One frame and ρ record per sample, at the sample's own time (an idle step brings none).
    if (this.pipeline.sampled) this.tap.step(this.pipeline.frame.t, this.pipeline.frame);
    if (this.telemetry && now - this.lastMarginsT >= this.telemetry.marginsPeriodS) {
      // Decimated here, before anything is allocated or posted to the network worker.
      this.lastMarginsT = now;
      const margins: Record<string, number | null> = {};
      const band: Record<string, number> = {};
      for (let i = 0; i < this.bank.count; i++) {
        const m = this.bank.margin(i);
        margins[this.bank.name(i)] = Number.isFinite(m) ? m : null;
        band[this.bank.name(i)] = this.bank.epsilon(i);
      }
      this.telemetry.publishMargins(now, margins, band);
    }
  }

  /** A proposed chunk: the semantic gate (when gating), then the chunk path; both recorded. */
  submitChunk(chunk: GateChunk, now: number): ExecutedChunk {
    const held = this.beforeChunk(chunk, now);
    if (held) return held;
    return this.afterChunk(chunk, this.pipeline.submitChunk(chunk, now), now);
  }

  /**
   * A proposed chunk whose decision may arrive later (the chunk filter off the control thread):
   * recorded as proposed now, as forwarded (or not) when `done` is called, exactly once.
   */
  submitChunkAsync(chunk: GateChunk, now: number, done: (result: ExecutedChunk, t: number) => void): void {
    const held = this.beforeChunk(chunk, now);
    if (held) return done(held, now);
    this.pipeline.submitChunkAsync(chunk, now, (r, t) => done(this.afterChunk(chunk, r, t), t));
  }

  /** The proposal's record and the semantic gate: the held result, or undefined to go on. */
  private beforeChunk(chunk: GateChunk, now: number): ExecutedChunk | undefined {
    this.tap.proposed(now, chunk);
    const why = this.taskSemantic?.beforeChunk(now);
    if (why === undefined) return undefined;
    this.tap.held(now, chunk);
    return { id: chunk.id, verdict: 'held', code: 'semantic', reason: why };
  }

  private afterChunk(chunk: GateChunk, r: ExecutedChunk, now: number): ExecutedChunk {
    if (r.verdict === 'executed' || r.verdict === 'filtered') this.taskSemantic?.chunkForwarded();
    this.tap.forwarded(now, chunk, r);
    if (this.o.recordHeldChunks && (r.verdict === 'held' || r.verdict === 'rejected')) this.tap.held(now, chunk);
    if (r.code === 'no-chunk-path') this.tap.event(now, 'chunk-rejected', `${r.id}: ${r.reason}`);
    this.recordClockOffset(now);
    return r;
  }

  release(now: number, request: { by: string; authorised: boolean }): ReleaseResult {
    return this.pipeline.release(now, request);
  }

  /** The policy clock's offset estimate, into the episode when it first appears or moves by > 1 ms. */
  private recordClockOffset(now: number): void {
    if (!this.screen || !this.store?.recorder) return;
    const { clockOffset, clockResets } = this.screen;
    if (!Number.isFinite(clockOffset)) return;
    if (clockResets !== this.recordedResets) {
      this.recordedResets = clockResets;
      this.tap.event(
        now,
        'policy-clock-reset',
        `the policy's chunk stamps jumped back (restart): offset estimate started again`,
      );
    }
    if (Math.abs(clockOffset - this.recordedOffset) > 0.001 || !Number.isFinite(this.recordedOffset)) {
      this.recordedOffset = clockOffset;
      this.tap.event(
        now,
        'policy-clock-offset',
        `${clockOffset.toFixed(6)} s (gate clock − policy stamp, smallest over recent chunks)`,
      );
    }
  }

  /** A gate event of the session's own (shutdown hold, command refused, …) into the running episode. */
  recordEvent(t: number, event: string, detail?: string): void {
    this.tap.event(t, event, detail);
  }

  /** A fault reported before the episode existed, into the running episode (not published or logged again). */
  recordFault(t: number, fault: Fault): void {
    this.tap.fault(t, fault);
  }

  /** A remote label (MQTT) for the running episode: refused unless it can be written; confirmed once on storage. */
  label(input: LabelInput, episode?: string): Verdict {
    const store = this.store;
    if (!store) return { ok: false, reason: 'no episode is recording labels' };
    if (episode !== undefined && episode !== store.episodeId)
      return { ok: false, reason: `episode '${episode}' is not the running episode` };
    if (store.storageFailed) return this.storageRefusal();
    const r = store.label(input);
    if (!r.ok) return r;
    if (input.success !== undefined) this.taskSemantic?.label(input.success, r.record.t);
    const recorder = store.recorder;
    void (recorder ? recorder.durable() : Promise.resolve(false)).then((written) => {
      if (written) this.telemetry?.publishLabel(r.record);
      else
        this.telemetry?.publishEvent(
          this.now(),
          'label-not-recorded',
          `label at ${r.record.t} could not be written to the episode file`,
        );
    });
    return { ok: true };
  }

  /**
   * Label the running episode a success or failure and close it; with `next`, open the next one.
   * `ended` settles once the file is closed (complete: the label is on storage) and the next opened.
   */
  finishEpisode(
    input: LabelInput & { success: boolean },
    t: number,
    next: boolean,
  ): { ok: true; ended: Promise<{ id: string | undefined; complete: boolean }> } | { ok: false; reason: string } {
    const store = this.store;
    if (!store) return { ok: false, reason: 'no episode is recording labels' };
    if (store.storageFailed) return this.storageRefusal();
    const l = store.label(input);
    if (!l.ok) return l;
    const id = store.episodeId;
    this.taskSemantic?.label(input.success, t);
    const ended = this.serially(async () => {
      this.taskSemantic?.endTask(t);
      const entry = await store.end(t, `labelled ${input.success ? 'success' : 'failure'}`);
      const complete = entry?.state === 'complete';
      // Confirmed only when the closed file holds it.
      if (complete) this.telemetry?.publishLabel(l.record);
      this.telemetry?.publishEpisode({ t, phase: 'end', episode: id ?? '', task: this.task });
      if (next) await this.openNext(t);
      return { id, complete };
    });
    return { ok: true, ended };
  }

  private storageRefusal(): { ok: false; reason: string } {
    const f = this.storageFault;
    return {
      ok: false,
      reason: `label not recorded: episode storage is failing (${f ? faultDetail(f) : 'write failed'})`,
    };
  }

  private serially<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.pending.then(fn);
    this.pending = run.catch(() => undefined);
    return run;
  }

  /** Waits for episode switches in flight (tests, shutdown). */
  settled(): Promise<unknown> {
    return this.pending;
  }

  /** Close the running episode and refuse new ones (shutdown). */
  async close(t: number, reason: string): Promise<void> {
    await this.pending;
    const store = this.store;
    if (!store) return;
    const id = store.episodeId;
    this.taskSemantic?.endTask(t);
    await store.close(t, reason);
    if (id) this.telemetry?.publishEpisode({ t, phase: 'end', episode: id, task: this.task });
  }

  private onGateEvent(e: GateEvent): void {
    this.tap.gateTransition(e);
    if (e.to === 'hold' || e.from === 'hold') this.o.log(`gate ${e.from} → ${e.to}: ${describeCause(e.cause)}`);
  }

  /** A fault from the source, sink or MQTT link: recorded, published and logged (rate-limited per cause). */
  onFault(f: Fault, t: number): void {
    const detail = faultDetail(f);
    if (!this.firstInWindow(`${f.kind}|${f.source}|${detail}`, t)) return;
    this.tap.fault(t, f);
    this.telemetry?.publishEvent(t, 'fault', `${f.kind} (${f.source}): ${detail}`);
    this.o.log(`fault: ${f.kind} (${f.source}): ${detail}`);
  }

  /** Something the session's driver called threw (a control step, a state read): the gate holds, logged once per second. */
  holdOnError(source: string, e: unknown): void {
    const t = this.now();
    const detail = `${source}: ${e instanceof Error ? e.message : String(e)}`;
    this.gate.fault(t, { kind: 'internal', source, detail });
    if (this.firstInWindow(detail, t)) this.o.log(`${detail} — holding`);
  }

  private firstInWindow(key: string, t: number): boolean {
    const last = this.lastFault.get(key);
    if (last !== undefined && t - last < FAULT_REPEAT_S) return false;
    this.lastFault.set(key, t);
    return true;
  }

  /** Storage failed (write, sync, episode start or end): hold, latched until a write succeeds again. */
  onStorageFault(f: Fault): void {
    const t = this.now();
    const detail = faultDetail(f);
    if (!this.storageFault)
      this.o.log(`storage fault: ${detail} — holding until a write succeeds again and an operator releases`);
    this.storageFault = f;
    this.gate.fault(t, f);
    this.telemetry?.publishEvent(t, 'fault', `${f.kind}: ${detail}`);
  }

  /** A write succeeded: the storage fault's cause is gone; the hold stays until an operator releases. */
  private onStorageWritten(): void {
    if (!this.storageFault) return;
    this.storageFault = null;
    const t = this.now();
    const lost = this.store?.recorder?.stats().lostToStorage ?? 0;
    const text = `storage writes again (${lost} record(s) of this episode lost while it failed); the arm stays held until an operator releases`;
    this.o.log(text);
    this.tap.event(t, 'storage-recovered', text);
    this.telemetry?.publishEvent(t, 'storage-recovered', text);
  }
}
