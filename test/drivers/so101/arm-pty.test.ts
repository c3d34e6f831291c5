/**
 * The SO-101 arm over a real tty: socat pty pair, the emulated servos (with the simulated arm
 * physics) served on one end by real serialport, the driver on the other — byte for byte as on
 * hardware.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FeetechEmulator, type FeetechBus } from '../../../drivers/feetech/index.js';
import { emulatorOnPty, type PtyBus } from '../../support/pty-bus.js';
import { So101Arm } from '../../../drivers/so101/arm.js';
import { addSo101Servos } from '../../../drivers/so101/emulated-arm.js';
import { DEFAULT_SIM_TRUTH, SimulatedSo101 } from '../../../drivers/so101/sim-physics.js';
import { defaultSo101Calibration } from '../../../src/calibration/so101-defaults.js';
import { so101JointTicks } from '../../../src/calibration/so101.js';
import { AnalyticFreeMotionModel } from '../../../src/calibration/free-motion.js';
import { radiansToRaw } from '../../../src/calibration/lerobot.js';
import { ManualClock, ManualTimers } from '../../../src/util/clock.js';
import type { Fault } from '../../../src/ports/index.js';

const cal = defaultSo101Calibration('pty', 12);
let ptyBus: PtyBus;
let bus: FeetechBus;
const emu = new FeetechEmulator();
const clock = new ManualClock(0);
const timers = new ManualTimers(clock);

beforeAll(async () => {
  addSo101Servos(emu, cal, { torqueEnabled: false, voltage: 12 });
  new SimulatedSo101(
    emu,
    cal.joints.map((j) => j.id),
    so101JointTicks(cal),
    DEFAULT_SIM_TRUTH,
    clock,
  ).install();
  ptyBus = await emulatorOnPty(emu);
  bus = ptyBus.bus;
}, 30_000);

afterAll(async () => {
  await ptyBus?.close();
});

/** Resolves at the emulator write that makes `cond` true; rejects after 5 s. */
function until(cond: () => boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    let done = false;
    const timer = setTimeout(() => !done && reject(new Error('condition not reached within 5 s')), 5000);
    emu.onWrite(() => {
      if (!done && cond()) {
        done = true;
        clearTimeout(timer);
        resolve();
      }
    });
  });
}

describe('So101Arm over a socat pty pair', () => {
  it('connects without writing, reads the full state, moves and holds', async () => {
    const writes: number[] = [];
    emu.onWrite((_s, a) => writes.push(a));
    const a = await So101Arm.connect({
      bus,
      calibration: cal,
      freeMotion: new AnalyticFreeMotionModel(cal.freeMotion),
      clock,
      timers,
    });
    if (!a.ok) throw new Error(JSON.stringify(a.error));
    const arm = a.value;
    const faults: Fault[] = [];
    arm.onFault((f) => faults.push(f));
    expect(writes).toEqual([]);
    timers.advance(0.02);
    const s = await arm.readState();
    if (!s.ok) throw new Error(JSON.stringify(s.error));
    expect(s.value.voltage[5]).toBeCloseTo(12, 6);
    // Gravity loads the shoulder_lift through the simulated physics: a non-zero torque arrives over the tty.
    expect(Math.abs(arm.mapping.tau[1]!)).toBeGreaterThan(0.05);
    expect((await arm.setTorque(true)).ok).toBe(true);
    const goalArrived = until(() => emu.servo(1).goalPosition === radiansToRaw(0.3, cal.lerobot.shoulder_pan));
    expect((await arm.writeGoals([0.3, -0.5, 0.4, 0.2, 0, 0.2])).ok).toBe(true);
    await goalArrived; // SYNC_WRITE has no reply: wait for the bytes to reach the far end of the tty
    timers.advance(0.1);
    await arm.readState();
    const held = until(() =>
      cal.joints.every((j) => emu.servo(j.id).goalPosition === emu.servo(j.id).getRegister('Present_Position')),
    );
    expect((await arm.holdNow('test')).ok).toBe(true);
    await held;
    expect(faults).toEqual([]);
    arm.close();
  });
});
