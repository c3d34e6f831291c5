/** `armguard check calibration/so101-<id>.yaml`: the SO-101 calibration file checker. */
import type { FileChecker } from './checkers.js';
import { parseSo101Calibration, SO101_CALIBRATION_KIND } from '../calibration/so101.js';

export const so101CalibrationChecker: FileChecker = {
  kind: 'SO-101 calibration',
  accepts: (path, text) =>
    /(^|\/)so101-[^/]*\.ya?ml$/.test(path) || new RegExp(`^kind:\\s*${SO101_CALIBRATION_KIND}\\s*$`, 'm').test(text),
  check(path, text) {
    const r = parseSo101Calibration(text, path);
    return r.ok ? [] : r.problems.map((p) => p.message);
  },
  describe(path, text) {
    const r = parseSo101Calibration(text, path);
    if (!r.ok) return 'SO-101 calibration';
    const c = r.value;
    return `SO-101 calibration '${c.armId}', ${c.supplyVoltage} V, ${c.declaredSignals.length} declared signals, thresholds: ${Object.entries(
      c.thresholds,
    )
      .map(([k, t]) => `${k} ${t.value} ${t.unit}`)
      .join(', ')}`;
  },
};
