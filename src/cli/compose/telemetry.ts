/**
 * MQTT for `armguard run`: the embedded broker (users from --access) or an external broker URL;
 * armguard's link (telemetry out, e-stop / release / labels in), the gate remote, and the chunk
 * server on `armguard/v1/<robot>/chunk/request`.
 */
import type { Gate } from '../../gate/index.js';
import { ChunkServer, type ChunkSubmitter } from '../../runtime/index.js';
import type { AccessConfig } from '../../telemetry/access.js';
import { EmbeddedBroker } from '../../telemetry/embedded-broker.js';
import { GateRemote, type LabelSink, type LinkLossPolicy } from '../../telemetry/gate-remote.js';
import { MqttChunkServerTransport } from '../../telemetry/mqtt-chunk-transport.js';
import { MqttLink } from '../../telemetry/mqtt-link.js';
import type { ExecutedChunk } from '../../gate/chunk.js';
import type { Clock } from '../../util/clock.js';
import type { GateFault } from '../../gate/index.js';

export type BrokerChoice =
  | { kind: 'embedded'; port: number; host?: string; access: AccessConfig }
  | { kind: 'external'; url: string; username?: string; password?: string; protocolVersion?: 4 | 5 };

export interface TelemetryOptions {
  broker: BrokerChoice;
  robotId: string;
  clock: Clock;
  gate: Gate;
  labels: LabelSink;
  /** Chunk path (absent with --gate off: no chunk server). */
  chunks?: { submitter: ChunkSubmitter; joints: number; onRejectedPayload: (r: ExecutedChunk, now: number) => void };
  /** Margins decimation (Hz). */
  marginsRateHz?: number;
  onRefused?: (text: string) => void;
  /** Operator dead-man (s): no operator heartbeat for this long holds the gate (GateRemote.checkStep). */
  heartbeatTimeout?: number;
  /** What a lost command channel (remote e-stop) does: hold (default) or only record the fault. */
  onLinkLoss?: LinkLossPolicy;
  /** A fault of the MQTT command channel (lost link, refused subscription): record it. */
  onFault?: (fault: GateFault, t: number) => void;
  /** Seconds to wait for the first connection before going on (holding under 'hold'). Default 5. */
  connectTimeoutSeconds?: number;
}

export interface Telemetry {
  url: string;
  link: MqttLink;
  remote: GateRemote;
  broker: EmbeddedBroker | undefined;
  connected: boolean;
  stop(): Promise<void>;
}

export async function startTelemetry(o: TelemetryOptions): Promise<Telemetry> {
  let broker: EmbeddedBroker | undefined;
  let url: string;
  let username: string | undefined;
  let password: string | undefined;
  let protocolVersion: 4 | 5 = 4;
  if (o.broker.kind === 'embedded') {
    broker = new EmbeddedBroker(o.broker.access);
    broker.onRefused((r) => o.onRefused?.(`refused ${r.topic} from ${r.username ?? 'anonymous'}: ${r.reason}`));
    broker.onOversize((r) => o.onRefused?.(`connection from ${r.address} closed: ${r.reason}`));
    url = await broker.start(o.broker.port, o.broker.host ?? '127.0.0.1');
    // armguard's own connection uses the broker's per-process credentials: the access file holds only hashes.
    username = broker.internal.armguard.username;
    password = broker.internal.armguard.password;
  } else {
    url = o.broker.url;
    username = o.broker.username;
    password = o.broker.password;
    protocolVersion = o.broker.protocolVersion ?? 4;
  }
  const remote = new GateRemote(o.gate, o.clock, o.labels, {
    ...(o.heartbeatTimeout !== undefined ? { heartbeatTimeout: o.heartbeatTimeout } : {}),
    ...(o.onLinkLoss !== undefined ? { onLinkLoss: o.onLinkLoss } : {}),
    ...(o.onFault ? { onFault: o.onFault } : {}),
  });
  let transport: MqttChunkServerTransport | undefined;
  const link = new MqttLink(
    {
      url, robot: o.robotId, protocolVersion, marginsRateHz: o.marginsRateHz ?? 10,
      ...(username !== undefined ? { username } : {}),
      ...(password !== undefined ? { password } : {}),
    },
    {
      estop: (cmd) => remote.estop(cmd),
      estopReset: (cmd) => remote.estopReset(cmd),
      release: () => remote.release(),
      label: (cmd) => remote.label(cmd),
      heartbeat: () => remote.heartbeat(),
      chunk: (bytes) => transport?.onChunkBytes(bytes),
    },
  );
  if (o.chunks) {
    transport = new MqttChunkServerTransport(link);
    new ChunkServer(transport, o.chunks.submitter, o.clock, o.chunks.joints, o.chunks.onRejectedPayload);
  }
  remote.attach(link);
  const connected = await link.start(o.connectTimeoutSeconds ?? 5);
  // Not reachable: the remote e-stop cannot arrive; under 'hold' the gate holds until it can.
  if (!connected) remote.linkLost(`broker ${url} not reachable${link.lastConnectError ? ` (${link.lastConnectError})` : ''}`);
  return {
    url, link, remote, broker, connected,
    stop: async () => {
      await link.stop();
      await broker?.stop();
    },
  };
}
