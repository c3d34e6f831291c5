/**
 * A live `armguard run so101` session: the arm (real tty or emulator behind a pty), the runtime
 * (monitors, gate, chunk path), the episode files, MQTT telemetry and chunk server, the optional
 * dashboard and the fixed-rate control loop. `start` wires everything; `stop` holds the arm first,
 * then closes the episode and everything else. Faults end in hold with the cause recorded, never
 * a throw out of the loop.
 */
import type { So101Calibration } from '../../calibration/so101.js';
import type { FreeMotionModel } from '../../calibration/free-motion.js';
import type { ExecutedChunk, GateChunk } from '../../gate/chunk.js';
import { describeCause, type GateEvent } from '../../gate/events.js';
import type { Fault } from '../../ports/index.js';
import { faultDetail } from '../../schema/fault.js';
import type { GateEventSink } from '../../runtime/index.js';
import type { ScoringSpec } from '../../safety/index.js';
import type { LabelCommand } from '../../telemetry/payloads.js';
import type { Clock, TimerHandle, Timers } from '../../util/clock.js';
import { ControlLoop } from './control-loop.js';
import { EpisodeManager, type EpisodeManagerOptions } from '../../episode/episode-manager.js';
import type { OperatorAction } from './operator-keys.js';
import { connectEmulatedSo101, connectSo101, type So101Connection } from './so101-arm.js';
import { buildSo101Runtime, type So101Runtime } from './so101-runtime.js';
import { startTelemetry, type BrokerChoice, type Telemetry } from './telemetry.js';
import type { LinkLossPolicy } from '../../telemetry/gate-remote.js';
import { SLOW_FLOOR_S, TIMING_MIN_WINDOW_S, TIMING_SAMPLE_READS, TIMING_WARMUP_READS, defaultWatchdog, maxAgeFloor, summariseReads } from './read-timing.js';
import { SIGNALS } from '../../schema/signals.js';
import { LiveSemantic } from '../../runtime/live-semantic.js';
import { describeSemanticCause } from '../../semantic/semantic-gate.js';
import type { LiveSemanticConfig } from './semantic-options.js';
import { so101StageReader } from './so101-stages.js';

export interface RunSessionOptions {
  calibration: So101Calibration;
  /** Free-motion model for the contact-force estimate (default: the calibration's analytic model). */
  freeMotion?: FreeMotionModel;
  /** The calibration's file name (where the monitored thresholds came from). */
  calibrationFile?: string;
  spec: ScoringSpec;
  /** Paths and content hashes of the spec files, recorded in each episode (loadScoringSpec). */
  specVersions?: Readonly<Record<string, string>>;
  task: string;
  robotId: string;
  episodesDir: string;
  /** Control steps per second. */
  rate: number;
  gating: boolean;
  arm: { kind: 'port'; path: string } | { kind: 'emulator'; replyDelayS?: number };
  broker: BrokerChoice;
  /**
   * Dashboard HTTP port, and the viewer credentials it reads telemetry with (default with the
   * embedded broker: the broker's per-process viewer credentials).
   */
  dashboard?: { port: number; viewer?: { username: string; password: string } };
  workspace?: readonly number[];
  /** Fixed spheres the arm keeps clear of: x, y, z, r per sphere (m, base frame). */
  obstacles?: readonly number[];
  /** Opens episode files (default: `<episodesDir>/<id>.mcap`); tests inject failing storage. */
  openEpisode?: EpisodeManagerOptions['open'];
  /**
   * Floor for every signal's max age (s); see So101RuntimeOptions.minMaxAge. Default: derived
   * from the read cycle measured at start-up (read-timing.ts), said in the log.
   */
  minMaxAge?: number;
  /** Source watchdog (s): no fresh sample for this long holds. Default: from the read cycle (≥ 0.1 s). */
  watchdogS?: number;
  /** Per-attempt serial response timeout (s) with a real port (default DEFAULT_PORT_TIMEOUT_S). */
  busTimeoutS?: number;
  /** Arm-side watchdog (s): the arm holds itself when no gate heartbeat arrived for this long (default 0.25). */
  armWatchdogS?: number;
  /**
   * Operator dead-man (s): the arm holds when no heartbeat from an operator (MQTT cmd/heartbeat)
   * arrived for this long, including none yet; release is refused until heartbeats come.
   */
  deadManS?: number;
  /** Stop by itself after this many seconds. */
  durationS?: number;
  /** What a lost MQTT command channel (the remote e-stop) does: hold (default) or warn (record only). */
  onLinkLoss?: LinkLossPolicy;
  /** How long start-up waits for the broker before going on without it (held under 'hold'); default 5 s. */
  brokerConnectTimeoutS?: number;
  /** The semantic gate and stage events (issue 18): a fresh task at every episode start, enforced on chunks and steps. */
  semantic?: LiveSemanticConfig;
  clock: Clock;
  timers: Timers;
  log: (line: string) => void;
}

/** Same-fault records are rate-limited to one per this many seconds (a dead bus faults every tick). */
const FAULT_REPEAT_S = 1;

export class RunSession {
  readonly conn: So101Connection;
  readonly runtime: So101Runtime;
  readonly episodes: EpisodeManager;
  telemetry: Telemetry | undefined;
  /** The dashboard (served from the network worker), when --dashboard was given. */
  dashboard: { url: string } | undefined;
  private readonly loop: ControlLoop;
  private readonly rho: Float64Array;
  /** Last policy clock offset written to the episode (s). */
  private recordedOffset = NaN;
  private recordedResets = 0;
  private readonly lastFault = new Map<string, number>();
  private durationTimer: TimerHandle | undefined;
  /**
   * A storage fault, re-raised every step until a write succeeds again: the gate's fault quiet
   * period must not let a release through while records are still being dropped.
   */
  private storageFault: Fault | null = null;
  private stopping: Promise<void> | undefined;
  private semantic: LiveSemantic | undefined;
  private resolveDone!: (reason: string) => void;
  /** What the shutdown did to the arm (set by `stop`): the truth for the last line `run` prints. */
  shutdownHold: { kind: 'held' } | { kind: 'not-commanded' } | { kind: 'failed'; detail: string } | undefined;
  /** Resolves with the reason when the session should end (quit key, --duration, SIGINT). */
  readonly done: Promise<string>;

  private constructor(
    private readonly o: RunSessionOptions,
    conn: So101Connection,
  ) {
    this.conn = conn;
    this.done = new Promise((r) => (this.resolveDone = r));
    const events: GateEventSink = {
      gateEvent: (e) => this.onGateEvent(e),
      chunkResult: (r, t) => this.onChunkResult(r, t),
      fault: (f, t) => this.onFault(f, t),
    };
    this.runtime = buildSo101Runtime({
      spec: o.spec, calibration: o.calibration, ...(o.calibrationFile ? { calibrationFile: o.calibrationFile } : {}), task: o.task, arm: conn.arm, events, gating: o.gating, rate: o.rate,
      ...(o.workspace ? { workspace: o.workspace } : {}),
      ...(o.obstacles ? { obstacles: o.obstacles } : {}),
      ...(o.minMaxAge !== undefined ? { minMaxAge: o.minMaxAge } : {}),
      ...(o.watchdogS !== undefined ? { watchdogTimeout: o.watchdogS } : {}),
    });
    this.rho = new Float64Array(this.runtime.bank.count);
    this.episodes = new EpisodeManager({
      dir: o.episodesDir, robotId: o.robotId, task: o.task, clauses: this.runtime.clauses, timers: o.timers,
      versions: { ...o.specVersions, platform: 'so101', calibration: o.calibration.armId },
      thresholds: Object.fromEntries(this.runtime.thresholds.map((t) => [t.clause, { tau: t.tau, unit: t.unit, from: t.from }])),
      gateMode: o.gating ? 'on' : 'off',
      clauseCoverage: () => this.runtime.bank.episodeCoverage(),
      ...(o.openEpisode ? { open: o.openEpisode } : {}),
      log: o.log,
      onFault: (f) => this.onStorageFault(f),
      onWritten: () => this.onStorageWritten(),
    });
    // Built before MQTT starts: a chunk that arrives before the first task start is held (no verdict yet).
    const sem = o.semantic;
    const arm = conn.arm;
    this.semantic = sem
      ? new LiveSemantic({
          task: sem.task,
          ...(sem.judge ? { judge: sem.judge } : {}),
          ...(sem.positions.targetPoint ? { stages: { read: so101StageReader(arm, 0.25), ...sem.positions } } : {}),
          gating: o.gating, now: () => o.clock.now(), record: (r) => this.episodes.recorder?.semantic(r), log: o.log,
          arm: { hold: (now, reason) => arm.hold(now, reason), openGripper: (now) => arm.openGripper(now) },
          onJudgeFault: (f, ft) => {
            this.episodes.recorder?.fault(ft, { kind: 'judge', source: f.source, cause: f.cause, detail: f.detail });
            this.telemetry?.link.publishEvent(ft, 'fault', `judge (${f.cause}) from ${f.source}: ${f.detail}`);
          },
        })
      : undefined;
    this.loop = new ControlLoop({
      clock: o.clock, timers: o.timers, rate: o.rate,
      step: (now) => this.step(now),
      read: () => conn.arm.readState(),
      onError: (e) => this.onLoopError(e),
    });
  }

  /** Connect the arm (without moving it), build the runtime, start MQTT, the first episode and the loop. */
  static async start(options: RunSessionOptions): Promise<RunSession> {
    let o = options;
    const connectOptions = {
      calibration: o.calibration, clock: o.clock, timers: o.timers, log: o.log,
      ...(o.busTimeoutS !== undefined ? { timeoutS: o.busTimeoutS } : {}),
      ...(o.armWatchdogS !== undefined ? { watchdogS: o.armWatchdogS } : {}),
      ...(o.freeMotion ? { freeMotion: o.freeMotion } : {}),
    };
    const c = o.arm.kind === 'emulator'
      ? await connectEmulatedSo101({ ...connectOptions, ...(o.arm.replyDelayS !== undefined ? { emulatorReplyDelayS: o.arm.replyDelayS } : {}) })
      : await connectSo101(o.arm.path, connectOptions);
    if (!c.ok) {
      const f = c.error;
      throw new Error(`cannot connect the SO-101 (${o.arm.kind === 'emulator' ? 'emulator' : o.arm.path}): ${f.kind}: ${faultDetail(f)}`);
    }
    let s: RunSession;
    try {
      o = await withMeasuredTiming(o, c.value);
      s = new RunSession(o, c.value);
    } catch (e) {
      await c.value.close();
      throw e;
    }
    try {
      await s.startRest();
    } catch (e) {
      await s.stop(`setup failed: ${(e as Error).message}`);
      throw e;
    }
    return s;
  }

  private async startRest(): Promise<void> {
    const o = this.o;
    const { gate } = this.runtime;
    const brokerName = (o.broker.kind === 'embedded' ? `the embedded MQTT broker on ${o.broker.host ?? '127.0.0.1'}:${o.broker.port}` : `MQTT (${o.broker.url})`) +
      (o.dashboard ? ` or the dashboard on 127.0.0.1:${o.dashboard.port}` : '');
    this.telemetry = await startStep(brokerName, () => startTelemetry({
      broker: o.broker, robotId: o.robotId, clock: o.clock, gate,
      labels: { label: (cmd) => this.labelFromMqtt(cmd) },
      onRefused: (text) => this.record((r, t) => r.gateEvent(t, 'command-refused', text)),
      onNetworkRestart: (detail) => (this.o.log(detail), this.record((r, t) => r.gateEvent(t, 'network-worker', detail))),
      ...(o.deadManS !== undefined ? { heartbeatTimeout: o.deadManS } : {}),
      ...(o.onLinkLoss !== undefined ? { onLinkLoss: o.onLinkLoss } : {}),
      ...(o.brokerConnectTimeoutS !== undefined ? { connectTimeoutSeconds: o.brokerConnectTimeoutS } : {}),
      ...(o.dashboard ? { dashboard: o.dashboard } : {}),
      onFault: (f, t) => this.onFault({ kind: 'disconnect', source: f.source, detail: `${f.kind}: ${faultDetail(f)}` }, t),
      // With --gate off (baseline) screened chunks are forwarded unfiltered (GateOffBaseline).
      chunks: {
        submitter: { submitChunk: (chunk: GateChunk, now: number) => this.submitChunk(chunk, now) },
        joints: this.conn.arm.joints,
        onRejectedPayload: (r: ExecutedChunk, now: number) => this.episodes.recorder?.gateEvent(now, 'chunk-rejected', `${r.id}: ${r.reason}`),
      },
    }));
    if (!this.telemetry.connected) {
      o.log(this.telemetry.remote.onLinkLoss === 'hold'
        ? `MQTT: cannot reach ${this.telemetry.url}: the remote e-stop cannot arrive — holding until it can (--on-link-loss warn to run without it)`
        : `MQTT: cannot reach ${this.telemetry.url}: the remote e-stop cannot arrive and telemetry is dropped (--on-link-loss warn: not holding)`);
    }
    if (this.telemetry.dashboardUrl) {
      this.dashboard = { url: this.telemetry.dashboardUrl };
      o.log(`dashboard: ${this.dashboard.url}`);
    }
    const t = o.clock.now();
    const id = await startStep(`the first episode file in ${o.episodesDir}`, () => this.episodes.start(t));
    // A command channel down since start-up was reported before the episode existed: record it now.
    const down = this.telemetry.remote.commandChannelDown;
    if (down !== null && !this.telemetry.connected) this.episodes.recorder?.fault(t, { kind: 'disconnect', source: 'mqtt', detail: `mqtt-link-lost: ${down}` });
    this.startSemantic(t);
    this.telemetry.link.publishEpisode({ t, phase: 'start', episode: id, task: o.task });
    o.log(`episode ${id} → ${this.episodes.path}`);
    // A first read before the loop, so the first step sees a sample.
    await this.conn.arm.readState();
    try {
      this.step(o.clock.now());
    } catch (e) {
      this.onLoopError(e);
    }
    this.loop.start();
    if (o.durationS !== undefined) this.durationTimer = o.timers.setTimeout(() => this.resolveDone(`--duration ${o.durationS} s elapsed`), o.durationS);
  }

  get gate() {
    return this.runtime.gate;
  }
  get pipeline() {
    return this.runtime.pipeline;
  }
  get brokerUrl(): string | undefined {
    return this.telemetry?.url;
  }

  /** A new episode is a new task: a fresh semantic gate (held until its first verdict unless fail-open) and stage events. */
  private startSemantic(t: number): void {
    this.semantic?.startTask(t);
  }

  private step(now: number): void {
    const { pipeline, bank } = this.runtime;
    if (this.storageFault) this.runtime.gate.fault(now, this.storageFault);
    this.telemetry?.remote.checkStep(now);
    pipeline.step(now);
    // Stage events; a verdict (or fault) that landed mid-chunk stops the arm at once.
    this.semantic?.step(now);
    const r = this.episodes.recorder;
    if (r) {
      for (let i = 0; i < this.rho.length; i++) this.rho[i] = bank.margin(i);
      r.frame(pipeline.frame);
      r.robustness(now, this.rho);
    }
    const link = this.telemetry?.link;
    if (link) {
      // Decimated once, by the link (TelemetryOptions.marginsRateHz).
      const margins: Record<string, number | null> = {};
      const band: Record<string, number> = {};
      for (let i = 0; i < bank.count; i++) {
        const m = bank.margin(i);
        margins[bank.name(i)] = Number.isFinite(m) ? m : null;
        band[bank.name(i)] = bank.epsilon(i);
      }
      link.publishMargins(now, margins, band);
    }
  }

  private submitChunk(chunk: GateChunk, now: number): ExecutedChunk {
    this.episodes.recorder?.proposedChunk(now, chunk);
    const sem = this.semantic?.beforeChunk(now);
    if (sem && !sem.pass) {
      this.episodes.recorder?.executedChunk(now, chunk, chunk.id, 'held', 0);
      return { id: chunk.id, verdict: 'held', code: 'semantic', reason: describeSemanticCause(sem.cause) };
    }
    const r = this.runtime.pipeline.submitChunk(chunk, now);
    if (r.verdict === 'executed' || r.verdict === 'filtered') this.semantic?.chunkForwarded();
    const rec = this.episodes.recorder;
    if (rec && r.targets && (r.verdict === 'executed' || r.verdict === 'filtered')) {
      rec.executedChunk(now, { ...chunk, targets: r.targets }, chunk.id, r.verdict, r.modification ?? 0);
    }
    if (rec && r.code === 'no-chunk-path') rec.gateEvent(now, 'chunk-rejected', `${r.id}: ${r.reason}`);
    this.recordClockOffset(now);
    return r;
  }

  /** The policy clock's offset estimate, into the episode when it first appears or moves by > 1 ms. */
  private recordClockOffset(now: number): void {
    const { clockOffset, clockResets } = this.runtime.screen;
    const rec = this.episodes.recorder;
    if (!rec || !Number.isFinite(clockOffset)) return;
    if (clockResets !== this.recordedResets) {
      this.recordedResets = clockResets;
      rec.gateEvent(now, 'policy-clock-reset', `the policy's chunk stamps jumped back (restart): offset estimate started again`);
    }
    if (Math.abs(clockOffset - this.recordedOffset) > 0.001 || !Number.isFinite(this.recordedOffset)) {
      this.recordedOffset = clockOffset;
      rec.gateEvent(now, 'policy-clock-offset', `${clockOffset.toFixed(6)} s (gate clock − policy stamp, smallest over recent chunks)`);
    }
  }

  private record(fn: (r: NonNullable<EpisodeManager['recorder']>, t: number) => void): void {
    const r = this.episodes.recorder;
    if (r) fn(r, this.o.clock.now());
  }

  private onGateEvent(e: GateEvent): void {
    const cause = describeCause(e.cause);
    this.episodes.recorder?.gateTransition(e.t, e.from, e.to, cause);
    if (e.to === 'hold' || e.from === 'hold') this.o.log(`gate ${e.from} → ${e.to}: ${cause}`);
  }

  private onChunkResult(r: ExecutedChunk, t: number): void {
    if (r.verdict === 'held' || r.verdict === 'rejected') this.episodes.recorder?.gateEvent(t, `chunk-${r.verdict}`, `${r.id}: ${r.code}: ${r.reason}`);
  }

  /** A control step or arm read that threw: the gate holds (a step that fails every tick must not go on logging only). */
  private onLoopError(e: unknown): void {
    const t = this.o.clock.now();
    const detail = `control loop: ${e instanceof Error ? e.message : String(e)}`;
    this.runtime.gate.fault(t, { kind: 'internal', source: 'control loop', detail });
    const last = this.lastFault.get(detail);
    if (last !== undefined && t - last < FAULT_REPEAT_S) return;
    this.lastFault.set(detail, t);
    this.o.log(`${detail} — holding`);
  }

  private onFault(f: Fault, t: number): void {
    const key = `${f.kind}|${f.source}|${faultDetail(f)}`;
    const last = this.lastFault.get(key);
    if (last !== undefined && t - last < FAULT_REPEAT_S) return;
    this.lastFault.set(key, t);
    this.episodes.recorder?.fault(t, f);
    this.telemetry?.link.publishEvent(t, 'fault', `${f.kind} (${f.source}): ${faultDetail(f)}`);
    this.o.log(`fault: ${f.kind} (${f.source}): ${faultDetail(f)}`);
  }

  /** Storage failed (write, sync, episode start or end): hold, latched until a write succeeds again. */
  private onStorageFault(f: Fault): void {
    const t = this.o.clock.now();
    const detail = faultDetail(f);
    if (!this.storageFault) this.o.log(`storage fault: ${detail} — holding until a write succeeds again and an operator releases`);
    this.storageFault = f;
    this.runtime.gate.fault(t, f);
    this.telemetry?.link.publishEvent(t, 'fault', `${f.kind}: ${detail}`);
  }

  /** A write succeeded: the storage fault's cause is gone; the hold stays until an operator releases. */
  private onStorageWritten(): void {
    if (!this.storageFault) return;
    this.storageFault = null;
    const t = this.o.clock.now();
    const lost = this.episodes.recorder?.stats().lostToStorage ?? 0;
    const text = `storage writes again (${lost} record(s) of this episode lost while it failed); the arm stays held until an operator releases`;
    this.o.log(text);
    this.episodes.recorder?.gateEvent(t, 'storage-recovered', text);
    this.telemetry?.link.publishEvent(t, 'storage-recovered', text);
  }

  private labelFromMqtt(cmd: LabelCommand): { ok: true } | { ok: false; reason: string } {
    if (cmd.episode !== undefined && cmd.episode !== this.episodes.episodeId) return { ok: false, reason: `episode '${cmd.episode}' is not the running episode` };
    // A label that cannot be written is refused, never confirmed.
    if (this.episodes.storageFailed) return { ok: false, reason: `label not recorded: episode storage is failing (${this.storageFault ? faultDetail(this.storageFault) : 'write failed'})` };
    const r = this.episodes.label({
      source: 'mqtt',
      ...(cmd.success !== undefined ? { success: cmd.success } : {}),
      ...(cmd.task !== undefined ? { taskId: cmd.task } : {}),
      ...(cmd.note !== undefined ? { note: cmd.note } : {}),
      ...(cmd.manualViolations ? { manual: Object.fromEntries(cmd.manualViolations.map((c) => [c, 'violated' as const])) } : {}),
    });
    if (!r.ok) return r;
    if (cmd.success !== undefined) this.semantic?.label(cmd.success, r.record.t);
    // Confirmed on MQTT only once the label is on storage.
    const recorder = this.episodes.recorder;
    void (recorder ? recorder.durable() : Promise.resolve(false)).then((written) => {
      const t = this.o.clock.now();
      if (written) this.telemetry?.link.publishLabel(r.record);
      else this.telemetry?.link.publishEvent(t, 'label-not-recorded', `label at ${r.record.t} could not be written to the episode file`);
    });
    return { ok: true };
  }

  /** An operator action (keys, or tests). Never throws: a failure (e.g. no new episode file) holds. */
  async act(a: OperatorAction): Promise<void> {
    try {
      await this.actUnguarded(a);
    } catch (e) {
      const t = this.o.clock.now();
      const fault: Fault = { kind: 'storage', source: 'operator action', detail: `${a} failed: ${e instanceof Error ? e.message : String(e)}` };
      this.o.log(`${fault.detail} — holding`);
      this.runtime.gate.fault(t, fault);
      if (a === 'new-episode' || a === 'success' || a === 'failure') this.onStorageFault(fault);
    }
  }

  private async actUnguarded(a: OperatorAction): Promise<void> {
    const t = this.o.clock.now();
    switch (a) {
      case 'estop':
        this.runtime.pipeline.eStop(t, 'operator key');
        return;
      case 'estop-reset': {
        // The keyboard resets the e-stops pressed on the keyboard only; remote ones are reset by name (MQTT, dashboard).
        const r = this.runtime.gate.resetEStop(t, { by: 'operator key', pressedBy: 'operator key', authorised: true });
        this.o.log(r.ok ? 'e-stop (operator key) reset; release (r) to arm' : `e-stop reset refused: ${r.reason}`);
        return;
      }
      case 'release': {
        const r = this.runtime.pipeline.release(t, { by: 'operator key', authorised: true });
        this.o.log(r.ok ? 'released' : `release refused: ${r.reason}`);
        return;
      }
      case 'success':
      case 'failure': {
        if (this.episodes.storageFailed) {
          this.o.log(`label not recorded: episode storage is failing; the episode stays open (press ${a === 'success' ? 's' : 'f'} again once it writes)`);
          return;
        }
        const l = this.episodes.label({ source: 'operator', by: 'keyboard', success: a === 'success' });
        if (!l.ok) {
          this.o.log(l.reason);
          return;
        }
        const id = this.episodes.episodeId;
        this.semantic?.label(a === 'success', t);
        this.semantic?.endTask(t);
        const entry = await this.episodes.end(t, `labelled ${a}`);
        // Confirmed only when the closed file holds it.
        if (entry?.state === 'complete') this.telemetry?.link.publishLabel(l.record);
        else this.o.log(`episode ${id}: the ${a} label may not be on storage (the file did not close complete)`);
        this.telemetry?.link.publishEpisode({ t, phase: 'end', episode: id ?? '', task: this.o.task });
        this.o.log(`episode ${id} labelled ${a} and closed; press n for a new episode`);
        return;
      }
      case 'new-episode': {
        this.semantic?.endTask(t);
        const id = await this.episodes.start(t);
        this.startSemantic(t);
        this.runtime.bank.reset();
        this.recordedOffset = NaN; // each episode records the policy clock offset again
        this.telemetry?.link.publishEpisode({ t, phase: 'start', episode: id, task: this.o.task });
        this.o.log(`episode ${id} → ${this.episodes.path}`);
        return;
      }
      case 'quit':
        this.requestStop('operator quit');
        return;
    }
  }

  /** Ask the session to end (resolves `done`; the owner then calls `stop`). */
  requestStop(reason: string): void {
    this.resolveDone(reason);
  }

  /** Hold the arm, stop the loop, close the episode, MQTT and the arm. Idempotent. */
  stop(reason: string): Promise<void> {
    this.stopping ??= this.doStop(reason);
    return this.stopping;
  }

  private async doStop(reason: string): Promise<void> {
    this.durationTimer?.cancel();
    this.loop.stop();
    const t = this.o.clock.now();
    // Gate on or off (a baseline run forwards the policy's chunks): the arm is held before anything closes.
    this.episodes.recorder?.gateEvent(t, 'shutdown-hold', reason);
    const h = await this.conn.arm.holdNow(`shutdown: ${reason}`);
    if (h.ok) this.shutdownHold = { kind: 'held' };
    else {
      const detail = `${h.error.kind}: ${faultDetail(h.error)}`;
      this.shutdownHold = { kind: 'failed', detail };
      this.o.log(`shutdown hold failed: ${detail}`);
      this.episodes.recorder?.gateEvent(this.o.clock.now(), 'shutdown-hold-failed', detail);
    }
    const id = this.episodes.episodeId;
    this.semantic?.endTask(this.o.clock.now());
    await this.episodes.close(this.o.clock.now(), reason);
    if (id) this.telemetry?.link.publishEpisode({ t, phase: 'end', episode: id, task: this.o.task });
    await this.o.semantic?.judge?.camera?.close().catch(() => undefined);
    await this.telemetry?.stop().catch(() => undefined);
    await this.conn.close().catch(() => undefined);
    this.resolveDone(reason);
  }
}

/**
 * Measure the read cycle (TIMING_SAMPLE_READS back-to-back state reads) and fill in the timing the
 * operator did not set: the max-age floor and the source watchdog. Says what it measured and chose.
 */
async function withMeasuredTiming(o: RunSessionOptions, conn: So101Connection): Promise<RunSessionOptions> {
  const durations: number[] = [];
  let windowStart = NaN;
  for (let i = 0; i < TIMING_WARMUP_READS + TIMING_SAMPLE_READS || o.clock.now() - windowStart < TIMING_MIN_WINDOW_S; i++) {
    const t0 = o.clock.now();
    if (i === TIMING_WARMUP_READS) windowStart = t0;
    const r = await conn.arm.readState();
    if (!r.ok) throw new Error(`cannot measure the read cycle: ${r.error.kind}: ${faultDetail(r.error)}`);
    if (i >= TIMING_WARMUP_READS) durations.push(o.clock.now() - t0);
    // Paced like the control loop (one read per period at most), so the window sees the host's load.
    const rest = 1 / o.rate - (o.clock.now() - t0);
    if (rest > 0) await new Promise<void>((r) => o.timers.setTimeout(r, rest));
  }
  const cycle = summariseReads(durations);
  const derived = maxAgeFloor(cycle, o.rate);
  const floor = o.minMaxAge ?? derived;
  // The runtime never lets the watchdog undercut the max-age floor.
  const watchdog = Math.max(o.watchdogS ?? defaultWatchdog(floor), floor);
  const ms = (s: number): string => `${(s * 1000).toFixed(1)} ms`;
  const raised = SIGNALS.filter((sig) => sig.maxAge < floor).map((sig) => sig.name);
  o.log(
    `timing: ${durations.length} state reads over ${(o.clock.now() - windowStart).toFixed(1)} s took median ${ms(cycle.median)}, max ${ms(cycle.max)} at ${o.rate} Hz → ` +
      (o.minMaxAge !== undefined ? `max-age floor ${floor} s (--max-age; derived would be ${derived.toFixed(3)} s)` : `max-age floor ${floor.toFixed(3)} s (2 × (period + slowest read); --max-age to set)`) +
      `, raising ${raised.length} signal max age(s) below it; watchdog ${watchdog.toFixed(3)} s${o.watchdogS !== undefined ? ' (--watchdog)' : ' (--watchdog to set)'}`,
  );
  if (o.minMaxAge === undefined && floor > SLOW_FLOOR_S) {
    o.log(`timing: WARNING the read cycle is slow (max-age floor ${floor.toFixed(3)} s > ${SLOW_FLOOR_S} s): a stale signal is caught that late; check the adapter (latency timer) and the host load, or set --max-age`);
  }
  return { ...o, minMaxAge: floor, watchdogS: watchdog };
}

/** Run one start-up step; a failure is rethrown naming what was being started and why, in words. */
async function startStep<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw new Error(`cannot start ${what}: ${explainStartError(e)}`, { cause: e });
  }
}

function explainStartError(e: unknown): string {
  const err = e as (NodeJS.ErrnoException & { port?: number; address?: string }) | undefined;
  // From the network worker only the message crosses the thread boundary: 'listen EADDRINUSE: … 127.0.0.1:1883'.
  const inUse = err?.code === 'EADDRINUSE' ? String(err.port ?? '?') : /EADDRINUSE\b.*:(\d+)\s*$/.exec(err?.message ?? '')?.[1];
  if (inUse !== undefined) return `port ${inUse} is already in use by another program (stop it, or choose another port)`;
  if (err?.code === 'EACCES' && err.syscall === 'listen') return `no permission to listen on port ${err.port ?? '?'} (choose a port above 1023)`;
  return e instanceof Error ? e.message : String(e);
}
