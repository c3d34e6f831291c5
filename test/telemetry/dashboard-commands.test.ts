/**
 * Dashboard commands are confirmed by the broker before the page is told they worked: a release
 * from a login without the operator role is reported as failed (and that login dropped, so the
 * refused publish is not re-sent on every reconnect); an operator's release reaches the topic.
 * Embedded broker with the access policy, the dashboard's WebSocket protocol from Node.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import mqtt from 'mqtt';
import { EmbeddedBroker } from '../../src/telemetry/embedded-broker.js';
import { DashboardServer } from '../../src/telemetry/dashboard/server.js';
import { topicFor } from '../../src/telemetry/topics.js';
import { openDashboardPage } from '../support/dashboard-page.js';

let broker: EmbeddedBroker;
let dashboard: DashboardServer;
let brokerUrl = '';
let pageUrl = '';

beforeAll(async () => {
  broker = new EmbeddedBroker({
    users: [
      { username: 'dashboard', password: 'dash-pass', roles: ['viewer'] },
      { username: 'vic', password: 'vic-pass1', roles: ['viewer'] },
      { username: 'alice', password: 'op-pass1', roles: ['operator'] },
    ],
  });
  brokerUrl = await broker.start();
  dashboard = new DashboardServer({
    brokerUrl,
    viewer: { username: 'dashboard', password: 'dash-pass' },
    port: 0,
    commandAckTimeoutMs: 300,
    estopConfirmTimeoutMs: 500,
  });
  pageUrl = await dashboard.start();
});
afterAll(async () => {
  await dashboard.stop();
  await broker.stop();
});

describe('dashboard commands are confirmed by the broker', () => {
  it('a viewer login pressing release is told it failed; an operator release reaches the topic', async () => {
    const watcher = await mqtt.connectAsync(brokerUrl, { username: 'alice', password: 'op-pass1', protocolVersion: 4 });
    const seen: string[] = [];
    watcher.on('message', (topic) => seen.push(topic));
    await watcher.subscribeAsync(topicFor('arm1', 'cmd/release'));

    const p = await openDashboardPage(pageUrl);
    p.send({ type: 'login', username: 'vic', password: 'vic-pass1' });
    expect(await p.next('login-result')).toMatchObject({ ok: true });
    p.send({ type: 'release', robot: 'arm1' });
    const refused = await p.next('command-result');
    expect(refused.ok).toBe(false);
    expect(refused.reason).toMatch(/not accepted by the broker|connection closed|disconnect/i);
    // the login was dropped: the next release asks to log in
    p.send({ type: 'release', robot: 'arm1' });
    expect(await p.next('command-result')).toMatchObject({ ok: false, reason: 'log in first' });

    p.send({ type: 'login', username: 'alice', password: 'op-pass1' });
    expect(await p.next('login-result')).toMatchObject({ ok: true });
    p.send({ type: 'release', robot: 'arm1' });
    expect(await p.next('command-result')).toMatchObject({ ok: true, command: 'release' });
    await expect.poll(() => seen.length, { timeout: 2000 }).toBe(1);

    // No armguard runs for arm1: the broker accepts the e-stop but no gate confirms it, so it is not reported done.
    p.send({ type: 'estop', robot: 'arm1' });
    const estop = await p.next('command-result');
    expect(estop).toMatchObject({ ok: false, confirmed: false, command: 'estop' });
    expect(estop.reason).toMatch(/did not confirm it .*NOT stopped/);
    p.close();
    await watcher.endAsync();
  });
});
