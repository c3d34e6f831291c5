import { YamlReader } from '../schema/yaml-reader.js';
import { InputError } from '../util/errors.js';
import { err, ok, type Result } from '../util/result.js';

/**
 * LeRobot motor calibration and normalisation, reproduced from huggingface/lerobot
 * `src/lerobot/motors/motors_bus.py` (`_normalize` / `_unnormalize`) and
 * `motors/feetech/feetech.py` (hardware-facts §B4):
 * - Homing_Offset lives in the servo: the firmware reports Present_Position = Actual − Homing_Offset,
 *   so LeRobot never applies the offset in software; `range_min/max` are in Present_Position steps.
 *   Half-turn homing puts the present position at 2047 in the middle of the range.
 * - DEGREES: (raw − (min+max)/2) · 360 / 4095, unbounded, and **drive_mode is not applied** in this mode.
 * - RANGE_M100_100: raw clamped to [min, max], ((raw − min)/(max − min))·200 − 100, negated if drive_mode.
 * - RANGE_0_100: raw clamped, ((raw − min)/(max − min))·100, 100 − x if drive_mode.
 * - Unnormalise truncates toward zero (Python int()).
 * The SO-101 follower uses DEGREES (use_degrees=True) or RANGE_M100_100 for the body joints and
 * RANGE_0_100 for the gripper. Whether Present_Position wraps modulo 4096 after the offset is
 * subtracted is UNCONFIRMED (LeRobot clears Phase bit 4 so reads stay in 0..4095).
 */
export interface MotorCalibration {
  id: number;
  drive_mode: number;
  homing_offset: number;
  range_min: number;
  range_max: number;
}

export type LeRobotCalibration = Record<string, MotorCalibration>;
export type NormMode = 'degrees' | 'range_m100_100' | 'range_0_100';

/** STS3215 resolution (steps per turn); LeRobot's `max_res` is resolution − 1 = 4095. */
export const STS3215_RESOLUTION = 4096;

export function normalize(raw: number, cal: MotorCalibration, mode: NormMode, resolution = STS3215_RESOLUTION): number {
  const min = cal.range_min,
    max = cal.range_max;
  const bounded = Math.min(max, Math.max(min, raw));
  switch (mode) {
    case 'degrees':
      return ((raw - (min + max) / 2) * 360) / (resolution - 1);
    case 'range_m100_100': {
      const n = ((bounded - min) / (max - min)) * 200 - 100;
      return cal.drive_mode ? -n : n;
    }
    case 'range_0_100':
      return gripperRawToPct(bounded, cal);
  }
}

export function unnormalize(
  value: number,
  cal: MotorCalibration,
  mode: NormMode,
  resolution = STS3215_RESOLUTION,
): number {
  const min = cal.range_min,
    max = cal.range_max;
  switch (mode) {
    case 'degrees':
      return Math.trunc((value * (resolution - 1)) / 360 + (min + max) / 2);
    case 'range_m100_100': {
      const v = Math.min(100, Math.max(-100, cal.drive_mode ? -value : value));
      return Math.trunc(((v + 100) / 200) * (max - min) + min);
    }
    case 'range_0_100': {
      const v = Math.min(100, Math.max(0, cal.drive_mode ? 100 - value : value));
      return Math.trunc((v / 100) * (max - min) + min);
    }
  }
}

/** What the servo reports for an actual encoder reading once Homing_Offset is written (firmware side). */
export function presentFromActual(actual: number, homingOffset: number): number {
  return actual - homingOffset;
}

/** LeRobot's half-turn homing: the offset that makes the current actual position read 2047. */
export function halfTurnHomingOffset(actual: number, resolution = STS3215_RESOLUTION): number {
  return actual - Math.trunc((resolution - 1) / 2);
}

/**
 * Body-joint angle (rad) for the SO-101 FK (so101_new_calib.urdf zero = mid-range = LeRobot 0°).
 * Not the gripper's: its ticks go through ticksToRadians / radiansToTicks (`gripper`).
 */
export function rawToRadians(raw: number, cal: MotorCalibration, resolution = STS3215_RESOLUTION): number {
  return (normalize(raw, cal, 'degrees', resolution) * Math.PI) / 180;
}

/**
 * The SO-101 gripper's joint angle (rad, so101_new_calib.urdf joint `gripper`) for its LeRobot
 * RANGE_0_100 value. LeRobot gives the gripper no angle, only its place in the calibrated travel: 0
 * at range_min (closed), 100 at range_max (open). A body joint's URDF zero is its mid-range tick
 * (half-turn homing, the new-calib URDF's zero); the gripper's is not — the URDF's gripper limits
 * are −10°…100°, zero the closed jaw — so the value maps linearly onto closed 0 rad … open
 * `openRad` (the description's upper limit). Read through the mid-range rule instead, a closed
 * gripper (≈ 2 %) came out near −65° (−1.09 rad on so101-lerobot-record-test), outside the URDF range.
 */
export function gripperPctToRadians(pct: number, openRad: number): number {
  return (pct / 100) * openRad;
}

/** Inverse of gripperPctToRadians: the LeRobot RANGE_0_100 value (not clamped) of a gripper angle. */
export function gripperRadiansToPct(rad: number, openRad: number): number {
  return (rad / openRad) * 100;
}

export function radiansToRaw(rad: number, cal: MotorCalibration, resolution = STS3215_RESOLUTION): number {
  return Math.round((((rad * 180) / Math.PI) * (resolution - 1)) / 360 + (cal.range_min + cal.range_max) / 2);
}

/**
 * How one SO-101 servo's Present/Goal_Position ticks map onto its URDF joint angle:
 * - `body`: LeRobot DEGREES, zero at mid-range (rawToRadians / radiansToRaw);
 * - `gripper`: RANGE_0_100 through gripperPctToRadians, closed range_min → 0 rad, open range_max →
 *   `openRad` (the calibration's gripper upper limit), drive_mode flipping the direction as LeRobot
 *   does. Not clamped to the calibrated range (LeRobot's normalize clamps; a live tick past range_min
 *   reads its slightly negative angle, and a command past the range is left to the servo's
 *   Min/Max_Position_Limit, which LeRobot sets to the range).
 */
export type JointTicks =
  | { readonly kind: 'body'; readonly cal: MotorCalibration }
  | { readonly kind: 'gripper'; readonly cal: MotorCalibration; readonly openRad: number };

/** The gripper's place in its calibrated travel as LeRobot's RANGE_0_100 value (normalize clamps first; the live angle does not). */
function gripperRawToPct(raw: number, cal: MotorCalibration): number {
  const n = ((raw - cal.range_min) / (cal.range_max - cal.range_min)) * 100;
  return cal.drive_mode ? 100 - n : n;
}

/** Joint angle (rad, URDF) of a Present_Position tick. */
export function ticksToRadians(raw: number, j: JointTicks): number {
  return j.kind === 'body' ? rawToRadians(raw, j.cal) : gripperPctToRadians(gripperRawToPct(raw, j.cal), j.openRad);
}

/** Goal_Position tick (rounded) for a joint angle (rad, URDF). */
export function radiansToTicks(rad: number, j: JointTicks): number {
  if (j.kind === 'body') return radiansToRaw(rad, j.cal);
  const pct = gripperRadiansToPct(rad, j.openRad);
  const n = j.cal.drive_mode ? 100 - pct : pct;
  return Math.round(j.cal.range_min + (n / 100) * (j.cal.range_max - j.cal.range_min));
}

/** Radians per tick of the joint (signed: negative when a rising tick closes a drive_mode gripper); for velocities. */
export function radiansPerTick(j: JointTicks, resolution = STS3215_RESOLUTION): number {
  if (j.kind === 'body') return (2 * Math.PI) / (resolution - 1);
  return ((j.cal.drive_mode ? -1 : 1) * j.openRad) / (j.cal.range_max - j.cal.range_min);
}

const FIELDS = ['id', 'drive_mode', 'homing_offset', 'range_min', 'range_max'] as const;
type Field = (typeof FIELDS)[number];

/**
 * Validate one motor's calibration object; errors name `file` and `field`, and the line of the
 * failing value (`fieldLines`), else of the motor object (`line`).
 */
export function parseMotorCalibration(
  value: unknown,
  file: string,
  field: string,
  line?: number,
  fieldLines: Partial<Record<Field, number>> = {},
): Result<MotorCalibration, InputError> {
  const fail = (f: Field, reason: string): Result<MotorCalibration, InputError> =>
    err(new InputError({ file, field: `${field}.${f}`, line: fieldLines[f] ?? line }, reason));
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return err(new InputError({ file, field, line }, `expected an object with ${FIELDS.join(', ')}`));
  }
  const o = value as Record<string, unknown>;
  const out: Record<string, number> = {};
  for (const f of FIELDS) {
    const v = o[f];
    if (typeof v !== 'number' || !Number.isInteger(v)) return fail(f, `expected an integer, got ${JSON.stringify(v)}`);
    out[f] = v;
  }
  const c = out as unknown as MotorCalibration;
  if (c.id < 0 || c.id > 253) return fail('id', `servo id must be 0..253, got ${c.id}`);
  if (c.drive_mode !== 0 && c.drive_mode !== 1) return fail('drive_mode', `expected 0 or 1, got ${c.drive_mode}`);
  if (c.range_min >= c.range_max)
    return fail('range_max', `range_max (${c.range_max}) must exceed range_min (${c.range_min})`);
  if (c.range_min < 0)
    return fail('range_min', `range must lie within 0..${STS3215_RESOLUTION - 1}, got range_min ${c.range_min}`);
  if (c.range_max > STS3215_RESOLUTION - 1) {
    return fail('range_max', `range must lie within 0..${STS3215_RESOLUTION - 1}, got range_max ${c.range_max}`);
  }
  if (Math.abs(c.homing_offset) > 2047) {
    return fail('homing_offset', `homing offset must fit the 11-bit sign-magnitude register (|x| ≤ 2047)`);
  }
  return ok(c);
}

/** Parse a LeRobot calibration JSON (`{ motor: { id, drive_mode, homing_offset, range_min, range_max } }`). */
export function parseLeRobotCalibrationJson(
  text: string,
  file: string,
  required: readonly string[] = [],
): Result<LeRobotCalibration, InputError> {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    return err(new InputError({ file }, `not valid JSON: ${(e as Error).message}`));
  }
  // JSON is YAML: the YAML parser gives the line of each motor and field. JSON.parse stays the judge
  // of syntax and values, so text the YAML parser rejects only loses its line numbers.
  const y = new YamlReader(file, text, { syntaxColumns: false });
  const lineOf = (path: string[]): number | undefined => (y.ok ? y.lineAt(path) : undefined);
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return err(new InputError({ file, line: lineOf([]) }, 'expected an object of motors'));
  }
  const out: LeRobotCalibration = {};
  for (const [name, v] of Object.entries(data)) {
    const fieldLines: Partial<Record<Field, number>> = {};
    for (const f of FIELDS) fieldLines[f] = lineOf([name, f]);
    const r = parseMotorCalibration(v, file, name, lineOf([name]), fieldLines);
    if (!r.ok) return r;
    out[name] = r.value;
  }
  for (const name of required) {
    if (!(name in out)) return err(new InputError({ file, field: name, line: lineOf([]) }, `missing motor '${name}'`));
  }
  return ok(out);
}
