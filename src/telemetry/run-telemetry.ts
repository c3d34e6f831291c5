/**
 * MQTT for `armguard run`: the embedded broker (users from --access) or an external broker URL,
 * armguard's link (telemetry out, e-stop / release / labels in) and the dashboard all run in the
 * network worker thread (src/telemetry/network-host.ts), so no network input can delay a control
 * step. On this thread: the gate remote (commands → gate) and the chunk channel, whose requests
 * the worker already decoded (the session binds its ChunkServer to it: `Session.serveChunks`).
 */
import type { Gate } from '../gate/index.js';
import type { Fault } from '../schema/fault.js';
import type { AccessConfig } from './access.js';
import { GateRemote, type LabelSink, type LinkLossPolicy } from './gate-remote.js';
import type { TelemetryLink } from './mqtt-link.js';
import { DecodedChunkTransport, NetworkWorker } from './network-worker.js';
import type { Clock } from '../util/clock.js';
import type { SessionTelemetry } from '../runtime/session.js';
import type { ChunkRateLimit } from './chunk-admission.js';

export type BrokerChoice =
  | { kind: 'embedded'; port: number; host?: string; access: AccessConfig }
  | { kind: 'external'; url: string; username?: string; password?: string; protocolVersion?: 4 | 5 };

export interface TelemetryOptions {
  broker: BrokerChoice;
  robotId: string;
  clock: Clock;
  gate: Gate;
  labels: LabelSink;
  /** Margins decimation (Hz): the session builds and posts margins at most this often (the only throttle). */
  marginsRateHz?: number;
  onRefused?: (text: string) => void;
  /** Operator dead-man (s): no operator heartbeat for this long holds the gate (GateRemote.checkStep). */
  heartbeatTimeout?: number;
  /** What a lost command channel (remote e-stop) does: hold (default) or only record the fault. */
  onLinkLoss?: LinkLossPolicy;
  /** A fault of the MQTT command channel (lost link, refused subscription): record it. */
  onFault?: (fault: Fault, t: number) => void;
  /** The network worker died and was started again (or failed to): what happened. */
  onNetworkRestart?: (detail: string) => void;
  /** Seconds to wait for the first connection before going on (holding under 'hold'). Default 5. */
  connectTimeoutSeconds?: number;
  /** Serve the dashboard (in the network worker); viewer credentials default to the embedded broker's own. */
  dashboard?: { port: number; viewer?: { username: string; password: string } };
  /** Chunk requests above this rate are answered `rate-limit` before decoding (chunk-admission.ts). */
  chunkRate?: ChunkRateLimit;
  /** The network worker thread's nice value (default NETWORK_WORKER_NICE). */
  networkWorkerNice?: number;
}

export interface Telemetry {
  url: string;
  link: TelemetryLink;
  remote: GateRemote;
  /** Chunk requests from policies (decoded in the worker) and their results. */
  chunks: DecodedChunkTransport;
  /** What the session publishes and checks each step (Session.attachTelemetry). */
  hooks: SessionTelemetry;
  dashboardUrl: string | undefined;
  connected: boolean;
  /** The network worker's priority and chunk rate limit, as applied (for the start-up line). */
  settings: string;
  stop(): Promise<void>;
}

export async function startTelemetry(o: TelemetryOptions): Promise<Telemetry> {
  const remote = new GateRemote(o.gate, o.clock, o.labels, {
    ...(o.heartbeatTimeout !== undefined ? { heartbeatTimeout: o.heartbeatTimeout } : {}),
    ...(o.onLinkLoss !== undefined ? { onLinkLoss: o.onLinkLoss } : {}),
    ...(o.onFault ? { onFault: o.onFault } : {}),
  });
  const chunks = new DecodedChunkTransport(
    (payload) => net.publishChunkResult(payload),
    (now) => net.grantChunk(now),
  );
  const b = o.broker;
  const net = new NetworkWorker(
    {
      broker:
        b.kind === 'embedded'
          ? { kind: 'embedded', port: b.port, host: b.host ?? '127.0.0.1', access: b.access }
          : {
              kind: 'external',
              url: b.url,
              protocolVersion: b.protocolVersion ?? 4,
              ...(b.username !== undefined ? { username: b.username } : {}),
              ...(b.password !== undefined ? { password: b.password } : {}),
            },
      robot: o.robotId,
      connectTimeoutSeconds: o.connectTimeoutSeconds ?? 5,
      ...(o.dashboard ? { dashboard: o.dashboard } : {}),
      ...(o.chunkRate ? { chunkRate: o.chunkRate } : {}),
      ...(o.networkWorkerNice !== undefined ? { nice: o.networkWorkerNice } : {}),
    },
    {
      estop: (cmd) => remote.estop(cmd),
      estopReset: (cmd) => remote.estopReset(cmd),
      release: () => remote.release(),
      label: (cmd) => remote.label(cmd),
      heartbeat: () => remote.heartbeat(),
      decodedChunk: chunks.deliver,
    },
    o.clock,
  );
  if (o.onRefused) net.onRefused(o.onRefused);
  if (o.onNetworkRestart) net.onRestart(o.onNetworkRestart);
  remote.attach(net);
  let started;
  try {
    started = await net.start();
  } catch (e) {
    await net.stop();
    throw e;
  }
  // Not reachable: the remote e-stop cannot arrive; under 'hold' the gate holds until it can.
  if (!started.connected)
    remote.linkLost(`broker ${started.url} not reachable${started.lastError ? ` (${started.lastError})` : ''}`);
  return {
    url: started.url,
    link: net,
    remote,
    chunks,
    hooks: {
      checkStep: (now) => {
        remote.checkStep(now);
        chunks.stepped(now);
      },
      marginsPeriodS: 1 / (o.marginsRateHz ?? 10),
      publishMargins: (t, margins, band) => net.publishMargins(t, margins, band),
      publishEvent: (t, kind, detail) => net.publishEvent(t, kind, detail),
      publishEpisode: (p) => net.publishEpisode(p),
      publishLabel: (l) => net.publishLabel(l),
    },
    dashboardUrl: started.dashboardUrl,
    connected: started.connected,
    settings: started.settings,
    stop: () => {
      remote.detach();
      return net.stop();
    },
  };
}
