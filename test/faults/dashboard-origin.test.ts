/**
 * Issue #14 item 15, against the real servers on loopback: the dashboard refuses a WebSocket from
 * another Origin (a page on another site, DNS rebinding) and any request with a foreign Host
 * header; failed logins are rate-limited per address at the dashboard and at the embedded broker.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import mqtt from 'mqtt';
import { DashboardServer } from '../../src/telemetry/dashboard/server.js';
import { EmbeddedBroker } from '../../src/telemetry/embedded-broker.js';
import { LoginThrottle } from '../../src/telemetry/login-throttle.js';

let broker: EmbeddedBroker;
let dashboard: DashboardServer;
let brokerUrl = '';
let pageUrl = '';
beforeAll(async () => {
  broker = new EmbeddedBroker(
    { users: [{ username: 'alice', password: 'op-secret1', roles: ['operator'] }] },
    { loginThrottle: new LoginThrottle({ maxFailures: 3, windowSeconds: 60 }) },
  );
  brokerUrl = await broker.start();
  dashboard = new DashboardServer({
    brokerUrl,
    viewer: broker.internal.viewer,
    port: 0,
    loginThrottle: new LoginThrottle({ maxFailures: 3, windowSeconds: 60 }),
  });
  pageUrl = (await dashboard.start()).replace(/\/$/, '');
});
const afterAllStops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const stop of afterAllStops) await stop();
  await dashboard.stop();
  await broker.stop();
});

function wsOpen(origin: string | undefined, headers: Record<string, string> = {}): Promise<'open' | string> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${pageUrl.replace(/^http/, 'ws')}/ws`, { ...(origin ? { origin } : {}), headers });
    ws.once('open', () => (ws.close(), resolve('open')));
    ws.once('unexpected-response', (_req, res) => resolve(`refused ${res.statusCode}`));
    ws.once('error', (e) => resolve(`error ${e.message}`));
  });
}

function get(host: string): Promise<number> {
  const u = new URL(pageUrl);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path: '/', headers: { host } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.once('error', reject);
    req.end();
  });
}

describe('dashboard Origin and Host', () => {
  it('accepts the served origin (and localhost on 127.0.0.1), refuses others and a missing Origin', async () => {
    const port = new URL(pageUrl).port;
    expect(await wsOpen(pageUrl)).toBe('open');
    expect(await wsOpen(`http://localhost:${port}`)).toBe('open');
    expect(await wsOpen('https://evil.example')).toBe('refused 401');
    expect(await wsOpen(`http://127.0.0.1:${Number(port) + 1}`)).toBe('refused 401');
    expect(await wsOpen(undefined)).toBe('refused 401');
  });

  it('refuses a foreign Host header (DNS rebinding) on the page and the WebSocket', async () => {
    const port = new URL(pageUrl).port;
    expect(await get(`127.0.0.1:${port}`)).toBe(200);
    expect(await get(`rebind.evil.example:${port}`)).toBe(421);
    expect(await wsOpen(pageUrl, { host: `rebind.evil.example:${port}` })).toBe('refused 401');
  });
});

describe('login rate limits', () => {
  it('the dashboard refuses logins from an address after 3 failures, without asking the broker', async () => {
    const ws = new WebSocket(`${pageUrl.replace(/^http/, 'ws')}/ws`, { origin: pageUrl });
    await new Promise((r) => ws.once('open', r));
    const results: string[] = [];
    ws.on('message', (d) => {
      const m = JSON.parse(d.toString()) as { type: string; ok?: boolean; reason?: string };
      if (m.type === 'login-result') results.push(`${m.ok}: ${m.reason ?? ''}`);
    });
    for (let i = 0; i < 5; i++) {
      ws.send(JSON.stringify({ type: 'login', username: 'alice', password: `wrong-${i}` }));
      await new Promise<void>((resolve) => {
        const check = () => (results.length > i ? resolve() : setTimeout(check, 10));
        check();
      });
    }
    ws.send(JSON.stringify({ type: 'login', username: 'alice', password: 'op-secret1' }));
    await new Promise<void>((resolve) => {
      const check = () => (results.length > 5 ? resolve() : setTimeout(check, 10));
      check();
    });
    ws.close();
    expect(results.slice(0, 3)).toEqual([
      'false: login refused by the broker',
      'false: login refused by the broker',
      'false: login refused by the broker',
    ]);
    for (const r of results.slice(3))
      expect(r).toMatch(/^false: too many failed logins from this address: try again in \d+ s$/);
  });

  it('the embedded broker refuses connections from an address after 3 failed logins, even with the right password', async () => {
    // its own broker: the dashboard's failed logins above came from this address too
    const own = new EmbeddedBroker(
      { users: [{ username: 'alice', password: 'op-secret1', roles: ['operator'] }] },
      { loginThrottle: new LoginThrottle({ maxFailures: 3, windowSeconds: 60 }) },
    );
    const ownUrl = await own.start();
    afterAllStops.push(() => own.stop());
    expect(
      await mqtt
        .connectAsync(ownUrl, { username: 'alice', password: 'op-secret1', reconnectPeriod: 0 })
        .then(async (c) => (await c.endAsync(true), 'connected')),
    ).toBe('connected');
    const attempt = (password: string) =>
      mqtt.connectAsync(ownUrl, { username: 'alice', password, reconnectPeriod: 0, connectTimeout: 3000 }).then(
        async (c) => (await c.endAsync(true), 'connected'),
        (e: Error) => e.message,
      );
    for (let i = 0; i < 3; i++) expect(await attempt(`bad-${i}`)).toMatch(/Bad username or password/i);
    expect(await attempt('op-secret1')).toMatch(/Not authorized/i);
  });
});
