/**
 * SQP rounds of the chunk filter on the generator's scenarios (../shared/qp/gen-chunk-qp.mjs, toy
 * kinematics, H = 50, the first cycles of a sequence where the nominal chunk runs through the
 * obstacle): the proximal term keeps re-linearised rounds close to where they were linearised.
 */
import { describe, expect, it } from 'vitest';
import {
  ChunkCbfFilter,
  ChunkQp,
  DEFAULT_CBF_BACK_OFF,
  DEFAULT_CBF_TOLERANCE,
  DEFAULT_CBF_WEIGHTS,
  interiorPointSolver,
} from '../../src/gate/index.js';
import { generatorObstacles, ToyBarrier } from './support/toy-so101.js';
import { GEN_H, GEN_JOINTS, GEN_QMAX, GEN_QMIN, generatorChunks, toyRecheck } from './support/generator-chunks.js';

const H = GEN_H;
const n = GEN_JOINTS;
const problems = generatorChunks(4);
const qmax = GEN_QMAX;
const qmin = GEN_QMIN;

/** Independent shortfall of h(u_k) ≥ 0.8·h(u_{k−1}) over steps and pairs, and min h. */
const recheck = (bar: ToyBarrier, q0: number[], u: Float64Array) => toyRecheck(bar, q0, u, 0.8);

function run(proximal: number, backOff = 0) {
  return problems.map((p) => {
    const bar = new ToyBarrier(n, generatorObstacles(H, n, p.meta.cycle), 2);
    const f = new ChunkCbfFilter(bar, interiorPointSolver, {
      ...DEFAULT_CBF_WEIGHTS,
      proximal,
      qmin,
      qmax,
      maxSpeed: new Array<number>(n).fill(0.05),
      maxRounds: 3,
      slackTolerance: 1e-6,
      cbfTolerance: 1e-6,
      maxIterations: 40,
      backOff,
    });
    const o = f.filter(Float64Array.from(p.unom), H, p.q0, 1);
    return { status: o.status, rounds: o.rounds, reported: o.cbfViolation, ...recheck(bar, p.q0, o.targets) };
  });
}

describe('chunk filter SQP rounds on the generator scenarios', () => {
  it('every nominal runs into the obstacle and every chunk is filtered to h ≥ 0 at every step, with or without the proximal term', () => {
    for (const p of problems) {
      const bar = new ToyBarrier(n, generatorObstacles(H, n, p.meta.cycle), 2);
      expect(recheck(bar, p.q0, Float64Array.from(p.unom)).minH).toBeLessThan(0);
    }
    for (const r of [...run(0), ...run(DEFAULT_CBF_WEIGHTS.proximal)]) {
      expect(r.status).toBe('filtered');
      expect(r.minH).toBeGreaterThanOrEqual(0);
      expect(r.reported).toBeCloseTo(Math.max(0, r.shortfall), 12);
    }
  });

  it('the proximal term brings the executed chunk within 0.1 mm of the barrier condition, where plain re-linearisation leaves millimetres', () => {
    const plain = run(0);
    const prox = run(DEFAULT_CBF_WEIGHTS.proximal);
    expect(Math.max(...plain.map((r) => r.shortfall))).toBeGreaterThan(1e-3);
    expect(Math.max(...prox.map((r) => r.shortfall))).toBeLessThan(1e-4);
  });

  it('the back-off of re-linearised rounds needs fewer rounds for the same 0.1 mm acceptance', () => {
    const rounds = (backOff: number) =>
      problems.map((p) => {
        const bar = new ToyBarrier(n, generatorObstacles(H, n, p.meta.cycle), 2);
        const f = new ChunkCbfFilter(bar, interiorPointSolver, {
          ...DEFAULT_CBF_WEIGHTS,
          qmin,
          qmax,
          maxSpeed: new Array<number>(n).fill(0.05),
          maxRounds: 3,
          slackTolerance: 1e-6,
          cbfTolerance: DEFAULT_CBF_TOLERANCE,
          maxIterations: 40,
          backOff,
        });
        const o = f.filter(Float64Array.from(p.unom), H, p.q0, 1);
        expect(o.status).toBe('filtered');
        const r = recheck(bar, p.q0, o.targets);
        expect(r.minH).toBeGreaterThanOrEqual(0);
        expect(r.shortfall).toBeLessThanOrEqual(DEFAULT_CBF_TOLERANCE);
        return o.rounds;
      });
    const without = rounds(0);
    const withBackOff = rounds(DEFAULT_CBF_BACK_OFF);
    // measured: [3, 2, 3, 3] without, [3, 2, 2, 2] with (cycle 0 needs slack in round 1 and goes
    // through the standing-still round, which has no back-off)
    withBackOff.forEach((r, i) => expect(r).toBeLessThanOrEqual(without[i]!));
    expect(withBackOff.reduce((a, b) => a + b, 0)).toBeLessThan(without.reduce((a, b) => a + b, 0));
  });
});

describe('ChunkQp.setProximal', () => {
  it('adds μ‖u − ref‖² on top of the nominal cost and μ = 0 restores it exactly', () => {
    const qp = new ChunkQp(3, 2, 1);
    const unom = Float64Array.from([0.1, 0.2, 0.3, 0.4, 0.5, 0.6]);
    qp.setNominal(unom, Float64Array.from([0, 0]), [-1, -1], [1, 1], [0.5, 0.5], DEFAULT_CBF_WEIGHTS);
    const P0 = Float64Array.from(qp.problem.P.values);
    const q0 = Float64Array.from(qp.problem.q);
    const ref = Float64Array.from([1, 2, 3, 4, 5, 6]);
    qp.setProximal(ref, 7);
    // the objective's gradient at u changes by 2μ(u − ref): check it on the variables directly
    const P = qp.problem.P;
    for (let c = 0; c < 6; c++) {
      const diag = P.colPtr[c + 1]! - 1; // the diagonal is the last entry of column c (upper triangle)
      expect(P.rowIndex[diag]).toBe(c);
      expect(P.values[diag]! - P0[diag]!).toBeCloseTo(14, 12);
      expect(qp.problem.q[c]! - q0[c]!).toBeCloseTo(-14 * ref[c]!, 12);
    }
    for (let k = 6; k < 9; k++) expect(qp.problem.q[k]).toBe(q0[k]); // slack costs untouched
    qp.setProximal(ref, 0);
    expect(Array.from(qp.problem.P.values)).toEqual(Array.from(P0));
    expect(Array.from(qp.problem.q)).toEqual(Array.from(q0));
  });
});
