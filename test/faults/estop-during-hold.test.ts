/**
 * Issue #14 item 4 (and the dashboard half of item 1) on a live `armguard run` session: the arm
 * already holds because a servo stopped answering; the dashboard E-STOP is pressed (WebSocket, as
 * the page does). The press is confirmed by the gate state (not the broker's PUBACK), recorded in
 * the episode and on the events topic, and latches on its own: once the servo answers again the
 * operator's release is refused until an operator resets the e-stop naming who pressed it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { RunSession } from '../../src/cli/compose/session.js';
import { topicFor } from '../../src/telemetry/topics.js';
import { openDashboardPage } from '../support/dashboard-page.js';
import { RecordingClient } from '../support/mqtt-client.js';
import { episodeGateRecords, startEmulatedSession, waitUntil } from '../support/run-session.js';

const sessions: RunSession[] = [];
afterEach(async () => {
  for (const s of sessions.splice(0)) await s.stop('test cleanup');
});

describe('an e-stop pressed while the gate already holds', () => {
  it('is confirmed by the gate, recorded, published, and survives the release until reset by name', async () => {
    const { s, log } = await startEmulatedSession({
      dashboard: { port: 0, viewer: { username: 'viewer', password: 'viewer-secret' } },
    });
    sessions.push(s);
    await waitUntil(() => !Number.isNaN(s.conn.arm.readPositions(new Float64Array(6))), 5, 'a first joint sample');
    const watcher = await RecordingClient.connect(s.brokerUrl!, 'viewer', 'viewer-secret');
    await watcher.subscribe(topicFor('arm9', 'events'));
    await watcher.subscribe(topicFor('arm9', 'gate'));

    s.conn.emulated!.emulator.servo(2).responsive = false;
    await waitUntil(() => s.gate.state === 'hold', 5, 'the hold on a silent servo');
    expect(['driver-fault', 'watchdog']).toContain(s.gate.holdCause?.kind);

    const page = await openDashboardPage(s.dashboard!.url);
    page.send({ type: 'estop', robot: 'arm9' });
    const pressed = await page.next('command-result');
    expect(pressed).toMatchObject({
      command: 'estop',
      ok: true,
      confirmed: true,
      state: 'hold',
      pressedBy: 'mqtt (dashboard)',
    });
    expect(s.gate.eStops.map((l) => l.by)).toEqual(['mqtt (dashboard)']);
    await watcher.waitFor(
      (t, p) => t === topicFor('arm9', 'events') && JSON.parse(p).kind === 'e-stop',
      5,
      'the e-stop event',
    );
    await watcher.waitFor(
      (t, p) => t === topicFor('arm9', 'gate') && JSON.parse(p).estop?.latched === true,
      5,
      'the latched gate state',
    );

    // The servo answers again: the fault's cause is gone, the e-stop is not.
    s.conn.emulated!.emulator.servo(2).responsive = true;
    await new Promise((r) => setTimeout(r, 1300));
    await s.act('release');
    expect(s.gate.state).toBe('hold');
    expect(log.some((l) => /release refused: .*e-stop from mqtt \(dashboard\) is latched/.test(l))).toBe(true);
    // The keyboard reset names only the keyboard's own e-stop: it does not clear the dashboard's.
    await s.act('estop-reset');
    expect(s.gate.eStops).toHaveLength(1);

    // A viewer may not reset; the operator resets it by name through the dashboard.
    page.send({ type: 'estop-reset', robot: 'arm9', pressedBy: 'mqtt (dashboard)' });
    expect(await page.next('command-result')).toMatchObject({
      command: 'estop-reset',
      ok: false,
      reason: 'log in first',
    });
    page.send({ type: 'login', username: 'alice', password: 'alice-secret' });
    expect(await page.next('login-result')).toMatchObject({ ok: true });
    page.send({ type: 'estop-reset', robot: 'arm9', pressedBy: 'mqtt (dashboard (alice))' });
    expect(await page.next('command-result')).toMatchObject({ command: 'estop-reset', ok: false });
    page.send({ type: 'estop-reset', robot: 'arm9', pressedBy: 'mqtt (dashboard)' });
    expect(await page.next('command-result')).toMatchObject({ command: 'estop-reset', ok: true, confirmed: true });
    await s.act('release');
    expect(s.gate.state).not.toBe('hold');
    page.close();
    await watcher.end();

    const path = s.episodes.path!;
    await s.stop('test done');
    const records = await episodeGateRecords(path);
    expect(records).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          kind: 'transition',
          from: 'hold',
          to: 'hold',
          reason: 'e-stop from mqtt (dashboard)',
        }),
        expect.objectContaining({
          kind: 'transition',
          from: 'hold',
          to: 'hold',
          reason: expect.stringMatching(/^e-stop from mqtt \(dashboard\) reset by mqtt operator/),
        }),
      ]),
    );
  }, 30_000);
});
