/**
 * Turn a free-motion fit into calibration-file values and the short calibration report (fit
 * residuals, noise floor, the contact-force threshold the noise floor allows). Pure.
 */
import { SO101_JOINT_NAMES } from '../kinematics/index.js';
import type { FreeMotionFit } from './free-motion-fit.js';
import type { So101Calibration, ThresholdEntry } from './so101.js';

/** Reach of the SO-101 TCP from the shoulder_lift axis at full extension (m), for the force ceiling. */
const REACH_M = 0.33;

/** The contact-force threshold a noise floor allows: 3 × the 99th-percentile free-motion force, ≥ 1 N (0.5 N steps). */
export function contactThresholdN(fit: FreeMotionFit, p99N = fit.forceP99N): number {
  return Math.max(1, Math.ceil(3 * p99N * 2) / 2);
}

export function contactThreshold(fit: FreeMotionFit, stallNm: number): ThresholdEntry {
  const maxForce = stallNm / REACH_M;
  return {
    value: contactThresholdN(fit),
    unit: 'N',
    reason:
      `The SO-101 cannot exert the paper's 200 N (about ${maxForce.toFixed(1)} N at the TCP: stall ${stallNm} N·m over ${REACH_M} m reach), ` +
      `so the clause would never fire; the threshold is 3× the 99th-percentile residual force in free motion ` +
      `(${fit.forceP99N.toFixed(3)} N, RMS ${fit.forceRmsN.toFixed(3)} N), the smallest contact this calibration can tell from noise.`,
    source: `armguard calibrate so101 free-motion fit (${fit.samples} samples)`,
  };
}

/** Apply a fit to a calibration (returns a new object). */
export function applyFit(
  cal: So101Calibration,
  fit: FreeMotionFit,
  tableHeightM: number,
  onnxFile?: string,
): So101Calibration {
  const thresholds = { ...cal.thresholds };
  const contact = contactThreshold(fit, cal.torque.stallTorqueNm);
  thresholds.arm_furniture_force = contact;
  thresholds.max_contact_force = { ...contact };
  return {
    ...cal,
    torque: { ...cal.torque, constants: fit.constants.map(round6), constantSources: fit.constantSources },
    freeMotion: {
      gravity: fit.params.gravity.map((row) => row.map(round6)),
      viscous: fit.params.viscous.map(round6),
      coulomb: fit.params.coulomb.map(round6),
      coulombWidth: fit.params.coulombWidth,
      ...(onnxFile ? { residualOnnx: onnxFile } : {}),
      residualRmsNm: (fit.learnedRmsNm ?? fit.residualRmsNm).map(round6),
    },
    tableHeightM: round6(tableHeightM),
    contactForce: {
      damping: cal.contactForce.damping,
      deadbandN: round6(fit.forceP99N),
      ...(onnxFile
        ? {
            noResidual: {
              deadbandN: round6(fit.analyticForceP99N),
              thresholdN: contactThresholdN(fit, fit.analyticForceP99N),
            },
          }
        : {}),
    },
    thresholds,
  };
}

function round6(v: number): number {
  return Number(v.toPrecision(6));
}

export function calibrationReport(
  cal: So101Calibration,
  fit: FreeMotionFit,
  extra: { tableHeightM: number; tableProbeForceN: number; onnxCheck?: string; mode: string },
): string {
  const rows = SO101_JOINT_NAMES.slice(0, 5).map(
    (n, j) =>
      `| ${n} | ${fit.constants[j]!.toPrecision(4)} | ${fit.constantSources[j]} | ${fit.params.viscous[j]!.toFixed(4)} | ${fit.params.coulomb[j]!.toFixed(4)} | ${fit.residualRmsNm[j]!.toFixed(4)} | ${fit.learnedRmsNm ? fit.learnedRmsNm[j]!.toFixed(4) : '—'} |`,
  );
  return [
    `# SO-101 calibration report: ${cal.armId}`,
    '',
    `Mode: ${extra.mode}. Samples: ${fit.samples} (free motion, then with the reference payload). Supply ${cal.supplyVoltage} V, stall ${cal.torque.stallTorqueNm} N·m.`,
    '',
    '| joint | k (N·m/unit) | k source | viscous (N·m·s/rad) | Coulomb (N·m) | fit RMS (N·m) | after learned residual (N·m) |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `Noise floor of the residual force at the TCP in free motion: RMS ${fit.forceRmsN.toFixed(3)} N, 99th percentile ${fit.forceP99N.toFixed(3)} N (used as deadband).`,
    `Force threshold the noise floor allows: ${contactThresholdN(fit)} N (3 × p99) — written as the arm_furniture_force / max_contact_force thresholds.`,
    `Table height: ${extra.tableHeightM.toFixed(4)} m (TCP height when the probe's residual force reached ${extra.tableProbeForceN.toFixed(2)} N).`,
    `joint_torque ceiling: ${cal.thresholds.joint_torque?.value ?? '?'} N·m — ${cal.thresholds.joint_torque?.reason ?? ''}`,
    extra.onnxCheck ? `Learned residual model (ONNX): ${extra.onnxCheck}` : '',
    cal.contactForce.noResidual
      ? `Without onnxruntime-node (learned residual not applied): noise floor RMS ${fit.analyticForceRmsN.toFixed(3)} N, 99th percentile ${fit.analyticForceP99N.toFixed(3)} N — armguard then uses that deadband and a ${cal.contactForce.noResidual.thresholdN} N contact threshold (contact_force.no_residual_*).`
      : '',
    '',
    'Limits: the model neglects inertial torques (slow calibration motion); the force estimate assumes contact at the TCP.',
    '',
  ].join('\n');
}
