/**
 * The live SO-101's gripper angle over a real tty (socat pty pair, emulated servos served by real
 * serialport, the driver on the other end): LeRobot's gripper carries no angle, only its place in the
 * calibrated travel (RANGE_0_100: 0 at range_min = closed, 100 at range_max = open), and the URDF
 * gripper's zero is the closed jaw. So a closed gripper reads 0 rad, an open one the calibration's
 * upper limit, and a gripper command lands on the tick of its place in that travel — as replay maps
 * recorded values. (Until 2026-12-02 the live path used the body joints' mid-range-is-zero rule: a
 * closed gripper read −1.146 rad, and the open command drove to tick 3915, past range_max 3524.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FeetechEmulator, type FeetechBus } from '../../../drivers/feetech/index.js';
import { emulatorOnPty, type PtyBus } from '../../support/pty-bus.js';
import { So101Arm } from '../../../drivers/so101/arm.js';
import { addSo101Servos } from '../../../drivers/so101/emulated-arm.js';
import { defaultSo101Calibration } from '../../../src/calibration/so101-defaults.js';
import { AnalyticFreeMotionModel } from '../../../src/calibration/free-motion.js';
import { gripperPctToRadians, unnormalize } from '../../../src/calibration/lerobot.js';
import { ManualClock, ManualTimers } from '../../../src/util/clock.js';

// The default calibration's gripper: id 6, range 2031 (closed) … 3524 (open), limits −10°…100°.
const cal = defaultSo101Calibration('gripper-pty', 12);
const GRIPPER_ID = 6;
const OPEN_RAD = (100 * Math.PI) / 180;
let ptyBus: PtyBus;
let bus: FeetechBus;
let arm: So101Arm;
// No physics hook: the present registers stay where the test puts them.
const emu = new FeetechEmulator();

beforeAll(async () => {
  expect(cal.lerobot.gripper).toMatchObject({ id: GRIPPER_ID, drive_mode: 0, range_min: 2031, range_max: 3524 });
  expect(cal.joints[5]).toMatchObject({ name: 'gripper', lowerDeg: -10, upperDeg: 100 });
  addSo101Servos(emu, cal, { torqueEnabled: true, voltage: 12 });
  ptyBus = await emulatorOnPty(emu);
  bus = ptyBus.bus;
  const clock = new ManualClock(0);
  const a = await So101Arm.connect({
    bus,
    calibration: cal,
    freeMotion: new AnalyticFreeMotionModel(cal.freeMotion),
    clock,
    timers: new ManualTimers(clock),
  });
  if (!a.ok) throw new Error(JSON.stringify(a.error));
  arm = a.value;
}, 30_000);

afterAll(async () => {
  arm?.close();
  await ptyBus?.close();
});

async function gripperReads(tick: number): Promise<number> {
  emu.servo(GRIPPER_ID).setPresent({ position: tick });
  const s = await arm.readState();
  if (!s.ok) throw new Error(JSON.stringify(s.error));
  const q = new Float64Array(6);
  arm.readPositions(q);
  return q[5]!;
}

/** Resolves once the gripper's Goal_Position (written by SYNC_WRITE, which has no reply) is `tick`. */
async function gripperGoalBecomes(tick: number): Promise<void> {
  await expect.poll(() => emu.servo(GRIPPER_ID).goalPosition, { timeout: 5000 }).toBe(tick);
}

describe('the live SO-101 gripper angle (LeRobot RANGE_0_100 onto the URDF gripper joint)', () => {
  it('reads a closed gripper (range_min) as 0 rad and an open one (range_max) as the upper limit', async () => {
    expect(await gripperReads(2031)).toBeCloseTo(0, 12);
    expect(await gripperReads(3524)).toBeCloseTo(OPEN_RAD, 12);
    // Halfway through the travel (tick 2777.5 ≈ 2777): half the upper limit, 50°, not 0.
    expect(await gripperReads(2777)).toBeCloseTo(((746 / 1493) * 100 * Math.PI) / 180, 12);
    // The body joints keep the mid-range rule: shoulder_pan at its mid-range tick 2045 reads 0.
    expect(arm.mapping.q[0]).toBeCloseTo(0, 12);
    // A tick a little past range_min (a jaw squeezed past its calibrated stop) reads its small negative angle.
    expect(await gripperReads(2016)).toBeCloseTo(((-15 / 1493) * 100 * Math.PI) / 180, 12);
  });

  it('commands X rad to the tick of X / upper limit of the travel, and the open command to range_max', async () => {
    const body = [0, 0, 0, 0, 0];
    // 0.5 rad = 28.648 % of 100° → 2031 + 0.28648 · 1493 = 2458.71 → 2459.
    expect((await arm.writeGoals([...body, 0.5])).ok).toBe(true);
    await gripperGoalBecomes(2459);
    // Closed (0 rad) → range_min.
    expect((await arm.writeGoals([...body, 0])).ok).toBe(true);
    await gripperGoalBecomes(2031);
    // Past the upper limit: clamped to 100° → range_max (the old rule wrote 3915, past the range).
    expect((await arm.writeGoals([...body, 2])).ok).toBe(true);
    await gripperGoalBecomes(3524);
    expect((await arm.writeGoals([...body, 0])).ok).toBe(true);
    await gripperGoalBecomes(2031);
    // The semantic refusal's gripper-open drives to the calibrated open end.
    expect((await arm.openGripperNow()).ok).toBe(true);
    await gripperGoalBecomes(3524);
  });

  it("a LeRobot policy's gripper value g (0–100) sent as g/100 · upper limit lands where LeRobot would put it", async () => {
    const body = [0, 0, 0, 0, 0];
    for (const g of [0, 12.5, 37, 50, 81.3, 100]) {
      // The chunk's gripper column is radians: the policy's 0–100 value through gripperPctToRadians.
      expect((await arm.writeGoals([...body, gripperPctToRadians(g, OPEN_RAD)])).ok).toBe(true);
      // LeRobot's own unnormalize (RANGE_0_100) truncates where we round: the same tick or the next.
      const lerobotTick = unnormalize(g, cal.lerobot.gripper, 'range_0_100');
      await expect
        .poll(() => [0, 1].includes(emu.servo(GRIPPER_ID).goalPosition - lerobotTick), { timeout: 5000 })
        .toBe(true);
      // And reading that tick back gives the policy's value within one tick (100/1493 ≈ 0.067 of 0–100).
      const back = await gripperReads(emu.servo(GRIPPER_ID).goalPosition);
      expect(Math.abs((back / OPEN_RAD) * 100 - g)).toBeLessThanOrEqual(100 / 1493 + 1e-9);
    }
  });
});
