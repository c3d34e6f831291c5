/** Render a So101Calibration as a documented `calibration/so101-<id>.yaml` (parseSo101Calibration reads it back). */
import { SO101_JOINT_NAMES } from '../kinematics/index.js';
import { SO101_CALIBRATION_KIND, type So101Calibration } from './so101.js';

const num = (v: number): string => (Number.isInteger(v) ? String(v) : Number(v.toPrecision(6)).toString());
const list = (xs: readonly number[]): string => `[${xs.map(num).join(', ')}]`;
const str = (s: string): string => JSON.stringify(s);

export function formatSo101Calibration(c: So101Calibration, header: readonly string[] = []): string {
  const L: string[] = [];
  for (const h of header) L.push(`# ${h}`);
  L.push(
    `kind: ${SO101_CALIBRATION_KIND}`,
    'version: 1',
    `arm_id: ${str(c.armId)}`,
    '# Servo supply (V): 7.4 (STS3215 C001, stall ≈ 1.9 N·m) or 12 (C018, stall ≈ 2.9 N·m).',
    `supply_voltage: ${num(c.supplyVoltage)}`,
    '# Joint order is fixed (ids 1–6 on the bus); limits in degrees (body: LeRobot degrees, 0° = mid-range; gripper: 0° = closed).',
    'joints:',
  );
  for (const j of c.joints)
    L.push(`  - { name: ${j.name}, id: ${j.id}, lower_deg: ${num(j.lowerDeg)}, upper_deg: ${num(j.upperDeg)} }`);
  L.push(
    '# Normalisation of body joints in recorded LeRobot data (the gripper is always range_0_100).',
    `norm_mode: ${c.normMode}`,
    '# LeRobot calibration (same fields as its JSON; homing_offset is written to the servo).',
    'lerobot:',
  );
  for (const n of SO101_JOINT_NAMES) {
    const m = c.lerobot[n];
    L.push(
      `  ${n}: { id: ${m.id}, drive_mode: ${m.drive_mode}, homing_offset: ${m.homing_offset}, range_min: ${m.range_min}, range_max: ${m.range_max} }`,
    );
  }
  L.push(
    '# Joint torque τ = constant × register (load: 0.1 % units; current: 6.5 mA units), body joints 1–5.',
    'torque:',
    `  source: ${c.torque.source}`,
    `  stall_torque_nm: ${num(c.torque.stallTorqueNm)}`,
    `  constants: ${list(c.torque.constants)}`,
    `  constant_sources: [${c.torque.constantSources.map(str).join(', ')}]`,
    '# Free-motion model: τ_j = Y_j(q)·gravity_j + viscous_j·q̇_j + coulomb_j·tanh(q̇_j / coulomb_width).',
    '# gravity_j: 20 coefficients over the FK regressor (m, m·cx, m·cy, m·cz for links 1–5), N·m units.',
    'free_motion:',
    '  gravity:',
  );
  for (const row of c.freeMotion.gravity) L.push(`    - ${list(row)}`);
  L.push(
    `  viscous: ${list(c.freeMotion.viscous)}`,
    `  coulomb: ${list(c.freeMotion.coulomb)}`,
    `  coulomb_width: ${num(c.freeMotion.coulombWidth)}`,
  );
  if (c.freeMotion.residualOnnx) L.push(`  residual_onnx: ${str(c.freeMotion.residualOnnx)}`);
  if (c.freeMotion.residualRmsNm) L.push(`  residual_rms_nm: ${list(c.freeMotion.residualRmsNm)}`);
  L.push(
    '# Support surface height in the base frame (m).',
    `table_height_m: ${num(c.tableHeightM)}`,
    '# Held-object reference point in the TCP frame (gripper_frame_link), m.',
    'grasp:',
    `  object_offset_m: ${list(c.graspOffsetM)}`,
    '# Gripper contact: stalled (|velocity| ≤ stall_velocity steps/s) with |load| ≥ load_on (0.1 %),',
    '# released below load_off or when closed past empty_closed_pct (LeRobot 0–100 opening).',
    'gripper_contact:',
    `  load_on: ${num(c.gripperContact.loadOn)}`,
    `  load_off: ${num(c.gripperContact.loadOff)}`,
    `  stall_velocity: ${num(c.gripperContact.stallVelocity)}`,
    `  empty_closed_pct: ${num(c.gripperContact.emptyClosedPct)}`,
    '# Residual → TCP force: damped pseudo-inverse of Jᵀ (λ in m²); forces under deadband_n read 0.',
    'contact_force:',
    `  damping: ${num(c.contactForce.damping)}`,
    `  deadband_n: ${num(c.contactForce.deadbandN)}`,
    ...(c.contactForce.noResidual
      ? [
          '  # Without onnxruntime-node the learned residual cannot run: armguard then uses the analytic model',
          '  # alone, this wider deadband (its noise floor) and this contact threshold (N) instead of the ones above.',
          `  no_residual_deadband_n: ${num(c.contactForce.noResidual.deadbandN)}`,
          `  no_residual_threshold_n: ${num(c.contactForce.noResidual.thresholdN)}`,
        ]
      : []),
  );
  if (c.capsules) {
    L.push('capsules:');
    for (const k of c.capsules)
      L.push(
        `  - { name: ${k.name}, frame: ${k.frame}, a: ${list(k.a)}, b: ${list(k.b)}, radius: ${num(k.radius)}, environment: ${k.environment} }`,
      );
  }
  L.push(
    '# Signals this arm provides (design §2); clauses on other signals are reported not applicable.',
    'declared_signals:',
  );
  for (const s of c.declaredSignals) L.push(`  - ${s}`);
  L.push('# Recalibrated thresholds (design §5): the number, its reason and its source.', 'thresholds:');
  for (const [clause, t] of Object.entries(c.thresholds)) {
    L.push(
      `  ${clause}:`,
      `    value: ${num(t.value)}`,
      `    unit: ${str(t.unit)}`,
      `    reason: ${str(t.reason)}`,
      `    source: ${str(t.source)}`,
    );
  }
  return `${L.join('\n')}\n`;
}
