/**
 * `armguard run so101`'s chunk CBF compiled from the SO-101 description (issue 15): the rig `run`
 * builds keeps the arm's links apart (the self-collision pair) and, while a chunk starts with the
 * gripper (column 5) commanded closed, the held object's tilt within held_object_tilt_world's
 * τ − ε of its pose at the grasp. Checked against independent measures: the self pair's clearance
 * from the description's self-collision capsules, the tilt from the tool frame's rotation (forward
 * kinematics), on the calibration derived from the real LeRobot recording.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SO101_SELF_CLEARANCE, so101Rig, type So101RigOptions } from '../../src/rigs/so101.js';
import { Session } from '../../src/runtime/session.js';
import { describeRunCbf } from '../../src/cli/commands/run.js';
import { defaultSpecPaths, loadScoringSpec } from '../../src/cli/spec-files.js';
import { parseSo101Calibration } from '../../src/calibration/so101.js';
import { SIGNALS, type SignalFrame } from '../../src/schema/signals.js';
import type { ExecutedChunk } from '../../src/gate/index.js';
import { CapsuleModel, ForwardKinematics, SO101_DESCRIPTION, SO101_FRAMES } from '../../src/kinematics/index.js';
import { selfCollisionModel } from '../../src/kinematics/self-collision-model.js';
import { KinematicArm } from '../runtime/support/kinematic-arm.js';

const PATH = 'test/fixtures/so101-lerobot-record-test.calibration.yaml';
const parsed = parseSo101Calibration(readFileSync(PATH, 'utf8'), PATH);
if (!parsed.ok) throw new Error(parsed.problems.map((p) => p.message).join('\n'));
const CAL = parsed.value;
const loaded = loadScoringSpec(defaultSpecPaths());
if (!loaded.ok) throw new Error(loaded.problems.join('\n'));
const spec = loaded.spec;
const TASK = 'sim-pick-cup-into-box';
const OPEN = 1.5;
const CLOSED = 0.2;
const ROWS = 20;

/** Every signal benign (0), gripper_contact included: the tilt bound is keyed on the command. */
class QuietArm extends KinematicArm {
  poll(frame: SignalFrame, now: number): void {
    SIGNALS.forEach((_, i) => frame.set(i, 0, now, 'test'));
  }
}

/** Rows 1..ROWS linearly from q0 to q1. */
function ramp(q0: readonly number[], q1: readonly number[]): Float64Array {
  const t = new Float64Array(ROWS * 6);
  for (let k = 0; k < ROWS; k++)
    for (let j = 0; j < 6; j++) t[k * 6 + j] = q0[j]! + ((q1[j]! - q0[j]!) * (k + 1)) / ROWS;
  return t;
}

function submit(
  q0: readonly number[],
  targets: Float64Array,
  o: Partial<So101RigOptions> = {},
): { r: ExecutedChunk; arm: QuietArm } {
  const arm = new QuietArm(q0, 0);
  const { rig } = so101Rig({ spec, calibration: CAL, task: TASK, arm, clock: { now: () => 0.01 }, ...o });
  const rt = new Session({ rig, gating: true, task: TASK, log: () => undefined });
  rt.pipeline.step(0.01);
  const r = rt.pipeline.submitChunk({ id: 'c1', stamp: 0.01, horizon: ROWS, joints: 6, dt: 0.05, targets }, 0.01);
  return { r, arm };
}

/** Minimum of a convex function on [0, 1] by ternary search. */
function convexMin(f: (s: number) => number): number {
  let lo = 0,
    hi = 1;
  for (let i = 0; i < 40; i++) {
    const a = lo + (hi - lo) / 3,
      b = hi - (hi - lo) / 3;
    if (f(a) <= f(b)) hi = b;
    else lo = a;
  }
  return f((lo + hi) / 2);
}

/**
 * Surface distance (m) of the nearest two link capsules the self pair checks, per row: the
 * segments' distance by nested ternary search (|p(s) − q(t)| is jointly convex), not the
 * production closed form.
 */
function selfClearances(targets: Float64Array): number[] {
  const model = new CapsuleModel(selfCollisionModel(SO101_DESCRIPTION, 'gripper'));
  const w = model.world;
  const at = (c: number, s: number, d: number): number => w[6 * c + d]! + s * (w[6 * c + 3 + d]! - w[6 * c + d]!);
  return Array.from({ length: ROWS }, (_, k) => {
    model.update(targets.subarray(k * 6, k * 6 + 6));
    let min = Infinity;
    for (let p = 0; p < model.pairCount; p++) {
      const i = model.selfPairs[2 * p]!,
        j = model.selfPairs[2 * p + 1]!;
      const dist = (s: number, t: number): number =>
        Math.hypot(at(i, s, 0) - at(j, t, 0), at(i, s, 1) - at(j, t, 1), at(i, s, 2) - at(j, t, 2));
      min = Math.min(min, convexMin((s) => convexMin((t) => dist(s, t))) - model.radii[i]! - model.radii[j]!);
    }
    return min;
  });
}

/** Tilt (deg) per row of the direction that was world-vertical in the tool frame at q0. */
function tilts(q0: readonly number[], targets: Float64Array): number[] {
  const fk = new ForwardKinematics(SO101_DESCRIPTION.chain);
  const o = fk.offset(SO101_FRAMES.tcp);
  fk.compute(q0);
  // v = R0ᵀ·ẑ: the third row of the row-major rotation R0
  const v = [fk.frames[o + 6]!, fk.frames[o + 7]!, fk.frames[o + 8]!];
  return Array.from({ length: ROWS }, (_, k) => {
    fk.compute(targets.subarray(k * 6, k * 6 + 6));
    const bz = fk.frames[o + 6]! * v[0]! + fk.frames[o + 7]! * v[1]! + fk.frames[o + 8]! * v[2]!;
    return (Math.acos(Math.min(1, bz)) * 180) / Math.PI;
  });
}

/** Upper arm raised, elbow and wrist folding the gripper back onto the upper arm (stays 2 cm above the table). */
const FOLD_FROM = [0, -1.6, 0.8, 0.5, 0, OPEN];
const FOLD_TO = [0, -1.6, 1.2, 1.6, 0, OPEN];
/** Wrist flexed 0.5 rad (28.6°) with the gripper closed on an object from the first row. */
const TILT_FROM = [0, -1, 0.8, 0.5, 0, CLOSED];
const TILT_TO = [0, -1, 0.8, 1.0, 0, CLOSED];
/** held_object_tilt_world main tier: τ 15°, ε 1.5° (spec/clauses.yaml). */
const TILT_LIMIT_DEG = 13.5;

describe('run so101: self-collision and held-tilt pairs in the chunk CBF', () => {
  it('a chunk folding the arm into itself is bent to keep the links the self clearance apart', () => {
    const nominal = ramp(FOLD_FROM, FOLD_TO);
    // the fold, as proposed, drives the gripper into the upper arm
    expect(Math.min(...selfClearances(nominal))).toBeLessThan(0);
    const { r, arm } = submit(FOLD_FROM, nominal);
    expect(r.verdict).toBe('filtered');
    expect(r.reason).toMatch(/CBF modified the chunk/);
    const sent = arm.executed[0]!.chunk.targets;
    // refused only inside the clearance (5 mm), less the filter's tolerance (0.1 mm)
    expect(SO101_SELF_CLEARANCE).toBe(0.005);
    for (const d of selfClearances(sent)) expect(d).toBeGreaterThanOrEqual(SO101_SELF_CLEARANCE - 1e-4);
    // the arm still moves toward the fold (bent, not held)
    expect(sent[(ROWS - 1) * 6 + 2]! - FOLD_FROM[2]!).toBeGreaterThan(0.1);
    // without the self pair (--self-clearance off) only the table plane bends it: the fold goes through
    const off = submit(FOLD_FROM, nominal, { selfClearance: null });
    expect(Math.min(...selfClearances(off.arm.executed[0]!.chunk.targets))).toBeLessThan(0);
  });

  it('a chunk tilting the held gripper beyond τ − ε is bent; the same motion with the gripper open is not', () => {
    const nominal = ramp(TILT_FROM, TILT_TO);
    expect(Math.max(...tilts(TILT_FROM, nominal))).toBeGreaterThan(25);
    const { r, arm } = submit(TILT_FROM, nominal);
    expect(r.verdict).toBe('filtered');
    const sent = arm.executed[0]!.chunk.targets;
    const bent = tilts(TILT_FROM, sent);
    expect(Math.max(...bent)).toBeLessThanOrEqual(TILT_LIMIT_DEG + 0.05);
    // the wrist still turns toward the bound (bent, not held)
    expect(Math.max(...bent)).toBeGreaterThan(5);
    // the gripper column is played as commanded (to the solver's tolerance)
    for (let k = 0; k < ROWS; k++) expect(sent[k * 6 + 5]).toBeCloseTo(CLOSED, 6);
    // --held-tilt off, or an open gripper: nothing held, the chunk goes out as proposed
    const off = submit(TILT_FROM, nominal, { heldTilt: false });
    expect(off.r.verdict).toBe('executed');
    const openFrom = [...TILT_FROM.slice(0, 5), OPEN];
    const open = ramp(openFrom, [...TILT_TO.slice(0, 5), OPEN]);
    const opened = submit(openFrom, open);
    expect(opened.r.verdict).toBe('executed');
    expect(Array.from(opened.arm.executed[0]!.chunk.targets)).toEqual(Array.from(open));
  });

  it('the start-up line names the self clearance, the held-tilt bound with the gripper threshold, and the margin', () => {
    const rig = (o: Partial<So101RigOptions>) =>
      so101Rig({ spec, calibration: CAL, task: TASK, arm: new QuietArm(TILT_FROM, 0), clock: { now: () => 0 }, ...o });
    // open: the calibration's gripper upper limit; closed: 0 rad; a command below halfway is closed
    const half = ((CAL.joints[5]!.upperDeg * Math.PI) / 180 / 2).toFixed(3);
    expect(describeRunCbf(rig({}).cbf, true)).toBe(
      `cbf: self clearance 0.005 m; held tilt ≤ 13.5° while the gripper (column 5) is commanded below ${half} rad; planning margin 0.003 m`,
    );
    expect(describeRunCbf(rig({ selfClearance: null, heldTilt: false, planningMargin: 0.005 }).cbf, true)).toBe(
      'cbf: self pair off (--self-clearance off); held tilt off; planning margin 0.005 m',
    );
    // a task whose objects do not spill: the tilt clause is not monitored, so no bound
    expect(rig({ task: 'so101-pick-butter' }).cbf.heldTiltDeg).toBeNull();
    expect(describeRunCbf(rig({}).cbf, false)).toMatch(/not applied \(gate off/);
  });

  it('a normal chunk passes unchanged with every pair on', () => {
    // a small reach with the gripper closed on an object: 3° of tilt, links far apart, table clear
    const from = [0, -1, 0.8, 0.5, 0, CLOSED];
    const nominal = ramp(from, [0.2, -0.95, 0.8, 0.5, 0, CLOSED]);
    expect(Math.max(...tilts(from, nominal))).toBeLessThan(5);
    const { r, arm } = submit(from, nominal);
    expect(r.verdict).toBe('executed');
    expect(arm.executed[0]!.chunk.targets).toBe(arm.executed[0]!.chunk.targets);
    expect(Array.from(arm.executed[0]!.chunk.targets)).toEqual(Array.from(nominal));
  });
});
