/** ChunkExecutor.submit never throws: a component that throws holds the gate, a failing onResult loses only the record. */
import { describe, expect, it } from 'vitest';
import { ChunkCbfFilter, ChunkScreen, Gate, NO_CLAUSES } from '../../src/gate/index.js';
import type { ExecutedChunk, GateChunk, ChunkRejection } from '../../src/gate/index.js';
import { ChunkExecutor } from '../../src/runtime/index.js';
import type { ChunkExecutorOptions } from '../../src/runtime/index.js';
import { activeSetSolverFactory } from '../gate/support/active-set-qp.js';
import { sweep } from '../gate/support/planar-arm.js';
import { KinematicArm } from './support/kinematic-arm.js';
import { chunkOf, FILTER_CONFIG, planarModel, Q0, SCREEN_CONFIG } from './support/rig.js';

const SCREEN = SCREEN_CONFIG;

class ThrowingScreen extends ChunkScreen {
  override check(_chunk: GateChunk, _now: number): ChunkRejection | null {
    throw new Error('screen: id table corrupt');
  }
}

function setup(opts: Partial<Pick<ChunkExecutorOptions, 'screen' | 'obstacles' | 'onResult'>> = {}) {
  const gate = new Gate({ requiredSignals: [], maxStepGap: 0.25, faultQuietPeriod: 0.5 });
  const arm = new KinematicArm(Q0);
  const executor = new ChunkExecutor({
    gate,
    screen: new ChunkScreen(SCREEN),
    filter: new ChunkCbfFilter(planarModel(), activeSetSolverFactory, FILTER_CONFIG),
    sink: arm,
    joints: arm,
    maxStateAge: 0.05,
    ...opts,
  });
  const t = 0.01;
  arm.tick(t);
  gate.evaluate(t, NO_CLAUSES, null);
  return { gate, arm, executor, t, chunk: chunkOf('c1', t, sweep(Q0, [-0.2, 0.5], 5)) };
}

describe('ChunkExecutor.submit when a component throws', () => {
  it('a throwing screen holds the gate with the cause and answers "held"; nothing is forwarded', () => {
    const { gate, arm, executor, t, chunk } = setup({ screen: new ThrowingScreen(SCREEN) });
    let res: ExecutedChunk | undefined;
    expect(() => (res = executor.submit(chunk, t))).not.toThrow();
    expect(gate.holdCause).toEqual({
      kind: 'driver-fault',
      fault: { kind: 'disconnect', source: 'chunk path', detail: 'threw: screen: id table corrupt' },
    });
    expect(res).toEqual({
      id: 'c1',
      verdict: 'held',
      code: 'driver-fault',
      reason: 'driver fault disconnect from chunk path: threw: screen: id table corrupt',
    });
    expect(arm.executed).toHaveLength(0);
  });

  it('a throwing obstacle refresh holds the gate and answers "held"; nothing is forwarded', () => {
    const obstacles = {
      refresh(): never {
        throw new Error('tracker: no frame');
      },
    };
    const { gate, arm, executor, t, chunk } = setup({ obstacles });
    let res: ExecutedChunk | undefined;
    expect(() => (res = executor.submit(chunk, t))).not.toThrow();
    expect(gate.holdCause).toMatchObject({
      kind: 'driver-fault',
      fault: { source: 'chunk path', detail: 'threw: tracker: no frame' },
    });
    expect(res).toMatchObject({ id: 'c1', verdict: 'held', code: 'driver-fault' });
    expect(res!.targets).toBeUndefined();
    expect(arm.executed).toHaveLength(0);
  });

  it('a throwing onResult does not lose the answer: the executed chunk is returned and forwarded once', () => {
    const reported: ExecutedChunk[] = [];
    const onResult = (r: ExecutedChunk) => {
      reported.push(r);
      throw new Error('recorder: disk full');
    };
    const { gate, arm, executor, t, chunk } = setup({ onResult });
    let res: ExecutedChunk | undefined;
    expect(() => (res = executor.submit(chunk, t))).not.toThrow();
    expect(res).toMatchObject({ id: 'c1', verdict: 'executed', code: 'ok' });
    expect(reported).toEqual([res]);
    expect(arm.executed).toHaveLength(1);
    expect(Array.from(arm.executed[0]!.chunk.targets)).toEqual(Array.from(res!.targets!));
    expect(gate.state).toBe('armed');
  });
});

describe('ChunkExecutor.setMaxStateAge (issue 14 item 13: the state age follows the max-age floor)', () => {
  it('a joint state 0.07 s old is stale at 0.05 s, usable once raised to 0.1 s, stale again past it', () => {
    const late = 0.08;
    const fixed = setup();
    fixed.gate.evaluate(late, NO_CLAUSES, null);
    const held = fixed.executor.submit(chunkOf('c1', late, sweep(Q0, [-0.2, 0.5], 5)), late);
    expect(held).toMatchObject({ verdict: 'held' });
    expect(fixed.gate.holdCause).toMatchObject({ kind: 'driver-fault', fault: { signal: 'joint_positions' } });

    const raised = setup();
    raised.executor.setMaxStateAge(0.1);
    raised.gate.evaluate(late, NO_CLAUSES, null);
    const ok = raised.executor.submit(chunkOf('c1', late, sweep(Q0, [-0.2, 0.5], 5)), late);
    expect(ok.verdict).not.toBe('held');
    expect(raised.arm.executed).toHaveLength(1);
    raised.gate.evaluate(0.12, NO_CLAUSES, null);
    expect(raised.executor.submit(chunkOf('c2', 0.12, sweep(Q0, [-0.2, 0.5], 5)), 0.12)).toMatchObject({
      verdict: 'held',
    });
    expect(() => raised.executor.setMaxStateAge(NaN)).toThrow(RangeError);
  });
});
