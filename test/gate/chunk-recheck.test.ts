/**
 * The exact chunk re-check (src/gate/chunk-recheck.ts) on a one-joint arm whose barrier is a wall:
 * h(q) = q − 0.2 (clearance to a wall at q = 0.2). Every figure below is worked out by hand from
 * the definitions: limits [−1, 1], motion bound 0.1 rad per row, planning margin δ = 0.01, γ = 0.5.
 */
import { describe, expect, it } from 'vitest';
import { newRecheck, recheckChunk, recheckScratch } from '../../src/gate/chunk-recheck.js';
import type { BarrierModel } from '../../src/gate/cbf-types.js';

const wall: BarrierModel = {
  joints: 1,
  pairs: 1,
  h: (q, out) => (out[0] = q[0]! - 0.2),
  gradient: (q, hOut, grad) => {
    hOut[0] = q[0]! - 0.2;
    grad[0] = 1;
  },
};
const bounds = { qmin: [-1], qmax: [1], dq: [0.1], hFloor: -0.01, decay: 0.5 };
const check = (u: number[], q0: number) =>
  recheckChunk(wall, u, u.length, Float64Array.of(q0), bounds, recheckScratch(wall), newRecheck());

describe('recheckChunk', () => {
  it('passes a chunk moving away from the wall, with its smallest h and no barrier shortfall', () => {
    const r = check([0.55, 0.6, 0.7], 0.5);
    expect(r.hard).toBe(true);
    expect(r.minH).toBeCloseTo(0.35, 12); // row 0: 0.55 − 0.2
    expect(r.minHStep).toBe(0);
    expect(r.violation).toBe(0);
    expect(r.boundStep).toBe(-1);
  });

  it('measures the barrier-condition shortfall (1−γ)h(u_{k−1}) − h(u_k) and keeps h ≥ −δ as hard', () => {
    // h: q0 0.2 → rows 0.1, 0.0, −0.005; shortfalls 0.5·0.2 − 0.1 = 0, 0.5·0.1 − 0 = 0.05, 0 − (−0.005) = 0.005
    const r = check([0.3, 0.2, 0.195], 0.4);
    expect(r.violation).toBeCloseTo(0.05, 12);
    expect(r.minH).toBeCloseTo(-0.005, 12);
    expect(r.minHStep).toBe(2);
    expect(r.hard).toBe(true); // −0.005 ≥ −δ = −0.01
    expect(check([0.3, 0.2, 0.185], 0.4).hard).toBe(false); // h = −0.015 < −0.01
  });

  it('names the first row and joint beyond the motion bound from the present position, or beyond the limits', () => {
    const moved = check([0.62, 0.7], 0.5); // 0.12 > 0.1 from q0
    expect(moved).toMatchObject({ hard: false, boundStep: 0, boundJoint: 0 });
    // exactly the bound (plus rounding) passes
    expect(check([0.6, 0.7], 0.5).hard).toBe(true);
    const beyond = check([0.95, 1.02], 0.95); // limit 1
    expect(beyond).toMatchObject({ hard: false, boundStep: 1, boundJoint: 0 });
  });

  it('a non-finite row is never hard and its shortfall is Infinity', () => {
    const r = check([0.5, NaN], 0.5);
    expect(r.hard).toBe(false);
    expect(r.violation).toBe(Infinity);
  });
});
