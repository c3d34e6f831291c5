/**
 * Issue 14 item 10: after a serial disconnect the bus never reconnected, and the shutdown line
 * said "arm held" even when the shutdown hold failed. The disconnect is real: the socat pty pair
 * carrying the emulated SO-101's bus is killed (both ttys vanish, as when a USB adapter is pulled)
 * and, for the reconnect, a new socat pair appears under the same names with the emulator on it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { openPtyPair, serveEmulatorOnPort } from '../../drivers/feetech/index.js';
import { describeShutdownHold } from '../../src/cli/commands/run.js';
import type { RunSession } from '../../src/cli/compose/session.js';
import { readEpisode } from '../../src/episode/index.js';
import { systemClock } from '../../src/platform/system-clock.js';
import { startEmulatedSession, waitUntil } from '../support/run-session.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function startSession(): Promise<{ s: RunSession; log: string[] }> {
  const { s, log } = await startEmulatedSession();
  cleanup.push(() => s.stop('test cleanup'));
  return { s, log };
}

describe('serial disconnect and reconnect', () => {
  it('the bus reopens with back-off when the port comes back; the hold stays until an operator releases', async () => {
    const { s, log } = await startSession();
    await waitUntil(() => !Number.isNaN(s.conn.arm.readPositions(new Float64Array(6))), 5, 'a first joint sample');
    expect(s.gate.state).toBe('armed');
    const em = s.conn.emulated!;
    await em.pty.kill();
    await waitUntil(() => s.gate.state === 'hold', 5, 'hold on the disconnect');
    await waitUntil(() => log.some((l) => /^serial: .* disconnected; reconnecting/.test(l)), 5, 'the reconnect notice');
    // Let a few attempts fail (no port), then plug the "adapter" back in under the same name.
    await new Promise((r) => setTimeout(r, 800));
    expect(s.conn.bus.connected).toBe(false);
    const prefix = em.pty.a.slice(0, -'-a'.length);
    const pty = await openPtyPair({ prefix });
    cleanup.push(() => pty.kill());
    const served = await serveEmulatorOnPort(em.emulator, { path: pty.b });
    if (!served.ok) throw new Error(served.detail);
    cleanup.push(() => served.link.close());
    await waitUntil(
      () =>
        log.some((l) =>
          /^serial: reconnected to .* after \d+ attempt\(s\); all servos answer; the arm stays held until an operator releases$/.test(
            l,
          ),
        ),
      10,
      'the reconnect',
    );
    const rx = s.conn.bus.counters.rx;
    await waitUntil(() => s.conn.bus.counters.rx > rx + 30, 5, 'state reads on the new link');
    expect(s.gate.state).toBe('hold'); // latched: no release by itself
    // Once the outage's faults are quiet (1 s), an operator release arms the gate again.
    await waitUntil(() => s.gate.persistingReason(systemClock.now()) === null, 5, 'the causes to clear');
    expect(s.gate.state).toBe('hold');
    await s.act('release');
    expect(s.gate.state).toBe('armed');
  }, 40_000);

  it('a shutdown whose hold cannot reach the arm says so (arm NOT held), and records it', async () => {
    const { s } = await startSession();
    await waitUntil(() => !Number.isNaN(s.conn.arm.readPositions(new Float64Array(6))), 5, 'a first joint sample');
    await s.conn.emulated!.pty.kill();
    await waitUntil(() => s.gate.state === 'hold', 5, 'hold');
    await new Promise((r) => setTimeout(r, 100)); // older than the hold's fallback position (0.05 s)
    const path = s.episodes.path!;
    await s.stop('test done');
    expect(s.shutdownHold).toMatchObject({ kind: 'failed', detail: expect.stringMatching(/disconnect/) });
    expect(describeShutdownHold(s.shutdownHold)).toMatch(/^arm NOT held \(shutdown hold failed: disconnect/);
    expect(describeShutdownHold({ kind: 'held' })).toBe('arm held');
    const events: string[] = [];
    await readEpisode(path, (r) => void (r.kind === 'gate' && r.value.kind === 'event' && events.push(r.value.event)), {
      kinds: ['gate'],
    });
    expect(events).toEqual(expect.arrayContaining(['shutdown-hold', 'shutdown-hold-failed']));
  }, 30_000);
});
