/** The fragile pilot's own figures (the shared ones are tested in demo-metrics.test.ts). */
import { describe, expect, it } from 'vitest';
import { p50p99, pathLength } from '../../src/cli/demo/fragile/metrics.js';

describe('fragile pilot metrics', () => {
  it('path length sums the segments of a 3-D polyline', () => {
    expect(pathLength([0, 0, 0, 3, 4, 0, 3, 4, 12])).toBeCloseTo(17, 12);
    expect(pathLength([1, 2, 3])).toBe(0);
  });

  it('p50/p99 interpolate between order statistics; none → NaN', () => {
    const xs = Array.from({ length: 101 }, (_, i) => i);
    expect(p50p99(xs)).toEqual({ p50: 50, p99: 99 });
    expect(p50p99([]).p99).toBeNaN();
  });
});
