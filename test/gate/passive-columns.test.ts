/**
 * PassiveColumnsFilter: the trailing chunk columns (the gripper command) pass through exactly as
 * the policy sent them while the leading ones are filtered. Before it, the gripper column was a
 * passive joint of the CBF QP (PassiveJointsBarrier): zero barrier gradient, but the smoothness term
 * λ‖u_k − u_{k−1}‖² still pulled a closing command toward the present opening whenever the chunk
 * was bent.
 */
import { describe, expect, it } from 'vitest';
import {
  ChunkCbfFilter,
  DEFAULT_CBF_WEIGHTS,
  type BarrierModel,
  type CbfFilterConfig,
  type CbfOutcome,
  type ChunkFilter,
} from '../../src/gate/index.js';
import { PassiveColumnsFilter } from '../../src/gate/passive-columns.js';
import { activeSetSolverFactory } from './support/active-set-qp.js';

/** One arm joint that must stay at or below 0.5 rad: h = 0.5 − q (by hand). */
const wall: BarrierModel = {
  joints: 1,
  pairs: 1,
  h: (q, out) => (out[0] = 0.5 - q[0]!),
  gradient: (q, hOut, grad) => {
    hOut[0] = 0.5 - q[0]!;
    grad[0] = -1;
  },
};

const config: CbfFilterConfig = {
  ...DEFAULT_CBF_WEIGHTS,
  qmin: [-3],
  qmax: [3],
  maxSpeed: [2],
  maxRounds: 3,
  slackTolerance: 1e-6,
  cbfTolerance: 1e-6,
  maxIterations: 100,
};

/** 10 steps of [arm, gripper]: the arm runs 0 → 1 rad (through the wall), the gripper closes 0.08 → 0 at step 3. */
function chunk(): Float64Array {
  const u = new Float64Array(20);
  for (let k = 0; k < 10; k++) {
    u[2 * k] = (k + 1) / 10;
    u[2 * k + 1] = k < 3 ? 0.08 : 0;
  }
  return u;
}

describe('PassiveColumnsFilter', () => {
  it('bends the arm column at the wall and leaves the gripper column exactly as sent', () => {
    const f = new PassiveColumnsFilter(new ChunkCbfFilter(wall, activeSetSolverFactory, config), 1, 2);
    const u = chunk();
    const sent = Float64Array.from(u);
    const o = f.filter(u, 10, [0, 0.08], 0.05);
    expect(o.status).toBe('filtered');
    for (let k = 0; k < 10; k++) {
      expect(o.targets[2 * k]!).toBeLessThanOrEqual(0.5 + 1e-6);
      expect(o.targets[2 * k + 1]).toBe(sent[2 * k + 1]); // bit-exact
    }
    expect(o.targets[2 * 9]!).toBeGreaterThan(0.4); // the arm still goes as far as it may
    expect(Array.from(u)).toEqual(Array.from(sent)); // the policy's chunk is not written to
  });

  it('passes an unchanged chunk through as the same array, and other outcomes as the inner filter made them', () => {
    const f = new PassiveColumnsFilter(new ChunkCbfFilter(wall, activeSetSolverFactory, config), 1, 2);
    const u = chunk().map((v, i) => (i % 2 === 0 ? v * 0.3 : v));
    expect(f.filter(u, 10, [0, 0.08], 0.05).targets).toBe(u);
    const seen: number[][] = [];
    const held: CbfOutcome = { status: 'unsafe', targets: new Float64Array(0) } as unknown as CbfOutcome;
    const spy: ChunkFilter = {
      filter: (nominal, horizon, q0) => {
        seen.push([...Array.from(nominal), horizon, ...Array.from(q0)]);
        return held;
      },
    };
    const g = new PassiveColumnsFilter(spy, 1, 3);
    expect(g.filter(Float64Array.of(1, 2, 3, 4, 5, 6), 2, [7, 8, 9], 0.05)).toBe(held);
    expect(seen).toEqual([[1, 4, 2, 7]]); // only the leading column of each step and of q0
    expect(held.targets.length).toBe(0);
  });

  it('refuses a column split that is not 0 < active ≤ columns', () => {
    const inner: ChunkFilter = new ChunkCbfFilter(wall, activeSetSolverFactory, config);
    expect(() => new PassiveColumnsFilter(inner, 0, 2)).toThrow(/active/);
    expect(() => new PassiveColumnsFilter(inner, 3, 2)).toThrow(/active/);
    expect(() => new PassiveColumnsFilter(inner, 1.5, 2)).toThrow(/active/);
  });
});
