/**
 * The calibration procedure over a live arm (real or emulated): record free motion along slow
 * sinusoids (without and with a reference payload at the TCP), fit the free-motion model and torque
 * constants, and probe the table height by lowering the TCP until the residual force rises.
 * `pace()` separates samples: a real sleep on hardware, a simulated clock step in the emulator.
 */
import type { Fault } from '../../src/ports/index.js';
import { err, ok, type Result } from '../../src/util/result.js';
import { SO101_FRAMES, TF } from '../../src/kinematics/index.js';
import { AnalyticFreeMotionModel } from '../../src/calibration/free-motion.js';
import { fitFreeMotion, type FreeMotionFit, type FreeMotionSample } from '../../src/calibration/free-motion-fit.js';
import { SO101_ARM_JOINTS } from '../../src/calibration/so101.js';
import type { So101Arm } from './arm.js';

export interface ProcedureIo {
  /** Wait one sample period. */
  pace(): Promise<void>;
  /** Ask the operator to do something and wait for confirmation (no-op in the emulator). */
  prompt(text: string): Promise<void>;
  progress(text: string): void;
  /** Seconds per sample (for the trajectory clock). */
  dt: number;
}

export interface ProcedureOptions {
  /** Seconds of motion per phase. Default 30. */
  durationS?: number;
  /** Reference payload (kg) attached at the TCP for the second phase. Default 0.2. */
  payloadKg?: number;
  /** Called when the payload phase starts/ends (the emulator attaches the simulated mass). */
  setPayload?: (kg: number) => void;
  /** Force (N) at which the table probe stops. Default 3. */
  probeForceN?: number;
}

/**
 * Slow sinusoids with distinct frequencies inside the joint limits, chosen so the TCP stays at least
 * 0.14 m above the base plane (checked in the tests) and every joint stays under 0.9 rad/s.
 */
export function calibrationTrajectory(t: number, out: Float64Array): void {
  const amp = [0.8, 0.6, 0.6, 0.8, 1.0];
  const off = [0, -1.0, 0, -0.6, 0];
  const freq = [0.05, 0.07, 0.09, 0.11, 0.13];
  for (let j = 0; j < SO101_ARM_JOINTS; j++) out[j] = off[j]! + amp[j]! * Math.sin(2 * Math.PI * freq[j]! * t + j);
  out[5] = 0.3;
}

/** Move from the present pose to `goal` in a straight joint-space line over `seconds`, one goal per sample. */
async function rampTo(
  arm: So101Arm,
  io: ProcedureIo,
  goal: ArrayLike<number>,
  seconds: number,
): Promise<Result<void, Fault>> {
  const start = await arm.readState();
  if (!start.ok) return start;
  const q0 = Float64Array.from(arm.mapping.q);
  const ramp = Math.max(1, Math.round(seconds / io.dt));
  const g = new Float64Array(q0.length);
  for (let k = 1; k <= ramp; k++) {
    const a = k / ramp;
    for (let j = 0; j < g.length; j++) g[j] = q0[j]! + (goal[j]! - q0[j]!) * a;
    const w = await arm.writeGoals(g);
    if (!w.ok) return w;
    await io.pace();
  }
  return ok(undefined);
}

async function recordPhase(
  arm: So101Arm,
  io: ProcedureIo,
  durationS: number,
  payloadKg: number,
  samples: FreeMotionSample[],
): Promise<Result<void, Fault>> {
  const goal = new Float64Array(6);
  const steps = Math.round(durationS / io.dt);
  calibrationTrajectory(0, goal);
  // Approach the start pose slowly before recording.
  const approach = await rampTo(arm, io, goal, 2);
  if (!approach.ok) return approach;
  for (let k = 0; k < steps; k++) {
    calibrationTrajectory(k * io.dt, goal);
    const w = await arm.writeGoals(goal);
    if (!w.ok) return w;
    await io.pace();
    const r = await arm.readState();
    if (!r.ok) return r;
    const m = arm.mapping;
    const units = arm.mapping.cal.torque.source === 'load' ? r.value.raw.load : r.value.raw.current;
    samples.push({
      q: Float64Array.from(m.q),
      qd: Float64Array.from(m.qd),
      units: Float64Array.from(units.subarray(0, SO101_ARM_JOINTS)),
      payloadKg,
    });
    if (k % Math.round(5 / io.dt) === 0)
      io.progress(`  ${payloadKg > 0 ? 'payload' : 'free'} motion ${Math.round((100 * k) / steps)} %`);
  }
  return ok(undefined);
}

export interface ProcedureResult {
  fit: FreeMotionFit;
  tableHeightM: number;
  tableProbeForceN: number;
}

/** Run the whole procedure; torque is enabled for the motion and left on (holding) at the end. */
export async function runCalibrationProcedure(
  arm: So101Arm,
  io: ProcedureIo,
  o: ProcedureOptions = {},
): Promise<Result<ProcedureResult, Fault>> {
  const cal = arm.mapping.cal;
  const durationS = o.durationS ?? 30;
  const payloadKg = o.payloadKg ?? 0.2;
  const samples: FreeMotionSample[] = [];
  await io.prompt(
    'The arm will move slowly through its range for the free-motion recording. Clear the workspace and keep a hand on the power switch.',
  );
  const hold = await arm.holdNow('calibration start');
  if (!hold.ok) return hold;
  const on = await arm.setTorque(true);
  if (!on.ok) return on;
  io.progress('recording free motion');
  let r = await recordPhase(arm, io, durationS, 0, samples);
  if (!r.ok) return r;
  await io.prompt(`Attach the ${payloadKg} kg reference mass at the gripper tip (TCP).`);
  o.setPayload?.(payloadKg);
  io.progress('recording free motion with the reference payload');
  r = await recordPhase(arm, io, durationS, payloadKg, samples);
  o.setPayload?.(0);
  if (!r.ok) return r;
  await io.prompt('Remove the reference mass.');
  io.progress(`fitting ${samples.length} samples`);
  const fit = fitFreeMotion(samples, {
    coulombWidth: cal.freeMotion.coulombWidth,
    datasheetConstant: cal.torque.stallTorqueNm / 1000,
    forceDamping: cal.contactForce.damping,
  });
  // The table probe uses the fitted model, with the noise floor as deadband.
  arm.mapping.useModel(fit.constants, new AnalyticFreeMotionModel(fit.params), Math.max(fit.forceP99N, 0));
  await io.prompt('Table probe: the gripper will be lowered slowly until it touches the table.');
  const probe = await probeTable(arm, io, o.probeForceN ?? 3);
  if (!probe.ok) return probe;
  return ok({ fit, tableHeightM: probe.value.z, tableProbeForceN: probe.value.force });
}

/** Probe start: TCP ≈ 4.6 cm above the base plane, 24 cm in front (arm clamped to the table top). */
export const PROBE_START = [0, -0.3, 0.6, 0.9, 0, 0.3] as const;

/** Lower the TCP along shoulder_lift in 0.5 mm steps until the residual force exceeds `forceN`. */
async function probeTable(
  arm: So101Arm,
  io: ProcedureIo,
  forceN: number,
): Promise<Result<{ z: number; force: number }, Fault>> {
  const goal = Float64Array.from(PROBE_START);
  // Phase 2 can end up to ~2.3 rad away (wrist_flex); approach near the table slowly, then settle there.
  const approach = await rampTo(arm, io, goal, 2);
  if (!approach.ok) return approach;
  for (let k = 0; k < Math.round(2 / io.dt); k++) {
    const w = await arm.writeGoals(goal);
    if (!w.ok) return w;
    await io.pace();
  }
  const J = new Float64Array(18);
  for (let step = 0; step < 4000; step++) {
    const r = await arm.readState();
    if (!r.ok) return r;
    const m = arm.mapping;
    const fk = m.capsules.fk;
    const t = TF * SO101_FRAMES.tcp;
    const z = fk.frames[t + 11]!;
    if (m.contactForce > forceN) return ok({ z, force: m.contactForce });
    fk.pointJacobian(J, SO101_FRAMES.tcp, fk.frames[t + 9]!, fk.frames[t + 10]!, z);
    const dzdq = J[12 + 1]!;
    if (Math.abs(dzdq) < 1e-3) break;
    goal.set(m.q.subarray(0, 5));
    goal[1] = goal[1]! - 0.0005 / dzdq;
    const w = await arm.writeGoals(goal);
    if (!w.ok) return w;
    await io.pace();
    await io.pace();
  }
  return err({
    kind: 'timeout',
    source: arm.name,
    detail: 'table probe: no contact found within the shoulder_lift range',
  });
}
