/**
 * The opt-in acceleration rows of the chunk CBF filter (CbfFilterConfig.maxAcceleration):
 * |u_k − 2u_{k−1} + u_{k−2}| ≤ a_max·dt², u_{−1} = q0, u_{−2} = qPrev (row 0 only when given).
 * On one joint with h(q) = q (never binding here) and λ = 0 the filtered chunk is the Euclidean
 * projection of the nominal chunk onto the acceleration rows, computed by hand below.
 */
import { describe, expect, it } from 'vitest';
import {
  ChunkCbfFilter,
  ChunkQp,
  DEFAULT_CBF_WEIGHTS,
  interiorPointSolver,
  type CbfFilterConfig,
} from '../../src/gate/index.js';
import { activeSetSolverFactory } from './support/active-set-qp.js';
import { LINE_BARRIER } from './support/line-barrier.js';
import { PlanarArmDisc, sweep } from './support/planar-arm.js';

// dt = 0.1 s and a_max = 10 rad/s²: a second difference of at most 0.1 rad per step².
const DT = 0.1;
const line: CbfFilterConfig = {
  ...DEFAULT_CBF_WEIGHTS,
  lambda: 0,
  qmin: [-10],
  qmax: [10],
  maxSpeed: [100],
  maxRounds: 3,
  slackTolerance: 1e-6,
  cbfTolerance: 1e-6,
  maxIterations: 60,
  qpTolerance: 1e-9,
  maxAcceleration: [10],
};
const q0 = [1];

describe('ChunkCbfFilter acceleration rows (one joint, hand-computed projections)', () => {
  it('without the option the chunk passes unchanged; with it, (1, 2) from rest becomes (1.36, 1.82)', () => {
    const nominal = Float64Array.from([1, 2]);
    const { maxAcceleration: _, ...withoutAcceleration } = line;
    expect(
      new ChunkCbfFilter(LINE_BARRIER, interiorPointSolver, withoutAcceleration).filter(nominal, 2, q0, DT).status,
    ).toBe('unchanged');
    // Row 1: u_1 − 2u_0 + q0 ≤ 0.1. In v = u − 1: project (0, 1) onto v_1 − 2v_0 ≤ 0.1 along (−2, 1):
    // (0, 1) − (0.9 / 5)(−2, 1) = (0.36, 0.82). Row 0 is free (no qPrev).
    const o = new ChunkCbfFilter(LINE_BARRIER, interiorPointSolver, line).filter(nominal, 2, q0, DT);
    expect(o.status).toBe('filtered');
    expect(o.targets[0]).toBeCloseTo(1.36, 6);
    expect(o.targets[1]).toBeCloseTo(1.82, 6);
  });

  it('three steps: both rows active, u = 1 + (1.9, 5.2, 9.9)/14', () => {
    // v = u − 1, nominal v = (0, 0, 1). Rows v_1 − 2v_0 ≤ 0.1 and v_2 − 2v_1 + v_0 ≤ 0.1, both active:
    // A = [[−2, 1, 0], [1, −2, 1]], AAᵀ = [[5, −4], [−4, 6]], Av − b = (−0.1, 0.9),
    // μ = (AAᵀ)⁻¹(−0.1, 0.9) = (3, 4.1)/14 ≥ 0, v = (0, 0, 1) − Aᵀμ = (1.9, 5.2, 9.9)/14.
    const o = new ChunkCbfFilter(LINE_BARRIER, interiorPointSolver, line).filter(
      Float64Array.from([1, 1, 2]),
      3,
      q0,
      DT,
    );
    expect(o.status).toBe('filtered');
    expect(Array.from(o.targets).map((x) => x - 1)).toEqual([
      expect.closeTo(1.9 / 14, 6),
      expect.closeTo(5.2 / 14, 6),
      expect.closeTo(9.9 / 14, 6),
    ]);
  });

  it('with qPrev (at rest: qPrev = q0) row 0 bounds the first step too: (2, 2) becomes (1.1, 1.3)', () => {
    // v_0 ≤ 0.1 and v_1 − 2v_0 ≤ 0.1 active; KKT: (1.8, 1.4) = μ_0(1, 0) + μ_1(−2, 1), μ = (4.6, 1.4) ≥ 0.
    const f = new ChunkCbfFilter(LINE_BARRIER, interiorPointSolver, line);
    const o = f.filter(Float64Array.from([2, 2]), 2, q0, DT, undefined, [1]);
    expect(o.status).toBe('filtered');
    expect(o.targets[0]).toBeCloseTo(1.1, 6);
    expect(o.targets[1]).toBeCloseTo(1.3, 6);
    // The same chunk without qPrev: row 1 alone, v_1 − 2v_0 = −1 < −0.1 (the stop at step 1):
    // (1, 1) + (0.9 / 5)(−2, 1) = (0.64, 1.18).
    const free = f.filter(Float64Array.from([2, 2]), 2, q0, DT);
    expect(free.status).toBe('filtered');
    expect(free.targets[0]).toBeCloseTo(1.64, 6);
    expect(free.targets[1]).toBeCloseTo(2.18, 6);
  });

  it('qPrev behind q0 (moving at 1 rad/step): continuing at that speed is unchanged, stopping at once is bent', () => {
    const f = new ChunkCbfFilter(LINE_BARRIER, interiorPointSolver, line);
    expect(f.filter(Float64Array.from([2, 3, 4]), 3, q0, DT, undefined, [0]).status).toBe('unchanged');
    // A stop at q0: row 0 needs u_0 − 2 + 0 ≥ −0.1, so the first step still moves ≥ 0.9 rad.
    const o = f.filter(Float64Array.from([1, 1, 1]), 3, q0, DT, undefined, [0]);
    expect(o.status).toBe('filtered');
    expect(o.targets[0]! - 1).toBeGreaterThanOrEqual(0.9 - 1e-6);
  });

  it('refuses a qPrev that is not a finite position per joint, naming it (bad input, not a barrier verdict)', () => {
    const f = new ChunkCbfFilter(LINE_BARRIER, interiorPointSolver, line);
    const nominal = Float64Array.from([1, 1.05]);
    for (const qPrev of [[NaN], [Infinity], []]) {
      const o = f.filter(nominal, 2, q0, DT, undefined, qPrev);
      expect(o.status).toBe('solver-failure');
      expect(o.targets.length).toBe(0);
      expect(o.detail).toMatch(/qPrev\[0\] must be a finite joint position/);
    }
    // the same chunk with a usable qPrev (at rest) passes
    expect(f.filter(nominal, 2, q0, DT, undefined, q0).status).toBe('unchanged');
  });

  it('rejects a limit per joint that is missing, zero or not finite', () => {
    expect(() => new ChunkCbfFilter(LINE_BARRIER, interiorPointSolver, { ...line, maxAcceleration: [] })).toThrow(
      'maxAcceleration has 0 entries',
    );
    expect(() => new ChunkCbfFilter(LINE_BARRIER, interiorPointSolver, { ...line, maxAcceleration: [0] })).toThrow(
      'maxAcceleration[0] must be finite and > 0',
    );
    expect(
      () => new ChunkCbfFilter(LINE_BARRIER, interiorPointSolver, { ...line, maxAcceleration: [Infinity] }),
    ).toThrow('maxAcceleration[0]');
  });
});

describe('ChunkQp acceleration rows', () => {
  it('are staged in pairs of steps (block-tridiagonal for src/qp) and have the hand-written entries', () => {
    const qp = new ChunkQp(3, 1, 1, { acceleration: true });
    expect(qp.problem.stageHint).toEqual({ kind: 'stages', stageOfVariable: Int32Array.from([0, 0, 1, 0, 0, 1]) });
    qp.setAcceleration(Float64Array.from([1]), null, [0.1]);
    const base = qp.accelBase;
    expect(base).toBe(2 * 3 + 3 + 3);
    const { A, l, u } = qp.problem;
    const row = (r: number): number[] => {
      const out = [0, 0, 0, 0, 0, 0];
      for (let c = 0; c < A.cols; c++)
        for (let t = A.colPtr[c]!; t < A.colPtr[c + 1]!; t++) if (A.rowIndex[t] === r) out[c] = A.values[t]!;
      return out;
    };
    expect(row(base)).toEqual([1, 0, 0, 0, 0, 0]);
    expect(row(base + 1)).toEqual([-2, 1, 0, 0, 0, 0]);
    expect(row(base + 2)).toEqual([1, -2, 1, 0, 0, 0]);
    expect([l[base], u[base]]).toEqual([-1e30, 1e30]);
    expect([l[base + 1], u[base + 1]]).toEqual([expect.closeTo(-1.1, 12), expect.closeTo(-0.9, 12)]);
    expect([l[base + 2], u[base + 2]]).toEqual([-0.1, 0.1]);
    qp.setAcceleration(Float64Array.from([1]), [0.5], [0.1]);
    // u_0 − 2·1 + 0.5 ∈ ±0.1
    expect([l[base], u[base]]).toEqual([expect.closeTo(1.4, 12), expect.closeTo(1.6, 12)]);
    expect(() => new ChunkQp(3, 1, 1).setAcceleration(Float64Array.from([1]), null, [0.1])).toThrow(
      'built without acceleration rows',
    );
  });
});

describe('ChunkCbfFilter acceleration rows on the planar arm with a disc', () => {
  it('the interior point and the independent active-set solver agree, and the executed chunk keeps every row and h ≥ 0', () => {
    const TIP_R = Math.hypot(1 + 0.8 * Math.cos(0.5), 0.8 * Math.sin(0.5));
    const TIP_A = Math.atan2(0.8 * Math.sin(0.5), 1 + 0.8 * Math.cos(0.5));
    const arm = new PlanarArmDisc(1, 0.8, TIP_R * Math.cos(0.75 + TIP_A), TIP_R * Math.sin(0.75 + TIP_A), 0.15, 0.05);
    const start = [0, 0.5];
    const cfg: CbfFilterConfig = {
      ...DEFAULT_CBF_WEIGHTS,
      qmin: [-3, -3],
      qmax: [3, 3],
      maxSpeed: [2, 2],
      maxRounds: 3,
      slackTolerance: 1e-6,
      cbfTolerance: 1e-6,
      maxIterations: 100,
      maxAcceleration: [1.5, 1.5],
    };
    const H = 12;
    const dt = 0.1;
    const nominal = sweep(start, [1.5, 0.5], H);
    const ip = new ChunkCbfFilter(arm, interiorPointSolver, cfg).filter(nominal, H, start, dt, undefined, start);
    expect(ip.status).toBe('filtered');
    const a = Float64Array.from(ip.targets);
    const ref = new ChunkCbfFilter(arm, activeSetSolverFactory, cfg).filter(nominal, H, start, dt, undefined, start);
    expect(ref.status).toBe('filtered');
    for (let c = 0; c < a.length; c++) expect(Math.abs(a[c]! - ref.targets[c]!)).toBeLessThan(1e-4);
    const aStep = 1.5 * dt * dt;
    const at = (k: number, j: number): number => (k < 0 ? start[j]! : a[k * 2 + j]!);
    let worst = 0;
    for (let k = 0; k < H; k++)
      for (let j = 0; j < 2; j++) worst = Math.max(worst, Math.abs(at(k, j) - 2 * at(k - 1, j) + at(k - 2, j)));
    expect(worst).toBeLessThanOrEqual(aStep + 1e-6);
    expect(ip.minH).toBeGreaterThanOrEqual(0);
  });
});
