/**
 * The SO-101 arm class over the real driver path: FeetechBus on serialport's mock binding with the
 * emulated servos and simulated physics behind it. Arm timers (chunks, watchdog) run on ManualTimers.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createEmulatedSo101, type EmulatedSo101 } from '../../../drivers/so101/emulated-arm.js';
import { So101Arm } from '../../../drivers/so101/arm.js';
import { defaultSo101Calibration } from '../../../src/calibration/so101-defaults.js';
import { normalize, radiansToRaw } from '../../../src/calibration/lerobot.js';
import type { Fault } from '../../../src/ports/index.js';
import { SignalFrame } from '../../../src/schema/signals.js';

const cal = defaultSo101Calibration('armtest', 12);
const rigs: EmulatedSo101[] = [];

async function rig(prepare?: (r: EmulatedSo101) => void): Promise<{ r: EmulatedSo101; faults: Fault[] }> {
  const res = await createEmulatedSo101(cal, { watchdogS: 0.2 });
  if (!res.ok) throw new Error(JSON.stringify(res.error));
  rigs.push(res.value);
  prepare?.(res.value);
  const faults: Fault[] = [];
  res.value.arm.onFault((f) => faults.push(f));
  return { r: res.value, faults };
}

afterEach(async () => {
  for (const r of rigs.splice(0)) await r.close();
});

describe('So101Arm', () => {
  it('connect only pings: no register write, torque state and goals untouched', async () => {
    const writes: number[] = [];
    const res = await createEmulatedSo101(cal);
    if (!res.ok) throw new Error('rig');
    rigs.push(res.value);
    // A second arm connecting to the same servos (e.g. after a restart) with torque on and goals set.
    const emu = res.value.emulator;
    emu.servo(3).setRegister('Torque_Enable', 1);
    emu.servo(3).setRegister('Goal_Position', 1234);
    emu.onWrite((_s, address) => writes.push(address));
    const before = emu.counters.instructions;
    const a = await So101Arm.connect({
      bus: res.value.bus,
      calibration: cal,
      freeMotion: res.value.arm.mapping.freeMotion,
      clock: res.value.clock,
      timers: res.value.timers,
    });
    expect(a.ok).toBe(true);
    expect(writes).toEqual([]);
    expect(emu.counters.instructions - before).toBe(6); // six PINGs
    expect(emu.servo(3).torqueEnabled).toBe(true);
    expect(emu.servo(3).goalPosition).toBe(1234);
    expect(emu.servo(1).torqueEnabled).toBe(false);
  });

  it('reads the full state of all six servos with one instruction and maps it', async () => {
    const { r } = await rig();
    const lift = cal.lerobot.shoulder_lift;
    const before = r.emulator.counters.instructions;
    r.timers.advance(0.01);
    const s = await r.arm.readState();
    expect(r.emulator.counters.instructions - before).toBe(1);
    if (!s.ok) throw new Error(s.error.kind);
    expect(s.value.voltage[0]).toBeCloseTo(12, 6);
    expect(s.value.temperature[0]).toBe(25);
    const raw = r.emulator.servo(2).getRegister('Present_Position');
    expect(r.arm.mapping.q[1]).toBeCloseTo((normalize(raw, lift, 'degrees') * Math.PI) / 180, 12);
    const load = r.emulator.servo(2).getRegister('Present_Load');
    expect(r.arm.mapping.tau[1]).toBeCloseTo(load * cal.torque.constants[1]!, 12);
    const frame = new SignalFrame();
    r.arm.poll(frame, r.clock.now());
    expect(frame.get('max_joint_torque')).toBeCloseTo(Math.max(...Array.from(r.arm.mapping.tau, Math.abs)), 12);
    expect(frame.get('self_collision_clearance')).toBeCloseTo(r.arm.mapping.capsules.minSelfDistance(), 12);
    expect(frame.get('self_collision_clearance')).toBeGreaterThan(0);
    const q = new Float64Array(6);
    expect(r.arm.readPositions(q)).toBe(s.value.t);
    expect(q[1]).toBe(r.arm.mapping.q[1]);
  });

  it("its sample time is the read's stamp in integer ns (NaN before any read): the pipeline monitors each read once, at it", async () => {
    const { r } = await rig();
    expect(r.arm.sampleNs()).toBeNaN();
    r.timers.advance(0.013);
    const s = await r.arm.readState();
    if (!s.ok) throw new Error(s.error.kind);
    expect(r.arm.sampleNs()).toBe(Math.round(s.value.t * 1e9));
    r.timers.advance(0.007); // no read since: the same sample
    expect(r.arm.sampleNs()).toBe(Math.round(s.value.t * 1e9));
  });

  it('writes goals with one sync write, clamped to the calibrated limits', async () => {
    const { r } = await rig();
    const before = r.emulator.counters.instructions;
    const goal = [0.1, -0.2, 0.3, -0.4, 0.5, 9];
    expect((await r.arm.writeGoals(goal)).ok).toBe(true);
    expect(r.emulator.counters.instructions - before).toBe(1);
    expect(r.emulator.servo(2).goalPosition).toBe(radiansToRaw(-0.2, cal.lerobot.shoulder_lift));
    // 9 rad clamped to the gripper's 100° upper limit: its calibrated open end, range_max.
    expect(r.emulator.servo(6).goalPosition).toBe(cal.lerobot.gripper.range_max);
  });

  it('hold commands Goal_Position := Present_Position after motion', async () => {
    const { r } = await rig();
    await r.arm.setTorque(true);
    await r.arm.writeGoals([0.6, -0.6, 0.5, 0.4, 0.3, 0.2]);
    r.timers.advance(0.1);
    await r.arm.readState(); // moving, not yet at the goal
    expect(r.emulator.servo(1).getRegister('Present_Position')).not.toBe(r.emulator.servo(1).goalPosition);
    expect((await r.arm.holdNow('test')).ok).toBe(true);
    for (const id of [1, 2, 3, 4, 5, 6])
      expect(r.emulator.servo(id).goalPosition).toBe(r.emulator.servo(id).getRegister('Present_Position'));
  });

  it('holds by itself when gate heartbeats stop (arm-side watchdog)', async () => {
    const { r, faults } = await rig();
    await r.arm.setTorque(true);
    r.arm.heartbeat(r.clock.now());
    await r.arm.writeGoals([0.6, -0.6, 0.5, 0.4, 0.3, 0.2]);
    r.timers.advance(0.1);
    r.arm.heartbeat(r.clock.now());
    r.timers.advance(0.1);
    expect(faults).toEqual([]);
    r.timers.advance(0.25); // 0.35 s since the last heartbeat > 0.2 s
    expect(faults.map((f) => f.kind)).toEqual(['remote-heartbeat']);
    await waitFor(
      () =>
        r.arm.holds === 1 && r.emulator.servo(1).goalPosition === r.emulator.servo(1).getRegister('Present_Position'),
    );
    expect(r.arm.lastHoldReason).toBe('heartbeat lost');
  });

  it('a hold whose own read fails commands the last read only while it is fresh, never an old position', async () => {
    const { r } = await rig();
    expect((await r.arm.readState()).ok).toBe(true);
    const lastRead = r.emulator.servo(1).getRegister('Present_Position');
    r.emulator.servo(1).setRegister('Goal_Position', lastRead + 300); // the arm moves on after the read
    r.emulator.servo(4).responsive = false; // the hold's own sync read fails
    r.timers.advance(0.02); // within HOLD_FALLBACK_MAX_AGE (0.05 s): the last read stands in
    expect((await r.arm.holdNow('fresh fallback')).ok).toBe(true);
    expect(r.emulator.servo(1).goalPosition).toBe(lastRead);
    r.emulator.servo(1).setRegister('Goal_Position', lastRead + 300);
    r.timers.advance(1); // the last read is now 1 s old
    const stale = await r.arm.holdNow('stale fallback');
    expect(!stale.ok && stale.error.kind).toBe('timeout');
    expect(r.emulator.servo(1).goalPosition).toBe(lastRead + 300); // not driven back to the old position
  });

  it('executes a chunk row by row at its step period', async () => {
    const { r } = await rig();
    const targets = new Float64Array(3 * 6);
    for (let k = 0; k < 3; k++) targets[k * 6] = 0.1 * (k + 1);
    r.arm.execute({ id: 'c1', stamp: 0, horizon: 3, joints: 6, dt: 0.1, targets }, 0);
    await waitFor(() => r.emulator.servo(1).goalPosition === radiansToRaw(0.1, cal.lerobot.shoulder_pan));
    r.timers.advance(0.1);
    await waitFor(() => r.emulator.servo(1).goalPosition === radiansToRaw(0.2, cal.lerobot.shoulder_pan));
    r.arm.hold(0.15, 'operator');
    r.timers.advance(0.2); // the third row was cancelled by the hold
    await waitFor(() => r.arm.holds === 1);
    expect(r.emulator.servo(1).goalPosition).not.toBe(radiansToRaw(0.3, cal.lerobot.shoulder_pan));
  });

  it('a closed arm stops reporting bus faults: a new arm on the same bus is the only one to report', async () => {
    const { r, faults } = await rig();
    r.arm.close();
    const next = await So101Arm.connect({
      bus: r.bus,
      calibration: cal,
      freeMotion: r.arm.mapping.freeMotion,
      clock: r.clock,
      timers: r.timers,
    });
    if (!next.ok) throw new Error(next.error.kind);
    const nextFaults: Fault[] = [];
    next.value.onFault((f) => nextFaults.push(f));
    r.emulator.servo(4).responsive = false;
    const s = await next.value.readState();
    expect(!s.ok && s.error.kind).toBe('timeout');
    expect(nextFaults.map((f) => f.kind)).toEqual(['timeout']);
    expect(faults).toEqual([]);
    next.value.close();
  });

  it('a servo that stops answering and an unplugged port become typed faults, never throws', async () => {
    const { r, faults } = await rig();
    r.emulator.servo(4).responsive = false;
    const s = await r.arm.readState();
    expect(!s.ok && s.error.kind).toBe('timeout');
    expect(faults.some((f) => f.kind === 'timeout')).toBe(true);
    r.emulator.servo(4).responsive = true;
    r.binding.disconnect();
    await waitFor(() => faults.some((f) => f.kind === 'disconnect'));
    const after = await r.arm.readState();
    expect(!after.ok && after.error.kind).toBe('disconnect');
    const h = await r.arm.holdNow('disconnected');
    expect(h.ok).toBe(false);
  });
});

/** Wait for I/O callbacks (real event-loop turns, bounded), not a fixed sleep. */
async function waitFor(cond: () => boolean, turns = 2000): Promise<void> {
  for (let i = 0; i < turns; i++) {
    if (cond()) return;
    await new Promise((res) => setImmediate(res));
  }
  throw new Error('condition not reached');
}
