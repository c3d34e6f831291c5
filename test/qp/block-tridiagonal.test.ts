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
        // sizes past 4 reach the factorisation's and the solve's four- and two-row passes and their remainders
        fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 6 }),
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

  it('replaces a singular pivot inside a wide block: that direction → 0, the rest solved exactly', () => {
    // two stages of 6: M = diag(4, 0, 9, 1, 2, 5 | 3, 3, 3, 3, 3, 3) plus couplings that avoid
    // position 1, which is singular; the rows below it are finished two at a time
    const stageStart = Int32Array.from([0, 6, 12]);
    const stageOf = Int32Array.from([0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1]);
    const n = 12;
    const M = Array.from({ length: n }, () => new Array<number>(n).fill(0));
    [4, 0, 9, 1, 2, 5, 3, 3, 3, 3, 3, 3].forEach((v, i) => (M[i]![i] = v));
    const couple = (i: number, j: number, v: number): void => {
      M[i]![j] = v;
      M[j]![i] = v;
    };
    couple(2, 0, 1);
    couple(5, 3, 0.5);
    couple(7, 2, 1);
    couple(11, 5, -1);
    couple(9, 8, 0.25);
    const bt = new BlockTridiagonal(stageStart);
    for (let i = 0; i < n; i++)
      for (let j = 0; j <= i; j++) if (M[i]![j] !== 0) bt.values[bt.offsetOf(i, j, stageOf)] = M[i]![j]!;
    expect(bt.factorize()).toBe(true);
    expect(bt.modifiedPivots).toBe(1);
    const b = [1, 7, 2, -1, 3, 0.5, 1, 2, -2, 4, 1, 0];
    const x = Float64Array.from(b);
    bt.solveInPlace(x);
    expect(Math.abs(x[1]!)).toBeLessThan(1e-50);
    // every other equation holds; the singular one's unknown is left out of the reference system
    const keep = [0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
    const ref = denseSolve(
      keep.map((i) => keep.map((j) => M[i]![j]!)),
      keep.map((i) => b[i]!),
    )!;
    keep.forEach((i, t) => expect(x[i]!).toBeCloseTo(ref[t]!, 12));
  });

  it('fails on NaN', () => {
    const bt = new BlockTridiagonal(Int32Array.from([0, 1]));
    bt.values[0] = NaN;
    expect(bt.factorize()).toBe(false);
  });
});
