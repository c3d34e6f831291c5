/**
 * The live pilot dashboard: an HTTP page and a WebSocket bridge to the MQTT topic tree of every
 * robot on the broker (one card per robot). Reading telemetry uses the dashboard's own viewer
 * credentials; release and labels are published with the credentials a person logs in with, so
 * the broker's access rules decide, exactly as for any other client. E-stop works without login
 * (through the viewer connection): e-stop may be wider, never narrower.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import mqtt, { type MqttClient } from 'mqtt';
import { WebSocketServer, type WebSocket } from 'ws';
import { TOPIC_ROOT, topicFor } from '../topics.js';
import { parsePageMessage, type ServerToPage } from './protocol.js';
import { DASHBOARD_HTML } from './page.js';

export interface DashboardOptions {
  brokerUrl: string;
  viewer: { username: string; password: string };
  protocolVersion?: 4 | 5;
  /** HTTP port on 127.0.0.1 by default (0 = any free port). */
  port?: number;
  host?: string;
  /** How long a command waits for the broker's acknowledgement before the page is told it failed (ms). Default 2000. */
  commandAckTimeoutMs?: number;
}

interface Session {
  ws: WebSocket;
  client: MqttClient | undefined;
  username: string | undefined;
}

export class DashboardServer {
  private http: Server | undefined;
  private wss: WebSocketServer | undefined;
  private viewer: MqttClient | undefined;
  private readonly sessions = new Set<Session>();
  /** Last message per topic, replayed to a page when it connects. */
  private readonly latest = new Map<string, unknown>();
  url = '';

  constructor(private readonly options: DashboardOptions) {}

  private get ackTimeout(): number {
    return this.options.commandAckTimeoutMs ?? 2000;
  }

  async start(): Promise<string> {
    this.viewer = await this.connectMqtt(this.options.viewer.username, this.options.viewer.password, 'dashboard-viewer');
    this.viewer.on('message', (topic, payload) => this.onTelemetry(topic, payload));
    await this.viewer.subscribeAsync([`${TOPIC_ROOT}/+/+`, `${TOPIC_ROOT}/+/chunk/result`], { qos: 0 });

    const http = createServer((req, res) => this.serveHttp(req, res));
    const wss = new WebSocketServer({ server: http, path: '/ws', maxPayload: 16 * 1024 });
    wss.on('connection', (ws) => this.onPage(ws));
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(this.options.port ?? 0, this.options.host ?? '127.0.0.1', () => resolve());
    });
    const addr = http.address();
    this.url = `http://${this.options.host ?? '127.0.0.1'}:${typeof addr === 'object' && addr ? addr.port : 0}/`;
    this.http = http;
    this.wss = wss;
    return this.url;
  }

  async stop(): Promise<void> {
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

  private serveHttp(req: IncomingMessage, res: ServerResponse): void {
    if (req.method === 'GET' && (req.url === '/' || req.url === '/index.html')) {
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
        'content-security-policy': "default-src 'self'; img-src data:; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'",
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
    let parsed: unknown;
    try {
      parsed = JSON.parse(payload.toString());
    } catch {
      return;
    }
    this.latest.set(topic, parsed);
    this.broadcast({ type: 'telemetry', topic, payload: parsed });
  }

  private broadcast(msg: ServerToPage): void {
    const text = JSON.stringify(msg);
    for (const s of this.sessions) if (s.ws.readyState === s.ws.OPEN) s.ws.send(text);
  }

  private send(s: Session, msg: ServerToPage): void {
    if (s.ws.readyState === s.ws.OPEN) s.ws.send(JSON.stringify(msg));
  }

  private onPage(ws: WebSocket): void {
    const session: Session = { ws, client: undefined, username: undefined };
    this.sessions.add(session);
    for (const [topic, payload] of this.latest) this.send(session, { type: 'telemetry', topic, payload });
    ws.on('message', (data) => void this.onPageMessage(session, data.toString()));
    ws.on('close', () => {
      this.sessions.delete(session);
      void session.client?.endAsync(true);
    });
  }

  private async onPageMessage(s: Session, text: string): Promise<void> {
    const p = parsePageMessage(text);
    if (!p.ok) return this.send(s, { type: 'command-result', command: 'unknown', robot: '', ok: false, reason: p.error });
    const msg = p.msg;
    switch (msg.type) {
      case 'login': {
        try {
          const client = await this.connectMqtt(msg.username, msg.password, `dashboard-${msg.username}`);
          await s.client?.endAsync(true);
          s.client = client;
          s.username = msg.username;
          this.send(s, { type: 'login-result', ok: true, username: msg.username });
        } catch {
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
        if (!via) return this.send(s, { type: 'command-result', command: 'estop', robot: msg.robot, ok: false, reason: 'not connected to the broker' });
        const refused = await publishConfirmed(via, this.ackTimeout, topicFor(msg.robot, 'cmd/estop'), JSON.stringify({ v: 1, reason: `dashboard${s.username ? ` (${s.username})` : ''}` }));
        this.send(s, { type: 'command-result', command: 'estop', robot: msg.robot, ok: refused === null, ...(refused !== null ? { reason: refused } : {}) });
        return;
      }
      case 'release':
      case 'label': {
        const client = s.client;
        if (!client) return this.send(s, { type: 'command-result', command: msg.type, robot: msg.robot, ok: false, reason: 'log in first' });
        const payload = msg.type === 'release' ? { v: 1 } : { v: 1, success: msg.success };
        const refused = await publishConfirmed(client, this.ackTimeout, topicFor(msg.robot, msg.type === 'release' ? 'cmd/release' : 'cmd/label'), JSON.stringify(payload));
        if (refused !== null) {
          // An unacknowledged QoS 1 publish would be re-sent on every reconnect: drop this login.
          if (s.client === client) {
            s.client = undefined;
            s.username = undefined;
          }
          await client.endAsync(true).catch(() => undefined);
        }
        this.send(s, { type: 'command-result', command: msg.type, robot: msg.robot, ok: refused === null, ...(refused !== null ? { reason: refused } : {}) });
        return;
      }
    }
  }
}

/** Publish at QoS 1 and wait for the broker's PUBACK: null when accepted, else why not. */
async function publishConfirmed(client: MqttClient, timeoutMs: number, topic: string, payload: string): Promise<string | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([
      client.publishAsync(topic, payload, { qos: 1 }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`not accepted by the broker within ${timeoutMs / 1000} s (does this login have the role?)`)), timeoutMs);
      }),
    ]);
    return null;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  } finally {
    clearTimeout(timer);
  }
}
