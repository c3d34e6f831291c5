/**
 * The held object's tilt in the re-check of the chunk as it would go to the arm (both chunk paths):
 * the CBF bounds the tilt from the grasp reference, but the warning band runs after it and may bend
 * rows; the re-check checks the tilt faces on the rows the grip holds an object, from the grasp
 * reference committed on the control thread, so a chunk that tilts a held object past its limit is
 * never sent.
 *
 * The arm is the pan–tilt arm of the gate tests (the tool's tilt from vertical is |q_tilt|) with a
 * gripper column: rows are (pan, tilt, gripper). The tilt bound is 0.1 rad (a square polygon of
 * faces about the reference). The first chunk closes the gripper from its first row: the grasp is
 * at the present pose, tilt 0.4 rad, which becomes the reference (the object upright there). The
 * nominal chunk stands still, which the CBF passes unchanged; the band's load range on the tilt
 * joint starts at 0.63 rad (bent 0.02 inside: 0.65), so the band bends every row to tilt 0.65 —
 * 0.25 rad from the reference, 2.5 × the bound (within the 0.4 rad motion bound, the joint limits
 * and every other pair).
 */
import { describe, expect, it } from 'vitest';
import {
  ChunkCbfFilter,
  ChunkScreen,
  DEFAULT_CBF_WEIGHTS,
  Gate,
  NO_CLAUSES,
  WarningBand,
  type BandClauseSpec,
  type ChunkMotionModel,
  type GateChunk,
} from '../../src/gate/index.js';
import { CommitRecheck, type ChunkRecheckConfig } from '../../src/gate/chunk-recheck.js';
import { HeldTiltFilter } from '../../src/gate/held-tilt.js';
import { TiltPolygonBarrier } from '../../src/gate/orientation-barrier.js';
import { PassiveColumnsFilter } from '../../src/gate/passive-columns.js';
import { ForwardKinematics } from '../../src/kinematics/index.js';
import { ChunkExecutor } from '../../src/runtime/chunk-executor.js';
import { ChunkFilterRunner, InlineChunkFilterService } from '../../src/runtime/chunk-filter-service.js';
import { OffThreadChunkPath } from '../../src/runtime/off-thread-chunk-path.js';
import { ManualClock } from '../../src/util/clock.js';
import { activeSetSolverFactory } from '../gate/support/active-set-qp.js';
import { PAN_TILT_CHAIN, PAN_TILT_TOOL } from '../gate/support/pan-tilt.js';
import { KinematicArm } from './support/kinematic-arm.js';

const OPEN = 1;
const CLOSED = 0;
const LIMITS = { qmin: [-3, -3], qmax: [3, 3], maxSpeed: [4, 4] };
const DT = 0.1;

/** Flat ground far below: the band's only clause here is the commanded load. */
const FAR_FROM_SURFACES: ChunkMotionModel = {
  trace(_q0, _u, horizon, _columns, out) {
    for (let k = 0; k <= horizon; k++) {
      out.surfaceClearance[k] = 1;
      out.tcpHeight[k] = 1;
      out.gravityLoad[k] = 0;
    }
  },
};

const COMMANDED_LOAD: BandClauseSpec = {
  id: 'joint_torque',
  predictor: 'commanded_load',
  action: 'bend',
  limit: 2,
  side: 'upper',
  epsilon: 0.2,
};

function parts() {
  const tilt = new TiltPolygonBarrier(new ForwardKinematics(PAN_TILT_CHAIN), PAN_TILT_TOOL, 0.1, 10);
  const cbf = new ChunkCbfFilter(tilt, activeSetSolverFactory, {
    ...DEFAULT_CBF_WEIGHTS,
    ...LIMITS,
    maxRounds: 3,
    slackTolerance: 1e-6,
    cbfTolerance: 1e-6,
    maxIterations: 100,
  });
  const gripper = { column: 2, open: OPEN, closed: CLOSED };
  const filter = new HeldTiltFilter(new PassiveColumnsFilter(cbf, 2, 3), tilt, gripper, 3);
  const band = new WarningBand(FAR_FROM_SURFACES, {
    clauses: [COMMANDED_LOAD],
    armJoints: 2,
    runOn: 0,
    load: { qmin: [-3, 0.63], qmax: [3, 3], stiffness: 100, stallTorque: 10, bendMargin: 0.02, surfaceLever: 0 },
  });
  const recheck: ChunkRecheckConfig = {
    barrier: tilt,
    ...LIMITS,
    planningMargin: 0,
    gamma: DEFAULT_CBF_WEIGHTS.gamma,
    heldTilt: { barrier: tilt, gripper, filter },
  };
  const gate = new Gate({ requiredSignals: [], maxStepGap: 0.25, faultQuietPeriod: 0.5 });
  const screen = new ChunkScreen({
    joints: 3,
    maxHorizon: 50,
    qmin: [-3, -3, -1],
    qmax: [3, 3, 2],
    maxAge: 0.2,
    futureTolerance: 0.05,
    minDt: 0.001,
    maxDt: 0.5,
    idMemory: 64,
  });
  const arm = new KinematicArm([0, 0.4, CLOSED]);
  const state = () => ({ gripping: true, heldHeight: 0, supported: false });
  return { tilt, filter, band, recheck, gate, screen, arm, state };
}

/** The synchronous path over `parts`, the band after the filter, re-checking against `recheck`. */
function bandedExecutor(p: ReturnType<typeof parts>): ChunkExecutor {
  return new ChunkExecutor({
    gate: p.gate,
    screen: p.screen,
    filter: p.filter,
    sink: p.arm,
    joints: p.arm,
    maxStateAge: 0.05,
    band: { band: p.band, state: p.state },
    recheck: p.recheck,
  });
}

/** Four rows standing at (pan 0, tilt 0.4) with the gripper command `grip`. */
const standing = (id: string, t: number, grip: number): GateChunk => ({
  id,
  stamp: t,
  horizon: 4,
  joints: 3,
  dt: DT,
  targets: Float64Array.from([0, 1, 2, 3].flatMap(() => [0, 0.4, grip])),
});

describe('the re-check of the chunk as it would go to the arm checks the held-tilt faces', () => {
  it('synchronous path: a band bend tilting the held object 0.25 rad past its 0.1 rad bound holds (re-check: held-tilt)', () => {
    const p = parts();
    const executor = bandedExecutor(p);
    const t = 0.01;
    p.arm.tick(t);
    p.gate.evaluate(t, NO_CLAUSES, null);
    const r = executor.submit(standing('held', t, CLOSED), t);
    expect(r).toMatchObject({ verdict: 'held', code: 'unsafe-chunk' });
    expect(p.gate.holdCause).toMatchObject({
      kind: 'unsafe-chunk',
      chunkId: 'held',
      detail: expect.stringMatching(/^re-check on the control thread failed: held-tilt: .* at row 0/),
    });
    expect(p.arm.executed).toHaveLength(0);
    // the faces are off again after the check (a filter sharing the barrier switches them itself)
    expect(p.tilt.enabled).toBe(false);
  });

  it('synchronous path: the same bend with the gripper open (nothing held) goes to the arm as the band left it', () => {
    const p = parts();
    const executor = bandedExecutor(p);
    p.arm.q[2] = OPEN;
    const t = 0.01;
    p.arm.tick(t);
    p.gate.evaluate(t, NO_CLAUSES, null);
    const r = executor.submit(standing('open', t, OPEN), t);
    expect(r).toMatchObject({ verdict: 'filtered', band: { action: 'bent' } });
    const sent = Array.from(p.arm.executed[0]!.chunk.targets);
    [0, 1, 2, 3].forEach((k) => expect(sent[3 * k + 1]).toBeCloseTo(0.65, 12));
  });

  it("synchronous path: a filter that takes its reference from the held object's measured axis is refused, not checked against another reference", () => {
    const p = parts();
    p.filter.objectAxis = { axis: () => false };
    const executor = new ChunkExecutor({
      gate: p.gate,
      screen: p.screen,
      filter: p.filter,
      sink: p.arm,
      joints: p.arm,
      maxStateAge: 0.05,
      recheck: p.recheck,
    });
    const t = 0.01;
    p.arm.tick(t);
    p.gate.evaluate(t, NO_CLAUSES, null);
    expect(executor.submit(standing('measured', t, CLOSED), t)).toMatchObject({ verdict: 'held' });
    expect(p.gate.holdCause).toMatchObject({
      kind: 'driver-fault',
      fault: { source: 'chunk path', detail: expect.stringMatching(/measures the held object's axis/) },
    });
    expect(p.arm.executed).toHaveLength(0);
  });

  it('off-thread path: the control thread re-checks the answer with the same faces and holds (re-check: held-tilt)', () => {
    const p = parts();
    const service = new InlineChunkFilterService(new ChunkFilterRunner({ filter: p.filter, band: p.band }));
    const clock = new ManualClock(0.01);
    const path = new OffThreadChunkPath({
      gate: p.gate,
      screen: p.screen,
      sink: p.arm,
      joints: p.arm,
      maxStateAge: 0.05,
      band: { band: p.band, state: p.state },
      service,
      clock,
      recheck: { ...p.recheck, heldTilt: { barrier: p.tilt, gripper: p.recheck.heldTilt!.gripper } },
    });
    const t = 0.01;
    p.arm.tick(t);
    p.gate.evaluate(t, NO_CLAUSES, null);
    const r = path.submit(standing('held', t, CLOSED), t);
    expect(r).toMatchObject({ verdict: 'held', code: 'unsafe-chunk' });
    expect(p.gate.holdCause).toMatchObject({
      kind: 'unsafe-chunk',
      detail: expect.stringMatching(/^re-check on the control thread failed: held-tilt: /),
    });
    expect(p.arm.executed).toHaveLength(0);
  });
});

/**
 * The reference from the held object's MEASURED axis in the re-check (both paths). The object is
 * gripped at tilt 0.4 (chunk 1 closes the gripper from its first row: the tool pose there is the
 * reference) and measured at the next chunk, the first that starts held, leaning b = 0.06 rad along
 * +y — so at tool tilt t its tilt is |b + 0.4 − t| (test/gate/held-tilt-measured.test.ts works the
 * formula by hand), while the tool-pose reference counts it |t − 0.4|. The bound is 0.1 rad: a
 * 4-face polygon, which along a face normal allows asin(sin 0.1 · cos 45°) = 0.0707 rad; a measured
 * lean past half that turns a vertex toward the lean, where the full 0.1 rad is allowed.
 */
describe("the re-check takes the held object's measured axis at the first held chunk, as the filter does", () => {
  const LEAN = 0.06;
  const LEVELLING = [0.41, 0.42, 0.43, 0.44, 0.45, 0.46, 0.47, 0.48];
  const leaning = () => {
    const p = { reads: 0, axis: [0, Math.sin(LEAN), Math.cos(LEAN)] as number[] | null };
    const port = {
      axis: (out: Float64Array): boolean => {
        p.reads++;
        if (!p.axis) return false;
        out.set(p.axis);
        return true;
      },
    };
    return { p, port };
  };
  const rows = (id: string, t: number, tilts: number[]): GateChunk => ({
    id,
    stamp: t,
    horizon: tilts.length,
    joints: 3,
    dt: DT,
    targets: Float64Array.from(tilts.flatMap((q) => [0, q, CLOSED])),
  });

  it('CommitRecheck: a bend the tool-pose reference passes tips the measured object past its limit — held-tilt, named as measured', () => {
    const p = parts();
    const m = leaning();
    const check = new CommitRecheck(
      { ...p.recheck, heldTilt: { barrier: p.tilt, gripper: p.recheck.heldTilt!.gripper, objectAxis: m.port } },
      3,
    );
    const unmeasured = new CommitRecheck(
      { ...p.recheck, heldTilt: { barrier: p.tilt, gripper: p.recheck.heldTilt!.gripper } },
      3,
    );
    const q0 = [0, 0.4, CLOSED];
    const grasp = standing('grasp', 0, CLOSED).targets;
    for (const c of [check, unmeasured]) {
      const h = c.handover()!;
      expect(c.check(grasp, grasp, grasp, 4, DT, q0, q0, h.heldAxis)).toBeNull();
      c.committed();
    }
    const nominal = standing('held', 0, CLOSED).targets;
    const bent = rows('bent', 0, [0.38, 0.36, 0.35, 0.35]).targets;
    const h = check.handover()!;
    expect(Array.from(h.heldAxis!)).toEqual(m.p.axis);
    // measured: the object at |0.06 + 0.4 − 0.35| = 0.11 rad > 0.1
    expect(check.check(nominal, nominal, bent, 4, DT, q0, q0, h.heldAxis)).toMatchObject({
      check: 'held-tilt',
      detail: expect.stringMatching(/as measured at the first held chunk\) at row 2/),
    });
    // the tool-pose reference: 0.05 rad of tool tilt along a face normal (< 0.0707) passes
    expect(unmeasured.check(nominal, nominal, bent, 4, DT, q0, q0, null)).toBeNull();
    // once committed, the measured reference is kept: no further reading is due
    check.committed();
    expect(check.handover()!.heldAxis).toBeNull();
    expect(check.grasp!.reference.axis).not.toBeNull();
  });

  it('synchronous path: the filter gets the sample the re-check read; a chunk that levels the leaning object goes to the arm unchanged', () => {
    const p = parts();
    const m = leaning();
    const executor = new ChunkExecutor({
      gate: p.gate,
      screen: p.screen,
      filter: p.filter,
      sink: p.arm,
      joints: p.arm,
      maxStateAge: 0.05,
      recheck: { ...p.recheck, heldTilt: { ...p.recheck.heldTilt!, objectAxis: m.port } },
    });
    let t = 0.01;
    p.arm.tick(t);
    p.gate.evaluate(t, NO_CLAUSES, null);
    expect(executor.submit(standing('grasp', t, CLOSED), t).verdict).toBe('executed');
    for (let k = 0; k < 4; k++) {
      p.arm.tick((t += DT));
      p.gate.evaluate(t, NO_CLAUSES, null);
    }
    // tool 0.4 → 0.48: the object |0.46 − t| from 0.06 down to 0.02 (on the tool-pose reference the
    // tool's 0.08 is past 0.0707: bent), slowly enough for the faces' decay rate γ
    const r = executor.submit(rows('level', t, LEVELLING), t);
    expect(r.verdict).toBe('executed');
    expect(p.gate.holding).toBe(false);
    expect(Array.from(p.arm.executed[1]!.chunk.targets)).toEqual(LEVELLING.flatMap((q) => [0, q, CLOSED]));
    expect(p.filter.graspReference().axis).not.toBeNull();
  });

  it('off-thread path: the job carries the sample to the filter; the same chunk goes to the arm unchanged', () => {
    const p = parts();
    const m = leaning();
    const service = new InlineChunkFilterService(new ChunkFilterRunner({ filter: p.filter }));
    const clock = new ManualClock(0.01);
    const path = new OffThreadChunkPath({
      gate: p.gate,
      screen: p.screen,
      sink: p.arm,
      joints: p.arm,
      maxStateAge: 0.05,
      service,
      clock,
      recheck: {
        ...p.recheck,
        heldTilt: { barrier: p.tilt, gripper: p.recheck.heldTilt!.gripper, objectAxis: m.port },
      },
    });
    let t = 0.01;
    p.arm.tick(t);
    p.gate.evaluate(t, NO_CLAUSES, null);
    expect(path.submit(standing('grasp', t, CLOSED), t).verdict).toBe('executed');
    for (let k = 0; k < 4; k++) {
      p.arm.tick((t += DT));
      p.gate.evaluate(t, NO_CLAUSES, null);
    }
    clock.set(t);
    expect(path.submit(rows('level', t, LEVELLING), t).verdict).toBe('executed');
    expect(p.gate.holding).toBe(false);
  });

  it('a measurement port that throws holds on both paths with the cause named; nothing throws out of the path', () => {
    const broken = {
      axis: (): boolean => {
        throw new Error('tracker gone');
      },
    };
    const p = parts();
    const executor = new ChunkExecutor({
      gate: p.gate,
      screen: p.screen,
      filter: p.filter,
      sink: p.arm,
      joints: p.arm,
      maxStateAge: 0.05,
      recheck: { ...p.recheck, heldTilt: { ...p.recheck.heldTilt!, objectAxis: broken } },
    });
    const t = 0.01;
    p.arm.tick(t);
    p.gate.evaluate(t, NO_CLAUSES, null);
    expect(executor.submit(standing('sync', t, CLOSED), t).verdict).toBe('held');
    expect(p.gate.holdCause).toMatchObject({
      kind: 'driver-fault',
      fault: { detail: expect.stringMatching(/tracker gone/) },
    });

    const q = parts();
    const path = new OffThreadChunkPath({
      gate: q.gate,
      screen: q.screen,
      sink: q.arm,
      joints: q.arm,
      maxStateAge: 0.05,
      service: new InlineChunkFilterService(new ChunkFilterRunner({ filter: q.filter })),
      clock: new ManualClock(t),
      recheck: {
        ...q.recheck,
        heldTilt: { barrier: q.tilt, gripper: q.recheck.heldTilt!.gripper, objectAxis: broken },
      },
    });
    q.arm.tick(t);
    q.gate.evaluate(t, NO_CLAUSES, null);
    expect(path.submit(standing('async', t, CLOSED), t).verdict).toBe('held');
    expect(q.gate.holdCause).toMatchObject({
      kind: 'driver-fault',
      fault: { source: 'held object axis', detail: 'threw: tracker gone' },
    });
    expect(q.arm.executed).toHaveLength(0);
  });
});

describe('the re-check on the control thread does not churn its buffers', () => {
  it('a chunk that starts held, lets go and grasps again: its lead pass and main pass differ in length, and re-checking it again allocates nothing', () => {
    const p = parts();
    const check = new CommitRecheck({ ...p.recheck, heldTilt: { ...p.recheck.heldTilt!, filter: null } }, 3);
    const q0 = [0, 0.4, CLOSED];
    const grasp = standing('grasp', 0, CLOSED).targets;
    expect(check.check(grasp, grasp, grasp, 4, DT, q0, q0, null)).toBeNull();
    check.committed();
    // held rows 0–1, let go at row 2, grasp again at row 3: the lead pass 3 rows, the main pass 4
    const grips = [CLOSED, CLOSED, OPEN, CLOSED, CLOSED, CLOSED, CLOSED];
    const regrasp = Float64Array.from(grips.flatMap((grip) => [0, 0.4, grip]));
    expect(check.check(regrasp, regrasp, regrasp, 7, DT, q0, q0, null)).toBeNull();
    expect(check.grasp!.lead).toBe(true);
    const buffers = () => [check['tiltRows'], check['rows']];
    const first = buffers();
    for (let i = 0; i < 3; i++) {
      expect(check.check(regrasp, regrasp, regrasp, 7, DT, q0, q0, null)).toBeNull();
      expect(check.check(grasp, grasp, grasp, 4, DT, q0, q0, null)).toBeNull();
    }
    const after = buffers();
    expect(after[0]).toBe(first[0]);
    expect(after[1]).toBe(first[1]);
  });
});
