/**
 * `calibration/so101-<id>.yaml`: one SO-101 arm instance (design §5). Types and a pure validator
 * (text in, typed calibration or positioned problems out). Thresholds carry their reason and source.
 */
import { SO101_JOINT_NAMES, type CapsuleSpec, type So101JointName } from '../kinematics/index.js';
import { isSignalName, type SignalName } from '../schema/signals.js';
import type { InputError } from '../util/errors.js';
import { STS3215_RESOLUTION, type JointTicks, type MotorCalibration } from './lerobot.js';
import { YamlReader } from '../schema/yaml-reader.js';
import { thresholdRangeProblem } from './so101-thresholds.js';

export const SO101_CALIBRATION_KIND = 'so101-calibration';
/** Gravity regressor width per joint: 4 inertial parameters (m, m·cx, m·cy, m·cz) × 5 moving links. */
export const GRAVITY_PARAMS = 20;
/** Body joints (gravity, friction, torque): everything but the gripper. */
export const SO101_ARM_JOINTS = 5;

export interface So101JointEntry {
  name: So101JointName;
  id: number;
  lowerDeg: number;
  upperDeg: number;
}

/**
 * The calibrated joint limits in radians, in joint order (the file states them in degrees): the
 * one conversion, shared by the arm driver's command clamp and the runtime's chunk screen and
 * barrier filter.
 */
export function jointLimitsRadians(cal: Pick<So101Calibration, 'joints'>): { lower: number[]; upper: number[] } {
  return {
    lower: cal.joints.map((j) => (j.lowerDeg * Math.PI) / 180),
    upper: cal.joints.map((j) => (j.upperDeg * Math.PI) / 180),
  };
}

/**
 * Each joint's tick ↔ radian map, in joint order: the body joints by LeRobot DEGREES (zero at
 * mid-range), the gripper from closed (range_min, 0 rad) to open (range_max, its upper limit) — the
 * one rule for the live arm's reads and commands, its emulator and the MuJoCo servo bridge, as replay
 * maps recorded RANGE_0_100 values (gripperPctToRadians).
 */
export function so101JointTicks(cal: Pick<So101Calibration, 'joints' | 'lerobot'>): JointTicks[] {
  const { upper } = jointLimitsRadians(cal);
  return cal.joints.map(
    (j, i): JointTicks =>
      j.name === 'gripper'
        ? { kind: 'gripper', cal: cal.lerobot[j.name], openRad: upper[i]! }
        : { kind: 'body', cal: cal.lerobot[j.name] },
  );
}

export interface ThresholdEntry {
  value: number;
  unit: string;
  reason: string;
  source: string;
}

export type TorqueSource = 'load' | 'current';

export interface So101Calibration {
  armId: string;
  /** Servo supply voltage (V): 7.4 V (C001) or 12 V (C018) followers. */
  supplyVoltage: number;
  joints: So101JointEntry[];
  /** LeRobot's normalisation for body joints in recorded data; the gripper is always range_0_100. */
  normMode: 'degrees' | 'range_m100_100';
  lerobot: Record<So101JointName, MotorCalibration>;
  torque: {
    source: TorqueSource;
    /** Stall torque at the supply voltage (N·m). */
    stallTorqueNm: number;
    /**
     * N·m per register unit (0.1 % load, or 6.5 mA current) for each body joint, in joint order; a
     * negative constant means the servo reports load with the opposite sign to the URDF joint axis.
     */
    constants: number[];
    /** Where each constant came from ('payload fit', 'datasheet stall/1000', …). */
    constantSources: string[];
  };
  freeMotion: {
    /** Per body joint: gravity coefficients over the 4 × 5 link regressor (N·m per (kg, kg·m)). */
    gravity: number[][];
    /** Viscous (N·m·s/rad) and Coulomb (N·m) friction per body joint. */
    viscous: number[];
    coulomb: number[];
    /** tanh smoothing width of the Coulomb term (rad/s). */
    coulombWidth: number;
    /** Optional learned residual model (path relative to the calibration file). */
    residualOnnx?: string;
    /** RMS fit residual per body joint (N·m), from the calibration report. */
    residualRmsNm?: number[];
  };
  tableHeightM: number;
  /** Held-object reference point in the TCP (gripper_frame_link) frame (m). */
  graspOffsetM: [number, number, number];
  gripperContact: {
    /** |load| (0.1 %) at or above which a stalled gripper counts as holding. */
    loadOn: number;
    /** |load| below which contact is released (hysteresis, < loadOn). */
    loadOff: number;
    /** |velocity| (steps/s) at or below which the gripper counts as stalled. */
    stallVelocity: number;
    /** Opening (LeRobot 0–100) below which the jaws are closed on nothing. */
    emptyClosedPct: number;
  };
  contactForce: {
    /** Damping λ (m²) of the Jacobian-transpose pseudo-inverse. */
    damping: number;
    /** Residual forces below this (N) read as 0 (the calibrated noise floor). */
    deadbandN: number;
    /**
     * With a learned residual (free_motion.residual_onnx): the deadband and contact-force threshold
     * to use when it cannot run (onnxruntime-node not installed) — the analytic model's wider noise floor.
     */
    noResidual?: { deadbandN: number; thresholdN: number };
  };
  capsules?: CapsuleSpec[];
  declaredSignals: SignalName[];
  thresholds: Record<string, ThresholdEntry>;
}

const TOP_KEYS = [
  'kind',
  'version',
  'arm_id',
  'supply_voltage',
  'joints',
  'norm_mode',
  'lerobot',
  'torque',
  'free_motion',
  'table_height_m',
  'grasp',
  'gripper_contact',
  'contact_force',
  'capsules',
  'declared_signals',
  'thresholds',
] as const;

/** Parse and validate; returns every problem found (file, line, field) or the calibration. */
export function parseSo101Calibration(
  text: string,
  file: string,
): { ok: true; value: So101Calibration } | { ok: false; problems: InputError[] } {
  const y = new YamlReader(file, text, { syntaxColumns: false });
  if (!y.ok) return { ok: false, problems: y.errors };
  y.noExtraKeysAt([], TOP_KEYS);
  y.stringAt(['kind'], { oneOf: [SO101_CALIBRATION_KIND] });
  y.numberAt(['version'], { integer: true, min: 1, max: 1 });
  const armId = y.stringAt(['arm_id']);
  const supplyVoltage = y.numberAt(['supply_voltage'], { min: 4, max: 14 });

  const joints: So101JointEntry[] = [];
  const nj = y.lengthAt(['joints']);
  if (y.hasAt(['joints']) && nj !== SO101_JOINT_NAMES.length)
    y.problemAt(['joints'], `expected ${SO101_JOINT_NAMES.length} joints (${SO101_JOINT_NAMES.join(', ')}), got ${nj}`);
  for (let i = 0; i < Math.min(nj, SO101_JOINT_NAMES.length); i++) {
    const p = ['joints', i];
    y.noExtraKeysAt(p, ['name', 'id', 'lower_deg', 'upper_deg']);
    const expected = SO101_JOINT_NAMES[i]!;
    const name = y.stringAt([...p, 'name'], { oneOf: [expected] }) as So101JointName;
    const id = y.numberAt([...p, 'id'], { integer: true, min: 0, max: 253 });
    const lowerDeg = y.numberAt([...p, 'lower_deg'], { min: -180, max: 180 });
    const upperDeg = y.numberAt([...p, 'upper_deg'], { min: -180, max: 180 });
    if (lowerDeg >= upperDeg)
      y.problemAt([...p, 'upper_deg'], `upper_deg (${upperDeg}) must exceed lower_deg (${lowerDeg})`);
    else if (name === 'gripper' && !(upperDeg > 0))
      y.problemAt(
        [...p, 'upper_deg'],
        `the gripper's upper_deg is its open end (LeRobot 100, range_max) and must be above 0° (the closed jaw, range_min), got ${upperDeg}`,
      );
    joints.push({ name, id, lowerDeg, upperDeg });
  }
  const ids = joints.map((j) => j.id);
  if (new Set(ids).size !== ids.length) y.problemAt(['joints'], `servo ids must be distinct, got ${ids.join(', ')}`);

  const normMode = y.stringAt(['norm_mode'], { oneOf: ['degrees', 'range_m100_100'] }) as So101Calibration['normMode'];

  const lerobot = {} as Record<So101JointName, MotorCalibration>;
  y.keysAt(['lerobot']);
  y.noExtraKeysAt(['lerobot'], SO101_JOINT_NAMES);
  for (const [i, name] of SO101_JOINT_NAMES.entries()) {
    const p = ['lerobot', name];
    if (!y.hasAt(p)) {
      y.problemAt(p, `missing motor '${name}' (id, drive_mode, homing_offset, range_min, range_max)`);
      continue;
    }
    y.noExtraKeysAt(p, ['id', 'drive_mode', 'homing_offset', 'range_min', 'range_max']);
    const c: MotorCalibration = {
      id: y.numberAt([...p, 'id'], { integer: true, min: 0, max: 253 }),
      drive_mode: y.numberAt([...p, 'drive_mode'], { integer: true, min: 0, max: 1 }),
      homing_offset: y.numberAt([...p, 'homing_offset'], { integer: true, min: -2047, max: 2047 }),
      range_min: y.numberAt([...p, 'range_min'], { integer: true, min: 0, max: STS3215_RESOLUTION - 1 }),
      range_max: y.numberAt([...p, 'range_max'], { integer: true, min: 0, max: STS3215_RESOLUTION - 1 }),
    };
    if (c.range_min >= c.range_max)
      y.problemAt([...p, 'range_max'], `range_max (${c.range_max}) must exceed range_min (${c.range_min})`);
    const joint = joints[i];
    if (joint && Number.isInteger(c.id) && c.id !== joint.id)
      y.problemAt([...p, 'id'], `id ${c.id} differs from joints[${i}].id ${joint.id}`);
    lerobot[name] = c;
  }

  y.noExtraKeysAt(['torque'], ['source', 'stall_torque_nm', 'constants', 'constant_sources']);
  const torque = {
    source: y.stringAt(['torque', 'source'], { oneOf: ['load', 'current'] }) as TorqueSource,
    stallTorqueNm: y.numberAt(['torque', 'stall_torque_nm'], { min: 0.1, max: 10 }),
    constants: y.numbersAt(['torque', 'constants'], SO101_ARM_JOINTS),
    constantSources: [] as string[],
  };
  torque.constants.forEach((k, i) => {
    if (k === 0)
      y.problemAt(['torque', 'constants', i], 'torque constant must be non-zero (its sign is the load polarity)');
  });
  const ns = y.lengthAt(['torque', 'constant_sources']);
  if (y.hasAt(['torque', 'constant_sources']) && ns !== SO101_ARM_JOINTS)
    y.problemAt(['torque', 'constant_sources'], `expected ${SO101_ARM_JOINTS} sources, got ${ns}`);
  for (let i = 0; i < ns; i++) torque.constantSources.push(y.stringAt(['torque', 'constant_sources', i]));

  const fm = ['free_motion'];
  y.noExtraKeysAt(fm, ['gravity', 'viscous', 'coulomb', 'coulomb_width', 'residual_onnx', 'residual_rms_nm']);
  const gravity: number[][] = [];
  const ng = y.lengthAt([...fm, 'gravity']);
  if (y.hasAt([...fm, 'gravity']) && ng !== SO101_ARM_JOINTS)
    y.problemAt([...fm, 'gravity'], `expected ${SO101_ARM_JOINTS} rows (one per body joint), got ${ng}`);
  for (let i = 0; i < ng; i++) gravity.push(y.numbersAt([...fm, 'gravity', i], GRAVITY_PARAMS));
  const freeMotion: So101Calibration['freeMotion'] = {
    gravity,
    viscous: y.numbersAt([...fm, 'viscous'], SO101_ARM_JOINTS),
    coulomb: y.numbersAt([...fm, 'coulomb'], SO101_ARM_JOINTS),
    coulombWidth: y.numberAt([...fm, 'coulomb_width'], { min: 1e-4, max: 10 }),
  };
  if (y.hasAt([...fm, 'residual_onnx'])) freeMotion.residualOnnx = y.stringAt([...fm, 'residual_onnx']);
  if (y.hasAt([...fm, 'residual_rms_nm']))
    freeMotion.residualRmsNm = y.numbersAt([...fm, 'residual_rms_nm'], SO101_ARM_JOINTS);

  const tableHeightM = y.numberAt(['table_height_m'], { min: -1, max: 1 });
  y.noExtraKeysAt(['grasp'], ['object_offset_m']);
  const off = y.numbersAt(['grasp', 'object_offset_m'], 3);
  const graspOffsetM: [number, number, number] = [off[0] ?? NaN, off[1] ?? NaN, off[2] ?? NaN];

  const gc = ['gripper_contact'];
  y.noExtraKeysAt(gc, ['load_on', 'load_off', 'stall_velocity', 'empty_closed_pct']);
  const gripperContact = {
    loadOn: y.numberAt([...gc, 'load_on'], { min: 0, max: 1000 }),
    loadOff: y.numberAt([...gc, 'load_off'], { min: 0, max: 1000 }),
    stallVelocity: y.numberAt([...gc, 'stall_velocity'], { min: 0 }),
    emptyClosedPct: y.numberAt([...gc, 'empty_closed_pct'], { min: 0, max: 100 }),
  };
  if (gripperContact.loadOff >= gripperContact.loadOn)
    y.problemAt(
      [...gc, 'load_off'],
      `load_off (${gripperContact.loadOff}) must be below load_on (${gripperContact.loadOn}) for hysteresis`,
    );

  y.noExtraKeysAt(['contact_force'], ['damping', 'deadband_n', 'no_residual_deadband_n', 'no_residual_threshold_n']);
  const contactForce: So101Calibration['contactForce'] = {
    damping: y.numberAt(['contact_force', 'damping'], { min: 0, max: 1 }),
    deadbandN: y.numberAt(['contact_force', 'deadband_n'], { min: 0 }),
  };
  const fallbackKeys = ['no_residual_deadband_n', 'no_residual_threshold_n'].filter((k) =>
    y.hasAt(['contact_force', k]),
  );
  if (fallbackKeys.length === 2) {
    contactForce.noResidual = {
      deadbandN: y.numberAt(['contact_force', 'no_residual_deadband_n'], { min: 0 }),
      thresholdN: y.numberAt(['contact_force', 'no_residual_threshold_n'], { min: 0 }),
    };
  } else if (fallbackKeys.length === 1) {
    y.problemAt(
      ['contact_force'],
      'no_residual_deadband_n and no_residual_threshold_n go together (the fallback when the learned residual cannot run)',
    );
  }
  if (y.hasAt(['free_motion', 'residual_onnx']) && fallbackKeys.length === 0) {
    y.problemAt(
      ['contact_force'],
      'a calibration with free_motion.residual_onnx needs contact_force.no_residual_deadband_n and no_residual_threshold_n (the fallback when onnxruntime-node is not installed; re-run armguard calibrate)',
    );
  }

  let capsules: CapsuleSpec[] | undefined;
  if (y.hasAt(['capsules'])) {
    capsules = [];
    const nc = y.lengthAt(['capsules']);
    for (let i = 0; i < nc; i++) {
      const p = ['capsules', i];
      y.noExtraKeysAt(p, ['name', 'frame', 'a', 'b', 'radius', 'environment']);
      const a = y.numbersAt([...p, 'a'], 3),
        b = y.numbersAt([...p, 'b'], 3);
      const env = y.rawAt([...p, 'environment']);
      if (typeof env !== 'boolean') y.problemAt([...p, 'environment'], 'expected true or false');
      capsules.push({
        name: y.stringAt([...p, 'name']),
        frame: y.numberAt([...p, 'frame'], { integer: true, min: 0, max: 7 }),
        a: [a[0] ?? NaN, a[1] ?? NaN, a[2] ?? NaN],
        b: [b[0] ?? NaN, b[1] ?? NaN, b[2] ?? NaN],
        radius: y.numberAt([...p, 'radius'], { min: 0, max: 0.2 }),
        environment: env === true,
      });
    }
  }

  const declaredSignals: SignalName[] = [];
  const nd = y.lengthAt(['declared_signals']);
  for (let i = 0; i < nd; i++) {
    const s = y.stringAt(['declared_signals', i]);
    if (s && !isSignalName(s)) y.problemAt(['declared_signals', i], `unknown signal '${s}' (see design §2)`);
    else if (s) declaredSignals.push(s as SignalName);
  }

  const thresholds: Record<string, ThresholdEntry> = {};
  for (const clause of y.keysAt(['thresholds'])) {
    const p = ['thresholds', clause];
    y.noExtraKeysAt(p, ['value', 'unit', 'reason', 'source']);
    thresholds[clause] = {
      value: y.numberAt([...p, 'value']),
      unit: y.stringAt([...p, 'unit']),
      reason: y.stringAt([...p, 'reason']),
      source: y.stringAt([...p, 'source']),
    };
  }
  if (y.hasAt(['thresholds']) && !thresholds.joint_torque)
    y.problemAt(['thresholds'], 'missing joint_torque (the SO-101 ceiling recalibrated to the servo, design §5)');
  // Every declared threshold is monitored as written: it must be one the arm can reach and noise cannot.
  for (const [clause, t] of Object.entries(thresholds)) {
    const problem = thresholdRangeProblem(t, torque.stallTorqueNm);
    if (problem) y.problemAt(['thresholds', clause, 'value'], problem);
  }

  if (!y.ok) return { ok: false, problems: y.errors };
  const value: So101Calibration = {
    armId,
    supplyVoltage,
    joints,
    normMode,
    lerobot,
    torque,
    freeMotion,
    tableHeightM,
    graspOffsetM,
    gripperContact,
    contactForce,
    declaredSignals,
    thresholds,
  };
  if (capsules) value.capsules = capsules;
  return { ok: true, value };
}
