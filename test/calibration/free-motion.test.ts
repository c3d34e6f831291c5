import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { AnalyticFreeMotionModel, GRAVITY, So101GravityRegressor } from '../../src/calibration/free-motion.js';
import { ridgeLeastSquares } from '../../src/calibration/least-squares.js';
import { ForwardKinematics, SO101_CHAIN } from '../../src/kinematics/index.js';

const links = [
  { m: 0.12, c: [-0.015, -0.01, -0.03] },
  { m: 0.11, c: [-0.06, -0.014, 0] },
  { m: 0.1, c: [-0.07, 0.003, 0] },
  { m: 0.06, c: [0, -0.03, 0.01] },
  { m: 0.09, c: [-0.005, 0, -0.05] },
];

/** Potential energy straight from the FK: Σ m·g·z(COM). */
function potential(fk: ForwardKinematics, q: number[]): number {
  fk.compute(q);
  let u = 0;
  links.forEach((l, k) => {
    const o = fk.offset(k + 1);
    const F = fk.frames;
    const z = F[o + 6]! * l.c[0]! + F[o + 7]! * l.c[1]! + F[o + 8]! * l.c[2]! + F[o + 11]!;
    u += l.m * GRAVITY * z;
  });
  return u;
}

describe('free-motion model', () => {
  it('gravity regressor·θ equals ∂U/∂q of the FK potential energy (central differences)', () => {
    const theta = links.flatMap((l) => [l.m, l.m * l.c[0]!, l.m * l.c[1]!, l.m * l.c[2]!]);
    const model = new AnalyticFreeMotionModel({
      gravity: Array.from({ length: 5 }, () => theta),
      viscous: [0, 0, 0, 0, 0],
      coulomb: [0, 0, 0, 0, 0],
      coulombWidth: 0.05,
    });
    const fk = new ForwardKinematics(SO101_CHAIN);
    const out = new Float64Array(5);
    fc.assert(
      fc.property(fc.array(fc.double({ min: -1.5, max: 1.5, noNaN: true }), { minLength: 6, maxLength: 6 }), (q) => {
        model.predict(q, [0, 0, 0, 0, 0, 0], out);
        for (let j = 0; j < 5; j++) {
          const p = q.slice(),
            n = q.slice();
          p[j]! += 1e-6;
          n[j]! -= 1e-6;
          expect(Math.abs(out[j]! - (potential(fk, p) - potential(fk, n)) / 2e-6)).toBeLessThan(1e-7);
        }
      }),
      { numRuns: 50 },
    );
  });
  it('friction terms: viscous·q̇ + Coulomb·tanh(q̇/w)', () => {
    const model = new AnalyticFreeMotionModel({
      gravity: Array.from({ length: 5 }, () => new Array(20).fill(0)),
      viscous: [0.1, 0, 0, 0, 0],
      coulomb: [0.05, 0, 0, 0, 0],
      coulombWidth: 0.1,
    });
    const out = new Float64Array(5);
    model.predict([0, 0, 0, 0, 0, 0], [0.2, 0, 0, 0, 0, 0], out);
    expect(out[0]).toBeCloseTo(0.1 * 0.2 + 0.05 * Math.tanh(2), 12);
  });
  it('the pan joint feels no gravity (vertical axis): its regressor row is zero', () => {
    const Y = new So101GravityRegressor().compute([0.3, 0.4, -0.2, 0.5, 0.1, 0]);
    for (let i = 0; i < 20; i++) expect(Math.abs(Y[i]!)).toBeLessThan(1e-12);
  });
  it('ridge least squares recovers exact coefficients of a well-posed system', () => {
    const rows = 50,
      cols = 3;
    const A = new Float64Array(rows * cols),
      b = new Float64Array(rows);
    for (let r = 0; r < rows; r++) {
      A.set([1, Math.sin(r), r / 10], r * cols);
      b[r] = 2 - 3 * Math.sin(r) + 0.5 * (r / 10);
    }
    const x = ridgeLeastSquares(A, rows, cols, b, 0);
    expect(Array.from(x).map((v) => Number(v.toFixed(8)))).toEqual([2, -3, 0.5]);
  });
});
