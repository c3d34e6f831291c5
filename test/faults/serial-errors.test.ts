/**
 * Issue 14 item 9: servo error bytes reached the episode, but the gate cause, the log and the MQTT
 * event said only "servo-error" (and, reported once, it let a release through after 1 s while the
 * servo still reported the bits); garbage on the bus read as a plain timeout. Real bytes over a real
 * socat pty: the emulated servo reports overheat + overload in its status byte, and noise is
 * written onto the line while a servo stays silent.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FeetechEmulator, openPtyPair, serveEmulatorOnPort, FeetechBus } from '../../drivers/feetech/index.js';
import { describeCause } from '../../src/gate/index.js';
import type { Fault } from '../../src/ports/index.js';
import { systemClock } from '../../src/platform/system-clock.js';
import { topicFor } from '../../src/telemetry/topics.js';
import { RecordingClient } from '../support/mqtt-client.js';
import { startEmulatedSession, waitUntil } from '../support/run-session.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

describe('servo errors and bus garbage are named', () => {
  it('an error byte names the servo, its joint and the bits in the gate cause, the log and the MQTT event', async () => {
    const { s, log, calibration } = await startEmulatedSession();
    cleanup.push(() => s.stop('test cleanup'));
    const alice = await RecordingClient.connect(s.brokerUrl!, 'alice', 'alice-secret');
    cleanup.push(() => alice.end());
    await alice.subscribe(topicFor('arm9', 'events'));
    await waitUntil(() => s.gate.state === 'armed', 5, 'armed');
    const elbow = calibration.joints.find((j) => j.id === 3)!.name;
    s.conn.emulated!.emulator.servo(3).injectedErrors = 0x04 | 0x20; // overheat + overload
    await waitUntil(() => s.gate.state === 'hold', 5, 'hold');
    const expected = `servo 3 (${elbow}): overheat, overload (error byte 0x24)`;
    expect(describeCause(s.gate.holdCause!)).toContain(expected);
    expect(log.some((l) => l.startsWith('fault: servo-error') && l.includes(expected))).toBe(true);
    await alice.waitFor((t, p) => t === topicFor('arm9', 'events') && p.includes(expected), 5, 'the MQTT fault event');
    // While the servo keeps reporting the bits, a release is refused (also after the 1 s fault quiet period).
    await new Promise((r) => setTimeout(r, 1500));
    await s.act('release');
    expect(s.gate.state).toBe('hold');
    expect(log.some((l) => l.startsWith('release refused') && l.includes(expected))).toBe(true);
    // Cooled down: the bits clear, and after the quiet period the operator can release.
    s.conn.emulated!.emulator.servo(3).injectedErrors = 0;
    await waitUntil(() => s.gate.persistingReason(systemClock.now()) === null, 5, 'the servo error to clear');
    await s.act('release');
    expect(s.gate.state).toBe('armed');
  }, 30_000);

  it('noise on the line while a servo is silent is a framing fault, counted apart from timeouts', async () => {
    const emu = new FeetechEmulator();
    emu.addServo(1);
    emu.addServo(2);
    const pair = await openPtyPair();
    cleanup.push(() => pair.kill());
    const served = await serveEmulatorOnPort(emu, { path: pair.b });
    if (!served.ok) throw new Error(served.detail);
    cleanup.push(() => served.link.close());
    const b = await FeetechBus.open({ path: pair.a, timeoutS: 0.05, retries: 2 });
    if (!b.ok) throw new Error(b.error.kind);
    const bus = b.value;
    cleanup.push(() => bus.close());
    const faults: Fault[] = [];
    bus.onFault((f) => faults.push(f));

    emu.servo(2).responsive = false;
    // A silent servo, a quiet line: a timeout.
    expect((await bus.ping(2)).ok).toBe(false);
    expect(faults.map((f) => f.kind)).toEqual(['timeout']);
    // A silent servo and noise on the line (bytes that never form a valid packet): a framing fault.
    const noise = setInterval(() => served.link.write(Uint8Array.from([0xff, 0x13, 0x37, 0x00, 0xfe, 0x42])), 10);
    const r = await bus.ping(2);
    clearInterval(noise);
    expect(r.ok).toBe(false);
    expect(faults.map((f) => f.kind)).toEqual(['timeout', 'framing']);
    expect(faults[1]).toMatchObject({
      kind: 'framing',
      servoIds: [2],
      detail: expect.stringMatching(
        /^PING 2: \d+ byte\(s\) arrived that were no valid reply; no reply from servo\(s\) 2 after 3 attempt\(s\)/,
      ),
    });
    expect(bus.counters).toMatchObject({ timeouts: 1, framingErrors: 1 });
    // A servo that answers is still read fine after the noise.
    await new Promise((res) => setTimeout(res, 200));
    expect((await bus.ping(1)).ok).toBe(true);
  }, 30_000);
});
