/**
 * The calibration file is the per-arm truth for thresholds (design §5): every threshold an SO-101
 * calibration declares is the one monitored on that arm, replacing the platform profile's and the
 * clause library's numbers for that clause. Two pure steps:
 * - `thresholdRangeProblem`: a declared value must be finite, positive and physically reachable
 *   by this arm (a ceiling the arm can never reach is a clause that can never fire);
 * - `calibratedProfile`: the so101 platform profile with the calibration's thresholds applied.
 */
import type { PlatformProfile } from '../schema/platform.js';
import { profileWithThresholds, type ClauseLibrary } from '../safety/index.js';
import type { ThresholdEntry } from './so101.js';

/**
 * Shortest lever (m) from a joint axis to a contact the SO-101 can push with: a contact force above
 * stall torque / this lever cannot be produced by any joint (stall 2.94 N·m → 58.8 N). The TCP
 * itself is ≈ 0.33 m out, where stall gives ≈ 8.9 N.
 */
export const SO101_MIN_CONTACT_LEVER_M = 0.05;
/** Lengths above this (m) are beyond anything an SO-101 (reach ≈ 0.33 m) moves or measures. */
export const SO101_MAX_LENGTH_M = 1;

/** Units a calibration threshold may carry, and the physically possible upper bound of each. */
export function physicalUpperBound(unit: string, stallTorqueNm: number): { bound: number; why: string } | undefined {
  switch (unit) {
    case 'N·m':
      return { bound: stallTorqueNm, why: `the servo stall torque ${stallTorqueNm} N·m: a servo cannot exceed it` };
    case 'N':
      return {
        bound: stallTorqueNm / SO101_MIN_CONTACT_LEVER_M,
        why: `${round(stallTorqueNm / SO101_MIN_CONTACT_LEVER_M)} N, the largest contact force any joint can produce (stall ${stallTorqueNm} N·m over a ${SO101_MIN_CONTACT_LEVER_M} m lever)`,
      };
    case 'm':
      return { bound: SO101_MAX_LENGTH_M, why: `${SO101_MAX_LENGTH_M} m (the arm reaches ≈ 0.33 m)` };
    case 'deg':
      return { bound: 180, why: '180° (a tilt cannot exceed it)' };
    default:
      return undefined;
  }
}

/** Why a declared threshold cannot be monitored (undefined when it can). */
export function thresholdRangeProblem(
  t: Pick<ThresholdEntry, 'value' | 'unit'>,
  stallTorqueNm: number,
): string | undefined {
  if (!Number.isFinite(t.value)) return `${t.value} is not a finite number`;
  if (t.value < 0) return `${t.value} ${t.unit} is negative: a threshold is a magnitude`;
  if (t.value === 0) return `0 ${t.unit}: a zero threshold fires on every sample (noise alone exceeds it)`;
  const b = physicalUpperBound(t.unit, stallTorqueNm);
  if (!b) return `unit '${t.unit}' is not one of N·m, N, m, deg`;
  if (t.value > b.bound) return `${t.value} ${t.unit} exceeds ${b.why}, so the clause could never fire`;
  return undefined;
}

/**
 * The platform profile with the calibration's thresholds applied. The calibrated value replaces τ in
 * every tier of that clause (one number per arm); the severe anchor and warning band scale with it
 * (same ratio to τ as in the numbers they replace). Throws an Error naming the clause when the
 * calibration names a clause the library does not have or a unit that is not the clause's.
 */
export function calibratedProfile(
  profile: PlatformProfile,
  thresholds: Readonly<Record<string, ThresholdEntry>>,
  library: ClauseLibrary,
  calibrationFile: string,
): PlatformProfile {
  for (const [clauseId, entry] of Object.entries(thresholds)) {
    const clause = library.clauses.find((c) => c.id === clauseId);
    if (clause && clause.unit !== entry.unit)
      throw new Error(
        `${calibrationFile}: thresholds.${clauseId}.unit: '${entry.unit}', but clause ${clauseId} is in ${clause.unit}`,
      );
  }
  return profileWithThresholds(
    profile,
    Object.entries(thresholds).map(([clause, e]) => ({
      clause,
      tau: e.value,
      reason: e.reason,
      source: `calibration ${calibrationFile}: ${e.source}`,
      file: calibrationFile,
    })),
    library,
  );
}

function round(x: number): number {
  return Math.round(x * 10) / 10;
}
