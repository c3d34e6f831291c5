/**
 * A logged-in user who may not act as armguard connects to the embedded broker (real aedes in the
 * network worker, real MQTT clients) with armguard's own client id, `armguard-<robot>`. An MQTT
 * broker hands a client id to the newest connection and closes the older one, so this used to
 * disconnect armguard's link — its command channel, the one that carries the remote e-stop — for
 * as long as the user kept reconnecting. Such client ids are reserved for users with the armguard
 * role: the connection is refused (CONNACK "identifier rejected") and armguard's link stays up.
 */
import { afterEach, describe, expect, it } from 'vitest';
import mqtt from 'mqtt';
import { NetworkWorker } from '../../src/telemetry/network-worker.js';
import type { LinkEvent } from '../../src/telemetry/mqtt-link.js';

const ROBOT = 'take1';
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

describe("armguard's client id on the embedded broker", () => {
  it("refuses a policy or viewer connecting as armguard-<robot>; armguard's link is not taken over", async () => {
    const events: LinkEvent[] = [];
    const net = new NetworkWorker(
      {
        broker: {
          kind: 'embedded',
          port: 0,
          host: '127.0.0.1',
          access: {
            users: [
              { username: 'vla', password: 'vla-secret1', roles: ['policy'] },
              { username: 'watch', password: 'watch-secret1', roles: ['viewer'] },
            ],
          },
        },
        robot: ROBOT,
        connectTimeoutSeconds: 5,
      },
      { estop: () => undefined, release: () => ({ ok: true }), label: () => ({ ok: true }) },
      { now: () => performance.now() / 1000 },
    );
    net.onEvent((e) => events.push(e));
    cleanups.push(() => net.stop());
    const started = await net.start();
    expect(started.connected).toBe(true);

    for (const [username, password] of [
      ['vla', 'vla-secret1'],
      ['watch', 'watch-secret1'],
    ] as const) {
      const attempt = mqtt.connectAsync(started.url, {
        username,
        password,
        clientId: `armguard-${ROBOT}`,
        reconnectPeriod: 0,
        connectTimeout: 3000,
      });
      await expect(attempt).rejects.toThrow(/identifier rejected|Identifier rejected/i);
    }
    // Give a takeover time to show: armguard's link would go offline and reconnect.
    await new Promise((r) => setTimeout(r, 500));
    expect(events.filter((e) => e.kind === 'offline')).toEqual([]);
    expect(net.connected).toBe(true);

    // The same users with their own client ids are served as before.
    const ok = await mqtt.connectAsync(started.url, {
      username: 'vla',
      password: 'vla-secret1',
      clientId: 'vla-own-id',
      reconnectPeriod: 0,
    });
    cleanups.push(() => ok.endAsync(true));
    expect(ok.connected).toBe(true);
  }, 20_000);
});
