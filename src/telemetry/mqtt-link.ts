/**
 * armguard's side of MQTT: publishes telemetry and receives commands for one robot.
 *
 * The gate path never awaits the network: every publish is fire-and-forget, and while the broker
 * is unreachable telemetry is dropped and counted (episode files are written elsewhere and are
 * unaffected). The retained gate state is re-published on every (re)connect. Inbound payloads are
 * validated; invalid ones are counted and reported with the reason, never acted on.
 *
 * The session is persistent (clean: false, a fixed client id per robot, MQTT 5 session expiry):
 * the broker keeps armguard's subscriptions and queues QoS 1 e-stops, e-stop resets and labels
 * while armguard's connection is down, and delivers them on reconnect — an e-stop a client sent
 * (and got PUBACK for) during a reconnect is not lost. Release and heartbeat are subscribed at
 * QoS 0 so the broker does not queue them: a release or heartbeat from before an outage must not
 * act after it. Chunk requests are QoS 1 (their stamp and validity window reject stale ones).
 */
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import { MAX_CHUNK_BYTES } from '../gate/chunk-parse.js';
import { INBOUND_KINDS, topicFor, type InboundKind } from './topics.js';
import { MarginHistory } from './margin-history.js';
import {
  parseEstop,
  parseEstopReset,
  parseHeartbeat,
  parseLabel,
  parseRelease,
  type EpisodePayload,
  type EStopLatchPayload,
  type EstopCommand,
  type EstopResetCommand,
  type GatePayload,
  type GateStateName,
  type LabelCommand,
  type ReleaseCommand,
} from './payloads.js';
import type { Verdict } from '../util/result.js';
import { Listeners } from '../util/listeners.js';
import type { TimerHandle, Timers } from '../util/clock.js';
import { systemTimers } from '../platform/system-clock.js';

export interface MqttLinkOptions {
  url: string;
  robot: string;
  username?: string;
  password?: string;
  /** PEM CA for TLS (mqtts://); server certificates are verified. */
  ca?: string | Buffer;
  /** MQTT protocol: 4 = 3.1.1 (aedes), 5 = MQTT 5 (Mosquitto). */
  protocolVersion?: 4 | 5;
  /**
   * First reconnect delay (s) after the connection is lost or an attempt fails; each further
   * failed attempt doubles it up to `maxReconnectSeconds`, and a connection resets it. Default 1.
   */
  reconnectSeconds?: number;
  /** Longest reconnect delay (s). Default 8 × reconnectSeconds, at most 5 s. */
  maxReconnectSeconds?: number;
  /** Each delay is spread by ±this fraction (so robots behind one broker do not retry in step). Default 0.2. */
  reconnectJitter?: number;
  /** Timers for reconnects and the start timeout (default: the system's). */
  timers?: Timers;
  /** Uniform [0, 1) source for the jitter (default Math.random). */
  random?: () => number;
  /** MQTT client id of the persistent session (default `armguard-<robot>`: one armguard per robot and broker). */
  clientId?: string;
  /** How long the broker keeps the session while armguard is disconnected (MQTT 5; s). Default 3600. */
  sessionExpirySeconds?: number;
  /** Chunk requests larger than this (bytes) are refused before they are decoded. Default MAX_CHUNK_BYTES. */
  maxChunkBytes?: number;
  /** The retained `margins/history` (the last 20 s of margins) is re-published every this many seconds of gate time. Default 1. */
  historyPeriodSeconds?: number;
}

/** The QoS armguard subscribes each command at: QoS 1 commands are queued by the broker while armguard is offline. */
export const COMMAND_QOS: Readonly<Record<InboundKind, 0 | 1>> = {
  'cmd/estop': 1,
  'cmd/estop-reset': 1,
  'cmd/label': 1,
  'chunk/request': 1,
  'cmd/release': 0,
  'cmd/heartbeat': 0,
};

/** What armguard does with commands; each returns whether it was applied and why not. */
export interface RemoteCommandHandler {
  estop(cmd: EstopCommand): void;
  /** Clear one latched e-stop naming who pressed it. */
  estopReset?(cmd: EstopResetCommand): Verdict;
  release(cmd: ReleaseCommand): Verdict;
  label(cmd: LabelCommand): Verdict;
  heartbeat?(seq: number): void;
  /** Raw chunk request bytes; the gate's chunk validator parses them. */
  chunk?(payload: Uint8Array): void;
}

export interface LinkCounters {
  published: number;
  dropped: number;
  received: number;
  invalid: number;
  reconnects: number;
}

export type LinkEvent =
  | { kind: 'connected' }
  | { kind: 'offline'; detail: string }
  | { kind: 'invalid-command'; topic: string; error: string }
  | { kind: 'command-refused'; topic: string; reason: string }
  | { kind: 'command-failed'; topic: string; error: string }
  /** The broker refused (SUBACK failure code) or failed some command subscriptions: those commands cannot arrive. */
  | { kind: 'subscribe-refused'; topics: string[]; detail: string }
  /** Every command subscription was granted. */
  | { kind: 'subscribed'; topics: string[] };

/** What the gate side publishes and listens to: MqttLink itself, or its proxy in another thread. */
export interface TelemetryLink {
  readonly connected: boolean;
  onEvent(listener: (e: LinkEvent) => void): void;
  publishMargins(t: number, margins: Record<string, number | null>, band: Record<string, number>): void;
  publishGate(t: number, state: GateStateName, cause: string, estop?: readonly EStopLatchPayload[]): void;
  publishEvent(t: number, kind: string, detail: string): void;
  publishEpisode(payload: Omit<EpisodePayload, 'v' | 'robot'>): void;
  publishLabel(label: object): void;
  publishChunkResult(text: string): void;
}

export class MqttLink implements TelemetryLink {
  private client: MqttClient | undefined;
  private lastGate: GatePayload | undefined;
  private lastEpisode: EpisodePayload | undefined;
  private lastHistoryT = -Infinity;
  /** Recent margins, published retained so a dashboard that connects later has the history from the broker. */
  private readonly history = new MarginHistory();
  private lastError = '';
  private readonly listeners = new Listeners<[e: LinkEvent]>();
  private readonly timers: Timers;
  private readonly random: () => number;
  private reconnectTimer: TimerHandle | undefined;
  /** Failed attempts since the last connection (the back-off exponent). */
  private failedAttempts = 0;
  private stopping = false;
  readonly counters: LinkCounters = { published: 0, dropped: 0, received: 0, invalid: 0, reconnects: 0 };

  constructor(
    readonly options: MqttLinkOptions,
    private readonly handler: RemoteCommandHandler,
  ) {
    this.timers = options.timers ?? systemTimers;
    this.random = options.random ?? Math.random;
  }

  /**
   * The delay before reconnect attempt `attempt` (0 = the first after a loss): exponential from
   * `reconnectSeconds`, capped, spread by the jitter.
   */
  reconnectDelay(attempt: number): number {
    const o = this.options;
    const first = o.reconnectSeconds ?? 1;
    const max = o.maxReconnectSeconds ?? Math.min(5, 8 * first);
    const jitter = o.reconnectJitter ?? 0.2;
    const base = Math.min(max, first * 2 ** attempt);
    return base * (1 + jitter * (2 * this.random() - 1));
  }

  /** After a lost connection or a failed attempt: one reconnect, after the back-off delay. */
  private scheduleReconnect(client: MqttClient): void {
    if (this.stopping || this.reconnectTimer || this.client !== client) return;
    const delay = this.reconnectDelay(this.failedAttempts++);
    this.reconnectTimer = this.timers.setTimeout(() => {
      this.reconnectTimer = undefined;
      if (this.stopping || this.client !== client || client.connected) return;
      // Keep the stores: QoS 1 messages not yet acknowledged are sent again on the new connection.
      client.reconnect({ incomingStore: client.incomingStore, outgoingStore: client.outgoingStore });
    }, delay);
  }

  onEvent(listener: (e: LinkEvent) => void): void {
    this.listeners.add(listener);
  }
  private emit(e: LinkEvent): void {
    this.listeners.emit(e);
  }

  get connected(): boolean {
    return this.client?.connected ?? false;
  }

  /**
   * Start connecting (does not wait). Resolves true once the first connection is up and the
   * command subscriptions were answered (granted or refused), false when `timeoutSeconds` passes.
   */
  start(timeoutSeconds = 5): Promise<boolean> {
    const o = this.options;
    const protocolVersion = o.protocolVersion ?? 4;
    const opts: IClientOptions = {
      protocolVersion,
      // armguard reconnects itself (scheduleReconnect): back-off with jitter on injected timers.
      reconnectPeriod: 0,
      connectTimeout: 5000,
      queueQoSZero: false,
      clean: false,
      clientId: o.clientId ?? `armguard-${o.robot}`,
      ...(protocolVersion === 5 ? { properties: { sessionExpiryInterval: o.sessionExpirySeconds ?? 3600 } } : {}),
      ...(o.username !== undefined ? { username: o.username } : {}),
      ...(o.password !== undefined ? { password: o.password } : {}),
      ...(o.ca !== undefined ? { ca: o.ca, rejectUnauthorized: true } : {}),
      will: {
        topic: topicFor(o.robot, 'events'),
        payload: Buffer.from(
          JSON.stringify({ v: 1, robot: o.robot, t: -1, kind: 'link-lost', detail: 'armguard disconnected' }),
        ),
        qos: 1,
        retain: false,
      },
    };
    const client = mqtt.connect(o.url, opts);
    this.client = client;
    let first = true;
    client.on('connect', () => {
      this.failedAttempts = 0;
      if (!first) this.counters.reconnects++;
      first = false;
      const topics = INBOUND_KINDS.map((k) => topicFor(o.robot, k));
      const subscriptions = Object.fromEntries(
        INBOUND_KINDS.map((k) => [topicFor(o.robot, k), { qos: COMMAND_QOS[k] }]),
      );
      client.subscribe(subscriptions, (err, granted) => {
        if (err) {
          this.emit({ kind: 'subscribe-refused', topics, detail: err.message });
          return;
        }
        // SUBACK: granted QoS 0x80 (MQTT 3.1.1) or a reason code ≥ 0x80 (MQTT 5) is a refusal
        const refused = (granted ?? []).filter((g) => g.qos >= 0x80).map((g) => g.topic);
        if (refused.length > 0)
          this.emit({
            kind: 'subscribe-refused',
            topics: refused,
            detail: `broker refused the subscription (SUBACK code ${(granted ?? []).find((g) => g.qos >= 0x80)?.qos})`,
          });
        else this.emit({ kind: 'subscribed', topics });
      });
      if (this.lastGate) this.send('gate', this.lastGate, true, 1);
      if (this.lastEpisode) this.send('episode', this.lastEpisode, true, 1);
      if (this.history.length > 0) this.send('margins/history', this.history.payload(o.robot), true, 1);
      this.emit({ kind: 'connected' });
    });
    // Every 'close' (a lost connection, a failed attempt, the broker closing it) is a loss; the
    // first of an outage says so, the failed attempts after it that the connection stays closed.
    client.on('close', () => {
      const detail =
        !this.stopping && this.failedAttempts === 0
          ? 'connection to the broker lost'
          : 'connection to the broker closed';
      this.emit({ kind: 'offline', detail: this.lastError || detail });
      this.scheduleReconnect(client);
    });
    client.on('error', (e) => (this.lastError = e.message));
    client.on('message', (topic, payload) => {
      // A handler that throws must not take the process (and the gate loop) down with it.
      try {
        this.onMessage(topic, payload);
      } catch (e) {
        this.counters.invalid++;
        this.emit({ kind: 'command-failed', topic, error: e instanceof Error ? e.message : String(e) });
      }
    });
    return new Promise((resolve) => {
      const timer = this.timers.setTimeout(() => resolve(false), timeoutSeconds);
      this.onEvent((e) => {
        if (e.kind !== 'subscribed' && e.kind !== 'subscribe-refused') return;
        timer.cancel();
        resolve(true);
      });
    });
  }

  async stop(): Promise<void> {
    const c = this.client;
    this.stopping = true;
    this.reconnectTimer?.cancel();
    this.reconnectTimer = undefined;
    this.client = undefined;
    if (c) await c.endAsync(true);
  }

  private send(
    kind: 'margins' | 'margins/history' | 'gate' | 'events' | 'episode' | 'labels' | 'chunk/result',
    payload: object,
    retain = false,
    qos: 0 | 1 = 0,
  ): void {
    const c = this.client;
    if (!c || !c.connected) {
      this.counters.dropped++;
      return;
    }
    c.publish(topicFor(this.options.robot, kind), JSON.stringify(payload), { qos, retain });
    this.counters.published++;
  }

  /**
   * Per-clause normalised margins. Each call is published: the caller decimates (the session, to
   * SessionTelemetry.marginsPeriodS, before it builds the records — one throttle, not two).
   */
  publishMargins(t: number, margins: Record<string, number | null>, band: Record<string, number>): void {
    this.send('margins', { v: 1, robot: this.options.robot, t, margins, band });
    this.history.push(t, margins, band);
    if (t - this.lastHistoryT >= (this.options.historyPeriodSeconds ?? 1)) {
      this.lastHistoryT = t;
      this.send('margins/history', this.history.payload(this.options.robot), true, 1);
    }
  }
  /** Why the last connection attempt failed ('' when none did). */
  get lastConnectError(): string {
    return this.lastError;
  }

  publishGate(t: number, state: GateStateName, cause: string, estop?: readonly EStopLatchPayload[]): void {
    this.lastGate = {
      v: 1,
      robot: this.options.robot,
      t,
      state,
      cause,
      ...(estop !== undefined ? { estop: { latched: estop.length > 0, pressed: estop.map((l) => ({ ...l })) } } : {}),
    };
    this.send('gate', this.lastGate, true, 1);
  }
  publishEvent(t: number, kind: string, detail: string): void {
    this.send('events', { v: 1, robot: this.options.robot, t, kind, detail }, false, 1);
  }
  publishEpisode(payload: Omit<EpisodePayload, 'v' | 'robot'>): void {
    this.lastEpisode = { v: 1, robot: this.options.robot, ...payload };
    this.send('episode', this.lastEpisode, true, 1);
  }
  publishLabel(label: object): void {
    this.send('labels', { v: 1, robot: this.options.robot, ...label }, false, 1);
  }
  /** A chunk result already serialised by the chunk server (ChunkResultMessage JSON). */
  publishChunkResult(text: string): void {
    const c = this.client;
    if (!c || !c.connected) {
      this.counters.dropped++;
      return;
    }
    c.publish(topicFor(this.options.robot, 'chunk/result'), text, { qos: 1 });
    this.counters.published++;
  }

  private onMessage(topic: string, payload: Buffer): void {
    this.counters.received++;
    const base = topicFor(this.options.robot, '' as InboundKind);
    const kind = topic.startsWith(base) ? topic.slice(base.length) : '';
    const invalid = (error: string) => {
      this.counters.invalid++;
      this.emit({ kind: 'invalid-command', topic, error });
    };
    switch (kind) {
      case 'cmd/estop': {
        // An e-stop that fails validation still stops the arm: a malformed stop is still a stop.
        const p = parseEstop(payload);
        if (!p.ok) invalid(p.error);
        this.handler.estop(p.ok ? p.value : { v: 1, reason: `malformed e-stop (${p.error})` });
        return;
      }
      case 'cmd/estop-reset': {
        const p = parseEstopReset(payload);
        if (!p.ok) return invalid(p.error);
        const r = this.handler.estopReset?.(p.value) ?? { ok: false, reason: 'e-stop reset is not handled here' };
        if (!r.ok) this.emit({ kind: 'command-refused', topic, reason: r.reason });
        return;
      }
      case 'cmd/release': {
        const p = parseRelease(payload);
        if (!p.ok) return invalid(p.error);
        const r = this.handler.release(p.value);
        if (!r.ok) this.emit({ kind: 'command-refused', topic, reason: r.reason });
        return;
      }
      case 'cmd/label': {
        const p = parseLabel(payload);
        if (!p.ok) return invalid(p.error);
        const r = this.handler.label(p.value);
        if (!r.ok) this.emit({ kind: 'command-refused', topic, reason: r.reason });
        return;
      }
      case 'cmd/heartbeat': {
        const p = parseHeartbeat(payload);
        if (!p.ok) return invalid(p.error);
        this.handler.heartbeat?.(p.value.seq);
        return;
      }
      case 'chunk/request': {
        // Refused before decoding: a large payload must cost nothing but this length check.
        const max = this.options.maxChunkBytes ?? MAX_CHUNK_BYTES;
        if (payload.length > max)
          return invalid(`chunk request of ${payload.length} bytes refused before decoding (limit ${max} bytes)`);
        this.handler.chunk?.(payload);
        return;
      }
      default:
        invalid(`unexpected topic ${topic}`);
    }
  }
}
