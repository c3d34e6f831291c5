/**
 * Position-only SO-101 recordings (LeRobot datasets hold joint positions and commanded actions, no
 * load, velocity or current) → the signals that are derivable from them:
 * - self_collision_clearance: FK + the SO-101 description's capsules (exact, given the model);
 * - gripper_contact: ESTIMATED from a position stall — the commanded gripper (action) closes
 *   further than the measured gripper (state) by more than `stallGapPct` while the measured gripper
 *   stands still (≤ STALL_STEP_PCT per frame for STALL_FRAMES frames: a follower merely lagging a
 *   closing leader is moving) and the jaws are not closed on nothing; released below half the gap;
 * - obj_above_table, target_obj_tilt_world_deg: FK while that estimated grasp holds (rigid grasp).
 * - ee_speed, ee_acc, ee_jerk: 5-step smoothed differences of the FK TCP position (0 until the
 *   smoothing window is full: 6, 11 and 16 frames).
 * Not derivable: max_joint_torque, every contact force (no load/current recorded).
 */
import { jointLimitsRadians, SO101_ARM_JOINTS, type So101Calibration } from '../../src/calibration/so101.js';
import { gripperPctToRadians, rawToRadians, type MotorCalibration } from '../../src/calibration/lerobot.js';
import { AnalyticFreeMotionModel } from '../../src/calibration/free-motion.js';
import type { SignalName } from '../../src/schema/signals.js';
import { So101Mapping } from './mapping.js';
import type { LeRobotEpisode } from './lerobot-dataset.js';

export const POSITION_ONLY_SIGNALS: readonly SignalName[] = [
  'self_collision_clearance',
  'gripper_contact',
  'obj_above_table',
  'target_obj_tilt_world_deg',
  'ee_speed',
  'ee_acc',
  'ee_jerk',
];
export const NOT_DERIVABLE_FROM_POSITIONS: readonly SignalName[] = [
  'max_joint_torque',
  'arm_furniture_contact_force',
  'contact_force_max',
  'target_furniture_contact_force',
];

/** Per-frame gripper change (LeRobot 0–100) below which the gripper counts as stalled. */
export const STALL_STEP_PCT = 0.3;
/** Consecutive stalled frames with the gap before a grasp is declared. */
export const STALL_FRAMES = 3;

export interface PositionReplayOptions {
  normMode: 'degrees' | 'range_m100_100';
  /** Commanded-minus-measured gripper gap (LeRobot 0–100) that counts as a stall on an object. */
  stallGapPct: number;
  /** Each frame's joint angles (rad, joint order; the array is reused), e.g. for another model's clearance. */
  onFrame?: (q: Float64Array, frame: number) => void;
}

export interface SignalStats {
  min: number;
  max: number;
}

export interface PositionReplay {
  times: Float64Array;
  columns: Map<SignalName, Float64Array>;
  stats: Map<SignalName, SignalStats>;
  /** Frames with some body joint outside the calibrated joint limits (a unit-mismatch hint). */
  framesOutsideLimits: number;
  minSelfDistanceM: number;
  gripFrames: number;
}

/** Degrees per servo tick in LeRobot's `degrees` normalisation: 360 / 4095 (its max resolution). */
export const LEROBOT_DEGREE_STEP = 360 / 4095;
/** A joint's value step within this fraction of LEROBOT_DEGREE_STEP reads as `degrees`. */
const DEGREE_STEP_TOLERANCE = 0.002;
/** Joints with fewer distinct recorded values say nothing reliable about their step. */
const MIN_DISTINCT_VALUES = 20;

export interface JointStep {
  joint: string;
  /** Smallest positive difference between two recorded values (one servo tick), undefined with < 2 values. */
  step: number | undefined;
  distinct: number;
}

/** What the recorded values' quantisation says about the body joints' unit. */
export type UnitEvidence =
  | { kind: 'degrees'; steps: JointStep[] }
  /** `spans`: per body joint the range_max − range_min the step implies (200 / step), NaN where unknown. */
  | { kind: 'range_m100_100'; steps: JointStep[]; spans: number[] }
  | { kind: 'unclear'; steps: JointStep[] };

/**
 * Recorded values are servo ticks mapped linearly, so each joint's values step by one tick's worth:
 * 360/4095 on every joint in `degrees`, 200/(range_max − range_min) per joint in `range_m100_100`.
 */
export function unitFromValueSteps(
  episodes: readonly Pick<LeRobotEpisode, 'state' | 'times'>[],
  jointNames: readonly string[],
): UnitEvidence {
  const steps: JointStep[] = [];
  for (let j = 0; j < SO101_ARM_JOINTS; j++) {
    const values = new Set<number>();
    for (const ep of episodes) for (let i = 0; i < ep.times.length; i++) values.add(ep.state[i * 6 + j]!);
    const sorted = Float64Array.from(values).sort();
    let step = Infinity;
    for (let i = 1; i < sorted.length; i++) step = Math.min(step, sorted[i]! - sorted[i - 1]!);
    steps.push({
      joint: jointNames[j] ?? `joint ${j + 1}`,
      step: Number.isFinite(step) ? step : undefined,
      distinct: sorted.length,
    });
  }
  const informative = steps.filter((s) => s.step !== undefined && s.distinct >= MIN_DISTINCT_VALUES);
  if (informative.length === 0) return { kind: 'unclear', steps };
  // In degrees every joint steps by 360/4095; one joint that does not rules degrees out.
  const notDegrees = informative.some((s) => Math.abs(s.step! / LEROBOT_DEGREE_STEP - 1) > DEGREE_STEP_TOLERANCE);
  if (!notDegrees) return { kind: 'degrees', steps };
  return {
    kind: 'range_m100_100',
    steps,
    spans: steps.map((s) => (s.step !== undefined && s.distinct >= MIN_DISTINCT_VALUES ? 200 / s.step : NaN)),
  };
}

/** LeRobot value of a body joint → radians (URDF new-calib zero = mid-range). */
export function bodyValueToRadians(
  value: number,
  cal: MotorCalibration,
  mode: PositionReplayOptions['normMode'],
): number {
  if (mode === 'degrees') return (value * Math.PI) / 180;
  const v = cal.drive_mode ? -value : value;
  const raw = ((v + 100) / 200) * (cal.range_max - cal.range_min) + cal.range_min;
  return rawToRadians(raw, cal);
}

export function replayPositions(ep: LeRobotEpisode, cal: So101Calibration, o: PositionReplayOptions): PositionReplay {
  const n = ep.times.length;
  const mapping = new So101Mapping(cal, new AnalyticFreeMotionModel(cal.freeMotion));
  const columns = new Map<SignalName, Float64Array>(POSITION_ONLY_SIGNALS.map((s) => [s, new Float64Array(n)]));
  const q = new Float64Array(6);
  const gripperOpenRad = jointLimitsRadians(cal).upper[SO101_ARM_JOINTS]!;
  let gripping = false;
  let outside = 0;
  let minSelf = Infinity;
  let gripFrames = 0;
  let stalledFrames = 0;
  for (let i = 0; i < n; i++) {
    let out = false;
    for (let j = 0; j < SO101_ARM_JOINTS; j++) {
      const jc = cal.joints[j]!;
      q[j] = bodyValueToRadians(ep.state[i * 6 + j]!, cal.lerobot[jc.name], o.normMode);
      const deg = (q[j]! * 180) / Math.PI;
      if (deg < jc.lowerDeg || deg > jc.upperDeg) out = true;
    }
    if (out) outside++;
    const pct = ep.state[i * 6 + 5]!;
    q[5] = gripperPctToRadians(pct, gripperOpenRad);
    if (ep.action) {
      const gap = pct - ep.action[i * 6 + 5]!;
      const still = i > 0 && Math.abs(pct - ep.state[(i - 1) * 6 + 5]!) <= STALL_STEP_PCT;
      stalledFrames = still && gap > o.stallGapPct ? stalledFrames + 1 : 0;
      const closedOnNothing = pct < cal.gripperContact.emptyClosedPct;
      gripping = !closedOnNothing && (gripping ? gap > o.stallGapPct / 2 : stalledFrames >= STALL_FRAMES);
    }
    if (gripping) gripFrames++;
    mapping.updatePositions(q, pct, gripping, ep.times[i]!);
    o.onFrame?.(q, i);
    minSelf = Math.min(minSelf, mapping.selfClearance);
    columns.get('self_collision_clearance')![i] = mapping.selfClearance;
    columns.get('gripper_contact')![i] = gripping ? 1 : 0;
    columns.get('obj_above_table')![i] = mapping.objAboveTable;
    columns.get('target_obj_tilt_world_deg')![i] = mapping.tiltDeg;
    columns.get('ee_speed')![i] = finiteOr0(mapping.ee.speed);
    columns.get('ee_acc')![i] = finiteOr0(mapping.ee.acc);
    columns.get('ee_jerk')![i] = finiteOr0(mapping.ee.jerk);
  }
  const stats = new Map<SignalName, SignalStats>();
  for (const [name, col] of columns) {
    let min = Infinity,
      max = -Infinity;
    for (const v of col) {
      if (v < min) min = v;
      if (v > max) max = v;
    }
    stats.set(name, { min, max });
  }
  return {
    times: Float64Array.from(ep.times),
    columns,
    stats,
    framesOutsideLimits: outside,
    minSelfDistanceM: minSelf,
    gripFrames,
  };
}

function finiteOr0(v: number): number {
  return Number.isFinite(v) ? v : 0;
}
