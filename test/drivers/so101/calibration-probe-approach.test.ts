/**
 * The table probe starts near the table: its first goal (PROBE_START) must be approached along a
 * ramp from wherever the payload phase ended, never in one jump (the servos would slam there at full
 * speed). Emulated arm, real driver path, manual time.
 */
import { afterAll, expect, it, vi } from 'vitest';
import { createEmulatedSo101, type EmulatedSo101 } from '../../../drivers/so101/emulated-arm.js';
import { PROBE_START, runCalibrationProcedure } from '../../../drivers/so101/calibration-procedure.js';
import { defaultSo101Calibration } from '../../../src/calibration/so101-defaults.js';

let rig: EmulatedSo101 | undefined;

afterAll(async () => {
  await rig?.close();
});

it('ramps from the end of the payload phase to the first probe goal in small steps', async () => {
  const r = await createEmulatedSo101(defaultSo101Calibration('probe-approach', 12));
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  rig = r.value;
  const em = rig;
  em.sim.tableZ = 0.012;
  const goals: Float64Array[] = [];
  const writeGoals = em.arm.writeGoals.bind(em.arm);
  vi.spyOn(em.arm, 'writeGoals').mockImplementation((q) => {
    goals.push(Float64Array.from(q));
    return writeGoals(q);
  });
  let probeAnnounced = -1;
  const dt = 0.02;
  const res = await runCalibrationProcedure(
    em.arm,
    {
      dt,
      pace: async () => em.timers.advance(dt),
      prompt: async (text) => {
        if (text.startsWith('Table probe')) probeAnnounced = goals.length;
      },
      progress: () => undefined,
    },
    { durationS: 20, payloadKg: 0.2, setPayload: (kg) => (em.sim.payloadKg = kg) },
  );
  expect(res.ok).toBe(true);
  expect(probeAnnounced).toBeGreaterThan(0);

  const lastPhase2 = probeAnnounced - 1;
  const firstProbe = goals.findIndex(
    (g, i) => i > lastPhase2 && PROBE_START.every((v, j) => Math.abs(g[j]! - v) < 1e-12),
  );
  expect(firstProbe).toBeGreaterThan(lastPhase2);
  const distance = Math.max(...PROBE_START.map((v, j) => Math.abs(v - goals[lastPhase2]![j]!)));
  // The payload phase ends far from the probe start here (wrist_flex ≈ 2.2 rad away).
  expect(distance).toBeGreaterThan(1.5);
  let largestStep = 0;
  for (let i = lastPhase2 + 1; i <= firstProbe; i++) {
    for (let j = 0; j < PROBE_START.length; j++)
      largestStep = Math.max(largestStep, Math.abs(goals[i]![j]! - goals[i - 1]![j]!));
  }
  // A 2 s ramp at 50 Hz: 100 steps of at most distance / 100 (plus what the arm drifted while holding).
  expect(largestStep).toBeLessThan(distance / 100 + 0.01);
  expect(firstProbe - lastPhase2).toBeGreaterThanOrEqual(2 / dt);
}, 60_000);
