import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  halfTurnHomingOffset,
  normalize,
  parseLeRobotCalibrationJson,
  presentFromActual,
  radiansPerTick,
  radiansToTicks,
  rawToRadians,
  ticksToRadians,
  unnormalize,
  type JointTicks,
  type MotorCalibration,
} from '../../src/calibration/lerobot.js';

const body: MotorCalibration = { id: 2, drive_mode: 0, homing_offset: -1014, range_min: 1000, range_max: 3000 };
const gripper: MotorCalibration = { id: 6, drive_mode: 0, homing_offset: 1041, range_min: 2031, range_max: 3524 };

describe('LeRobot normalisation (hand-computed)', () => {
  it('degrees: (raw − mid)·360/4095, unbounded, drive_mode ignored', () => {
    expect(normalize(2000, body, 'degrees')).toBe(0);
    expect(normalize(2500, body, 'degrees')).toBeCloseTo(180000 / 4095, 12); // 43.956…
    expect(normalize(4000, body, 'degrees')).toBeCloseTo((2000 * 360) / 4095, 12); // beyond range: not clamped
    expect(normalize(2500, { ...body, drive_mode: 1 }, 'degrees')).toBeCloseTo(180000 / 4095, 12);
    expect(rawToRadians(2500, body)).toBeCloseTo(((180000 / 4095) * Math.PI) / 180, 12);
  });
  it('range_0_100 (gripper): clamped, inverted by drive_mode', () => {
    expect(normalize(2031, gripper, 'range_0_100')).toBe(0);
    expect(normalize(3524, gripper, 'range_0_100')).toBe(100);
    expect(normalize(2404, gripper, 'range_0_100')).toBeCloseTo((373 / 1493) * 100, 12); // 24.98…
    expect(normalize(2404, { ...gripper, drive_mode: 1 }, 'range_0_100')).toBeCloseTo(100 - (373 / 1493) * 100, 12);
    expect(normalize(10, gripper, 'range_0_100')).toBe(0);
  });
  it('range_m100_100: clamped to ±100, negated by drive_mode', () => {
    expect(normalize(3000, body, 'range_m100_100')).toBe(100);
    expect(normalize(500, body, 'range_m100_100')).toBe(-100);
    expect(normalize(1500, body, 'range_m100_100')).toBe(-50);
    expect(normalize(1500, { ...body, drive_mode: 1 }, 'range_m100_100')).toBe(50);
  });
  it('unnormalise truncates toward zero like Python int()', () => {
    expect(unnormalize(90, body, 'degrees')).toBe(3023); // 1023.75 + 2000
    expect(unnormalize(-90, body, 'degrees')).toBe(976); // 2000 − 1023.75
    expect(unnormalize(50, gripper, 'range_0_100')).toBe(2777); // 2031 + 746.5
    expect(unnormalize(50, { ...gripper, drive_mode: 1 }, 'range_0_100')).toBe(2777);
    expect(unnormalize(25, { ...gripper, drive_mode: 1 }, 'range_0_100')).toBe(Math.trunc(0.75 * 1493 + 2031));
    expect(unnormalize(150, body, 'range_m100_100')).toBe(3000);
  });
  it('normalise ∘ unnormalise stays within one encoder step', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1000, max: 3000 }), (raw) => {
        const back = unnormalize(normalize(raw, body, 'degrees'), body, 'degrees');
        expect(Math.abs(back - raw)).toBeLessThanOrEqual(1);
      }),
    );
  });
  it('homing: Present = Actual − Homing_Offset; half-turn homing reads 2047', () => {
    const off = halfTurnHomingOffset(3100);
    expect(off).toBe(3100 - 2047);
    expect(presentFromActual(3100, off)).toBe(2047);
  });
});

describe('SO-101 joint ticks ↔ URDF radians (hand-computed)', () => {
  const open = (100 * Math.PI) / 180;
  const g: JointTicks = { kind: 'gripper', cal: gripper, openRad: open };
  const flipped: JointTicks = { kind: 'gripper', cal: { ...gripper, drive_mode: 1 }, openRad: open };
  const b: JointTicks = { kind: 'body', cal: body };
  it('gripper: closed range_min → 0 rad, open range_max → the upper limit, linear between (not the mid-range rule)', () => {
    expect(ticksToRadians(2031, g)).toBe(0);
    expect(ticksToRadians(3524, g)).toBeCloseTo(open, 12);
    expect(ticksToRadians(2404, g)).toBeCloseTo((373 / 1493) * open, 12);
    // the mid-range tick is half open (50°), where the body rule would say 0
    expect(ticksToRadians(2777.5, g)).toBeCloseTo(open / 2, 12);
    expect(rawToRadians(2777.5, gripper)).toBe(0);
    expect(radiansToTicks(0, g)).toBe(2031);
    expect(radiansToTicks(open, g)).toBe(3524);
    expect(radiansToTicks(0.5, g)).toBe(2459); // 2031 + 0.5/1.74533 · 1493 = 2458.71
    expect(radiansToTicks((-10 * Math.PI) / 180, g)).toBe(1882); // 2031 − 149.3: not clamped (the servo's limit is)
    expect(radiansPerTick(g)).toBeCloseTo(open / 1493, 15);
  });
  it('gripper with drive_mode 1: LeRobot flips the scale (100 − x), so closed is range_max', () => {
    expect(ticksToRadians(3524, flipped)).toBe(0);
    expect(ticksToRadians(2031, flipped)).toBeCloseTo(open, 12);
    expect(radiansToTicks(0, flipped)).toBe(3524);
    expect(radiansToTicks(0.5, flipped)).toBe(3096); // 3524 − 427.71
    expect(radiansPerTick(flipped)).toBeCloseTo(-open / 1493, 15);
    // LeRobot's own RANGE_0_100 reading of a tick, scaled to the upper limit
    expect(ticksToRadians(2404, flipped)).toBeCloseTo((normalize(2404, flipped.cal, 'range_0_100') / 100) * open, 12);
  });
  it('body joints keep LeRobot DEGREES (zero at mid-range, 2π/4095 per tick)', () => {
    expect(ticksToRadians(2500, b)).toBeCloseTo(((180000 / 4095) * Math.PI) / 180, 12);
    expect(radiansToTicks(Math.PI / 2, b)).toBe(3024); // 2000 + 1023.75, rounded
    expect(radiansPerTick(b)).toBeCloseTo((2 * Math.PI) / 4095, 15);
  });
  it('ticks → radians → ticks is the identity on the calibrated range', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2031, max: 3524 }), fc.boolean(), (raw, flip) => {
        const j = flip ? flipped : g;
        expect(radiansToTicks(ticksToRadians(raw, j), j)).toBe(raw);
      }),
    );
  });
});

describe('LeRobot calibration JSON', () => {
  const good = JSON.stringify({
    shoulder_pan: { id: 1, drive_mode: 0, homing_offset: 12, range_min: 800, range_max: 3300 },
  });
  it('parses the five fields', () => {
    const r = parseLeRobotCalibrationJson(good, 'cal.json');
    expect(r.ok && r.value.shoulder_pan).toEqual({
      id: 1,
      drive_mode: 0,
      homing_offset: 12,
      range_min: 800,
      range_max: 3300,
    });
  });
  it('names the file and field of a bad value', () => {
    const bad = JSON.stringify({
      elbow_flex: { id: 3, drive_mode: 0, homing_offset: 0, range_min: 3000, range_max: 1000 },
    });
    const r = parseLeRobotCalibrationJson(bad, 'cal.json');
    expect(!r.ok && r.error.message).toMatch(/cal\.json.*field 'elbow_flex\.range_max'.*must exceed/);
    const r2 = parseLeRobotCalibrationJson(JSON.stringify({ x: { id: 1.5 } }), 'c.json');
    expect(!r2.ok && r2.error.message).toMatch(/field 'x\.id': expected an integer/);
    const r3 = parseLeRobotCalibrationJson(good, 'c.json', ['gripper']);
    expect(!r3.ok && r3.error.message).toMatch(/missing motor 'gripper'/);
    expect(parseLeRobotCalibrationJson('{', 'c.json').ok).toBe(false);
  });
  it('names the line of the failing value, and range_max when range_max is out of bounds', () => {
    const text = JSON.stringify(
      {
        shoulder_pan: { id: 1, drive_mode: 0, homing_offset: 12, range_min: 800, range_max: 3300 },
        elbow_flex: { id: 3, drive_mode: 0, homing_offset: 0, range_min: 900, range_max: 4200 },
      },
      null,
      2,
    );
    const line = text.split('\n').findIndex((l) => l.includes('"range_max": 4200')) + 1;
    expect(line).toBe(14);
    const r = parseLeRobotCalibrationJson(text, 'cal.json');
    expect(!r.ok && r.error.where).toEqual({ file: 'cal.json', line, field: 'elbow_flex.range_max' });
    expect(!r.ok && r.error.message).toMatch(
      /^cal\.json:14 field 'elbow_flex\.range_max': .*0\.\.4095, got range_max 4200/,
    );
    const low = parseLeRobotCalibrationJson(text.replace('"range_min": 900', '"range_min": -5'), 'cal.json');
    expect(!low.ok && low.error.where).toEqual({ file: 'cal.json', line: line - 1, field: 'elbow_flex.range_min' });
  });
  it("a missing field names the motor's line; a missing motor names the line of the motors object", () => {
    const text = '\n\n{\n  "wrist_roll": { "id": 5, "drive_mode": 0,\n    "homing_offset": 0, "range_min": 10 }\n}\n';
    const r = parseLeRobotCalibrationJson(text, 'cal.json');
    expect(!r.ok && r.error.where).toEqual({ file: 'cal.json', line: 4, field: 'wrist_roll.range_max' });
    const ok = text.replace('"range_min": 10', '"range_min": 10, "range_max": 20');
    const missing = parseLeRobotCalibrationJson(ok, 'cal.json', ['wrist_roll', 'gripper']);
    expect(!missing.ok && missing.error.where).toEqual({ file: 'cal.json', line: 3, field: 'gripper' });
    expect(!missing.ok && missing.error.message).toBe("cal.json:3 field 'gripper': missing motor 'gripper'");
  });
});
