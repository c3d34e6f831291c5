/**
 * The control thread's side of the network worker (src/telemetry/network-host.ts): starts the
 * worker, forwards telemetry to it (postMessage, never awaited) and hands the commands it posts
 * to a RemoteCommandHandler. It is the TelemetryLink the gate side publishes on. A worker that
 * dies is a lost command channel ('offline' event: the gate remote holds, and the hold lasts while
 * the channel is down); it is started again with back-off (0.5 s doubling to 8 s) on the same broker
 * and dashboard ports, and its link's new subscription brings the channel back ('subscribed': the
 * gate remote stops re-reporting the fault; an operator release is still needed).
 */
import { Worker } from 'node:worker_threads';
import type { EStopLatchPayload, EpisodePayload, GateStateName } from './payloads.js';
import type { LinkEvent, RemoteCommandHandler, TelemetryLink } from './mqtt-link.js';
import type { FromWorker, GateClockSync, NetworkHostConfig, ToWorker, WorkerCommand } from './network-protocol.js';
import type { Clock } from '../util/clock.js';
import type { ChunkServerTransport, DecodedChunkRequest } from '../runtime/chunk-transport.js';
import type { Verdict } from '../util/result.js';
import { Listeners } from '../util/listeners.js';

export interface NetworkWorkerHandler extends RemoteCommandHandler {
  /** A chunk request decoded in the worker (or why it could not be). */
  decodedChunk?(request: Extract<WorkerCommand, { kind: 'chunk' }>['request']): void;
}

/**
 * The chunk channel through the worker: requests arrive already decoded (`deliver`, given to the
 * worker's `decodedChunk`), results go back out through `respond`. A ChunkServer binds to it.
 * The worker hands over one request per credit (src/telemetry/chunk-pacer.ts); `stepped`, called
 * once per control step, gives the credit back when a request was taken since the last step — so
 * at most one chunk is screened and filtered per control step, however many arrive.
 */
export class DecodedChunkTransport implements ChunkServerTransport {
  private readonly handlers = new Listeners<[request: DecodedChunkRequest]>();
  private owed = false;
  constructor(
    private readonly send: (payload: string) => void,
    private readonly grant: (now: number) => void = () => undefined,
  ) {}

  readonly deliver = (request: DecodedChunkRequest): void => {
    this.owed = true;
    this.handlers.emit(request);
  };
  /** A control step at `now` (gate time): the worker may hand over the next request. */
  stepped(now: number): void {
    if (!this.owed) return;
    this.owed = false;
    this.grant(now);
  }
  /** Payload texts never arrive here: the worker decodes them (onDecodedRequest). */
  onRequest(): void {}
  onDecodedRequest(handler: (request: DecodedChunkRequest) => void): void {
    this.handlers.add(handler);
  }
  respond(payload: string): void {
    this.send(payload);
  }
}

export interface StartedNetwork {
  url: string;
  connected: boolean;
  lastError: string;
  dashboardUrl?: string;
  /** The worker's priority and chunk rate limit, as applied (for the start-up line). */
  settings: string;
}

/** The worker's entry: the compiled .js next to this module, or the .ts source through the loader boot. */
function workerEntry(): { file: URL; workerData: Record<string, unknown> } {
  if (import.meta.url.endsWith('.ts')) {
    return {
      file: new URL('./network-worker-boot.mjs', import.meta.url),
      workerData: { entry: new URL('./network-host.ts', import.meta.url).href },
    };
  }
  return { file: new URL('./network-host.js', import.meta.url), workerData: {} };
}

const RESPAWN_FIRST_S = 0.5;
const RESPAWN_MAX_S = 8;

/** The same ports as the first start (port 0 resolved), so clients and pages reconnect to the restarted worker. */
function pinnedConfig(config: NetworkHostConfig, started: StartedNetwork): NetworkHostConfig {
  const port = (url: string | undefined) => (url ? Number(new URL(url).port) : 0);
  return {
    ...config,
    ...(config.broker.kind === 'embedded' ? { broker: { ...config.broker, port: port(started.url) } } : {}),
    ...(config.dashboard && started.dashboardUrl
      ? { dashboard: { ...config.dashboard, port: port(started.dashboardUrl) } }
      : {}),
  };
}

export class NetworkWorker implements TelemetryLink {
  private worker: Worker | undefined;
  private readonly listeners = new Listeners<[e: LinkEvent]>();
  private readonly refusedListeners = new Listeners<[text: string]>();
  private isConnected = false;
  private stopped: Promise<void> | undefined;
  private exited = false;
  private respawnTimer: ReturnType<typeof setTimeout> | undefined;
  private respawnDelay = RESPAWN_FIRST_S;
  private readonly restartListeners: ((detail: string) => void)[] = [];
  /** Times the worker died and was started again. */
  restarts = 0;

  constructor(
    private readonly config: NetworkHostConfig,
    private readonly handler: NetworkWorkerHandler,
    /** The gate's clock: the worker stamps the chunk answers it gives itself (superseded) in its time. */
    private readonly clock: Clock,
  ) {}

  private clockSync(now = this.clock.now()): GateClockSync {
    return { gate: now, epochMs: performance.timeOrigin + performance.now() };
  }

  get connected(): boolean {
    return this.isConnected;
  }
  onEvent(listener: (e: LinkEvent) => void): void {
    this.listeners.add(listener);
  }
  /** Refused publishes and connections the broker reports (who, what, why). */
  onRefused(listener: (text: string) => void): void {
    this.refusedListeners.add(listener);
  }
  private emit(e: LinkEvent): void {
    if (e.kind === 'connected' || e.kind === 'subscribed') this.isConnected = true;
    if (e.kind === 'offline') this.isConnected = false;
    this.listeners.emit(e);
  }

  /** The worker died and was started again (what died, what was started). */
  onRestart(listener: (detail: string) => void): void {
    this.restartListeners.push(listener);
  }

  /** Start the worker; resolves once the broker, link and dashboard are up (or rejects with why not). */
  async start(): Promise<StartedNetwork> {
    const started = await this.spawn(this.config);
    this.respawnConfig = pinnedConfig(this.config, started);
    return started;
  }

  private respawnConfig: NetworkHostConfig | undefined;

  /** After the worker died: start it again after the back-off, until it starts or stop() is called. */
  private scheduleRespawn(why: string): void {
    if (this.stopped !== undefined || this.respawnTimer !== undefined || !this.respawnConfig) return;
    const delay = this.respawnDelay;
    this.respawnDelay = Math.min(RESPAWN_MAX_S, this.respawnDelay * 2);
    this.respawnTimer = setTimeout(() => {
      this.respawnTimer = undefined;
      if (this.stopped !== undefined || !this.respawnConfig) return;
      this.spawn(this.respawnConfig).then(
        (s) => {
          this.restarts++;
          this.respawnDelay = RESPAWN_FIRST_S;
          for (const l of this.restartListeners)
            l(
              `network worker started again after ${why} (broker ${s.url}${s.connected ? '' : ', link not connected yet'})`,
            );
        },
        (e: unknown) => {
          for (const l of this.restartListeners)
            l(
              `network worker did not start again: ${e instanceof Error ? e.message : String(e)}; next attempt in ${this.respawnDelay} s`,
            );
          this.scheduleRespawn(why);
        },
      );
    }, delay * 1000);
  }

  private spawn(config: NetworkHostConfig): Promise<StartedNetwork> {
    const entry = workerEntry();
    const worker = new Worker(entry.file, { workerData: { ...entry.workerData, config, clock: this.clockSync() } });
    this.worker = worker;
    this.exited = false;
    return new Promise((resolve, reject) => {
      let started = false;
      worker.on('message', (m: FromWorker) => {
        if (this.worker !== worker) return;
        switch (m.type) {
          case 'started':
            started = true;
            this.isConnected = m.connected;
            resolve({
              url: m.url,
              connected: m.connected,
              lastError: m.lastError,
              ...(m.dashboardUrl ? { dashboardUrl: m.dashboardUrl } : {}),
              settings: m.settings,
            });
            return;
          case 'start-failed':
            reject(new Error(m.error));
            return;
          case 'command':
            this.onCommand(m.command);
            return;
          case 'link-event':
            this.emit(m.event);
            return;
          case 'refused':
            this.refusedListeners.emit(m.text);
            return;
          case 'counters':
          case 'stopped':
            return;
        }
      });
      worker.on('error', (e) => {
        if (!started) reject(e);
        else this.emit({ kind: 'offline', detail: `network worker failed: ${e.message}` });
      });
      worker.on('exit', (code) => {
        if (this.worker !== worker) return;
        this.exited = true;
        if (!started) reject(new Error(`network worker exited with code ${code} before it started`));
        else if (this.stopped === undefined) {
          this.emit({ kind: 'offline', detail: `network worker exited (code ${code})` });
          this.scheduleRespawn(`it exited with code ${code}`);
        }
      });
    });
  }

  /** Commands run on this thread: a handler that throws is reported, never thrown into the worker's message loop. */
  private onCommand(c: WorkerCommand): void {
    const refused = (topic: string, r: Verdict) => {
      if (!r.ok) this.emit({ kind: 'command-refused', topic, reason: r.reason });
    };
    try {
      switch (c.kind) {
        case 'estop':
          return this.handler.estop(c.value);
        case 'estop-reset':
          return refused(
            c.topic,
            this.handler.estopReset?.(c.value) ?? { ok: false, reason: 'e-stop reset is not handled here' },
          );
        case 'release':
          return refused(c.topic, this.handler.release(c.value));
        case 'label':
          return refused(c.topic, this.handler.label(c.value));
        case 'heartbeat':
          return this.handler.heartbeat?.(c.seq);
        case 'chunk':
          return this.handler.decodedChunk?.(c.request);
      }
    } catch (e) {
      this.emit({ kind: 'command-failed', topic: c.kind, error: e instanceof Error ? e.message : String(e) });
    }
  }

  private post(m: ToWorker): void {
    if (!this.exited) this.worker?.postMessage(m);
  }

  publishMargins(t: number, margins: Record<string, number | null>, band: Record<string, number>): void {
    this.post({ type: 'margins', t, margins, band });
  }
  publishGate(t: number, state: GateStateName, cause: string, estop?: readonly EStopLatchPayload[]): void {
    this.post({ type: 'gate', t, state, cause, ...(estop ? { estop: estop.map((l) => ({ ...l })) } : {}) });
  }
  publishEvent(t: number, kind: string, detail: string): void {
    this.post({ type: 'event', t, kind, detail });
  }
  publishEpisode(payload: Omit<EpisodePayload, 'v' | 'robot'>): void {
    this.post({ type: 'episode', payload });
  }
  publishLabel(label: object): void {
    this.post({ type: 'label', label });
  }
  publishChunkResult(text: string): void {
    this.post({ type: 'chunk-result', text });
  }
  /** The control thread stepped at gate time `now`: the worker may hand over the next chunk request. */
  grantChunk(now: number): void {
    this.post({ type: 'chunk-credit', clock: this.clockSync(now) });
  }

  /** Stop the dashboard, link and broker in the worker, then the worker. Idempotent. */
  stop(): Promise<void> {
    this.stopped ??= (async () => {
      clearTimeout(this.respawnTimer);
      const w = this.worker;
      if (!w || this.exited) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 3000);
        w.on('message', (m: FromWorker) => {
          if (m.type === 'stopped') {
            clearTimeout(timer);
            resolve();
          }
        });
        this.post({ type: 'stop' });
      });
      await w.terminate();
    })();
    return this.stopped;
  }
}
