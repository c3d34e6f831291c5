/**
 * onnxruntime-node is optional: with it the SO-101 free-motion model is analytic + learned residual;
 * without it the analytic model runs with the calibration's own no-residual deadband and thresholds,
 * and the user is told. onnxruntime-node is a devDependency, so both paths run here.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseSo101Calibration, type So101Calibration } from '../../../src/calibration/so101.js';
import { parseRunArgs } from '../../../src/cli/commands/run.js';
import {
  importOnnxRuntime,
  ONNX_RUNTIME_MISSING,
  OnnxFreeMotionModel,
  OnnxResidual,
  so101FreeMotion,
  withoutResidual,
} from '../../../drivers/so101/onnx-residual.js';
import { err } from '../../../src/util/result.js';
import { repoRoot } from '../../support/paths.js';

const CAL_PATH = join(repoRoot, 'calibration/so101-demo.yaml');
const CAL_TEXT = readFileSync(CAL_PATH, 'utf8');
const RESIDUAL = join(repoRoot, 'calibration/so101-demo.residual.onnx');

function demo(): So101Calibration {
  const r = parseSo101Calibration(CAL_TEXT, CAL_PATH);
  if (!r.ok) throw new Error(r.problems.map((p) => p.message).join('\n'));
  return r.value;
}

/** Node's own resolver, not the test runner's: a missing package fails with Node's error code. */
const nodeLoad = async (specifier: string): Promise<never> => createRequire(import.meta.url)(specifier) as never;

describe('loading onnxruntime-node', () => {
  it('a missing package is a value carrying what is lost, the fallback and the fix', async () => {
    const r = await importOnnxRuntime(() => nodeLoad('onnxruntime-node-that-is-not-installed'));
    expect(r).toEqual(err(ONNX_RUNTIME_MISSING));
    expect(ONNX_RUNTIME_MISSING).toMatch(/not installed/);
    expect(ONNX_RUNTIME_MISSING).toMatch(/no_residual_threshold_n/);
    expect(ONNX_RUNTIME_MISSING).toMatch(/npm install onnxruntime-node/);
  });

  it('any other load failure is reported with its cause, not as "not installed"', async () => {
    const r = await importOnnxRuntime(() =>
      Promise.reject(new Error('libonnxruntime.so.1: cannot open shared object file')),
    );
    expect(r).toEqual(err('onnxruntime-node failed to load: libonnxruntime.so.1: cannot open shared object file'));
  });

  it('an unreadable model file is an error naming the file', async () => {
    const r = await OnnxResidual.load(join(repoRoot, 'calibration/so101-demo.yaml'));
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).toMatch(/so101-demo\.yaml: onnxruntime-node cannot load it/);
  });
});

describe('the SO-101 free-motion model a calibration asks for', () => {
  it('with onnxruntime-node: analytic + the learned residual, the calibration as written', async () => {
    const cal = demo();
    const fm = await so101FreeMotion(cal, RESIDUAL);
    expect(fm.model).toBeInstanceOf(OnnxFreeMotionModel);
    expect(fm.calibration).toBe(cal);
    expect(fm.notice).toBeUndefined();
  });

  it('without it: the analytic model, the no-residual deadband and contact thresholds, and a notice', async () => {
    const cal = demo();
    const fallback = cal.contactForce.noResidual!;
    expect(fallback).toBeDefined();
    const fm = await so101FreeMotion(cal, RESIDUAL, async () => err(ONNX_RUNTIME_MISSING));
    expect(fm.model).not.toBeInstanceOf(OnnxFreeMotionModel);
    expect(fm.model.kind).not.toMatch(/ONNX/);
    expect(fm.notice).toBe(ONNX_RUNTIME_MISSING);
    expect(fm.calibration.contactForce).toEqual({ damping: cal.contactForce.damping, deadbandN: fallback.deadbandN });
    expect(fm.calibration.thresholds.arm_furniture_force!.value).toBe(fallback.thresholdN);
    expect(fm.calibration.thresholds.max_contact_force!.value).toBe(fallback.thresholdN);
    expect(fm.calibration.thresholds.max_contact_force!.reason).toMatch(/Learned residual not applied/);
    expect(fm.calibration.thresholds.joint_torque).toEqual(cal.thresholds.joint_torque);
    expect(fm.calibration.freeMotion.residualOnnx).toBeUndefined();
    expect(cal.thresholds.max_contact_force!.reason).not.toMatch(/not applied/); // the input is not modified
  });

  it('a residual file onnxruntime-node cannot load: the same fallback, the notice names the file and what is used instead', async () => {
    const cal = demo();
    const fm = await so101FreeMotion(cal, CAL_PATH); // a YAML file where the model should be
    expect(fm.model).not.toBeInstanceOf(OnnxFreeMotionModel);
    expect(fm.notice).toMatch(
      /so101-demo\.yaml: onnxruntime-node cannot load it: .* — armguard uses the analytic free-motion model alone .*no_residual_threshold_n/,
    );
    expect(fm.calibration.thresholds.max_contact_force!.value).toBe(cal.contactForce.noResidual!.thresholdN);
  });

  it('a calibration without a residual runs the analytic model as written', async () => {
    const cal = demo();
    const { residualOnnx: _r, ...freeMotion } = cal.freeMotion;
    const plain = { ...cal, freeMotion };
    const fm = await so101FreeMotion(plain, undefined, async () => {
      throw new Error('must not load a model');
    });
    expect(fm.calibration).toBe(plain);
    expect(fm.notice).toBeUndefined();
    expect(withoutResidual({ ...plain, contactForce: { damping: 1e-4, deadbandN: 0.2 } }).contactForce.deadbandN).toBe(
      0.2,
    );
  });

  it('armguard run wires it: the demo calibration runs with its residual here', async () => {
    const r = await parseRunArgs([
      'so101',
      '--emulator',
      '--calibration',
      CAL_PATH,
      '--task',
      'so101-pick-blue-can',
      '--mqtt',
      'mqtt://127.0.0.1:1',
    ]);
    if (!r.ok) throw new Error(r.errors.join('\n'));
    expect(r.options.freeMotion).toBeInstanceOf(OnnxFreeMotionModel);
    expect(r.notice).toBeUndefined();
  });
});

describe('the no-residual fallback in the calibration file', () => {
  const problems = (text: string) => {
    const r = parseSo101Calibration(text, 'so101-x.yaml');
    return r.ok ? [] : r.problems.map((p) => p.message);
  };

  it('is read from contact_force, and the shipped demo states it', () => {
    expect(demo().contactForce.noResidual).toEqual({ deadbandN: expect.any(Number), thresholdN: expect.any(Number) });
    expect(demo().contactForce.noResidual!.thresholdN).toBeGreaterThanOrEqual(
      demo().thresholds.max_contact_force!.value,
    );
    expect(CAL_TEXT).toMatch(/# Without onnxruntime-node the learned residual cannot run/);
  });

  it('a residual without a fallback, or half a fallback, is refused with the field and the fix', () => {
    const without = CAL_TEXT.replace(/^ {2}no_residual_(deadband|threshold)_n: .*\n/gm, '');
    expect(problems(without)).toEqual([
      expect.stringMatching(
        /contact_force.*needs contact_force\.no_residual_deadband_n and no_residual_threshold_n.*re-run armguard calibrate/,
      ),
    ]);
    const half = CAL_TEXT.replace(/^ {2}no_residual_threshold_n: .*\n/m, '');
    expect(problems(half)).toEqual([
      expect.stringMatching(/no_residual_deadband_n and no_residual_threshold_n go together/),
    ]);
    const noResidual = without.replace(/^ {2}residual_onnx: .*\n/m, '');
    expect(problems(noResidual)).toEqual([]);
  });
});
