/** A complete pipeline around a planar kinematic arm, real STL monitors and the CBF filter. */
import { ChunkCbfFilter, ChunkScreen, DEFAULT_CBF_WEIGHTS, Gate } from '../../../src/gate/index.js';
import type { BarrierModel, CbfFilterConfig, GateChunk, QpSolverFactory } from '../../../src/gate/index.js';
import type { ChunkRecheckConfig } from '../../../src/gate/chunk-recheck.js';
import { ChunkExecutor, MemoryEventSink, MonitorBank, Pipeline } from '../../../src/runtime/index.js';
import type { ClauseSpecLike } from '../../../src/runtime/index.js';
import { activeSetSolverFactory } from '../../gate/support/active-set-qp.js';
import { PlanarArmDisc } from '../../gate/support/planar-arm.js';
import { KinematicArm } from './kinematic-arm.js';
import { ScriptedSource } from './scripted-source.js';

export const TORQUE_CLAUSE: ClauseSpecLike = {
  clause: { id: 'joint_torque' },
  formula: 'always (max_joint_torque < 2)',
  tau: 2,
  warn: 0.2,
};

export const Q0 = [0, 0.5];

/** The chunk screen of the planar two-joint rig. */
export const SCREEN_CONFIG = {
  joints: 2,
  maxHorizon: 50,
  qmin: [-3, -3],
  qmax: [3, 3],
  maxAge: 0.2,
  futureTolerance: 0.05,
  minDt: 0.001,
  maxDt: 0.5,
  idMemory: 64,
};
const TIP_R = Math.hypot(1 + 0.8 * Math.cos(0.5), 0.8 * Math.sin(0.5));
const TIP_A = Math.atan2(0.8 * Math.sin(0.5), 1 + 0.8 * Math.cos(0.5));
/** Disc on the tip's path when joint 0 sweeps from 0 to 1.5 rad with joint 1 at 0.5. */
export const planarModel = () =>
  new PlanarArmDisc(1, 0.8, TIP_R * Math.cos(0.75 + TIP_A), TIP_R * Math.sin(0.75 + TIP_A), 0.15, 0.05);

export const FILTER_CONFIG: CbfFilterConfig = {
  ...DEFAULT_CBF_WEIGHTS,
  qmin: [-3, -3],
  qmax: [3, 3],
  maxSpeed: [2, 2],
  maxRounds: 3,
  slackTolerance: 1e-6,
  cbfTolerance: 1e-6,
  maxIterations: 100,
};

/** The re-check of the chunk as it would go to the arm, on the filter's own model and limits. */
export function planarRecheck(model: BarrierModel): ChunkRecheckConfig {
  return {
    barrier: model,
    qmin: FILTER_CONFIG.qmin,
    qmax: FILTER_CONFIG.qmax,
    maxSpeed: FILTER_CONFIG.maxSpeed,
    planningMargin: 0,
    gamma: FILTER_CONFIG.gamma,
  };
}

export interface RigOptions {
  clauses?: ClauseSpecLike[];
  solver?: QpSolverFactory;
  openGripperOnHold?: boolean;
  watchdogTimeout?: number;
  requiredSignals?: number[];
}

export function rig(opts: RigOptions = {}) {
  const source = new ScriptedSource();
  const bank = MonitorBank.fromClauses(opts.clauses ?? [TORQUE_CLAUSE]);
  const gate = new Gate({
    requiredSignals: opts.requiredSignals ?? bank.requiredSignals,
    maxStepGap: 0.25,
    faultQuietPeriod: 0.5,
  });
  const arm = new KinematicArm(Q0);
  const model = planarModel();
  const events = new MemoryEventSink();
  const screen = new ChunkScreen(SCREEN_CONFIG);
  const filter = new ChunkCbfFilter(model, opts.solver ?? activeSetSolverFactory, FILTER_CONFIG);
  const chunks = new ChunkExecutor({
    gate,
    screen,
    filter,
    sink: arm,
    joints: arm,
    maxStateAge: 0.05,
    onResult: (r, t) => events.chunkResult(r, t),
    recheck: planarRecheck(model),
  });
  const pipeline = new Pipeline({
    source,
    monitors: bank,
    gate,
    sink: arm,
    chunks,
    events,
    watchdogTimeout: opts.watchdogTimeout ?? 0.2,
    openGripperOnHold: opts.openGripperOnHold ?? false,
  });
  return { source, bank, gate, arm, model, events, pipeline, filter };
}

export function chunkOf(id: string, stamp: number, targets: Float64Array, dt = 0.1): GateChunk {
  return { id, stamp, horizon: targets.length / 2, joints: 2, dt, targets };
}

/** Step arm and pipeline `steps` times from `from` every `dt` seconds; returns the last time. */
export function runSteps(
  r: { arm: { tick(t: number): void }; pipeline: { step(t: number): void } },
  from: number,
  steps: number,
  dt: number,
): number {
  let t = from;
  for (let k = 0; k < steps; k++) {
    t = from + k * dt;
    r.arm.tick(t);
    r.pipeline.step(t);
  }
  return t;
}
