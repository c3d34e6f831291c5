import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { BlockTridiagonal } from '../../src/qp/index.js';
import { denseSolve } from './support/dense-reference.js';
import { gauss, rng } from './support/random-qp.js';

describe('BlockTridiagonal', () => {
  it('solves random SPD block-tridiagonal systems like dense Gaussian elimination', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 0x7fffffff }),
        fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 6 }),
        (seed, sizes) => {
          const r = rng(seed);
          const starts = [0];
          for (const d of sizes) starts.push(starts[starts.length - 1]! + d);
          const n = starts[starts.length - 1]!;
          const stageOf = new Int32Array(n);
          sizes.forEach((_, k) => {
            for (let p = starts[k]!; p < starts[k + 1]!; p++) stageOf[p] = k;
          });
          // M = B B' + I with B block lower bidiagonal is SPD and block tridiagonal
          const B = Array.from({ length: n }, (_, i) =>
            Array.from({ length: n }, (_, j) =>
              stageOf[j]! === stageOf[i]! || stageOf[j]! === stageOf[i]! - 1 ? gauss(r) : 0,
            ),
          );
          const M = Array.from({ length: n }, (_, i) =>
            Array.from({ length: n }, (_, j) => B[i]!.reduce((s, v, t) => s + v * B[j]![t]!, i === j ? 1 : 0)),
          );
          const bt = new BlockTridiagonal(Int32Array.from(starts));
          for (let i = 0; i < n; i++) {
            for (let j = 0; j <= i; j++) {
              const off = bt.offsetOf(i, j, stageOf);
              if (Math.abs(stageOf[i]! - stageOf[j]!) > 1) {
                expect(off).toBe(-1);
                expect(M[i]![j]!).toBe(0);
              } else bt.values[off] = M[i]![j]!;
            }
          }
          expect(bt.factorize()).toBe(true);
          expect(bt.modifiedPivots).toBe(0);
          const b = Array.from({ length: n }, () => gauss(r));
          const x = Float64Array.from(b);
          bt.solveInPlace(x);
          const ref = denseSolve(M, b)!;
          for (let i = 0; i < n; i++) expect(x[i]!).toBeCloseTo(ref[i]!, 8);
          const back = new Float64Array(n);
          bt.multiply(x, back);
          for (let i = 0; i < n; i++) expect(back[i]!).toBeCloseTo(b[i]!, 8);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('replaces a zero pivot instead of dividing by zero (singular direction → 0)', () => {
    const bt = new BlockTridiagonal(Int32Array.from([0, 2]));
    const stageOf = Int32Array.from([0, 0]);
    bt.values[bt.offsetOf(0, 0, stageOf)] = 4;
    bt.values[bt.offsetOf(1, 0, stageOf)] = 0;
    bt.values[bt.offsetOf(1, 1, stageOf)] = 0;
    expect(bt.factorize()).toBe(true);
    expect(bt.modifiedPivots).toBe(1);
    const x = Float64Array.from([8, 5]);
    bt.solveInPlace(x);
    expect(x[0]).toBeCloseTo(2, 12);
    expect(Math.abs(x[1]!)).toBeLessThan(1e-50);
  });

  it('fails on NaN', () => {
    const bt = new BlockTridiagonal(Int32Array.from([0, 1]));
    bt.values[0] = NaN;
    expect(bt.factorize()).toBe(false);
  });
});
