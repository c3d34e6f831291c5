/**
 * The live pilot dashboard: an HTTP page and a WebSocket bridge to the MQTT topic tree of every
 * robot on the broker (one card per robot). Reading telemetry uses the dashboard's own viewer
 * credentials; release and labels are published with the credentials a person logs in with, so
 * the broker's access rules decide, exactly as for any other client. E-stop works without login
 * (through the viewer connection): e-stop may be wider, never narrower.
 *
 * An e-stop is reported done only when the robot's gate state lists it as latched (by its press
 * id), not when the broker acknowledged the publish. The HTTP Host header and the WebSocket
 * Origin must be on the allow-list (default: the origin the page is served from), and failed
 * logins are rate-limited per client address.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import mqtt, { type MqttClient } from 'mqtt';
import { WebSocketServer, type WebSocket } from 'ws';
import { TOPIC_ROOT, topicFor } from '../topics.js';
import { parsePageMessage, type ServerToPage } from './protocol.js';
import { DASHBOARD_HTML } from './page.js';
import { LoginThrottle } from '../login-throttle.js';
import type { GatePayload } from '../payloads.js';
import { historySampleAsMargins, parseMarginHistory } from '../margin-history.js';

export interface DashboardOptions {
  brokerUrl: string;
  viewer: { username: string; password: string };
  protocolVersion?: 4 | 5;
  /** HTTP port on 127.0.0.1 by default (0 = any free port). */
  port?: number;
  host?: string;
  /** How long a command waits for the broker's acknowledgement before the page is told it failed (ms). Default 2000. */
  commandAckTimeoutMs?: number;
  /** How long an e-stop waits for the gate state to confirm it after the broker accepted it (ms). Default 2000. */
  estopConfirmTimeoutMs?: number;
  /**
   * Page origins allowed to open the WebSocket (e.g. "https://pilot.lab:8443" behind a proxy).
   * Default: the origin the page is served from (and http://localhost:<port> when served on 127.0.0.1).
   */
  allowedOrigins?: readonly string[];
  /** Host headers accepted (host:port). Default: those of the allowed origins. */
  allowedHosts?: readonly string[];
  /** Failed logins allowed per client address per window before logins are refused. */
  loginThrottle?: LoginThrottle;
  /** Seconds, for the login throttle (default: performance.now). */
  now?: () => number;
}

/** The page plots the last 20 s of margins; the server keeps that much (at most RECENT_MAX messages per robot). */
const RECENT_SECONDS = 20;
const RECENT_MAX = 2000;

interface Session {
  ws: WebSocket;
  client: MqttClient | undefined;
  username: string | undefined;
  address: string;
}

type GateWaiter = { robot: string; pred: (g: GatePayload) => boolean; resolve: (g: GatePayload | undefined) => void };

export class DashboardServer {
  private http: Server | undefined;
  private wss: WebSocketServer | undefined;
  private viewer: MqttClient | undefined;
  private readonly sessions = new Set<Session>();
  /** Last message per topic, replayed to a page when it connects. */
  private readonly latest = new Map<string, unknown>();
  private readonly gateWaiters = new Set<GateWaiter>();
  private readonly throttle: LoginThrottle;
  private origins = new Set<string>();
  private hosts = new Set<string>();
  /** Recent margins per robot (the page's 20 s window), replayed on connect so a page opened late has history. */
  private readonly recentMargins = new Map<string, { t: number; payload: unknown }[]>();
  url = '';

  constructor(private readonly options: DashboardOptions) {
    this.throttle = options.loginThrottle ?? new LoginThrottle();
  }

  private now(): number {
    return this.options.now ? this.options.now() : performance.now() / 1000;
  }

  private get ackTimeout(): number {
    return this.options.commandAckTimeoutMs ?? 2000;
  }

  async start(): Promise<string> {
    this.viewer = await this.connectMqtt(
      this.options.viewer.username,
      this.options.viewer.password,
      'dashboard-viewer',
    );
    this.viewer.on('message', (topic, payload) => this.onTelemetry(topic, payload));
    // margins/history is retained: the broker delivers each robot's recent margins on subscribing.
    await this.viewer.subscribeAsync(
      [`${TOPIC_ROOT}/+/+`, `${TOPIC_ROOT}/+/chunk/result`, `${TOPIC_ROOT}/+/margins/history`],
      { qos: 0 },
    );

    const http = createServer((req, res) => this.serveHttp(req, res));
    const wss = new WebSocketServer({
      server: http,
      path: '/ws',
      maxPayload: 16 * 1024,
      // A page from another origin (DNS rebinding, a malicious site open in the same browser) must not drive the arm.
      verifyClient: (info: { origin: string; req: IncomingMessage }) =>
        this.hostAllowed(info.req) && this.origins.has(info.origin),
    });
    wss.on('connection', (ws, req) => this.onPage(ws, req));
    // ws re-emits the HTTP server's errors (e.g. EADDRINUSE); the listen promise below reports them.
    wss.on('error', () => undefined);
    try {
      await new Promise<void>((resolve, reject) => {
        http.once('error', reject);
        http.listen(this.options.port ?? 0, this.options.host ?? '127.0.0.1', () => resolve());
      });
    } catch (e) {
      // Nothing started here may outlive the failed start (the viewer connection would keep the process alive).
      await new Promise<void>((r) => wss.close(() => r()));
      await this.viewer.endAsync(true).catch(() => undefined);
      this.viewer = undefined;
      throw e;
    }
    const addr = http.address();
    const host = this.options.host ?? '127.0.0.1';
    const port = typeof addr === 'object' && addr ? addr.port : 0;
    this.url = `http://${host}:${port}/`;
    const served = [`http://${host}:${port}`, ...(host === '127.0.0.1' ? [`http://localhost:${port}`] : [])];
    this.origins = new Set(this.options.allowedOrigins ?? served);
    this.hosts = new Set(this.options.allowedHosts ?? [...this.origins].map((o) => new URL(o).host));
    this.http = http;
    this.wss = wss;
    return this.url;
  }

  async stop(): Promise<void> {
    for (const w of this.gateWaiters) w.resolve(undefined);
    for (const s of this.sessions) {
      s.ws.terminate();
      await s.client?.endAsync(true);
    }
    this.sessions.clear();
    await this.viewer?.endAsync(true);
    await new Promise<void>((r) => (this.wss ? this.wss.close(() => r()) : r()));
    this.http?.closeAllConnections();
    await new Promise<void>((r) => (this.http ? this.http.close(() => r()) : r()));
  }

  private hostAllowed(req: IncomingMessage): boolean {
    return req.headers.host !== undefined && this.hosts.has(req.headers.host);
  }

  private serveHttp(req: IncomingMessage, res: ServerResponse): void {
    if (!this.hostAllowed(req)) {
      res.writeHead(421, { 'content-type': 'text/plain' });
      res.end(
        `host ${JSON.stringify(req.headers.host ?? '')} is not served here (allowed: ${[...this.hosts].join(', ')})\n`,
      );
      return;
    }
    if (req.method === 'GET' && (req.url === '/' || req.url === '/index.html')) {
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
        'content-security-policy':
          "default-src 'self'; img-src data:; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'",
      });
      res.end(DASHBOARD_HTML);
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found\n');
  }

  private connectMqtt(username: string, password: string, id: string): Promise<MqttClient> {
    return new Promise((resolve, reject) => {
      const client = mqtt.connect(this.options.brokerUrl, {
        protocolVersion: this.options.protocolVersion ?? 4,
        username,
        password,
        clientId: `${id}-${Math.floor(Math.random() * 1e9)}`,
        reconnectPeriod: 1000,
        connectTimeout: 3000,
      });
      const fail = (e: Error) => {
        client.end(true);
        reject(e);
      };
      const timer = setTimeout(() => fail(new Error('broker did not answer')), 4000);
      client.once('connect', () => {
        clearTimeout(timer);
        client.removeListener('error', onError);
        client.on('error', () => undefined);
        resolve(client);
      });
      const onError = (e: Error) => {
        clearTimeout(timer);
        fail(e);
      };
      client.once('error', onError);
    });
  }

  private onTelemetry(topic: string, payload: Buffer): void {
    if (topic.endsWith('/margins/history')) return this.mergeHistory(topic.slice(0, -'/history'.length), payload);
    let parsed: unknown;
    try {
      parsed = JSON.parse(payload.toString());
    } catch {
      return;
    }
    if (topic.endsWith('/margins')) this.keepRecent(topic, parsed);
    else this.latest.set(topic, parsed);
    this.broadcast({ type: 'telemetry', topic, payload: parsed });
    if (topic.endsWith('/gate')) {
      const robot = topic.slice(TOPIC_ROOT.length + 1, -'/gate'.length);
      for (const w of this.gateWaiters)
        if (w.robot === robot && w.pred(parsed as GatePayload)) w.resolve(parsed as GatePayload);
    }
  }

  /** The robot's gate state once it satisfies `pred` (the retained one, or the next ones), or undefined after `timeoutMs`. */
  private waitForGate(
    robot: string,
    pred: (g: GatePayload) => boolean,
    timeoutMs: number,
  ): Promise<GatePayload | undefined> {
    const last = this.latest.get(topicFor(robot, 'gate')) as GatePayload | undefined;
    if (last && pred(last)) return Promise.resolve(last);
    return new Promise((resolve) => {
      const w: GateWaiter = {
        robot,
        pred,
        resolve: (g) => {
          clearTimeout(timer);
          this.gateWaiters.delete(w);
          resolve(g);
        },
      };
      const timer = setTimeout(() => w.resolve(undefined), timeoutMs);
      this.gateWaiters.add(w);
    });
  }

  private keepRecent(topic: string, payload: unknown): void {
    const t =
      typeof payload === 'object' && payload !== null && typeof (payload as { t?: unknown }).t === 'number'
        ? (payload as { t: number }).t
        : NaN;
    if (!Number.isFinite(t)) return;
    let list = this.recentMargins.get(topic);
    if (!list) this.recentMargins.set(topic, (list = []));
    // A restarted gate clock (t going back) starts the history again.
    if (list.length > 0 && t < list[list.length - 1]!.t) list.length = 0;
    list.push({ t, payload });
    while (list.length > RECENT_MAX || (list.length > 0 && list[0]!.t < t - RECENT_SECONDS)) list.shift();
  }

  /**
   * The robot's retained margin history from the broker: samples older than what this server has
   * seen go in front of its recent list (a dashboard started after the session, or restarted,
   * shows the last window at once). Invalid payloads are ignored.
   */
  private mergeHistory(marginsTopic: string, payload: Buffer): void {
    const h = parseMarginHistory(payload.toString());
    if (!h.ok || h.value.samples.length === 0) return;
    let list = this.recentMargins.get(marginsTopic);
    if (!list) this.recentMargins.set(marginsTopic, (list = []));
    const newestHistory = h.value.samples.at(-1)!.t;
    // Kept margins newer than the history's clock allows (a restarted gate clock): start from the history.
    if (list.length > 0 && list[list.length - 1]!.t < h.value.samples[0]!.t - RECENT_SECONDS) list.length = 0;
    const first = list.length > 0 ? list[0]!.t : Infinity;
    const older = h.value.samples
      .filter((x) => x.t < first)
      .map((x) => ({ t: x.t, payload: historySampleAsMargins(h.value, x) as unknown }));
    list.unshift(...older);
    const newest = Math.max(newestHistory, list[list.length - 1]!.t);
    while (list.length > RECENT_MAX || (list.length > 0 && list[0]!.t < newest - RECENT_SECONDS)) list.shift();
  }

  private broadcast(msg: ServerToPage): void {
    const text = JSON.stringify(msg);
    for (const s of this.sessions) if (s.ws.readyState === s.ws.OPEN) s.ws.send(text);
  }

  private send(s: Session, msg: ServerToPage): void {
    if (s.ws.readyState === s.ws.OPEN) s.ws.send(JSON.stringify(msg));
  }

  private onPage(ws: WebSocket, req: IncomingMessage): void {
    const session: Session = { ws, client: undefined, username: undefined, address: req.socket.remoteAddress ?? '' };
    this.sessions.add(session);
    for (const [topic, payload] of this.latest) this.send(session, { type: 'telemetry', topic, payload });
    for (const [topic, list] of this.recentMargins)
      for (const m of list) this.send(session, { type: 'telemetry', topic, payload: m.payload });
    ws.on('message', (data) => void this.onPageMessage(session, data.toString()));
    ws.on('close', () => {
      this.sessions.delete(session);
      void session.client?.endAsync(true);
    });
  }

  private async onPageMessage(s: Session, text: string): Promise<void> {
    const p = parsePageMessage(text);
    if (!p.ok)
      return this.send(s, { type: 'command-result', command: 'unknown', robot: '', ok: false, reason: p.error });
    const msg = p.value;
    switch (msg.type) {
      case 'login': {
        const allowed = this.throttle.check(s.address, this.now());
        if (!allowed.ok) {
          return this.send(s, {
            type: 'login-result',
            ok: false,
            reason: `too many failed logins from this address: try again in ${Math.ceil(allowed.retryAfterSeconds)} s`,
          });
        }
        try {
          const client = await this.connectMqtt(msg.username, msg.password, `dashboard-${msg.username}`);
          this.throttle.succeeded(s.address);
          await s.client?.endAsync(true);
          s.client = client;
          s.username = msg.username;
          this.send(s, { type: 'login-result', ok: true, username: msg.username });
        } catch {
          this.throttle.failed(s.address, this.now());
          this.send(s, { type: 'login-result', ok: false, reason: 'login refused by the broker' });
        }
        return;
      }
      case 'logout':
        await s.client?.endAsync(true);
        s.client = undefined;
        s.username = undefined;
        this.send(s, { type: 'login-result', ok: false, reason: 'logged out' });
        return;
      case 'estop': {
        const via = s.client ?? this.viewer;
        if (!via)
          return this.send(s, {
            type: 'command-result',
            command: 'estop',
            robot: msg.robot,
            ok: false,
            reason: 'not connected to the broker',
          });
        const id = `dashboard-${randomBytes(6).toString('hex')}`;
        const refused = await publishConfirmed(
          via,
          this.ackTimeout,
          topicFor(msg.robot, 'cmd/estop'),
          JSON.stringify({ v: 1, reason: `dashboard${s.username ? ` (${s.username})` : ''}`, id }),
        );
        if (refused !== null)
          return this.send(s, {
            type: 'command-result',
            command: 'estop',
            robot: msg.robot,
            ok: false,
            reason: refused,
          });
        // Done only when the gate says so: the broker's PUBACK says nothing about the arm.
        const timeout = this.options.estopConfirmTimeoutMs ?? 2000;
        const gate = await this.waitForGate(
          msg.robot,
          (g) => g.estop?.pressed.some((p) => p.id === id) === true,
          timeout,
        );
        const latch = gate?.estop?.pressed.find((p) => p.id === id);
        this.send(
          s,
          gate && latch
            ? {
                type: 'command-result',
                command: 'estop',
                robot: msg.robot,
                ok: true,
                confirmed: true,
                state: gate.state,
                pressedBy: latch.by,
              }
            : {
                type: 'command-result',
                command: 'estop',
                robot: msg.robot,
                ok: false,
                confirmed: false,
                reason: `the broker accepted the e-stop but ${msg.robot}'s gate did not confirm it within ${timeout / 1000} s: treat the arm as NOT stopped`,
              },
        );
        return;
      }
      case 'estop-reset': {
        const client = s.client;
        if (!client)
          return this.send(s, {
            type: 'command-result',
            command: 'estop-reset',
            robot: msg.robot,
            ok: false,
            reason: 'log in first',
          });
        const named = (g: GatePayload | undefined) =>
          g?.estop?.pressed.some((p) => p.by === msg.pressedBy || p.id === msg.pressedBy) === true;
        const current = this.latest.get(topicFor(msg.robot, 'gate')) as GatePayload | undefined;
        if (!named(current)) {
          const latched = current?.estop?.pressed.map((p) => `'${p.by}'`).join(', ') || 'none';
          return this.send(s, {
            type: 'command-result',
            command: 'estop-reset',
            robot: msg.robot,
            ok: false,
            reason: `no e-stop from '${msg.pressedBy}' is latched on ${msg.robot} (latched: ${latched})`,
          });
        }
        const refused = await publishConfirmed(
          client,
          this.ackTimeout,
          topicFor(msg.robot, 'cmd/estop-reset'),
          JSON.stringify({ v: 1, pressedBy: msg.pressedBy, note: `dashboard (${s.username ?? ''})` }),
        );
        if (refused !== null)
          return this.send(s, {
            type: 'command-result',
            command: 'estop-reset',
            robot: msg.robot,
            ok: false,
            reason: refused,
          });
        const gate = await this.waitForGate(msg.robot, (g) => !named(g), this.options.estopConfirmTimeoutMs ?? 2000);
        this.send(
          s,
          gate
            ? {
                type: 'command-result',
                command: 'estop-reset',
                robot: msg.robot,
                ok: true,
                confirmed: true,
                state: gate.state,
              }
            : {
                type: 'command-result',
                command: 'estop-reset',
                robot: msg.robot,
                ok: false,
                confirmed: false,
                reason: `the gate still lists the e-stop from '${msg.pressedBy}' (see the events topic for why)`,
              },
        );
        return;
      }
      case 'release':
      case 'label': {
        const client = s.client;
        if (!client)
          return this.send(s, {
            type: 'command-result',
            command: msg.type,
            robot: msg.robot,
            ok: false,
            reason: 'log in first',
          });
        const payload = msg.type === 'release' ? { v: 1 } : { v: 1, success: msg.success };
        const refused = await publishConfirmed(
          client,
          this.ackTimeout,
          topicFor(msg.robot, msg.type === 'release' ? 'cmd/release' : 'cmd/label'),
          JSON.stringify(payload),
        );
        if (refused !== null) {
          // An unacknowledged QoS 1 publish would be re-sent on every reconnect: drop this login.
          if (s.client === client) {
            s.client = undefined;
            s.username = undefined;
          }
          await client.endAsync(true).catch(() => undefined);
        }
        this.send(s, {
          type: 'command-result',
          command: msg.type,
          robot: msg.robot,
          ok: refused === null,
          ...(refused !== null ? { reason: refused } : {}),
        });
        return;
      }
    }
  }
}

/** Publish at QoS 1 and wait for the broker's PUBACK: null when accepted, else why not. */
async function publishConfirmed(
  client: MqttClient,
  timeoutMs: number,
  topic: string,
  payload: string,
): Promise<string | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([
      client.publishAsync(topic, payload, { qos: 1 }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new Error(`not accepted by the broker within ${timeoutMs / 1000} s (does this login have the role?)`),
            ),
          timeoutMs,
        );
      }),
    ]);
    return null;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  } finally {
    clearTimeout(timer);
  }
}
