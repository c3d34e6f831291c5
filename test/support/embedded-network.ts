/**
 * armguard's network worker (a real worker thread) with its embedded aedes broker on an ephemeral
 * port, for tests that connect real MQTT clients to it: the users given, the robot's topics, and
 * optionally a chunk rate limit. Stopped by the returned `stop`.
 */
import { NetworkWorker, type NetworkWorkerHandler } from '../../src/telemetry/network-worker.js';
import type { MqttUser } from '../../src/telemetry/access.js';
import type { ChunkRateLimit } from '../../src/telemetry/chunk-admission.js';

export interface EmbeddedNetwork {
  readonly net: NetworkWorker;
  readonly url: string;
  readonly connected: boolean;
  readonly stop: () => Promise<unknown>;
}

/** A handler that acknowledges every command and counts nothing (tests pass their own to see them). */
export const acceptingHandler = (): NetworkWorkerHandler => ({
  estop: () => undefined,
  release: () => ({ ok: true }),
  label: () => ({ ok: true }),
});

export async function startEmbeddedNetwork(opts: {
  robot: string;
  users: readonly MqttUser[];
  chunkRate?: ChunkRateLimit;
  handler?: NetworkWorkerHandler;
  /** Called with the worker before it starts (e.g. to subscribe to its link events). */
  beforeStart?: (net: NetworkWorker) => void;
}): Promise<EmbeddedNetwork> {
  const net = new NetworkWorker(
    {
      broker: { kind: 'embedded', port: 0, host: '127.0.0.1', access: { users: opts.users } },
      robot: opts.robot,
      connectTimeoutSeconds: 5,
      ...(opts.chunkRate ? { chunkRate: opts.chunkRate } : {}),
    },
    opts.handler ?? acceptingHandler(),
    { now: () => performance.now() / 1000 },
  );
  opts.beforeStart?.(net);
  let started: Awaited<ReturnType<NetworkWorker['start']>>;
  try {
    started = await net.start();
  } catch (e) {
    await net.stop().catch(() => undefined);
    throw e;
  }
  return { net, url: started.url, connected: started.connected, stop: () => net.stop() };
}
