/**
 * The network worker: the embedded broker, armguard's MQTT link and the dashboard run here, in a
 * worker thread, so that no network input (a flood of packets, a large chunk request, a slow
 * login) can delay a control step on the main thread. Commands are parsed and validated here and
 * posted to the control thread as small typed messages; chunk requests are size-checked and
 * decoded from JSON here, and paced: one per control step, the newest waiting one (chunk-pacer.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { DashboardServer } from './dashboard/server.js';
import { EmbeddedBroker } from './embedded-broker.js';
import { MqttLink } from './mqtt-link.js';
import { ChunkPacer } from './chunk-pacer.js';
import type { FromWorker, GateClockSync, NetworkHostConfig, ToWorker, WorkerCommand } from './network-protocol.js';
import { topicFor } from './topics.js';
import {
  ChunkAdmission,
  chunkIdOf,
  chunkRateLimitProblem,
  DEFAULT_CHUNK_RATE_LIMIT,
  RateLimitAnswers,
  RateLimitLedger,
  type RateLimitScope,
} from './chunk-admission.js';
import { niceThisThread } from '../platform/thread-priority.js';

/**
 * The network worker's nice value by default: the control thread's (0). The e-stop arrives through
 * this thread, so it is not niced by default. A higher value (NetworkHostConfig.nice) took about a
 * third off a chunk flood's p99 on the quiet 2-core machine and made no measurable difference on the
 * loaded one (bench/RESULTS.md "Network faults").
 */
export const NETWORK_WORKER_NICE = 0;

const port = parentPort;
if (!port) throw new Error('network-host runs in a worker thread');
const data = workerData as { config: NetworkHostConfig; clock: GateClockSync };
const config = data.config;
const post = (m: FromWorker) => port.postMessage(m);
const command = (c: WorkerCommand) => post({ type: 'command', command: c });

const priority = niceThisThread(config.nice ?? NETWORK_WORKER_NICE);

let clock = data.clock;
/** (performance.timeOrigin is a getter that validates its receiver: read once, not per answer.) */
const timeOrigin = performance.timeOrigin;
const epochMs = () => timeOrigin + performance.now();
const gateNow = () => clock.gate + (epochMs() - clock.epochMs) / 1000;
const chunks = new ChunkPacer({
  forward: (request) => command({ kind: 'chunk', request }),
  answer: (text) => answerChunk(text),
  gateNow,
});

// Admission before decoding: per user at the embedded broker, for the whole stream with an external one.
const rateLimit = config.chunkRate ?? DEFAULT_CHUNK_RATE_LIMIT;
const admission = new ChunkAdmission(rateLimit);
const answers = new RateLimitAnswers(rateLimit);
const ledger = new RateLimitLedger(rateLimit);
/** Rejections are recorded (posted to the control thread) at most once per this many ms. */
const LEDGER_PERIOD_MS = 1000;
let ledgerTimer: ReturnType<typeof setTimeout> | undefined;
function flushLedger(): void {
  ledgerTimer = undefined;
  for (const text of ledger.take()) post({ type: 'refused', text });
}
/**
 * Publish a chunk answer (a ChunkResultMessage's JSON) on chunk/result: every answer — above the
 * rate, superseded by the pacer, or the control thread's verdict. With the embedded broker the broker
 * itself publishes it (not armguard's own connection to it: no encoding, socket round trip, parsing
 * and acknowledgement through that connection, which also carries the e-stop; and the answer goes out
 * while that connection is down). With an external broker the request came through armguard's
 * connection and the answer goes back on it; if the connection dropped in between, the link drops the
 * answer and counts it (the policy's request was not executed either way: no answer is never a
 * go-ahead).
 */
function answerChunk(text: string): void {
  if (!broker?.publish(resultTopic, text)) link?.publishChunkResult(text);
}
/** Answer a request above the rate, undecoded (only its id is read), and record it. */
function rejectOverRate(payload: Uint8Array, scope: RateLimitScope): void {
  const id = chunkIdOf(payload);
  answerChunk(answers.text(id, scope, gateNow()));
  ledger.add(scope, id);
  ledgerTimer ??= setTimeout(flushLedger, LEDGER_PERIOD_MS);
}
const nowS = () => performance.now() / 1000;
const resultTopic = topicFor(config.robot, 'chunk/result');

let broker: EmbeddedBroker | undefined;
let link: MqttLink | undefined;
let dashboard: DashboardServer | undefined;

async function start(): Promise<void> {
  const bad = chunkRateLimitProblem(rateLimit);
  if (bad) throw new Error(`chunk rate limit: ${bad}`);
  let url: string;
  let username: string | undefined;
  let password: string | undefined;
  let protocolVersion: 4 | 5 = 4;
  const b = config.broker;
  if (b.kind === 'embedded') {
    const topic = topicFor(config.robot, 'chunk/request');
    broker = new EmbeddedBroker(b.access, {
      ...(b.limits ? { limits: b.limits } : {}),
      admission: {
        topic,
        // One bucket per user (not per client id, which the client chooses), kept across reconnects.
        admit: ({ username, clientId }, payload) => {
          const user = username ?? '(anonymous)';
          if (admission.admit(user, nowS())) return true;
          rejectOverRate(payload, { kind: 'user', username: user, clientId });
          return false;
        },
      },
    });
    broker.onRefused((r) =>
      post({ type: 'refused', text: `refused ${r.topic} from ${r.username ?? 'anonymous'}: ${r.reason}` }),
    );
    broker.onOversize((r) => post({ type: 'refused', text: `connection from ${r.address} closed: ${r.reason}` }));
    url = await broker.start(b.port, b.host);
    ({ username, password } = broker.internal.armguard);
  } else {
    url = b.url;
    username = b.username;
    password = b.password;
    protocolVersion = b.protocolVersion;
  }
  const robot = config.robot;
  link = new MqttLink(
    {
      url,
      robot,
      protocolVersion,
      ...(username !== undefined ? { username } : {}),
      ...(password !== undefined ? { password } : {}),
    },
    {
      estop: (value) => command({ kind: 'estop', value }),
      // The control thread decides; a refusal comes back as a command-refused event it publishes.
      estopReset: (value) => (
        command({ kind: 'estop-reset', value, topic: topicFor(robot, 'cmd/estop-reset') }),
        { ok: true }
      ),
      release: (value) => (command({ kind: 'release', value, topic: topicFor(robot, 'cmd/release') }), { ok: true }),
      label: (value) => (command({ kind: 'label', value, topic: topicFor(robot, 'cmd/label') }), { ok: true }),
      heartbeat: (seq) => command({ kind: 'heartbeat', seq }),
      chunk: (bytes) => {
        // The embedded broker admitted it per user already; an external one forwards everything.
        if (b.kind === 'external' && !admission.admit('', nowS())) return rejectOverRate(bytes, { kind: 'stream' });
        const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
        let value: unknown;
        try {
          value = JSON.parse(text);
        } catch (e) {
          const id = chunkIdOf(bytes, 4096);
          chunks.offer({ ok: false, error: `JSON (${(e as Error).message})`, id });
          return;
        }
        chunks.offer({ ok: true, value });
      },
    },
  );
  link.onEvent((event) => post({ type: 'link-event', event }));
  const connected = await link.start(config.connectTimeoutSeconds);
  let dashboardUrl: string | undefined;
  if (config.dashboard) {
    const viewer = config.dashboard.viewer ?? broker?.internal.viewer;
    if (!viewer) throw new Error('the dashboard needs viewer credentials for an external broker');
    dashboard = new DashboardServer({
      brokerUrl: url,
      viewer,
      port: config.dashboard.port,
      ...(config.dashboard.host ? { host: config.dashboard.host } : {}),
    });
    dashboardUrl = await dashboard.start();
  }
  post({
    type: 'started',
    url,
    connected,
    lastError: link.lastConnectError,
    ...(dashboardUrl ? { dashboardUrl } : {}),
    settings:
      `chunk requests above ${rateLimit.ratePerS}/s (burst ${rateLimit.burst}) ${b.kind === 'embedded' ? 'per user' : 'in all'} answered rate-limit undecoded; ` +
      (priority.ok
        ? `network worker thread at nice ${priority.nice}`
        : `network worker priority unchanged: ${priority.reason}`),
  });
}

async function stop(): Promise<void> {
  chunks.drain('armguard is shutting down: not evaluated');
  clearTimeout(ledgerTimer);
  flushLedger();
  await dashboard?.stop().catch(() => undefined);
  await link?.stop().catch(() => undefined);
  await broker?.stop().catch(() => undefined);
  post({ type: 'stopped' });
}

port.on('message', (m: ToWorker) => {
  const l = link;
  switch (m.type) {
    case 'margins':
      return l?.publishMargins(m.t, m.margins, m.band);
    case 'gate':
      return l?.publishGate(m.t, m.state, m.cause, m.estop);
    case 'event':
      return l?.publishEvent(m.t, m.kind, m.detail);
    case 'episode':
      return l?.publishEpisode(m.payload);
    case 'label':
      return l?.publishLabel(m.label);
    case 'chunk-result':
      return answerChunk(m.text);
    case 'chunk-credit':
      clock = m.clock;
      return chunks.grant();
    case 'stop':
      void stop();
      return;
  }
});

start().catch(async (e: unknown) => {
  post({ type: 'start-failed', error: e instanceof Error ? e.message : String(e) });
  await stop();
});
