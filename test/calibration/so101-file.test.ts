import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseSo101Calibration } from '../../src/calibration/so101.js';
import { defaultSo101Calibration } from '../../src/calibration/so101-defaults.js';
import { formatSo101Calibration } from '../../src/calibration/so101-write.js';
import { main } from '../../src/cli/main.js';
import { repoRoot } from '../support/paths.js';

const demoPath = join(repoRoot, 'calibration/so101-demo.yaml');
const demo = readFileSync(demoPath, 'utf8');

function problems(text: string): string[] {
  const r = parseSo101Calibration(text, 'so101-x.yaml');
  return r.ok ? [] : r.problems.map((p) => p.message);
}

describe('SO-101 calibration file', () => {
  it('the shipped demo validates, with the joint_torque ceiling at 70 % of the 12 V stall torque and its reason', () => {
    const r = parseSo101Calibration(demo, demoPath);
    if (!r.ok) throw new Error(r.problems.map((p) => p.message).join('\n'));
    expect(r.value.thresholds.joint_torque).toMatchObject({ value: 2.058, unit: 'N·m' });
    expect(r.value.thresholds.joint_torque!.reason).toMatch(/stall/);
    expect(r.value.thresholds.joint_torque!.source).toMatch(/lerobot#1809/);
    expect(r.value.declaredSignals).toContain('self_collision_clearance');
  });
  it('format → parse round-trips the defaults', () => {
    const cal = defaultSo101Calibration('rt', 7.4);
    const r = parseSo101Calibration(formatSo101Calibration(cal), 'so101-rt.yaml');
    expect(r.ok && r.value).toEqual(cal);
    expect(cal.thresholds.joint_torque!.value).toBeCloseTo(1.302, 6);
  });
  it('reports every problem with file, line and field', () => {
    const bad = demo
      .replace('supply_voltage: 12', 'supply_voltage: twelve')
      .replace(/ {2}load_off: \d+/, '  load_off: 900')
      .replace('table_height_m:', 'table_heigth_m:');
    const ps = problems(bad);
    const lineOf = (needle: string): number => bad.split('\n').findIndex((l) => l.includes(needle)) + 1;
    expect(ps).toContain(
      `so101-x.yaml:${lineOf('supply_voltage')} field 'supply_voltage': expected a number in [4, 14], got "twelve"`,
    );
    expect(
      ps.some(
        (p) =>
          p.startsWith(`so101-x.yaml:${lineOf('  load_off:')} field 'gripper_contact.load_off'`) &&
          p.includes('hysteresis'),
      ),
    ).toBe(true);
    expect(ps.some((p) => p.includes("field 'table_heigth_m': unknown field"))).toBe(true);
    expect(ps.some((p) => p.includes("field 'table_height_m': missing"))).toBe(true);
  });
  it('refuses a joint_torque ceiling above stall, a wrong joint order and unknown signals', () => {
    expect(problems(demo.replace(/(joint_torque:\n\s+value: )[\d.]+/, '$1 5'))).toEqual([
      expect.stringMatching(/field 'thresholds\.joint_torque\.value': 5 N·m exceeds the servo stall torque 2\.94 N·m/),
    ]);
    expect(problems(demo.replace('name: shoulder_pan, id: 1', 'name: elbow_flex, id: 1')).join('\n')).toMatch(
      /joints\[0\]\.name': expected one of shoulder_pan/,
    );
    expect(problems(demo.replace('  - self_collision_clearance', '  - self_colision')).join('\n')).toMatch(
      /unknown signal 'self_colision'/,
    );
    expect(problems('kind: [')).toEqual([expect.stringMatching(/^so101-x\.yaml:1: YAML syntax/)]);
    // The gripper's 0° is the closed jaw (range_min): an upper limit at or below it has no open end.
    const gripperLine = demo.split('\n').findIndex((l) => l.includes('name: gripper')) + 1;
    expect(problems(demo.replace('lower_deg: -10, upper_deg: 100', 'lower_deg: -10, upper_deg: 0'))).toEqual([
      expect.stringMatching(
        new RegExp(
          `^so101-x\\.yaml:${gripperLine} field 'joints\\[5\\]\\.upper_deg': the gripper's upper_deg is its open end`,
        ),
      ),
    ]);
  });
  it('refuses thresholds that are negative, zero, non-finite, in an unknown unit or beyond what the arm can physically produce, with the reason', () => {
    const contact = (v: string) => demo.replace(/(max_contact_force:\n\s+value: )[\d.]+/, `$1${v}`);
    const field = "field 'thresholds.max_contact_force.value'";
    expect(problems(contact('-1')).join('\n')).toContain(`${field}: -1 N is negative`);
    expect(problems(contact('0')).join('\n')).toContain(`${field}: 0 N: a zero threshold fires on every sample`);
    expect(problems(contact('.nan')).join('\n')).toMatch(
      /max_contact_force\.value'.*(not a finite number|expected a number)/,
    );
    // the 200 N of the paper: no SO-101 joint can push that hard (stall 2.94 N·m over 0.05 m is 58.8 N)
    expect(problems(contact('200')).join('\n')).toContain(
      `${field}: 200 N exceeds 58.8 N, the largest contact force any joint can produce (stall 2.94 N·m over a 0.05 m lever), so the clause could never fire`,
    );
    expect(problems(demo.replace(/(joint_torque:\n\s+value: )[\d.]+/, '$1 0.0001'))).toEqual([]); // strict but reachable: accepted
    expect(problems(demo.replace('unit: "N·m"', 'unit: "kgf"')).join('\n')).toMatch(
      /unit 'kgf' is not one of N·m, N, m, deg/,
    );
  });
  it('armguard check accepts the demo and names the problem in a broken copy', async () => {
    const out: string[] = [];
    const io = { out: (t: string) => out.push(t), err: (t: string) => out.push(t) };
    expect(await main(['check', demoPath], io)).toBe(0);
    expect(out.join('\n')).toMatch(/ok \(SO-101 calibration 'demo'/);
  });
});

describe('SO-101 calibration parser fuzz', () => {
  it('never throws on corrupted files; every problem names the file', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: demo.length - 1 }),
        fc.integer({ min: 0, max: 40 }),
        fc.string({ maxLength: 12 }),
        (at, cut, insert) => {
          const text = demo.slice(0, at) + insert + demo.slice(Math.min(demo.length, at + cut));
          const r = parseSo101Calibration(text, 'fuzz.yaml');
          if (!r.ok) for (const p of r.problems) expect(p.message.startsWith('fuzz.yaml')).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });
});
