/**
 * Issue #14 item 1, injected for real on a live `armguard run` session with an external broker
 * (Mosquitto, MQTT 5): the broker is not running at start-up, then is killed (SIGKILL) mid-run.
 * Each time the remote e-stop cannot arrive, so the arm holds from the first step (never goes on
 * armed), the loss is recorded in the episode as a fault, release is refused while it lasts, and
 * an operator can release once the broker is back.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { RunSession } from '../../src/cli/compose/session.js';
import { parseAccessFile } from '../../src/cli/compose/access-file.js';
import { Mosquitto, freePort } from '../support/mosquitto.js';
import { SESSION_ACCESS_YAML, episodeGateRecords, startEmulatedSession, waitUntil } from '../support/run-session.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

const access = parseAccessFile(SESSION_ACCESS_YAML, 'access.yaml');

describe('external broker unreachable or killed', () => {
  it('holds from the start while the broker is down, records it, and can be released once it is up; a kill holds again', async () => {
    if (!access.ok) throw new Error('fixture');
    const mosquitto = Mosquitto.create(access.value, await freePort());
    cleanups.push(() => mosquitto.stop());
    const { s, log } = await startEmulatedSession({
      broker: {
        kind: 'external',
        url: mosquitto.url,
        username: 'armguard',
        password: 'armguard-secret',
        protocolVersion: 5,
      },
      brokerConnectTimeoutS: 1,
    });
    const session: RunSession = s;
    cleanups.push(() => session.stop('test cleanup'));
    expect(
      log.some((l) =>
        /MQTT: cannot reach mqtt:\/\/127\.0\.0\.1:\d+: the remote e-stop cannot arrive — holding/.test(l),
      ),
    ).toBe(true);
    await waitUntil(() => s.gate.state === 'hold', 2, 'the hold');
    expect(s.gate.holdCause).toMatchObject({ kind: 'driver-fault', fault: { kind: 'mqtt-link-lost' } });
    await new Promise((r) => setTimeout(r, 1200));
    await s.act('release');
    expect(s.gate.state).toBe('hold');

    await mosquitto.launch();
    await waitUntil(() => s.telemetry!.remote.commandChannelDown === null, 10, 'the command channel up');
    // once the link fault stops being re-reported, its quiet period passes and an operator may release
    await waitUntil(
      () => {
        if (s.gate.state === 'hold') void s.act('release');
        return s.gate.state !== 'hold';
      },
      5,
      'a release accepted',
    );

    await mosquitto.kill();
    await waitUntil(() => s.gate.state === 'hold', 5, 'the hold after the broker was killed');
    expect(s.gate.holdCause).toMatchObject({ kind: 'driver-fault', fault: { kind: 'mqtt-link-lost' } });

    const path = s.episodes.path!;
    await s.stop('test done');
    const records = await episodeGateRecords(path);
    const linkFaults = records.filter((r) => r.kind === 'fault' && /mqtt-link-lost/.test(String(r.fault.detail)));
    expect(linkFaults.length).toBeGreaterThanOrEqual(2); // at start and at the kill
    // the start-up hold happened before the episode file was open (its fault record says so); the kill's transition is in the file
    expect(
      records.filter((r) => r.kind === 'transition' && r.to === 'hold' && /mqtt-link-lost/.test(r.reason)),
    ).toHaveLength(1);
  }, 40_000);
});
