/**
 * The action-wise baseline (seeds/001 Eq. A.2, step by step) against closed forms. For a linear
 * barrier h(q) = a·q − b the one-step problem min ‖u − u_nom‖² + ρξ s.t. a·u + ξ ≥ c, ξ ≥ 0, with
 * c = a·z − γ h(z), is solved by hand: u = u_nom when a·u_nom ≥ c; otherwise the projection
 * u = u_nom + t·a with t = (c − a·u_nom)/‖a‖², unless that costs more than the slack: along a the
 * cost is t²‖a‖² + ρ·max(0, d − t‖a‖²) (d = c − a·u_nom), minimal at t = ρ/2 when ρ/2 < d/‖a‖²,
 * leaving ξ = d − (ρ/2)‖a‖².
 */
import { describe, expect, it } from 'vitest';
import {
  interiorPointSolver,
  StepwiseCbfBaseline,
  type BarrierModel,
  type StepwiseCbfBaselineConfig,
} from '../../src/gate/index.js';
import { optionsShapeRecorder } from './support/options-shapes.js';

/** h(q) = a·q − b over two joints. */
function linearBarrier(a: readonly [number, number], b: number): BarrierModel {
  return {
    joints: 2,
    pairs: 1,
    h: (q, out) => (out[0] = a[0] * q[0]! + a[1] * q[1]! - b),
    gradient: (q, hOut, grad) => {
      hOut[0] = a[0] * q[0]! + a[1] * q[1]! - b;
      grad[0] = a[0];
      grad[1] = a[1];
    },
  };
}

const wide: Omit<StepwiseCbfBaselineConfig, 'rho' | 'recheck'> = {
  qmin: [-10, -10],
  qmax: [10, 10],
  maxSpeed: [100, 100],
  gamma: 0.2,
  slackTolerance: 1e-6,
  maxIterations: 60,
};

describe('StepwiseCbfBaseline (Eq. A.2 baseline)', () => {
  const a = [0.6, 0.8] as const; // ‖a‖ = 1
  const b = -0.5;
  const z = [0, 0];
  const hz = 0.5; // a·z − b
  const c = -0.2 * hz; // a·z − γ h(z)

  it('one step: leaves an admissible action alone and projects an inadmissible one onto a·u = c', () => {
    const f = new StepwiseCbfBaseline(linearBarrier(a, b), interiorPointSolver, { ...wide, rho: 1000, recheck: true });
    const ok = Float64Array.from([0.1, -0.05]); // a·u = 0.02 ≥ c
    const o1 = f.filter(ok, 1, z, 0.05);
    expect(o1.status).toBe('unchanged');
    expect(Array.from(o1.targets)).toEqual([0.1, -0.05]);

    const unom = Float64Array.from([-0.3, -0.2]); // a·u_nom = −0.34 < c = −0.1
    const d = c - (a[0] * unom[0]! + a[1] * unom[1]!);
    const o2 = f.filter(unom, 1, z, 0.05);
    expect(o2.status).toBe('filtered');
    expect(o2.targets[0]).toBeCloseTo(unom[0]! + d * a[0], 5);
    expect(o2.targets[1]).toBeCloseTo(unom[1]! + d * a[1], 5);
    expect(o2.slackUsed).toBeLessThan(1e-5);
    expect(o2.modification).toBeCloseTo(d * a[1], 5);
  });

  it('one step, cheap slack (small ρ): moves only ρ/2 along a and pays the rest as slack', () => {
    const rho = 0.1;
    const unom = Float64Array.from([-0.3, -0.2]);
    const d = c - (a[0] * unom[0]! + a[1] * unom[1]!); // 0.24 > ρ/2 = 0.05
    const published = new StepwiseCbfBaseline(linearBarrier(a, b), interiorPointSolver, {
      ...wide,
      rho,
      recheck: false,
    });
    const o = published.filter(unom, 1, z, 0.05);
    expect(o.status).toBe('filtered');
    expect(o.targets[0]).toBeCloseTo(unom[0]! + (rho / 2) * a[0], 5);
    expect(o.targets[1]).toBeCloseTo(unom[1]! + (rho / 2) * a[1], 5);
    expect(o.slackUsed).toBeCloseTo(d - rho / 2, 5);
    // The same solve with the re-check holds: the barrier condition needed slack.
    const checked = new StepwiseCbfBaseline(linearBarrier(a, b), interiorPointSolver, { ...wide, rho, recheck: true });
    expect(checked.filter(unom, 1, z, 0.05).status).toBe('unsafe');
  });

  it('a chunk pushing straight into the barrier: h decays by exactly (1 − γ) per step, each step from the previous result', () => {
    const H = 8;
    const f = new StepwiseCbfBaseline(linearBarrier(a, b), interiorPointSolver, { ...wide, rho: 1000, recheck: true });
    const nominal = new Float64Array(2 * H);
    for (let k = 0; k < H; k++) nominal.set([-2, -2], 2 * k); // far on the unsafe side
    const o = f.filter(nominal, H, z, 0.05);
    expect(o.status).toBe('filtered');
    for (let k = 0; k < H; k++) {
      const h = a[0] * o.targets[2 * k]! + a[1] * o.targets[2 * k + 1]! - b;
      expect(h).toBeCloseTo(hz * 0.8 ** (k + 1), 5);
    }
    expect(o.minH).toBeCloseTo(hz * 0.8 ** H, 5);
  });

  it('respects the per-step motion bound and fails safe on a NaN barrier', () => {
    const f = new StepwiseCbfBaseline(linearBarrier(a, b), interiorPointSolver, {
      ...wide,
      maxSpeed: [1, 1],
      rho: 1000,
      recheck: false,
    });
    const o = f.filter(Float64Array.from([0.5, 0.5, 1, 1]), 2, z, 0.05);
    expect(o.status).toBe('filtered');
    expect(Math.abs(o.targets[0]!)).toBeLessThanOrEqual(0.05 + 1e-9);
    expect(Math.abs(o.targets[2]! - o.targets[0]!)).toBeLessThanOrEqual(0.05 + 1e-9);
    expect(f.filter(Float64Array.from([0, 0]), 1, [NaN, 0], 0.05).status).toBe('unsafe');
  });

  it('passes the solver one options object whose fields never change in kind or order, deadline or not', () => {
    const { factory: recording, objects, shapes } = optionsShapeRecorder();
    const f = new StepwiseCbfBaseline(linearBarrier(a, b), recording, { ...wide, rho: 1000, recheck: true });
    const unom = Float64Array.from([-0.3, -0.2]);
    expect(f.filter(unom, 1, z, 0.05).status).toBe('filtered');
    expect(f.filter(unom, 1, z, 0.05, () => false).status).toBe('filtered');
    expect(objects.size).toBe(1);
    expect(shapes.size).toBe(1);
  });
});
