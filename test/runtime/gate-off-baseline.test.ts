/**
 * The gate-off baseline: the policy's chunks reach the arm unfiltered (screened only), clause
 * violations are recorded as gate transitions but never hold the arm, each would-hold ends by
 * itself when its cause clears, and an e-stop still holds the arm — also when it arrives while the
 * gate already holds for a clause (no transition then).
 */
import { describe, expect, it } from 'vitest';
import { ArrayClauseMargins, ChunkScreen, Gate, type GateEvent } from '../../src/gate/index.js';
import type { FaultListener, SignalSource } from '../../src/ports/index.js';
import { BASELINE_RELEASE_BY, GateOffBaseline, Pipeline } from '../../src/runtime/index.js';
import type { SignalFrame } from '../../src/schema/signals.js';
import { KinematicArm } from './support/kinematic-arm.js';
import { chunkOf } from './support/rig.js';

const SCREEN = {
  joints: 2,
  maxHorizon: 50,
  qmin: [-1, -1],
  qmax: [1, 1],
  maxAge: 0.2,
  futureTolerance: 0.05,
  minDt: 0.001,
  maxDt: 0.5,
  idMemory: 64,
};

/** A source whose one signal is always fresh (the watchdog stays fed). */
class FreshSource implements SignalSource {
  readonly name = 'fresh';
  poll(frame: SignalFrame, now: number): void {
    frame.set(0, 1, now, this.name);
  }
  onFault(_l: FaultListener): void {}
}

function setup() {
  const gate = new Gate({ requiredSignals: [], maxStepGap: 0.5, faultQuietPeriod: 0.5 });
  const arm = new KinematicArm([0, 0]);
  const margins = new ArrayClauseMargins(['joint_torque']);
  const monitors = Object.assign(margins, { pushNs: () => undefined });
  const baseline = new GateOffBaseline({ gate, screen: new ChunkScreen(SCREEN), arm });
  const pipeline = new Pipeline({
    source: new FreshSource(),
    monitors,
    gate,
    sink: baseline.sink,
    chunks: baseline,
    watchdogTimeout: 0.1,
  });
  const events: GateEvent[] = [];
  gate.onEvent((e) => events.push(e));
  return { gate, arm, margins, pipeline, events };
}

const rows = (...r: number[][]) => Float64Array.from(r.flat());

describe('gate-off baseline', () => {
  it('forwards the proposed targets exactly (no filter), and screens NaN and joint limits', () => {
    const { arm, pipeline } = setup();
    pipeline.step(0.01);
    const proposed = rows([0.1, 0.2], [0.3, 0.9]);
    const r = pipeline.submitChunk(chunkOf('c1', 0.01, proposed), 0.01);
    expect(r).toMatchObject({ verdict: 'executed', code: 'gate-off', modification: 0 });
    expect(Array.from(arm.executed[0]!.chunk.targets)).toEqual(Array.from(proposed));
    expect(pipeline.submitChunk(chunkOf('c2', 0.02, rows([0.1, NaN])), 0.02)).toMatchObject({
      verdict: 'rejected',
      code: 'non-finite',
    });
    expect(pipeline.submitChunk(chunkOf('c3', 0.03, rows([1.5, 0])), 0.03)).toMatchObject({
      verdict: 'rejected',
      code: 'beyond-limits',
    });
    expect(arm.executed).toHaveLength(1);
  });

  it('a clause violation is recorded as a would-hold, never commanded; chunks keep flowing; the would-hold ends when the cause clears', () => {
    const { gate, arm, margins, pipeline, events } = setup();
    pipeline.step(0.01);
    margins.setFinal(0, -0.3);
    pipeline.step(0.02);
    expect(gate.state).toBe('hold');
    expect(events.at(-1)).toMatchObject({ to: 'hold', cause: { kind: 'violation', clause: 'joint_torque' } });
    expect(arm.holds).toHaveLength(0);
    expect(pipeline.submitChunk(chunkOf('c1', 0.02, rows([0.1, 0.1])), 0.02)).toMatchObject({ verdict: 'executed' });
    pipeline.step(0.03);
    expect(gate.state).toBe('hold'); // cause persists
    margins.setFinal(0, 0.5);
    pipeline.step(0.04);
    expect(gate.state).toBe('armed');
    expect(events.at(-1)).toMatchObject({
      from: 'hold',
      to: 'armed',
      cause: { kind: 'release', by: BASELINE_RELEASE_BY },
    });
    expect(arm.holds).toHaveLength(0);
  });

  it('an e-stop holds the arm and refuses chunks, also when the gate already holds for a clause', () => {
    const { gate, arm, margins, pipeline } = setup();
    pipeline.step(0.01);
    margins.setFinal(0, -0.3);
    pipeline.step(0.02);
    expect(gate.state).toBe('hold');
    pipeline.eStop(0.025, 'operator key'); // no transition: the gate is already in hold
    pipeline.step(0.03);
    expect(arm.holds).toHaveLength(1);
    expect(arm.holds[0]!.reason).toMatch(/e-stop/);
    expect(pipeline.submitChunk(chunkOf('c1', 0.03, rows([0.1, 0.1])), 0.03)).toMatchObject({
      verdict: 'held',
      code: 'stop',
    });
    expect(arm.executed).toHaveLength(0);
    pipeline.step(0.04);
    expect(arm.holds).toHaveLength(1); // held once, not every step
    expect(gate.resetEStop(0.045, { by: 'operator', pressedBy: 'operator key', authorised: true }).ok).toBe(true);
    pipeline.step(0.05);
    expect(pipeline.submitChunk(chunkOf('c2', 0.05, rows([0.1, 0.1])), 0.05)).toMatchObject({ verdict: 'executed' });
  });

  it('an e-stop from armed holds the arm through the transition', () => {
    const { arm, pipeline } = setup();
    pipeline.step(0.01);
    pipeline.eStop(0.015, 'dashboard');
    expect(arm.holds).toHaveLength(1);
    pipeline.step(0.02);
    expect(arm.holds).toHaveLength(1);
  });
});
