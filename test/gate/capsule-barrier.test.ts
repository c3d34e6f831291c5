import { describe, expect, it } from 'vitest';
import {
  CapsuleBarrier,
  ChunkCbfFilter,
  DEFAULT_CBF_WEIGHTS,
  interiorPointSolver,
  obstacleGroups,
} from '../../src/gate/index.js';
import { Barrier, CapsuleModel, SO101_MODEL } from '../../src/kinematics/index.js';
import type { ObstacleSet } from '../../src/kinematics/index.js';
import { activeSetSolverFactory } from './support/active-set-qp.js';
import { sweep } from './support/planar-arm.js';
import { FILTER_CONFIG, planarModel, Q0 } from '../runtime/support/rig.js';

const obstacles: ObstacleSet = {
  planes: Float64Array.from([0, 0, 1, 0]),
  spheres: Float64Array.from([0.25, 0.05, 0.12, 0.03, 0.2, -0.1, 0.2, 0.02]),
  box: Float64Array.from([-0.5, -0.5, -0.1, 0.5, 0.5, 0.6]),
};

describe('CapsuleBarrier (SO-101 capsules)', () => {
  it('has one pair per sphere, plane and box, and min over pairs equals the kinematics Barrier over the whole set', () => {
    const b = new CapsuleBarrier(new CapsuleModel(SO101_MODEL), obstacleGroups(obstacles), 0.02);
    expect(b.pairs).toBe(4);
    const whole = new Barrier(new CapsuleModel(SO101_MODEL), obstacles, 0.02, { includeSelf: false });
    const h = new Float64Array(4);
    for (const q of [
      [0, -0.5, 0.5, 0.5, 0, 0.3],
      [0.4, 0, 0.8, 0.2, 1, 0],
      [-1, 0.3, 1.2, -0.5, 0, 0.5],
    ]) {
      const qa = Float64Array.from(q);
      expect(b.h(qa, h)).toBeCloseTo(whole.value(qa), 12);
      expect(Math.min(...h)).toBeCloseTo(whole.value(qa), 12);
    }
  });

  it('gradient matches a finite difference of h, pair by pair', () => {
    const b = new CapsuleBarrier(new CapsuleModel(SO101_MODEL), obstacleGroups(obstacles), 0.02);
    const q = Float64Array.from([0.2, -0.3, 0.6, 0.4, 0.3, 0.2]);
    const hv = new Float64Array(4);
    const g = new Float64Array(24);
    b.gradient(q, hv, g);
    const hp = new Float64Array(4);
    const hm = new Float64Array(4);
    for (let j = 0; j < 6; j++) {
      const qp = q.slice();
      const qm = q.slice();
      qp[j]! += 1e-5;
      qm[j]! -= 1e-5;
      b.h(qp, hp);
      b.h(qm, hm);
      for (let p = 0; p < 4; p++) expect(g[p * 6 + j]).toBeCloseTo((hp[p]! - hm[p]!) / 2e-5, 5);
    }
    const h0 = new Float64Array(4);
    b.h(q, h0);
    expect(Array.from(hv)).toEqual(Array.from(h0));
  });
});

describe('a NaN obstacle (unrefreshed tracked sphere) is never clear', () => {
  const nanSphere = (): ObstacleSet => ({
    planes: new Float64Array(0),
    spheres: Float64Array.from([NaN, NaN, NaN, NaN]),
    box: null,
  });
  const table = (): ObstacleSet => ({
    planes: Float64Array.from([0, 0, 1, 0]),
    spheres: new Float64Array(0),
    box: null,
  });
  const q = Float64Array.from([0, -0.5, 0.5, 0.5, 0, 0.3]);

  it('h is NaN for the NaN pair and for the min; the other pair stays finite', () => {
    const b = new CapsuleBarrier(new CapsuleModel(SO101_MODEL), [table(), nanSphere()], 0.02);
    const h = new Float64Array(2);
    expect(b.h(q, h)).toBeNaN();
    expect(h[0]).toBeGreaterThan(0);
    expect(h[1]).toBeNaN();
    const g = new Float64Array(12);
    b.gradient(q, h, g);
    expect(h[1]).toBeNaN();
  });

  it('the chunk filter (interior-point QP) calls the chunk unsafe at the present position', () => {
    const b = new CapsuleBarrier(new CapsuleModel(SO101_MODEL), [table(), nanSphere()], 0.02);
    const filter = new ChunkCbfFilter(b, interiorPointSolver, {
      ...DEFAULT_CBF_WEIGHTS,
      qmin: SO101_MODEL.chain.joints.map((j) => j.lower),
      qmax: SO101_MODEL.chain.joints.map((j) => j.upper),
      maxSpeed: [2, 2, 2, 2, 2, 2],
      maxRounds: 3,
      slackTolerance: 1e-6,
      cbfTolerance: 1e-6,
      maxIterations: 100,
    });
    const horizon = 5;
    const nominal = new Float64Array(horizon * 6);
    for (let k = 0; k < horizon; k++) nominal.set(q, k * 6); // standing still: nothing to filter
    const o = filter.filter(nominal, horizon, q, 0.1);
    expect(o.status).toBe('unsafe');
    expect(o.minH).toBeNaN();
    expect(o.minHStep).toBe(-1);
    expect(o.targets.length).toBe(0);
  });
});

describe('production interior-point QP in the filter', () => {
  // At the production QP tolerance (1e-6 relative, so the objective is within ~1e-6 of optimal and
  // x within about its square root) the two solvers agree to 5e-4 rad; solved to 1e-9, to 5e-6.
  it.each([
    [undefined, 3],
    [1e-9, 5],
  ])(
    'filters the planar sweep to the same chunk as the dense reference solver (QP tolerance %s)',
    (qpTolerance, digits) => {
      const nominal = sweep(Q0, [1.5, 0.5], 20);
      const config = qpTolerance === undefined ? FILTER_CONFIG : { ...FILTER_CONFIG, qpTolerance };
      const a = new ChunkCbfFilter(planarModel(), interiorPointSolver, config).filter(nominal, 20, Q0, 0.1);
      const targetsA = a.targets.slice();
      const roundsA = a.rounds;
      const b = new ChunkCbfFilter(planarModel(), activeSetSolverFactory, config).filter(nominal, 20, Q0, 0.1);
      expect(a.status).toBe('filtered');
      expect(b.status).toBe('filtered');
      expect(roundsA).toBe(b.rounds);
      for (let i = 0; i < targetsA.length; i++) expect(targetsA[i]).toBeCloseTo(b.targets[i]!, digits);
    },
  );
});
