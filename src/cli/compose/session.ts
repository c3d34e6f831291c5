/**
 * `armguard run so101`'s composition: connects the arm (real tty or emulator behind a pty), measures
 * its read cycle, builds the SO-101 rig (src/rigs/so101.ts) and hands it to the session every
 * platform runs (src/runtime/session.ts), with the episode files, MQTT telemetry (whose chunk
 * channel the session serves), the optional dashboard and the fixed-rate control loop. `stop`
 * holds the arm first, then closes the episode and everything else; operator keys act here.
 */
import type { So101Calibration } from '../../calibration/so101.js';
import type { FreeMotionModel } from '../../calibration/free-motion.js';
import type { ScoringSpec } from '../../safety/index.js';
import type { LabelCommand } from '../../telemetry/payloads.js';
import type { Clock, TimerHandle, Timers } from '../../util/clock.js';
import { ControlLoop } from './control-loop.js';
import { EpisodeManager, type EpisodeManagerOptions } from '../../episode/episode-manager.js';
import type { OperatorAction } from './operator-keys.js';
import { connectEmulatedSo101, connectSo101, type So101Connection } from './so101-arm.js';
import { so101Rig, type So101FilterRecipe, type So101Rig } from '../../rigs/so101.js';
import { WorkerChunkFilterService } from '../../rigs/filter-worker/worker-service.js';
import { OffThreadChunkPath } from '../../runtime/off-thread-chunk-path.js';
import { Session, type TaskSemantic } from '../../runtime/session.js';
import type { SemanticRecord } from '../../episode/types.js';
import { startTelemetry, type BrokerChoice, type Telemetry } from '../../telemetry/run-telemetry.js';
import type { LinkLossPolicy } from '../../telemetry/gate-remote.js';
import {
  DEFAULT_MAX_AGE_CEILING_S,
  SLOW_FLOOR_S,
  TIMING_MIN_WINDOW_S,
  TIMING_SAMPLE_READS,
  TIMING_WARMUP_READS,
  defaultWatchdog,
  maxAgeFloor,
  summariseReads,
} from './read-timing.js';
import { SIGNALS, type SignalFrame } from '../../schema/signals.js';
import { AdaptiveMaxAge, type MaxAgeChange } from '../../runtime/adaptive-max-age.js';
import { faultDetail } from '../../schema/fault.js';
import { LiveSemantic } from '../../runtime/live-semantic.js';
import { describeSemanticCause } from '../../semantic/semantic-gate.js';
import type { LiveSemanticConfig } from './semantic-options.js';
import { so101StageReader } from './so101-stages.js';
import type { TrackedObstacleSpec } from '../../gate/index.js';
import { SceneTracker } from '../../../drivers/tracking/scene-tracker.js';
import { UdpPoseFeed } from '../../../drivers/tracking/udp-pose-feed.js';
import type { ChunkRateLimit } from '../../telemetry/chunk-admission.js';

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
  /**
   * Live tracked obstacles (drivers/tracking/udp-pose-feed.ts): poses arrive as UDP datagrams on
   * host:port; each body in `bodies` is a CBF sphere, and a body not seen for `maxAge` s holds the
   * next chunk (the Franka node's obstacle_bodies / tracking_frame_in_base / obstacle_max_age).
   */
  tracking?: {
    port: number;
    host?: string;
    bodies: readonly TrackedObstacleSpec[];
    /** Bodies that must stay put: their largest displacement from the first pose is non_target_disp_max. */
    bystanders?: readonly string[];
    trackingInBase: readonly [number, number, number, number, number, number];
    maxAge: number;
  };
  /** The chunk warning band after the CBF (default on). */
  warningBand?: boolean;
  /** The barrier's planning margin δ (m); default SO101_PLANNING_MARGIN. */
  planningMargin?: number;
  /** The self-collision pair's clearance (m), null for none; default SO101_SELF_CLEARANCE. */
  selfClearance?: number | null;
  /** The held object's tilt bound (default on where held_object_tilt_world is monitored). */
  heldTilt?: boolean;
  /** Its run-on (s); default the measured SO101_RUN_ON. */
  warningBandRunOn?: number;
  /** Opens episode files (default: `<episodesDir>/<id>.mcap`); tests inject failing storage. */
  openEpisode?: EpisodeManagerOptions['open'];
  /**
   * Floor for every signal's max age (s); see So101RuntimeOptions.minMaxAge. Default: derived
   * from the read cycle measured at start-up (read-timing.ts), said in the log.
   */
  minMaxAge?: number;
  /**
   * Hard upper bound (s) of the derived max-age floor while it follows the read cycle (default
   * DEFAULT_MAX_AGE_CEILING_S): a signal that stops is caught as stale within it. Unused with --max-age.
   */
  maxAgeCeilingS?: number;
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
  /** Chunk requests above this rate are answered `rate-limit` in the network worker (--max-chunk-rate). */
  chunkRate?: ChunkRateLimit;
  /** The semantic gate and stage events (issue 18): a fresh task at every episode start, enforced on chunks and steps. */
  semantic?: LiveSemanticConfig;
  /**
   * Where chunks are filtered (gate on): 'worker' (default) — the CBF and warning band in a worker
   * thread, each answer re-checked on the control thread before it reaches the arm (issue 14
   * item 3); 'inline' — on the control thread (each chunk delays its control step by the filter time).
   */
  chunkFilter?: 'worker' | 'inline';
  /** The filter worker's answer timeout (s); default FILTER_WORKER_TIMEOUT_S. */
  filterTimeoutS?: number;
  clock: Clock;
  timers: Timers;
  log: (line: string) => void;
}

/** The max-age floor following the read cycle, and the --watchdog the operator gave (kept; never below the floor). */
interface AdaptiveTiming {
  readonly floor: AdaptiveMaxAge;
  readonly fixedWatchdogS: number | undefined;
}

/** With tracked bystanders the gate starts held; it fails start-up (latched hold) when they are not seen within this (s). */
export const TRACKING_STARTUP_TIMEOUT_S = 10;

export class RunSession {
  readonly conn: So101Connection;
  /** The rig's clauses, their applicability and the thresholds monitored. */
  readonly runtime: So101Rig;
  /** The session every platform runs: pipeline, chunk path, recording, semantic gate, telemetry hooks. */
  readonly session: Session;
  readonly episodes: EpisodeManager;
  telemetry: Telemetry | undefined;
  /** The dashboard (served from the network worker), when --dashboard was given. */
  dashboard: { url: string } | undefined;
  /** The tracked scene and its UDP feed, when --tracking is given (the feed is open once started). */
  readonly tracker: SceneTracker | undefined;
  trackingFeed: UdpPoseFeed | undefined;
  private readonly loop: ControlLoop;
  /** The chunk filter's worker thread (gate on, chunkFilter 'worker'). */
  readonly filterWorker: WorkerChunkFilterService | undefined;
  private durationTimer: TimerHandle | undefined;
  private startupTimer: TimerHandle | undefined;
  private stopping: Promise<void> | undefined;
  private resolveDone!: (reason: string) => void;
  /** What the shutdown did to the arm (set by `stop`): the truth for the last line `run` prints. */
  shutdownHold: { kind: 'held' } | { kind: 'not-commanded' } | { kind: 'failed'; detail: string } | undefined;
  /** Resolves with the reason when the session should end (quit key, --duration, SIGINT). */
  readonly done: Promise<string>;

  private constructor(
    private readonly o: RunSessionOptions,
    conn: So101Connection,
    private readonly adaptive?: AdaptiveTiming,
  ) {
    this.conn = conn;
    this.done = new Promise((r) => (this.resolveDone = r));
    const tr = o.tracking;
    this.tracker = tr
      ? new SceneTracker({
          bystanders: [...(tr.bystanders ?? [])],
          obstacles: tr.bodies.map((b) => b.body),
          source: 'udp',
        })
      : undefined;
    let filterWorker: WorkerChunkFilterService | undefined;
    const filterService =
      o.gating && o.chunkFilter !== 'inline'
        ? (recipe: So101FilterRecipe) =>
            (filterWorker = new WorkerChunkFilterService({
              recipe,
              timers: o.timers,
              ...(o.filterTimeoutS !== undefined ? { timeoutS: o.filterTimeoutS } : {}),
              onRestart: (detail) => {
                o.log(detail);
                this.session.recordEvent(o.clock.now(), 'chunk-filter-worker', detail);
              },
            }))
        : undefined;
    this.runtime = so101Rig({
      ...(filterService ? { filterService } : {}),
      spec: o.spec,
      calibration: o.calibration,
      ...(o.calibrationFile ? { calibrationFile: o.calibrationFile } : {}),
      task: o.task,
      arm: conn.arm,
      clock: o.clock,
      rate: o.rate,
      ...(o.workspace ? { workspace: o.workspace } : {}),
      ...(o.obstacles ? { obstacles: o.obstacles } : {}),
      ...(tr && this.tracker
        ? {
            tracked: {
              bodies: tr.bodies,
              source: this.tracker,
              trackingInBase: tr.trackingInBase,
              maxAge: tr.maxAge,
            },
          }
        : {}),
      ...(tr?.bystanders?.length && this.tracker
        ? {
            trackedSignals: {
              signals: ['non_target_disp_max'],
              write: (frame: SignalFrame) => this.tracker!.writeSignals(frame),
            },
          }
        : {}),
      ...(o.warningBand !== undefined ? { warningBand: o.warningBand } : {}),
      ...(o.planningMargin !== undefined ? { planningMargin: o.planningMargin } : {}),
      ...(o.selfClearance !== undefined ? { selfClearance: o.selfClearance } : {}),
      ...(o.heldTilt !== undefined ? { heldTilt: o.heldTilt } : {}),
      ...(o.warningBandRunOn !== undefined ? { warningBandRunOn: o.warningBandRunOn } : {}),
      ...(o.minMaxAge !== undefined ? { minMaxAge: o.minMaxAge } : {}),
      ...(o.watchdogS !== undefined ? { watchdogTimeout: o.watchdogS } : {}),
    });
    this.filterWorker = filterWorker;
    const rt = this.runtime;
    const sem = o.semantic;
    let episodes: EpisodeManager | undefined;
    this.session = new Session({
      rig: rt.rig,
      gating: o.gating,
      task: o.task,
      log: o.log,
      episodes: (hooks) =>
        (episodes = new EpisodeManager({
          dir: o.episodesDir,
          robotId: o.robotId,
          task: o.task,
          clauses: rt.clauses,
          timers: o.timers,
          versions: { ...o.specVersions, platform: 'so101', calibration: o.calibration.armId },
          thresholds: Object.fromEntries(
            rt.thresholds.map((t) => [t.clause, { tau: t.tau, unit: t.unit, from: t.from }]),
          ),
          gateMode: o.gating ? 'on' : 'off',
          clauseCoverage: () => rt.rig.monitors.episodeCoverage(),
          ...(o.openEpisode ? { open: o.openEpisode } : {}),
          log: o.log,
          onFault: hooks.onFault,
          onWritten: hooks.onWritten,
        })),
      // Built before MQTT starts: a chunk that arrives before the first task start is held (no verdict yet).
      ...(sem ? { semantic: ({ record }) => this.liveSemantic(sem, record) } : {}),
    });
    this.episodes = episodes!;
    this.loop = new ControlLoop({
      clock: o.clock,
      timers: o.timers,
      rate: o.rate,
      step: (now) => this.session.step(now),
      read: adaptive ? () => this.timedRead() : () => conn.arm.readState(),
      onError: (e) => this.session.holdOnError('control loop', e),
    });
  }

  /**
   * A state read whose duration feeds the adaptive max-age floor: when the reads slow down (host
   * load arriving after the start-up measurement) the floor and watchdog rise with them, up to the
   * ceiling; said in the log and recorded in the episode.
   */
  private async timedRead(): Promise<unknown> {
    const t0 = this.o.clock.now();
    const r = await this.conn.arm.readState();
    // A failed read (bus timeout) is no measure of the cycle: a stopped bus must not raise the floor.
    if (r.ok) {
      const change = this.adaptive!.floor.observe(this.o.clock.now() - t0);
      if (change) this.applyMaxAge(change);
    }
    return r;
  }

  private applyMaxAge(c: MaxAgeChange): void {
    const o = this.o;
    const a = this.adaptive!;
    const watchdog = Math.max(a.fixedWatchdogS ?? defaultWatchdog(c.floorS), c.floorS);
    this.session.gate.setMaxAgeFloor(c.floorS);
    this.session.pipeline.setWatchdogTimeout(watchdog);
    // As the rig derives it from the floor at start-up (src/rigs/so101.ts).
    this.session.pipeline.setMaxStateAge(Math.max(0.1, c.floorS));
    const text =
      `max-age floor ${c.floorS.toFixed(3)} s, watchdog ${watchdog.toFixed(3)} s (slowest of the last 200 reads ${(c.readS * 1000).toFixed(1)} ms; ` +
      `start-up floor ${a.floor.startFloorS.toFixed(3)} s, ceiling ${a.floor.ceilingS} s${c.capped ? ': capped, the reads would want more' : ''})`;
    o.log(`timing: ${text}`);
    this.session.recordEvent(o.clock.now(), 'timing', text);
  }

  /** The semantic gate and stage events of `run so101` (stage events from the joint state), a fresh task at every episode. */
  private liveSemantic(sem: LiveSemanticConfig, record: (r: SemanticRecord) => void): TaskSemantic {
    const o = this.o;
    const arm = this.conn.arm;
    const live = new LiveSemantic({
      task: sem.task,
      ...(sem.judge ? { judge: sem.judge } : {}),
      ...(sem.positions.targetPoint ? { stages: { read: so101StageReader(arm, 0.25), ...sem.positions } } : {}),
      gating: o.gating,
      now: () => o.clock.now(),
      record,
      log: o.log,
      arm: { hold: (now, reason) => arm.hold(now, reason), openGripper: (now) => arm.openGripper(now) },
      onJudgeFault: (f, ft) => {
        this.session.recordFault(ft, { kind: 'judge', source: f.source, cause: f.cause, detail: f.detail });
        this.telemetry?.link.publishEvent(ft, 'fault', `judge (${f.cause}) from ${f.source}: ${f.detail}`);
      },
    });
    return {
      startTask: (t) => live.startTask(t),
      endTask: (t) => live.endTask(t),
      step: (now) => live.step(now),
      beforeChunk: (now) => {
        const d = live.beforeChunk(now);
        return d && !d.pass ? describeSemanticCause(d.cause) : undefined;
      },
      chunkForwarded: () => live.chunkForwarded(),
      label: (success, t) => live.label(success, t),
    };
  }

  /** Connect the arm (without moving it), build the runtime, start MQTT, the first episode and the loop. */
  static async start(options: RunSessionOptions): Promise<RunSession> {
    let o = options;
    const connectOptions = {
      calibration: o.calibration,
      clock: o.clock,
      timers: o.timers,
      log: o.log,
      ...(o.busTimeoutS !== undefined ? { timeoutS: o.busTimeoutS } : {}),
      ...(o.armWatchdogS !== undefined ? { watchdogS: o.armWatchdogS } : {}),
      ...(o.freeMotion ? { freeMotion: o.freeMotion } : {}),
    };
    const c =
      o.arm.kind === 'emulator'
        ? await connectEmulatedSo101({
            ...connectOptions,
            ...(o.arm.replyDelayS !== undefined ? { emulatorReplyDelayS: o.arm.replyDelayS } : {}),
          })
        : await connectSo101(o.arm.path, connectOptions);
    if (!c.ok) {
      const f = c.error;
      throw new Error(
        `cannot connect the SO-101 (${o.arm.kind === 'emulator' ? 'emulator' : o.arm.path}): ${f.kind}: ${faultDetail(f)}`,
      );
    }
    let s: RunSession;
    try {
      const timed = await withMeasuredTiming(o, c.value);
      o = timed.options;
      s = new RunSession(o, c.value, timed.adaptive);
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
    const session = this.session;
    const tr = o.tracking;
    if (tr && this.tracker) {
      const tracker = this.tracker;
      const host = tr.host ?? '127.0.0.1';
      this.trackingFeed = await startStep(`the tracking feed on UDP ${host}:${tr.port}`, () =>
        UdpPoseFeed.open({ port: tr.port, host, tracker, now: () => o.clock.now() }),
      );
      if (tr.bystanders?.length) {
        // The gate starts held until the bystanders' displacement has been seen (rig start-up phase).
        this.startupTimer = o.timers.setTimeout(
          () => this.session.gate.startupTimedOut(o.clock.now()),
          TRACKING_STARTUP_TIMEOUT_S,
        );
      }
      o.log(
        `tracking: UDP ${host}:${this.trackingFeed.port}, obstacles ${tr.bodies.map((b) => `${b.body} (r ${b.radius} m)`).join(', ') || '(none)'}; a body unseen for ${tr.maxAge} s holds the next chunk` +
          (tr.bystanders?.length ? `; bystanders ${tr.bystanders.join(', ')} (non_target_disp_max)` : ''),
      );
    }
    const filterWorker = this.filterWorker;
    if (filterWorker) {
      await startStep('the chunk filter worker', () => filterWorker.start());
      const path = this.session.chunks;
      if (path instanceof OffThreadChunkPath) path.warmUp();
      o.log(
        `chunk filter: in a worker thread (CBF and warning band); each answer is re-checked on the control thread against the present joint state and obstacles before it reaches the arm`,
      );
    }
    const brokerName =
      (o.broker.kind === 'embedded'
        ? `the embedded MQTT broker on ${o.broker.host ?? '127.0.0.1'}:${o.broker.port}`
        : `MQTT (${o.broker.url})`) + (o.dashboard ? ` or the dashboard on 127.0.0.1:${o.dashboard.port}` : '');
    this.telemetry = await startStep(brokerName, () =>
      startTelemetry({
        broker: o.broker,
        robotId: o.robotId,
        clock: o.clock,
        gate: session.gate,
        labels: { label: (cmd) => this.labelFromMqtt(cmd) },
        onRefused: (text) => session.recordEvent(o.clock.now(), 'command-refused', text),
        onNetworkRestart: (detail) => (o.log(detail), session.recordEvent(o.clock.now(), 'network-worker', detail)),
        ...(o.deadManS !== undefined ? { heartbeatTimeout: o.deadManS } : {}),
        ...(o.onLinkLoss !== undefined ? { onLinkLoss: o.onLinkLoss } : {}),
        ...(o.brokerConnectTimeoutS !== undefined ? { connectTimeoutSeconds: o.brokerConnectTimeoutS } : {}),
        ...(o.chunkRate ? { chunkRate: o.chunkRate } : {}),
        ...(o.dashboard ? { dashboard: o.dashboard } : {}),
        onFault: (f, t) =>
          session.onFault({ kind: 'disconnect', source: f.source, detail: `${f.kind}: ${faultDetail(f)}` }, t),
      }),
    );
    const telemetry = this.telemetry;
    o.log(`network: ${telemetry.settings}${filterWorker ? `; ${filterWorker.priority}` : ''}`);
    session.attachTelemetry(telemetry.hooks);
    // Policies' chunks (MQTT, decoded in the network worker) go straight to the session; with
    // --gate off (baseline) screened chunks are forwarded unfiltered (GateOffBaseline).
    session.serveChunks(telemetry.chunks);
    if (!telemetry.connected) {
      o.log(
        telemetry.remote.onLinkLoss === 'hold'
          ? `MQTT: cannot reach ${telemetry.url}: the remote e-stop cannot arrive — holding until it can (--on-link-loss warn to run without it)`
          : `MQTT: cannot reach ${telemetry.url}: the remote e-stop cannot arrive and telemetry is dropped (--on-link-loss warn: not holding)`,
      );
    }
    if (telemetry.dashboardUrl) {
      this.dashboard = { url: telemetry.dashboardUrl };
      o.log(`dashboard: ${this.dashboard.url}`);
    }
    const t = o.clock.now();
    await startStep(`the first episode file in ${o.episodesDir}`, () => session.start(t));
    // A command channel down since start-up was reported before the episode existed: record it now.
    const down = telemetry.remote.commandChannelDown;
    if (down !== null && !telemetry.connected)
      session.recordFault(t, { kind: 'disconnect', source: 'mqtt', detail: `mqtt-link-lost: ${down}` });
    // A first read before the loop, so the first step sees a sample.
    await this.conn.arm.readState();
    try {
      session.step(o.clock.now());
    } catch (e) {
      session.holdOnError('control loop', e);
    }
    this.loop.start();
    if (o.durationS !== undefined)
      this.durationTimer = o.timers.setTimeout(
        () => this.resolveDone(`--duration ${o.durationS} s elapsed`),
        o.durationS,
      );
  }

  get gate() {
    return this.session.gate;
  }
  get pipeline() {
    return this.session.pipeline;
  }
  get brokerUrl(): string | undefined {
    return this.telemetry?.url;
  }

  private labelFromMqtt(cmd: LabelCommand): { ok: true } | { ok: false; reason: string } {
    return this.session.label(
      {
        source: 'mqtt',
        ...(cmd.success !== undefined ? { success: cmd.success } : {}),
        ...(cmd.task !== undefined ? { taskId: cmd.task } : {}),
        ...(cmd.note !== undefined ? { note: cmd.note } : {}),
        ...(cmd.manualViolations
          ? { manual: Object.fromEntries(cmd.manualViolations.map((c) => [c, 'violated' as const])) }
          : {}),
      },
      cmd.episode,
    );
  }

  /** An operator action (keys, or tests). Never throws: a failure (e.g. no new episode file) holds. */
  async act(a: OperatorAction): Promise<void> {
    try {
      await this.actUnguarded(a);
    } catch (e) {
      const t = this.o.clock.now();
      const detail = `${a} failed: ${e instanceof Error ? e.message : String(e)}`;
      this.o.log(`${detail} — holding`);
      this.session.gate.fault(t, { kind: 'storage', source: 'operator action', detail });
      if (a === 'new-episode' || a === 'success' || a === 'failure')
        this.session.onStorageFault({ kind: 'storage', source: 'operator action', detail });
    }
  }

  private async actUnguarded(a: OperatorAction): Promise<void> {
    const t = this.o.clock.now();
    const session = this.session;
    switch (a) {
      case 'estop':
        session.pipeline.eStop(t, 'operator key');
        return;
      case 'estop-reset': {
        // The keyboard resets the e-stops pressed on the keyboard only; remote ones are reset by name (MQTT, dashboard).
        const r = session.gate.resetEStop(t, { by: 'operator key', pressedBy: 'operator key', authorised: true });
        this.o.log(r.ok ? 'e-stop (operator key) reset; release (r) to arm' : `e-stop reset refused: ${r.reason}`);
        return;
      }
      case 'release': {
        const r = session.release(t, { by: 'operator key', authorised: true });
        this.o.log(r.ok ? 'released' : `release refused: ${r.reason}`);
        return;
      }
      case 'success':
      case 'failure': {
        if (session.storageFailing) {
          this.o.log(
            `label not recorded: episode storage is failing; the episode stays open (press ${a === 'success' ? 's' : 'f'} again once it writes)`,
          );
          return;
        }
        const l = session.finishEpisode({ source: 'operator', by: 'keyboard', success: a === 'success' }, t, false);
        if (!l.ok) {
          this.o.log(l.reason);
          return;
        }
        const { id, complete } = await l.ended;
        if (!complete)
          this.o.log(`episode ${id}: the ${a} label may not be on storage (the file did not close complete)`);
        this.o.log(`episode ${id} labelled ${a} and closed; press n for a new episode`);
        return;
      }
      case 'new-episode':
        await session.newEpisode(t);
        return;
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
    this.startupTimer?.cancel();
    this.loop.stop();
    const t = this.o.clock.now();
    // Gate on or off (a baseline run forwards the policy's chunks): the arm is held before anything closes.
    this.session.recordEvent(t, 'shutdown-hold', reason);
    const h = await this.conn.arm.holdNow(`shutdown: ${reason}`);
    if (h.ok) this.shutdownHold = { kind: 'held' };
    else {
      const detail = `${h.error.kind}: ${faultDetail(h.error)}`;
      this.shutdownHold = { kind: 'failed', detail };
      this.o.log(`shutdown hold failed: ${detail}`);
      this.session.recordEvent(this.o.clock.now(), 'shutdown-hold-failed', detail);
    }
    await this.filterWorker?.close().catch(() => undefined);
    await this.session.close(this.o.clock.now(), reason);
    await this.o.semantic?.judge?.camera?.close().catch(() => undefined);
    await this.telemetry?.stop().catch(() => undefined);
    await this.trackingFeed?.close().catch(() => undefined);
    await this.conn.close().catch(() => undefined);
    this.resolveDone(reason);
  }
}

/**
 * Measure the read cycle (TIMING_SAMPLE_READS back-to-back state reads) and fill in the timing the
 * operator did not set: the max-age floor and the source watchdog. Says what it measured and chose.
 */
async function withMeasuredTiming(
  o: RunSessionOptions,
  conn: So101Connection,
): Promise<{ options: RunSessionOptions; adaptive: AdaptiveTiming | undefined }> {
  const durations: number[] = [];
  let windowStart = NaN;
  for (
    let i = 0;
    i < TIMING_WARMUP_READS + TIMING_SAMPLE_READS || o.clock.now() - windowStart < TIMING_MIN_WINDOW_S;
    i++
  ) {
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
  const ceiling = o.maxAgeCeilingS ?? DEFAULT_MAX_AGE_CEILING_S;
  // An explicit --max-age stays fixed; a derived floor follows the reads up to the ceiling.
  const adaptive =
    o.minMaxAge === undefined
      ? {
          floor: new AdaptiveMaxAge({ rateHz: o.rate, startFloorS: floor, ceilingS: ceiling }),
          fixedWatchdogS: o.watchdogS,
        }
      : undefined;
  o.log(
    `timing: ${durations.length} state reads over ${(o.clock.now() - windowStart).toFixed(1)} s took median ${ms(cycle.median)}, max ${ms(cycle.max)} at ${o.rate} Hz → ` +
      (o.minMaxAge !== undefined
        ? `max-age floor ${floor} s (--max-age; derived would be ${derived.toFixed(3)} s)`
        : `max-age floor ${floor.toFixed(3)} s (2 × (period + slowest read); --max-age to set)`) +
      `, raising ${raised.length} signal max age(s) below it; watchdog ${watchdog.toFixed(3)} s${o.watchdogS !== undefined ? ' (--watchdog)' : ' (--watchdog to set)'}` +
      (!adaptive
        ? '; fixed'
        : ceiling > floor
          ? `; the floor follows slower reads up to the ceiling ${ceiling} s (--max-age-ceiling)`
          : `; fixed: the ceiling ${ceiling} s (--max-age-ceiling) is not above it`),
  );
  if (o.minMaxAge === undefined && floor > SLOW_FLOOR_S) {
    o.log(
      `timing: WARNING the read cycle is slow (max-age floor ${floor.toFixed(3)} s > ${SLOW_FLOOR_S} s): a stale signal is caught that late; check the adapter (latency timer) and the host load, or set --max-age`,
    );
  }
  return {
    options: { ...o, minMaxAge: floor, watchdogS: watchdog },
    adaptive,
  };
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
  const inUse =
    err?.code === 'EADDRINUSE' ? String(err.port ?? '?') : /EADDRINUSE\b.*:(\d+)\s*$/.exec(err?.message ?? '')?.[1];
  if (inUse !== undefined)
    return `port ${inUse} is already in use by another program (stop it, or choose another port)`;
  if (err?.code === 'EACCES' && err.syscall === 'listen')
    return `no permission to listen on port ${err.port ?? '?'} (choose a port above 1023)`;
  return e instanceof Error ? e.message : String(e);
}
