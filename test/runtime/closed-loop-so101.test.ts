/**
 * Closed loop with a kinematic SO-101 (URDF kinematics, link capsules), the production QP solver and
 * the full pipeline: the policy proposes chunks sweeping the gripper through a tracked object;
 * the arm executes them step by step (z_{k+1} = u_k). Every configuration the arm passes through is
 * re-checked with src/kinematics' own Barrier over the whole obstacle set.
 */
import { describe, expect, it } from 'vitest';
import {
  CapsuleBarrier,
  ChunkCbfFilter,
  ChunkScreen,
  DEFAULT_CBF_WEIGHTS,
  Gate,
  interiorPointSolver,
  obstacleGroups,
} from '../../src/gate/index.js';
import { Barrier, CapsuleModel, SO101_CHAIN, SO101_FRAMES, SO101_MODEL } from '../../src/kinematics/index.js';
import type { ObstacleSet } from '../../src/kinematics/index.js';
import { ChunkExecutor, MemoryEventSink, MonitorBank, Pipeline } from '../../src/runtime/index.js';
import { KinematicArm } from './support/kinematic-arm.js';
import { TORQUE_CLAUSE } from './support/rig.js';
import { ScriptedSource } from './support/scripted-source.js';

const D_SAFE = 0.02;
const DT = 0.02;
const START = [-0.6, -0.5, 0.5, 0.5, 0, 0.3];
const GOAL = [0.6, -0.5, 0.5, 0.5, 0, 0.3];
const QMIN = SO101_CHAIN.joints.map((j) => j.lower!);
const QMAX = SO101_CHAIN.joints.map((j) => j.upper!);

function tcpAt(q: number[]): number[] {
  const m = new CapsuleModel(SO101_MODEL);
  m.update(q);
  const out = new Float64Array(3);
  m.fk.pointInBase(out, 0, SO101_FRAMES.tcp, 0, 0, 0);
  return Array.from(out);
}

function setup(sphereCentre: number[]) {
  const obstacles: ObstacleSet = {
    planes: Float64Array.from([0, 0, 1, 0]), // the table, z > 0 free
    spheres: Float64Array.from([...sphereCentre, 0.03]),
    box: null,
  };
  const barrier = new CapsuleBarrier(new CapsuleModel(SO101_MODEL), obstacleGroups(obstacles), D_SAFE);
  const check = new Barrier(new CapsuleModel(SO101_MODEL), obstacles, D_SAFE, { includeSelf: false });
  const source = new ScriptedSource();
  source.live.set('max_joint_torque', 0.5);
  const bank = MonitorBank.fromClauses([TORQUE_CLAUSE]);
  const gate = new Gate({ requiredSignals: bank.requiredSignals, maxStepGap: 0.25, faultQuietPeriod: 0.5 });
  const arm = new KinematicArm(START);
  const events = new MemoryEventSink();
  const filter = new ChunkCbfFilter(barrier, interiorPointSolver, {
    ...DEFAULT_CBF_WEIGHTS,
    qmin: QMIN,
    qmax: QMAX,
    maxSpeed: new Array<number>(6).fill(1.5),
    maxRounds: 3,
    slackTolerance: 1e-6,
    cbfTolerance: 1e-6,
    maxIterations: 40,
  });
  const screen = new ChunkScreen({
    joints: 6,
    maxHorizon: 50,
    qmin: QMIN,
    qmax: QMAX,
    maxAge: 0.1,
    futureTolerance: 0.01,
    minDt: 0.001,
    maxDt: 0.1,
    idMemory: 256,
  });
  const chunks = new ChunkExecutor({
    gate,
    screen,
    filter,
    sink: arm,
    joints: arm,
    maxStateAge: 0.05,
    onResult: (r, t) => events.chunkResult(r, t),
  });
  const pipeline = new Pipeline({ source, monitors: bank, gate, sink: arm, chunks, events, watchdogTimeout: 0.2 });
  return { barrier, check, gate, arm, events, pipeline, filter };
}

/** A policy that heads straight for GOAL at 1.2 rad/s on the pan joint, H = 50 steps. */
function nominalFrom(q: Float64Array, H: number): Float64Array {
  const out = new Float64Array(H * 6);
  for (let k = 0; k < H; k++) {
    for (let j = 0; j < 6; j++) {
      const step = 1.2 * DT * (k + 1);
      const d = GOAL[j]! - q[j]!;
      out[k * 6 + j] = q[j]! + Math.sign(d) * Math.min(Math.abs(d), step);
    }
  }
  return out;
}

describe('closed loop: kinematic SO-101, capsule barrier, interior-point QP', () => {
  it('a chunk sweeping through a tracked object is filtered so that h ≥ 0 at every executed step', () => {
    const mid = tcpAt([0, -0.5, 0.5, 0.5, 0, 0.3]);
    const s = setup([mid[0]!, mid[1]!, mid[2]! - 0.03]); // just below the gripper's path
    // the nominal motion really runs through the object
    const nominal = nominalFrom(s.arm.q, 50);
    let nominalMin = Infinity;
    for (let k = 0; k < 50; k++) nominalMin = Math.min(nominalMin, s.check.value(nominal.subarray(k * 6, (k + 1) * 6)));
    expect(nominalMin).toBeLessThan(-0.02);

    let t = 0;
    let filtered = 0;
    s.pipeline.step(t);
    for (let cycle = 0; cycle < 12; cycle++) {
      const res = s.pipeline.submitChunk(
        { id: `c${cycle}`, stamp: t, horizon: 50, joints: 6, dt: DT, targets: nominalFrom(s.arm.q, 50) },
        t,
      );
      expect(['executed', 'filtered'], res.reason).toContain(res.verdict);
      if (res.verdict === 'filtered') filtered++;
      expect(res.slackUsed ?? 0).toBeLessThanOrEqual(1e-6);
      for (let k = 0; k < 10; k++) {
        t += DT;
        s.arm.tick(t);
        s.pipeline.step(t);
      }
    }
    expect(filtered).toBeGreaterThan(0);
    expect(s.gate.holding).toBe(false);
    expect(s.arm.path.length).toBe(120);
    let minH = Infinity;
    for (const q of s.arm.path) minH = Math.min(minH, s.check.value(q));
    expect(minH).toBeGreaterThanOrEqual(0);
  });

  it('a chunk that cannot be made safe (object already inside the safety distance) ends in hold', () => {
    const here = tcpAt(START);
    const s = setup([here[0]!, here[1]!, here[2]! + 0.035]);
    s.pipeline.step(0);
    const res = s.pipeline.submitChunk(
      { id: 'c0', stamp: 0, horizon: 50, joints: 6, dt: DT, targets: nominalFrom(s.arm.q, 50) },
      0,
    );
    expect(res).toMatchObject({ verdict: 'held', code: 'unsafe-chunk' });
    expect(s.gate.holding).toBe(true);
    expect(s.arm.executed).toHaveLength(0);
    expect(s.arm.holds).toHaveLength(1);
    expect(s.arm.holds[0]!.reason).toMatch(/cannot be made safe/);
  });
});
