/**
 * Issue #14: the network worker (embedded broker, armguard's MQTT link, dashboard) killed for real
 * under a live `armguard run` session on the emulator: its thread is terminated mid-run. The remote
 * e-stop can no longer arrive, so the gate holds with a recorded `mqtt-link-lost` fault that lasts
 * while the worker is down (release refused), the control loop keeps stepping on its own thread,
 * and the worker is started again on the same broker port: once its link has subscribed, an
 * operator release arms the arm, and a remote e-stop sent to the restarted broker holds it again.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Worker } from 'node:worker_threads';
import mqtt from 'mqtt';
import type { ControlLoop } from '../../src/cli/compose/control-loop.js';
import type { NetworkWorker } from '../../src/telemetry/network-worker.js';
import { topicFor } from '../../src/telemetry/topics.js';
import { episodeGateRecords, startEmulatedSession, waitUntil } from '../support/run-session.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

describe('network worker killed during a run', () => {
  it('holds with a recorded fault while it is down, the control loop keeps running, and it comes back for an operator release', async () => {
    const { s, log } = await startEmulatedSession();
    cleanups.push(() => s.stop('test cleanup'));
    const net = s.telemetry!.link as NetworkWorker;
    // Test access to the session's loop counter and the worker thread (private: nothing else may kill it).
    const loop = (s as unknown as { loop: ControlLoop }).loop;
    const url = s.brokerUrl!;
    await waitUntil(() => s.gate.state === 'armed', 10, 'the gate armed');

    await (net as unknown as { worker: Worker }).worker.terminate();
    const stepsAtKill = loop.steps;
    await waitUntil(() => s.gate.state === 'hold', 2, 'the hold after the kill');
    expect(s.gate.holdCause).toMatchObject({
      kind: 'driver-fault',
      fault: { kind: 'mqtt-link-lost', detail: expect.stringMatching(/network worker exited/) },
    });
    expect(s.telemetry!.remote.commandChannelDown).toMatch(/network worker exited/);
    // the loop runs on: 100 Hz for a further 0.3 s at least
    await new Promise((r) => setTimeout(r, 300));
    expect(loop.steps - stepsAtKill).toBeGreaterThan(10);
    expect((await s.act('release'), s.gate.state)).toBe('hold');

    // Started again on the same port; the new link subscribes; the fault stops; an operator release arms.
    await waitUntil(
      () => net.restarts === 1 && s.telemetry!.remote.commandChannelDown === null,
      10,
      'the worker started again and its link subscribed',
    );
    await waitUntil(
      () => {
        if (s.gate.state === 'hold') void s.act('release');
        return s.gate.state !== 'hold';
      },
      5,
      'a release accepted',
    );
    expect(log).toContainEqual(
      expect.stringMatching(
        /^network worker started again after it exited with code 1 \(broker mqtt:\/\/127\.0\.0\.1:\d+/,
      ),
    );

    // The command channel works again: a remote e-stop to the same broker URL holds.
    const op = await mqtt.connectAsync(url, {
      username: 'alice',
      password: 'alice-secret',
      clientId: `kill-test-${process.pid}`,
    });
    cleanups.push(() => op.endAsync(true));
    await op.publishAsync(topicFor('arm9', 'cmd/estop'), JSON.stringify({ v: 1, reason: 'after restart', id: 'k1' }), {
      qos: 1,
    });
    await waitUntil(() => s.gate.eStops.some((e) => e.id === 'k1'), 5, 'the e-stop through the restarted worker');
    expect(s.gate.state).toBe('hold');

    const path = s.episodes.path!;
    await s.stop('test done');
    const records = await episodeGateRecords(path);
    expect(
      records.some(
        (r) => r.kind === 'fault' && /^mqtt-link-lost: .*network worker exited/.test(String(r.fault.detail)),
      ),
    ).toBe(true);
    expect(
      records.some((r) => r.kind === 'transition' && r.to === 'hold' && /network worker exited/.test(r.reason)),
    ).toBe(true);
    expect(
      records.some((r) => r.kind === 'event' && r.event === 'network-worker' && /started again/.test(r.detail ?? '')),
    ).toBe(true);
  }, 60_000);
});
