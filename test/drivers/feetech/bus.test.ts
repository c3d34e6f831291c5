/**
 * Bus behaviour on serialport's mock binding with the emulator behind it and ManualTimers, so
 * timeouts, retries and budgets are exercised deterministically (no real sleeps).
 */
import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Fault } from '../../../src/ports/index.js';
import { ArmguardError } from '../../../src/util/errors.js';
import { ManualClock, ManualTimers } from '../../../src/util/clock.js';
import {
  ERROR_BITS,
  type ByteLink,
  FeetechBus,
  type FeetechBusOptions,
  FeetechEmulator,
  createEmulatorMockBinding,
} from '../../../drivers/feetech/index.js';

let seq = 0;
const open: FeetechBus[] = [];

async function rig(options: FeetechBusOptions = {}, ids = [1, 2, 3, 4, 5, 6], replyDelayS = 0) {
  const clock = new ManualClock(0);
  const timers = new ManualTimers(clock);
  const emu = new FeetechEmulator({ ids, timers, extraReplyDelayS: replyDelayS });
  const path = `/dev/feetech-bus-test-${process.pid}-${++seq}`;
  const binding = createEmulatorMockBinding(emu, path);
  const r = await FeetechBus.open({ path, binding, timers, clock, timeoutS: 0.02, retries: 2, ...options });
  if (!r.ok) throw new Error(`open failed: ${JSON.stringify(r.error)}`);
  const bus = r.value;
  open.push(bus);
  const faults: Fault[] = [];
  bus.onFault((f) => faults.push(f));
  /** Let I/O callbacks run; advance manual time in small steps only while the promise is pending. */
  async function settle<T>(p: Promise<T>): Promise<T> {
    let done = false;
    void p.then(() => (done = true));
    for (let i = 0; i < 400 && !done; i++) {
      for (let k = 0; k < 4 && !done; k++) await new Promise((r) => setImmediate(r));
      if (!done) timers.advance(0.005);
    }
    if (!done) throw new Error('request never settled');
    return p;
  }
  return { bus, emu, binding, timers, clock, faults, settle };
}

afterEach(async () => {
  for (const b of open.splice(0)) if (b.connected) await b.close();
});

describe('FeetechBus over the mock binding', () => {
  it('reads and writes registers with sign-magnitude values', async () => {
    const { bus, emu, settle } = await rig();
    expect(await settle(bus.writeRegister(2, 'Goal_Position', -300))).toEqual({ ok: true, value: undefined });
    expect(emu.servo(2).goalPosition).toBe(-300);
    emu.servo(5).setPresent({ load: -512 });
    expect(await settle(bus.readRegister(5, 'Present_Load'))).toEqual({ ok: true, value: -512 });
    expect(bus.counters).toMatchObject({ tx: 2, rx: 2, timeouts: 0, retries: 0, checksumErrors: 0 });
  });

  it('serialises concurrent requests on the half-duplex bus', async () => {
    const { bus, emu, settle } = await rig();
    for (const id of [1, 2, 3, 4, 5, 6]) emu.servo(id).setPresent({ position: 100 * id });
    const all = Promise.all([1, 2, 3, 4, 5, 6].map((id) => bus.readRegister(id, 'Present_Position')));
    const got = await settle(all);
    expect(got.map((r) => (r.ok ? r.value : NaN))).toEqual([100, 200, 300, 400, 500, 600]);
  });

  it('sync write then full-state sync read', async () => {
    const { bus, emu, settle } = await rig();
    const goals = new Map([
      [1, 100],
      [2, -200],
      [6, 4095],
    ]);
    expect((await settle(bus.syncWriteRegister('Goal_Position', goals))).ok).toBe(true);
    expect([1, 2, 6].map((id) => emu.servo(id).goalPosition)).toEqual([100, -200, 4095]);
    emu.servo(3).setPresent({ position: 1000, velocity: -50, load: 300, current: 42, temperature: 40, moving: true });
    const r = await settle(bus.readFullState([1, 2, 3, 4, 5, 6]));
    if (!r.ok) throw new Error(r.error.kind);
    expect(r.value.get(3)).toEqual({
      id: 3,
      position: 1000,
      velocity: -50,
      load: 300,
      voltage: 74,
      temperature: 40,
      status: 0,
      moving: true,
      current: 42,
      errorByte: 0,
    });
    expect([...r.value.keys()]).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('a servo that stops answering: bounded retries, then a timeout fault naming it', async () => {
    const { bus, emu, faults, settle } = await rig();
    emu.servo(4).responsive = false;
    const r = await settle(bus.readRegister(4, 'Present_Position'));
    expect(r.ok).toBe(false);
    expect(faults).toHaveLength(1);
    expect(faults[0]).toMatchObject({ kind: 'timeout', servoIds: [4] });
    expect(bus.counters).toMatchObject({ tx: 3, retries: 2, timeouts: 1 });
    // The bus keeps working for the others.
    expect((await settle(bus.ping(1))).ok).toBe(true);
  });

  it('sync read re-asks only the missing servo', async () => {
    const { bus, emu, faults, settle } = await rig();
    emu.servo(2).responsive = false;
    const r = await settle(bus.readFullState([1, 2, 3, 4, 5, 6]));
    expect(r.ok).toBe(false);
    expect(faults[0]).toMatchObject({ kind: 'timeout', servoIds: [2] });
    // 14-byte SYNC_READ for six, then two 9-byte SYNC_READs for servo 2 alone.
    expect(bus.counters.txBytes).toBe(14 + 9 + 9);
    expect(bus.counters.rx).toBe(5);
  });

  it('a late reply to a retried request is not taken as the answer to the next request', async () => {
    // Replies take 25 ms, the timeout is 20 ms: the first READ is retried, answered late, and the
    // retry's own reply arrives after the transaction ended. Same id, same length as the next READ.
    const { bus, emu, settle } = await rig({ timeoutS: 0.02, retries: 2 }, [1], 0.025);
    emu.servo(1).setPresent({ position: 1111 });
    emu.servo(1).setRegister('Goal_Position', 2222);
    const present = bus.readRegister(1, 'Present_Position');
    const goal = bus.readRegister(1, 'Goal_Position');
    expect(await settle(present)).toEqual({ ok: true, value: 1111 });
    expect(await settle(goal)).toEqual({ ok: true, value: 2222 });
    expect(bus.counters.unexpected).toBeGreaterThanOrEqual(1);
  });

  it('a retry succeeds after a corrupted reply; the checksum error is counted', async () => {
    const { bus, emu, faults, settle } = await rig();
    emu.servo(1).corruptReplies = 1;
    const r = await settle(bus.ping(1));
    expect(r).toEqual({ ok: true, value: { id: 1, errorByte: 0 } });
    expect(bus.counters).toMatchObject({ checksumErrors: 1, retries: 1, timeouts: 0 });
    expect(faults).toEqual([]);
  });

  it('checksum errors beyond the budget raise a checksum-budget fault', async () => {
    const { bus, emu, faults, settle } = await rig({ checksumBudget: { maxErrors: 2, windowS: 1 } });
    emu.servo(1).corruptReplies = 3;
    const r = await settle(bus.ping(1));
    expect(r.ok).toBe(false);
    // Every attempt got a corrupted reply: a framing fault (garbage arrived), not a silent-servo timeout.
    expect(faults.map((f) => f.kind)).toEqual(['checksum-budget', 'framing']);
    expect(bus.counters).toMatchObject({ timeouts: 0, framingErrors: 1 });
  });

  it('errors spread over more than the window stay within budget', async () => {
    const { bus, emu, faults, settle, timers } = await rig({ checksumBudget: { maxErrors: 2, windowS: 1 } });
    for (let i = 0; i < 4; i++) {
      emu.servo(1).corruptReplies = 1;
      expect((await settle(bus.ping(1))).ok).toBe(true);
      timers.advance(0.6);
    }
    expect(bus.counters.checksumErrors).toBe(4);
    expect(faults).toEqual([]);
  });

  it('servo error bits become a servo-error fault, once per change', async () => {
    const { bus, emu, faults, settle } = await rig();
    emu.servo(6).injectedErrors = ERROR_BITS.overload;
    const r = await settle(bus.readFullState([5, 6]));
    expect(r.ok && r.value.get(6)?.errorByte).toBe(ERROR_BITS.overload);
    await settle(bus.readFullState([5, 6]));
    expect(faults).toEqual([
      {
        kind: 'servo-error',
        source: bus.source,
        servoId: 6,
        bits: ['overload'],
        detail: 'servo 6: overload (error byte 0x20)',
      },
    ]);
    emu.servo(6).injectedErrors = ERROR_BITS.overload | ERROR_BITS.overcurrent;
    await settle(bus.ping(6));
    expect(faults[1]).toMatchObject({ kind: 'servo-error', servoId: 6, bits: ['overcurrent', 'overload'] });
    expect(bus.errorByte(6)).toBe(0x28);
    expect(bus.counters.servoErrorReplies).toBe(3);
  });

  it('a port that disappears: disconnect fault, pending and later requests fail, nothing throws', async () => {
    const { bus, emu, binding, faults, settle } = await rig();
    emu.servo(3).responsive = false;
    const pending = bus.ping(3);
    await new Promise((r) => setImmediate(r));
    binding.disconnect();
    const r = await settle(pending);
    expect(r).toMatchObject({ ok: false, error: { kind: 'disconnect' } });
    expect(faults.map((f) => f.kind)).toEqual(['disconnect']);
    expect(bus.connected).toBe(false);
    expect(await bus.readFullState([1])).toMatchObject({ ok: false, error: { kind: 'disconnect' } });
  });

  it('closing the bus on purpose is not a fault', async () => {
    const { bus, faults } = await rig();
    await bus.close();
    expect(faults).toEqual([]);
    expect((await bus.ping(1)).ok).toBe(false);
  });

  it('a throwing fault listener does not break the bus', async () => {
    const { bus, emu, faults, settle } = await rig();
    bus.onFault(() => {
      throw new Error('listener bug');
    });
    emu.servo(1).injectedErrors = ERROR_BITS.overheat;
    expect((await settle(bus.ping(1))).ok).toBe(true);
    expect(faults).toHaveLength(1);
  });

  it('no reply expected when servos are configured not to answer writes', async () => {
    const { bus, emu, settle } = await rig({ writeReplies: false });
    emu.servo(1).setRegister('Response_Status_Level', 0);
    expect((await settle(bus.writeRegister(1, 'Torque_Enable', 1))).ok).toBe(true);
    expect(emu.servo(1).torqueEnabled).toBe(true);
    expect(bus.counters.timeouts).toBe(0);
  });

  it('REG_WRITE + ACTION', async () => {
    const { bus, emu, settle } = await rig();
    expect((await settle(bus.regWrite(1, 42, Uint8Array.of(0, 1)))).ok).toBe(true);
    expect(emu.servo(1).goalPosition).toBe(2048);
    expect((await settle(bus.action())).ok).toBe(true);
    expect(emu.servo(1).goalPosition).toBe(256);
  });

  it('rejects invalid arguments (programming errors) with context', async () => {
    const { bus } = await rig();
    await expect(bus.read(300, 56, 2)).rejects.toThrow(ArmguardError);
    await expect(bus.writeRegister(1, 'Present_Position', 5)).rejects.toThrow(/read-only/);
    await expect(bus.writeRegister(1, 'Goal_Position', 40000)).rejects.toThrow(/does not fit/);
    await expect(bus.syncRead([1, 1], 56, 2)).rejects.toThrow(/duplicate/);
  });

  it('line noise before every reply: nothing throws, every read still returns the right values', async () => {
    const noise = fc
      .array(fc.oneof(fc.constant(0xff), fc.integer({ min: 0, max: 255 })), { maxLength: 40 })
      .map((a) => Uint8Array.from(a));
    await fc.assert(
      fc.asyncProperty(fc.array(noise, { minLength: 1, maxLength: 8 }), async (bursts) => {
        const { bus, emu, faults, settle } = await rig({ retries: 3 }, [1, 2, 3]);
        let k = 0;
        emu.setPhysics((s) => {
          s.setPresent({ position: 10 * s.id, load: -s.id });
          emu.injectNoise(bursts[k++ % bursts.length]!);
        });
        for (let i = 0; i < 4; i++) {
          const r = await settle(bus.readFullState([1, 2, 3]));
          // Resync drops one byte at a time and headers with a LEN other than the expected reply's are
          // rejected at once, so the real reply behind the noise is always found.
          if (!r.ok) throw new Error(`read ${i} failed: ${JSON.stringify(r.error)}`);
          for (const id of [1, 2, 3]) expect(r.value.get(id)).toMatchObject({ position: 10 * id, load: -id });
        }
        // Heavy noise may exhaust the checksum budget (a fault the gate holds on); nothing else.
        for (const f of faults) expect(f.kind).toBe('checksum-budget');
        await bus.close();
      }),
      { numRuns: 40 },
    );
  });

  it('a wedged adapter that never completes a no-reply write: timeout fault, and the queue moves on', async () => {
    const clock = new ManualClock(0);
    const timers = new ManualTimers(clock);
    const written: Uint8Array[] = [];
    let wedged = true;
    const link: ByteLink = {
      name: 'wedged',
      isOpen: true,
      write: (bytes, done) => {
        written.push(bytes);
        if (!wedged) done?.(null);
      },
      onData: () => undefined,
      onClose: () => undefined,
      close: async () => undefined,
    };
    const bus = new FeetechBus(link, { timers, clock, timeoutS: 0.02, retries: 2 });
    const faults: Fault[] = [];
    bus.onFault((f) => faults.push(f));
    const outcomes: string[] = [];
    const track = (label: string, p: Promise<{ ok: true } | { ok: false; error: Fault }>) =>
      void p.then((r) => outcomes.push(`${label}:${r.ok ? 'ok' : r.error.kind}`));
    track(
      'sync',
      bus.syncWriteRegister(
        'Goal_Position',
        new Map([
          [1, 100],
          [2, 200],
        ]),
      ),
    );
    track('action', bus.action());
    track('broadcast', bus.write(0xfe, 40, Uint8Array.of(1)));
    await Promise.resolve();
    expect(written).toHaveLength(1);
    timers.advance(0.019);
    await Promise.resolve();
    expect(outcomes).toEqual([]);
    timers.advance(0.002);
    for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
    expect(outcomes).toEqual(['sync:timeout']);
    expect(written).toHaveLength(2);
    timers.advance(0.021);
    for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
    expect(outcomes).toEqual(['sync:timeout', 'action:timeout']);
    // The adapter recovers: the next no-reply write completes normally.
    wedged = false;
    timers.advance(0.021);
    for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
    expect(outcomes).toEqual(['sync:timeout', 'action:timeout', 'broadcast:timeout']);
    const again = bus.action();
    expect(await again).toEqual({ ok: true, value: undefined });
    expect(faults.map((f) => f.kind)).toEqual(['timeout', 'timeout', 'timeout']);
    expect(faults[0]).toMatchObject({ source: 'feetech:wedged', detail: expect.stringMatching(/^SYNC_WRITE/) });
    expect(bus.counters.timeouts).toBe(3);
    expect(timers.size).toBe(0);
  });

  it('opening a port that does not exist is a disconnect fault, not a throw', async () => {
    const r = await FeetechBus.open({ path: '/dev/does-not-exist-armguard' });
    expect(r).toMatchObject({ ok: false, error: { kind: 'disconnect' } });
  });
});
