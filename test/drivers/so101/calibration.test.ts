/**
 * Calibration round trip on the emulator: the real driver path (bus over serialport's mock binding,
 * emulated STS3215s) with simulated arm physics of known torque constants, friction and link masses.
 * Stated tolerances: identifiable torque constants within 2 %, viscous friction within 15 %, Coulomb
 * friction within 10 %, table height within 3 mm, fit RMS below 0.01 N·m (noise ±2 load units).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as ort from 'onnxruntime-node';
import { createEmulatedSo101, type EmulatedSo101 } from '../../../drivers/so101/emulated-arm.js';
import {
  calibrationTrajectory,
  runCalibrationProcedure,
  type ProcedureResult,
} from '../../../drivers/so101/calibration-procedure.js';
import { DEFAULT_SIM_TRUTH } from '../../../drivers/so101/sim-physics.js';
import { defaultSo101Calibration } from '../../../src/calibration/so101-defaults.js';
import { mlpPredict } from '../../../src/calibration/mlp.js';
import { mlpToOnnx } from '../../../src/calibration/onnx-export.js';
import { applyFit } from '../../../src/calibration/so101-report.js';
import { formatSo101Calibration } from '../../../src/calibration/so101-write.js';
import { parseSo101Calibration } from '../../../src/calibration/so101.js';
import { ForwardKinematics, SO101_CHAIN, SO101_FRAMES } from '../../../src/kinematics/index.js';

let rig: EmulatedSo101;
let result: ProcedureResult;
const TABLE_Z = 0.012;

beforeAll(async () => {
  const r = await createEmulatedSo101(defaultSo101Calibration('roundtrip', 12));
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  rig = r.value;
  rig.sim.tableZ = TABLE_Z;
  const dt = 0.02;
  const res = await runCalibrationProcedure(
    rig.arm,
    { dt, pace: async () => rig.timers.advance(dt), prompt: async () => undefined, progress: () => undefined },
    { durationS: 20, payloadKg: 0.2, setPayload: (kg) => (rig.sim.payloadKg = kg) },
  );
  if (!res.ok) throw new Error(JSON.stringify(res.error));
  result = res.value;
}, 60_000);

afterAll(async () => {
  await rig?.close();
});

describe('SO-101 calibration on the emulator', () => {
  it('recovers the torque constants of the joints the payload loads (2 %), datasheet for the others', () => {
    const k = result.fit.constants;
    for (const j of [1, 2, 3]) {
      expect(Math.abs(k[j]! / DEFAULT_SIM_TRUTH.torqueConstant[j]! - 1)).toBeLessThan(0.02);
      expect(result.fit.constantSources[j]).toMatch(/payload fit/);
    }
    for (const j of [0, 4]) {
      expect(k[j]).toBeCloseTo(2.94 / 1000, 9);
      expect(result.fit.constantSources[j]).toMatch(/datasheet/);
    }
  });
  it('recovers viscous (15 %) and Coulomb (10 %) friction per joint', () => {
    const { viscous, coulomb } = result.fit.params;
    for (let j = 0; j < 5; j++) {
      expect(Math.abs(viscous[j]! / DEFAULT_SIM_TRUTH.viscous[j]! - 1)).toBeLessThan(0.15);
      expect(Math.abs(coulomb[j]! / DEFAULT_SIM_TRUTH.coulomb[j]! - 1)).toBeLessThan(0.1);
    }
  });
  it('fits free motion to the noise level and reports a sub-newton noise floor', () => {
    for (const r of result.fit.residualRmsNm) expect(r).toBeLessThan(0.01);
    expect(result.fit.forceP99N).toBeGreaterThan(0);
    expect(result.fit.forceP99N).toBeLessThan(1);
  });
  it('finds the table within 3 mm', () => {
    expect(Math.abs(result.tableHeightM - TABLE_Z)).toBeLessThan(0.003);
  });
  it('writes a calibration file that validates and reads back the fitted numbers', () => {
    const cal = applyFit(
      defaultSo101Calibration('roundtrip', 12),
      result.fit,
      result.tableHeightM,
      'so101-roundtrip.residual.onnx',
    );
    const parsed = parseSo101Calibration(formatSo101Calibration(cal), 'so101-roundtrip.yaml');
    if (!parsed.ok) throw new Error(parsed.problems.map((p) => p.message).join('\n'));
    expect(parsed.value.torque.constants[1]).toBeCloseTo(result.fit.constants[1]!, 7);
    expect(parsed.value.thresholds.max_contact_force!.value).toBeGreaterThanOrEqual(1);
    expect(parsed.value.thresholds.max_contact_force!.reason).toMatch(/noise/);
  });
  it('the ONNX export run by onnxruntime-node gives the fitted model’s predictions (1e-5 N·m)', async () => {
    const mlp = result.fit.learned!;
    const session = await ort.InferenceSession.create(mlpToOnnx(mlp));
    const rows = 100;
    const x = new Float32Array(rows * 10);
    for (let i = 0; i < x.length; i++) x[i] = Math.sin(i * 1.37) * 1.5;
    const y = (await session.run({ x: new ort.Tensor('float32', x, [rows, 10]) })).y!.data as Float32Array;
    const ref = new Float64Array(5);
    for (let r = 0; r < rows; r++) {
      mlpPredict(mlp, x.subarray(r * 10, r * 10 + 10), ref);
      for (let o = 0; o < 5; o++) expect(Math.abs(y[r * 5 + o]! - ref[o]!)).toBeLessThan(1e-5);
    }
  });
  it('the calibration trajectory keeps the TCP at least 0.14 m above the base plane', () => {
    const fk = new ForwardKinematics(SO101_CHAIN);
    const q = new Float64Array(6);
    let minZ = Infinity;
    for (let t = 0; t < 120; t += 0.01) {
      calibrationTrajectory(t, q);
      fk.compute(q);
      minZ = Math.min(minZ, fk.frames[fk.offset(SO101_FRAMES.tcp) + 11]!);
    }
    expect(minZ).toBeGreaterThan(0.14);
  });
});
