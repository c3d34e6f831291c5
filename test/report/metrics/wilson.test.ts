import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { wilson } from '../../../src/report/metrics/wilson.js';

const pct = (x: number) => Math.round(x * 1000) / 10;

describe('Wilson 95% interval', () => {
  // seeds/000 Table 17 (OpenVLA-7B, LIBERO-Spatial): every distinct (k, n) cell of the table
  it.each([
    [15, 20, 53.1, 88.8],
    [18, 20, 69.9, 97.2],
    [17, 20, 64.0, 94.8],
    [20, 20, 83.9, 100.0],
    [19, 20, 76.4, 99.1],
    [16, 20, 58.4, 91.9],
    [13, 20, 43.3, 81.9],
    [12, 20, 38.7, 78.1],
    [7, 20, 18.1, 56.7],
    [167, 200, 77.7, 88.0],
    [156, 200, 71.8, 83.2],
  ])('%i/%i → [%f, %f] as published', (k, n, lo, hi) => {
    const w = wilson(k, n);
    expect(pct(w.lo)).toBe(lo);
    expect(pct(w.hi)).toBe(hi);
  });

  it('matches the closed form computed independently, and brackets p', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5000 }), fc.double({ min: 0, max: 1, noNaN: true }), (n, f) => {
        const k = Math.min(n, Math.floor(f * (n + 1)));
        const w = wilson(k, n);
        const z = 1.959963984540054;
        const p = k / n;
        // roots of (p - x)^2 = z^2 x (1 - x) / n
        const a = 1 + (z * z) / n;
        const b = -(2 * p + (z * z) / n);
        const c = p * p;
        const disc = Math.sqrt(Math.max(0, b * b - 4 * a * c));
        expect(w.lo).toBeCloseTo((-b - disc) / (2 * a), 9);
        expect(w.hi).toBeCloseTo((-b + disc) / (2 * a), 9);
        expect(w.lo).toBeLessThanOrEqual(p);
        expect(w.hi).toBeGreaterThanOrEqual(p);
      }),
    );
  });

  it('n = 0 is undefined (NaN), bad counts are refused', () => {
    expect(wilson(0, 0).p).toBeNaN();
    expect(() => wilson(3, 2)).toThrow(RangeError);
    expect(wilson(0, 10).lo).toBe(0);
  });
});
