/** `armguard calibrate so101 --emulator` end to end, and the pipelined ONNX free-motion model it enables. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.js';
import { parseSo101Calibration } from '../../../src/calibration/so101.js';
import { AnalyticFreeMotionModel } from '../../../src/calibration/free-motion.js';
import { OnnxFreeMotionModel, OnnxResidual } from '../../../drivers/so101/onnx-residual.js';

const dir = mkdtempSync(join(tmpdir(), 'armguard-calibrate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function io() {
  const out: string[] = [],
    err: string[] = [];
  return { out, err, io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t) } };
}

describe('armguard calibrate so101', () => {
  it('refuses bad usage with a reason', async () => {
    const a = io();
    expect(await main(['calibrate', 'so101', '--emulator'], a.io)).toBe(2);
    expect(a.err.join('\n')).toMatch(/--id <id> is required/);
    const b = io();
    expect(await main(['calibrate', 'so101', '--id', 'x', '--emulator', '--port', '/dev/null'], b.io)).toBe(2);
    expect(b.err.join('\n')).toMatch(/exactly one of --port <tty> or --emulator/);
    const c = io();
    expect(await main(['calibrate', 'ur5', '--id', 'x', '--emulator'], c.io)).toBe(2);
    const d = io();
    expect(await main(['calibrate', 'so101', '--id', 'x', '--port', '/dev/ttyACM9'], d.io)).toBe(2);
    expect(d.err.join('\n')).toMatch(/--lerobot-calibration <json> is required/);
  });

  it('writes a valid calibration, the ONNX residual and the report; the ONNX model runs in the mapping', async () => {
    const a = io();
    expect(
      await main(['calibrate', 'so101', '--id', 'cli', '--emulator', '--duration', '6', '--out-dir', dir], a.io),
    ).toBe(0);
    const yamlPath = join(dir, 'so101-cli.yaml');
    const parsed = parseSo101Calibration(readFileSync(yamlPath, 'utf8'), yamlPath);
    if (!parsed.ok) throw new Error(parsed.problems.map((p) => p.message).join('\n'));
    const cal = parsed.value;
    expect(cal.freeMotion.residualOnnx).toBe('so101-cli.residual.onnx');
    expect(cal.thresholds.max_contact_force!.source).toMatch(/free-motion fit/);
    const report = readFileSync(join(dir, 'so101-cli.report.md'), 'utf8');
    expect(report).toMatch(/Noise floor/);
    expect(report).toMatch(/onnxruntime-node reproduces the fitted model/);
    // the fallback for a machine without onnxruntime-node: the analytic model's own noise floor, stated in the file and the report
    expect(cal.contactForce.noResidual).toEqual({ deadbandN: expect.any(Number), thresholdN: expect.any(Number) });
    expect(cal.contactForce.noResidual!.thresholdN).toBeGreaterThanOrEqual(1);
    expect(cal.contactForce.noResidual!.deadbandN).toBeGreaterThan(0);
    expect(report).toMatch(
      new RegExp(`Without onnxruntime-node .*a ${cal.contactForce.noResidual!.thresholdN} N contact threshold`),
    );

    // Pipelined ONNX model: the first prediction is the analytic one, the next adds the learned residual.
    const analytic = new AnalyticFreeMotionModel(cal.freeMotion);
    const residual = await OnnxResidual.load(join(dir, cal.freeMotion.residualOnnx!));
    if (!residual.ok) throw new Error(residual.error);
    const model = new OnnxFreeMotionModel(analytic, residual.value);
    const q = [0.1, -0.8, 0.2, -0.5, 0.3, 0],
      qd = [0.2, -0.1, 0.05, 0, 0.1, 0];
    const a0 = new Float64Array(5),
      p0 = new Float64Array(5),
      p1 = new Float64Array(5);
    analytic.predict(q, qd, a0);
    model.predict(q, qd, p0);
    expect(Array.from(p0)).toEqual(Array.from(a0));
    for (let i = 0; i < 20000 && model.runs === 0; i++) await new Promise((r) => setImmediate(r));
    expect(model.runs).toBe(1);
    model.predict(q, qd, p1);
    const direct = await residual.value.run(Float32Array.from([...q.slice(0, 5), ...qd.slice(0, 5)]), 1);
    for (let j = 0; j < 5; j++) expect(p1[j]).toBeCloseTo(a0[j]! + direct[j]!, 9);
  });
});
