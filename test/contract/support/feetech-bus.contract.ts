/**
 * Contract suite for the Feetech bus (serialport style): the same behaviour is required of every
 * transport the driver runs on — serialport's mock binding in-process, and a real tty (socat pty
 * pair) with the emulator on the far end. Waits are on events with timeouts, never fixed sleeps.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Fault } from '../../../src/ports/index.js';
import { ERROR_BITS, type FeetechBus, type FeetechEmulator } from '../../../drivers/feetech/index.js';

export interface ContractHarness {
  readonly bus: FeetechBus;
  readonly emu: FeetechEmulator;
  /** Make the port disappear as an unplugged adapter does. */
  unplug(): Promise<void>;
  teardown(): Promise<void>;
}

export interface ContractTransport {
  readonly name: string;
  /** A bus with six emulated servos (ids 1..6) behind it; timeouts of `timeoutS`, `retries` retries. */
  setup(options: { timeoutS: number; retries: number }): Promise<ContractHarness>;
}

const IDS = [1, 2, 3, 4, 5, 6];

/** Resolve with the first fault matching `kind`, or reject after `ms` (a guard, not a sleep). */
export function nextFault(bus: FeetechBus, kind: Fault['kind'], ms = 5000): Promise<Fault> {
  return new Promise((resolve, reject) => {
    const guard = setTimeout(() => {
      off();
      reject(new Error(`no ${kind} fault within ${ms} ms`));
    }, ms);
    const off = bus.onFault((f) => {
      if (f.kind !== kind) return;
      clearTimeout(guard);
      off();
      resolve(f);
    });
  });
}

export function feetechBusContract(transport: ContractTransport): void {
  describe(`Feetech bus contract: ${transport.name}`, () => {
    let h: ContractHarness;
    let faults: Fault[];
    beforeEach(async () => {
      h = await transport.setup({ timeoutS: 0.25, retries: 2 });
      faults = [];
      h.bus.onFault((f) => faults.push(f));
    });
    afterEach(async () => {
      await h.teardown();
    });

    it('pings every servo and reads the model number', async () => {
      for (const id of IDS) expect(await h.bus.ping(id)).toEqual({ ok: true, value: { id, errorByte: 0 } });
      const models = await h.bus.syncReadRegister(IDS, 'Model_Number');
      expect(models.ok && [...models.value.values()]).toEqual([777, 777, 777, 777, 777, 777]);
    });

    it('write then read back, including negative sign-magnitude values', async () => {
      expect((await h.bus.writeRegister(3, 'Goal_Position', -1234)).ok).toBe(true);
      expect(await h.bus.readRegister(3, 'Goal_Position')).toEqual({ ok: true, value: -1234 });
      expect(h.emu.servo(3).goalPosition).toBe(-1234);
      expect((await h.bus.write(2, 40, Uint8Array.of(1))).ok).toBe(true);
      expect(await h.bus.read(2, 40, 1)).toEqual({ ok: true, value: Uint8Array.of(1) });
    });

    it('sync write goal positions, sync read them back', async () => {
      const goals = new Map(IDS.map((id) => [id, 500 * id - 1500]));
      expect((await h.bus.syncWriteRegister('Goal_Position', goals)).ok).toBe(true);
      const back = await h.bus.syncReadRegister(IDS, 'Goal_Position');
      expect(back.ok && [...back.value.entries()]).toEqual([...goals.entries()]);
    });

    it('full-state read reflects what the physics hook drives', async () => {
      h.emu.setPhysics((s) =>
        s.setPresent({ position: 100 + s.id, load: -10 * s.id, current: 7 * s.id, velocity: -s.id }),
      );
      const r = await h.bus.readFullState(IDS);
      if (!r.ok) throw new Error(JSON.stringify(r.error));
      for (const id of IDS) {
        expect(r.value.get(id)).toMatchObject({
          position: 100 + id,
          load: -10 * id,
          current: 7 * id,
          velocity: -id,
          voltage: 74,
        });
      }
    });

    it('sustains 200 consecutive full-state reads without errors', async () => {
      for (let i = 0; i < 200; i++) {
        const r = await h.bus.readFullState(IDS);
        if (!r.ok) throw new Error(`cycle ${i}: ${JSON.stringify(r.error)}`);
      }
      // A scheduling stall on a loaded machine may cost a retry; it must never cost data or a timeout.
      expect(h.bus.counters).toMatchObject({ checksumErrors: 0, timeouts: 0 });
      expect(h.bus.counters.rx).toBeGreaterThanOrEqual(1200);
    });

    it('a servo that stops answering → timeout fault after bounded retries', async () => {
      h.emu.servo(5).responsive = false;
      const r = await h.bus.readFullState(IDS);
      expect(r).toMatchObject({ ok: false, error: { kind: 'timeout', servoIds: [5] } });
      expect(faults).toEqual([expect.objectContaining({ kind: 'timeout', servoIds: [5] })]);
      expect(h.bus.counters.timeouts).toBe(1);
      expect(h.bus.counters.retries).toBeGreaterThanOrEqual(2);
      h.emu.servo(5).responsive = true;
      expect((await h.bus.readFullState(IDS)).ok).toBe(true);
    });

    it('status error bits → servo-error fault', async () => {
      h.emu.servo(6).injectedErrors = ERROR_BITS.overload;
      const r = await h.bus.readFullState(IDS);
      expect(r.ok && r.value.get(6)?.errorByte).toBe(ERROR_BITS.overload);
      expect(faults).toEqual([expect.objectContaining({ kind: 'servo-error', servoId: 6, bits: ['overload'] })]);
    });

    it('a corrupted reply is retried and counted', async () => {
      h.emu.servo(2).corruptReplies = 1;
      expect((await h.bus.readFullState(IDS)).ok).toBe(true);
      expect(h.bus.counters.checksumErrors).toBe(1);
      expect(h.bus.counters.retries).toBeGreaterThanOrEqual(1);
    });

    it('the port disappears mid-episode → disconnect fault, the next cycle fails without throwing', async () => {
      expect((await h.bus.readFullState(IDS)).ok).toBe(true);
      const fault = nextFault(h.bus, 'disconnect');
      await h.unplug();
      // The episode's next read cycle: a tty whose far end vanished fails on write (EIO) at the latest.
      expect(await h.bus.readFullState(IDS)).toMatchObject({ ok: false, error: { kind: 'disconnect' } });
      await expect(fault).resolves.toMatchObject({ kind: 'disconnect', source: h.bus.source });
      expect(h.bus.connected).toBe(false);
      expect(await h.bus.ping(1)).toMatchObject({ ok: false, error: { kind: 'disconnect' } });
      expect(faults.filter((f) => f.kind === 'disconnect')).toHaveLength(1);
    });

    it('the port disappears while a request waits for a silent servo → that request ends in disconnect', async () => {
      h.emu.servo(4).responsive = false;
      const pending = h.bus.readFullState(IDS);
      await h.unplug();
      expect(await pending).toMatchObject({ ok: false, error: { kind: 'disconnect' } });
      expect(faults.map((f) => f.kind)).toEqual(['disconnect']);
    });
  });
}
