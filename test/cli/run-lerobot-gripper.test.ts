/**
 * A LeRobot policy's gripper through `armguard run so101` (emulated SO-101 behind a real socat pty,
 * the session's chunk path: screen → gate → CBF in the filter worker → re-check → arm). The policy emits its gripper on LeRobot's
 * 0–100 scale (RANGE_0_100) and sends it in the chunk's column 5 as g/100 · the gripper's upper
 * limit (hardware.md "Units of a chunk"). The arm reads the gripper on the same scale, so a chunk
 * that opens the gripper from where it is runs as sent and ends on the calibrated open end.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { RunSession } from '../../src/cli/compose/session.js';
import { gripperPctToRadians, normalize } from '../../src/calibration/lerobot.js';
import { systemClock } from '../../src/platform/system-clock.js';
import { startEmulatedSession, submitChunk, waitUntil } from '../support/run-session.js';

const sessions: RunSession[] = [];
afterEach(async () => {
  for (const s of sessions.splice(0)) await s.stop('test cleanup');
});

describe('a LeRobot policy gripper on the live SO-101 path', () => {
  it('the arm reads the gripper where LeRobot does, and a chunk opening it from there runs unbent to range_max', async () => {
    const { s, calibration: cal } = await startEmulatedSession();
    sessions.push(s);
    const g = cal.lerobot.gripper;
    expect(g).toMatchObject({ id: 6, drive_mode: 0, range_min: 2031, range_max: 3524 });
    const open = (cal.joints[5]!.upperDeg * Math.PI) / 180;
    const gripper = s.conn.emulated!.emulator.servo(6);
    const q = new Float64Array(6);
    await waitUntil(() => !Number.isNaN(s.conn.arm.readPositions(q)), 5, 'a first joint sample');
    expect(s.gate.state).toBe('armed');
    // The emulated servos power up at mid-range: LeRobot reads the gripper ≈ 50 (half open), so ≈ 50°.
    const pct0 = normalize(gripper.getRegister('Present_Position'), g, 'range_0_100');
    expect(pct0).toBeGreaterThan(45);
    expect(pct0).toBeLessThan(55);
    expect(q[5]).toBeCloseTo(gripperPctToRadians(pct0, open), 9);

    // The policy opens the gripper from there to 100 over 1.5 s, body joints where they are.
    const H = 75;
    const targets = new Float64Array(H * 6);
    for (let k = 0; k < H; k++) {
      targets.set(q.subarray(0, 5), k * 6);
      targets[k * 6 + 5] = gripperPctToRadians(pct0 + ((100 - pct0) * (k + 1)) / H, open);
    }
    // Through the session's chunk path as an MQTT request goes (filtered in the worker thread).
    const r = await submitChunk(
      s,
      { id: 'open', stamp: systemClock.now(), horizon: H, joints: 6, dt: 0.02, targets },
      systemClock.now(),
    );
    expect(['executed', 'filtered'], r.reason).toContain(r.verdict);
    // The gripper column is not bent: it starts where the arm reads the gripper (a 0.9 rad jump
    // would have been cut to the 2 rad/s step bound).
    for (let k = 0; k < H; k++) expect(r.targets![k * 6 + 5]).toBeCloseTo(targets[k * 6 + 5]!, 6);

    // The last row (100 = open) is the calibrated open end, and the arm reads it back as the upper limit.
    await waitUntil(() => gripper.goalPosition === g.range_max, 5, 'the gripper goal at range_max');
    await waitUntil(() => gripper.getRegister('Present_Position') === g.range_max, 5, 'the gripper open');
    await waitUntil(
      () => {
        s.conn.arm.readPositions(q);
        return Math.abs(q[5]! - open) < 1e-9;
      },
      5,
      'the arm to read the gripper open',
    );
  }, 30_000);
});
