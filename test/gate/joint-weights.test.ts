/**
 * Filtering in scaled coordinates is the weighted filter: checked on a linear barrier where the
 * weighted QP's solution is computed by hand from its Lagrangian, and the scaled barrier's values
 * and gradients against finite differences of the inner barrier.
 */
import { describe, expect, it } from 'vitest';
import { ChunkCbfFilter, DEFAULT_CBF_WEIGHTS, interiorPointSolver } from '../../src/gate/index.js';
import type { BarrierModel } from '../../src/gate/cbf-types.js';
import { ScaledBarrier, ScaledChunkFilter } from '../../src/gate/joint-weights.js';

/** h(q) = 1 − (q_0 + q_1): the two joints' sum at most 1. */
const sum: BarrierModel = {
  joints: 2,
  pairs: 1,
  h: (q, out) => (out[0] = 1 - q[0]! - q[1]!),
  gradient(q, hOut, grad) {
    hOut[0] = 1 - q[0]! - q[1]!;
    grad[0] = -1;
    grad[1] = -1;
  },
};

const { lambda, gamma } = DEFAULT_CBF_WEIGHTS;
const filterWith = (scale: readonly number[]) => {
  const inner = new ChunkCbfFilter(new ScaledBarrier(sum, scale), interiorPointSolver, {
    ...DEFAULT_CBF_WEIGHTS,
    qmin: scale.map((s) => -10 * s),
    qmax: scale.map((s) => 10 * s),
    maxSpeed: scale.map((s) => 10 * s),
    maxRounds: 1,
    slackTolerance: 1e-6,
    cbfTolerance: 1e-4,
    maxIterations: 60,
  });
  return new ScaledChunkFilter(inner, scale);
};

describe('joint weights by scaled coordinates', () => {
  // From q0 = 0 (h = 1) one step to the nominal (1, 1) (h = −1): the barrier condition allows
  // h(u) ≥ (1 − γ)·1, i.e. u_0 + u_1 ≤ γ. Minimising Σ_j s_j²[(u_j − 1)² + λ u_j²] on that line:
  // u_j = (1 − μ/(2 s_j²)) / (1 + λ), with μ from u_0 + u_1 = γ.
  const solve = (s: readonly number[]): number[] => {
    const c = (1 + lambda) * gamma;
    const mu = (2 - c) / (1 / (2 * s[0]! ** 2) + 1 / (2 * s[1]! ** 2));
    return s.map((sj) => (1 - mu / (2 * sj ** 2)) / (1 + lambda));
  };

  it('unweighted, the correction is shared equally; joint 0 scaled 3, it moves a ninth as far from the nominal', () => {
    for (const scale of [
      [1, 1],
      [3, 1],
    ]) {
      const o = filterWith(scale).filter(Float64Array.of(1, 1), 1, [0, 0], 0.1);
      expect(o.status).toBe('filtered');
      const want = solve(scale);
      expect(o.targets[0]).toBeCloseTo(want[0]!, 4);
      expect(o.targets[1]).toBeCloseTo(want[1]!, 4);
      expect(o.modification).toBeCloseTo(Math.max(1 - want[0]!, 1 - want[1]!), 4);
    }
    // hand numbers for scale (3, 1), λ = 5, γ = 0.2: μ = 1.44, u = (0.15333, 0.04667)
    expect(solve([3, 1])[0]).toBeCloseTo(0.15333, 4);
    expect(solve([1, 1])[0]).toBeCloseTo(0.1, 12);
  });

  it('the scaled barrier is the inner barrier at q = x/s, its gradient divided by s', () => {
    const curved: BarrierModel = {
      joints: 2,
      pairs: 1,
      h: (q, out) => (out[0] = Math.sin(q[0]!) * q[1]! + q[1]! ** 2),
      gradient(q, hOut, grad) {
        hOut[0] = Math.sin(q[0]!) * q[1]! + q[1]! ** 2;
        grad[0] = Math.cos(q[0]!) * q[1]!;
        grad[1] = Math.sin(q[0]!) + 2 * q[1]!;
      },
    };
    const s = [2.5, 0.5];
    const b = new ScaledBarrier(curved, s);
    const x = Float64Array.of(0.7, -0.3);
    const h = new Float64Array(1);
    const g = new Float64Array(2);
    b.gradient(x, h, g);
    const at = (v: Float64Array): number => Math.sin(v[0]! / s[0]!) * (v[1]! / s[1]!) + (v[1]! / s[1]!) ** 2;
    expect(h[0]).toBeCloseTo(at(x), 14);
    expect(b.h(x, h)).toBeCloseTo(at(x), 14);
    for (let j = 0; j < 2; j++) {
      const e = 1e-6;
      const xp = Float64Array.from(x);
      const xm = Float64Array.from(x);
      xp[j]! += e;
      xm[j]! -= e;
      expect(g[j]).toBeCloseTo((at(xp) - at(xm)) / (2 * e), 7);
    }
    expect(() => new ScaledBarrier(curved, [1])).toThrow(/2 finite scales/);
    expect(() => new ScaledChunkFilter(filterWith([1, 1]), [1, 0])).toThrow(/scales/);
  });

  it('a chunk that needs no change comes back as the nominal itself', () => {
    const nominal = Float64Array.of(0.05, 0.05, 0.1, 0.05);
    const o = filterWith([3, 1]).filter(nominal, 2, [0, 0], 0.1);
    expect(o.status).toBe('unchanged');
    expect(o.targets).toBe(nominal);
  });

  it('a refused chunk comes back refused with no targets (never the nominal), and a mis-shaped chunk is refused as such', () => {
    // q0 = (1, 0.5): h = −0.5, already inside the safety distance: the inner filter refuses.
    const nominal = Float64Array.of(1, 0.5, 1, 0.5);
    const o = filterWith([3, 1]).filter(nominal, 2, [1, 0.5], 0.1);
    expect(o.status).toBe('unsafe');
    expect(o.targets.length).toBe(0);
    const short = filterWith([3, 1]).filter(Float64Array.of(0.05, 0.05, 0.1), 2, [0, 0], 0.1);
    expect(short.status).toBe('solver-failure');
    expect(short.detail).toMatch(/chunk has 3 targets, expected 2×2/);
    expect(short.targets.length).toBe(0);
  });
});
