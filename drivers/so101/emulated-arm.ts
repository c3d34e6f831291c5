/**
 * An SO-101 made of emulated STS3215 servos (drivers/feetech emulator, in-process through
 * serialport's mock binding) with the simulated arm physics behind them: what
 * `armguard calibrate so101 --emulator` and the tests drive. The driver path is the real one.
 */
import { ManualClock, ManualTimers, type Clock, type Timers } from '../../src/util/clock.js';
import { err, ok, type Result } from '../../src/util/result.js';
import type { Fault } from '../../src/ports/index.js';
import type { JointTicks } from '../../src/calibration/lerobot.js';
import { so101JointTicks, type So101Calibration } from '../../src/calibration/so101.js';
import { AnalyticFreeMotionModel, type FreeMotionModel } from '../../src/calibration/free-motion.js';
import { FeetechBus, FeetechEmulator, createEmulatorMockBinding, type EmulatorMockBinding } from '../feetech/index.js';
import { So101Arm } from './arm.js';
import { DEFAULT_SIM_TRUTH, SimulatedSo101, type SimArmTruth } from './sim-physics.js';

export interface EmulatedSo101 {
  arm: So101Arm;
  bus: FeetechBus;
  emulator: FeetechEmulator;
  binding: EmulatorMockBinding;
  sim: SimulatedSo101;
  /** Simulated time (drives the physics). Advance it with `timers.advance(dt)` so arm timers fire too. */
  clock: ManualClock;
  timers: ManualTimers;
  close(): Promise<void>;
}

let seq = 0;

/**
 * Add the arm's six servos to `emulator`, each at the middle of its calibrated range with the
 * calibration's limits and homing offset. `voltage` (V) defaults to the calibration's supply voltage.
 * Returns the servo ids and their tick ↔ radian maps in joint order, as the simulated physics takes them.
 */
export function addSo101Servos(
  emulator: FeetechEmulator,
  calibration: So101Calibration,
  o: { torqueEnabled: boolean; voltage?: number },
): { ids: number[]; ticks: JointTicks[] } {
  const ids = calibration.joints.map((j) => j.id);
  const cals = calibration.joints.map((j) => calibration.lerobot[j.name]);
  const voltage = Math.round((o.voltage ?? calibration.supplyVoltage) * 10);
  ids.forEach((id, i) => {
    const c = cals[i]!;
    const mid = Math.round((c.range_min + c.range_max) / 2);
    emulator.addServo(id, {
      Min_Position_Limit: c.range_min,
      Max_Position_Limit: c.range_max,
      Homing_Offset: c.homing_offset,
      Present_Position: mid,
      Goal_Position: mid,
      Torque_Enable: o.torqueEnabled ? 1 : 0,
      Present_Voltage: voltage,
    });
  });
  return { ids, ticks: so101JointTicks(calibration) };
}

export async function createEmulatedSo101(
  calibration: So101Calibration,
  o: {
    truth?: SimArmTruth;
    freeMotion?: FreeMotionModel;
    busTimers?: Timers;
    busClock?: Clock;
    watchdogS?: number;
    armTimers?: Timers;
  } = {},
): Promise<Result<EmulatedSo101, Fault>> {
  const clock = new ManualClock(0);
  const timers = new ManualTimers(clock);
  const emulator = new FeetechEmulator();
  const { ids, ticks } = addSo101Servos(emulator, calibration, { torqueEnabled: false });
  const sim = new SimulatedSo101(emulator, ids, ticks, o.truth ?? DEFAULT_SIM_TRUTH, clock);
  sim.install();
  const path = `/dev/armguard-so101-emulated-${process.pid}-${++seq}`;
  const binding = createEmulatorMockBinding(emulator, path);
  const busOptions = {
    path,
    binding,
    timeoutS: 0.05,
    retries: 2,
    ...(o.busTimers ? { timers: o.busTimers } : {}),
    ...(o.busClock ? { clock: o.busClock } : {}),
  };
  const b = await FeetechBus.open(busOptions);
  if (!b.ok) return err(b.error);
  const bus = b.value;
  const a = await So101Arm.connect({
    bus,
    calibration,
    freeMotion: o.freeMotion ?? new AnalyticFreeMotionModel(calibration.freeMotion),
    clock,
    timers: o.armTimers ?? timers,
    ...(o.watchdogS !== undefined ? { watchdogS: o.watchdogS } : {}),
  });
  if (!a.ok) {
    await bus.close();
    return err(a.error);
  }
  return ok({
    arm: a.value,
    bus,
    emulator,
    binding,
    sim,
    clock,
    timers,
    close: async () => {
      a.value.close();
      if (bus.connected) await bus.close();
    },
  });
}
