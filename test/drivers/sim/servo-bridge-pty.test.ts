/**
 * The SO-101 path of the testbed (issue 9): MuJoCo drives the emulated STS3215 registers, served on
 * a real socat pty; the real serial driver (FeetechBus + So101Arm) reads the simulated arm and its
 * goal writes move it; hold = goal := present keeps it where it is.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FeetechEmulator, type FeetechBus } from '../../../drivers/feetech/index.js';
import { emulatorOnPty, type PtyBus } from '../../support/pty-bus.js';
import { So101Arm } from '../../../drivers/so101/arm.js';
import { loadMujoco } from '../../../drivers/sim/mujoco.js';
import { SimWorld, so101Scene } from '../../../drivers/sim/index.js';
import { MujocoServoBridge } from '../../../drivers/sim/servo-bridge.js';
import { parseSo101Calibration, so101JointTicks } from '../../../src/calibration/so101.js';
import { AnalyticFreeMotionModel } from '../../../src/calibration/free-motion.js';
import { radiansToRaw } from '../../../src/calibration/lerobot.js';
import { ManualClock, ManualTimers } from '../../../src/util/clock.js';
import { repoRoot } from '../../support/paths.js';

const calText = readFileSync(join(repoRoot, 'calibration/so101-demo.yaml'), 'utf8');
const parsed = parseSo101Calibration(calText, 'calibration/so101-demo.yaml');
if (!parsed.ok) throw new Error(parsed.problems.map((p) => p.message).join('\n'));
const cal = parsed.value;
const ticks = so101JointTicks(cal);

let ptyBus: PtyBus;
let bus: FeetechBus;
let world: SimWorld;
const emu = new FeetechEmulator();

beforeAll(async () => {
  const mj = await loadMujoco();
  world = new SimWorld(mj, so101Scene());
  world.reset(3);
  expect(world.jointNames).toEqual(cal.joints.map((j) => j.name));
  for (const j of cal.joints) emu.addServo(j.id, { Present_Voltage: Math.round(cal.supplyVoltage * 10) });
  new MujocoServoBridge(
    world,
    emu,
    cal.joints.map((j, i) => ({
      id: j.id,
      ticks: ticks[i]!,
      torqueConstant: Math.abs(cal.torque.constants[i] ?? cal.torque.stallTorqueNm / 1000),
    })),
  ).install();
  ptyBus = await emulatorOnPty(emu);
  bus = ptyBus.bus;
}, 60_000);

afterAll(async () => {
  await ptyBus?.close();
  world?.dispose();
});

function simJoints(): Float64Array {
  const q = new Float64Array(world.jointNames.length);
  world.readJoints(q);
  return q;
}

describe('MuJoCo → Feetech emulator → socat pty → real driver', () => {
  it('reads the simulated joints, moves the simulated arm with goal writes, and holds it', async () => {
    const clock = new ManualClock(0);
    const a = await So101Arm.connect({
      bus,
      calibration: cal,
      freeMotion: new AnalyticFreeMotionModel(cal.freeMotion),
      clock,
      timers: new ManualTimers(clock),
    });
    if (!a.ok) throw new Error(JSON.stringify(a.error));
    const arm = a.value;
    // Connecting moved nothing: the scene's targets are where it was.
    const before = simJoints();
    for (let k = 0; k < 10; k++) world.stepTick();
    const settled = simJoints();
    for (let j = 0; j < 5; j++) expect(Math.abs(settled[j]! - before[j]!)).toBeLessThan(0.01);

    // The driver reads the simulation through the tty (one tick ≈ 0.0015 rad of quantisation).
    const s = await arm.readState();
    if (!s.ok) throw new Error(JSON.stringify(s.error));
    const q = new Float64Array(6);
    arm.readPositions(q);
    for (let j = 0; j < 5; j++) expect(Math.abs(q[j]! - settled[j]!)).toBeLessThan(0.003);
    // The gripper: the scene's command (rad, 0 closed … 100° open) sits on the calibrated travel,
    // range_min 2031 closed … range_max 3524 open, and the driver reads the scene's angle back.
    const open = (100 * Math.PI) / 180;
    expect(settled[5]).toBeGreaterThan(1); // the scene's home is open
    expect(Math.abs(emu.servo(6).getRegister('Present_Position') - (2031 + (settled[5]! / open) * 1493))).toBeLessThan(
      1,
    );
    expect(Math.abs(q[5]! - settled[5]!)).toBeLessThan(0.003);

    // Goal writes move the simulated arm.
    expect((await arm.setTorque(true)).ok).toBe(true);
    const goal = [settled[0]! + 0.3, settled[1]!, settled[2]!, settled[3]! - 0.2, settled[4]!, settled[5]!];
    expect((await arm.writeGoals(goal)).ok).toBe(true);
    // SYNC_WRITE has no reply: wait for the bytes to reach the emulator at the far end of the tty.
    await expect
      .poll(() => emu.servo(cal.joints[0]!.id).goalPosition === radiansToRaw(goal[0]!, cal.lerobot.shoulder_pan), {
        timeout: 5000,
      })
      .toBe(true);
    for (let k = 0; k < 60; k++) world.stepTick();
    const moved = simJoints();
    expect(moved[0]).toBeCloseTo(goal[0]!, 1);
    expect(moved[3]).toBeCloseTo(goal[3]!, 1);

    // Closing the gripper (0 rad) writes range_min, and the scene's fingers close.
    expect((await arm.writeGoals([...moved.subarray(0, 5), 0])).ok).toBe(true);
    await expect.poll(() => emu.servo(6).goalPosition, { timeout: 5000 }).toBe(2031);
    for (let k = 0; k < 60; k++) world.stepTick();
    expect(simJoints()[5]).toBeLessThan(0.2);

    // Hold: goal := present, read over the tty; the simulation stays where it is.
    expect((await arm.holdNow('test')).ok).toBe(true);
    await expect
      .poll(
        () => cal.joints.every((j) => emu.servo(j.id).goalPosition === emu.servo(j.id).getRegister('Present_Position')),
        { timeout: 5000 },
      )
      .toBe(true);
    const held = simJoints();
    for (let k = 0; k < 30; k++) world.stepTick();
    const after = simJoints();
    for (let j = 0; j < 5; j++) expect(Math.abs(after[j]! - held[j]!)).toBeLessThan(0.02);
  });
});
