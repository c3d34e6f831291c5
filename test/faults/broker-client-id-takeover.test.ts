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
import { startEmbeddedNetwork } from '../support/embedded-network.js';
import type { LinkEvent } from '../../src/telemetry/mqtt-link.js';

const ROBOT = 'take1';
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

describe("armguard's client id on the embedded broker", () => {
  it("refuses a policy or viewer connecting as armguard-<robot>; armguard's link is not taken over", async () => {
    const events: LinkEvent[] = [];
    const started = await startEmbeddedNetwork({
      robot: ROBOT,
      users: [
        { username: 'vla', password: 'vla-secret1', roles: ['policy'] },
        { username: 'watch', password: 'watch-secret1', roles: ['viewer'] },
      ],
      beforeStart: (net) => net.onEvent((e) => events.push(e)),
    });
    cleanups.push(started.stop);
    const net = started.net;
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

  it("refuses one user taking over another user's client id (the dashboard's operator client); the same user may reconnect with it", async () => {
    const started = await startEmbeddedNetwork({
      robot: ROBOT,
      users: [
        { username: 'vla', password: 'vla-secret1', roles: ['policy'] },
        { username: 'op', password: 'op-secret1', roles: ['operator'] },
      ],
    });
    cleanups.push(started.stop);
    // An id as the dashboard gives an operator's session client (not reserved; readable on $SYS).
    const clientId = 'dashboard-op-417';
    const operator = await mqtt.connectAsync(started.url, {
      username: 'op',
      password: 'op-secret1',
      clientId,
      reconnectPeriod: 0,
    });
    cleanups.push(() => operator.endAsync(true));
    let operatorClosed = 0;
    operator.on('close', () => operatorClosed++);

    const thief = mqtt.connectAsync(started.url, {
      username: 'vla',
      password: 'vla-secret1',
      clientId,
      reconnectPeriod: 0,
      connectTimeout: 3000,
    });
    await expect(thief).rejects.toThrow(/identifier rejected/i);
    await new Promise((r) => setTimeout(r, 300));
    expect(operatorClosed).toBe(0);
    expect(operator.connected).toBe(true);

    // The operator's own reconnect (a lost connection, the same id) still takes the old session's place.
    const again = await mqtt.connectAsync(started.url, {
      username: 'op',
      password: 'op-secret1',
      clientId,
      reconnectPeriod: 0,
    });
    cleanups.push(() => again.endAsync(true));
    expect(again.connected).toBe(true);
    await new Promise((r) => setTimeout(r, 300));
    expect(operatorClosed).toBe(1);
  }, 20_000);
});
