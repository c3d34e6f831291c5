import { describe, expect, it } from 'vitest';
import { bootstrap, bootstrapConditionalMean, bootstrapMean } from '../../../src/report/metrics/bootstrap.js';
import { Xoshiro128 } from '../../../src/util/rng.js';
import { quantile } from '../../../src/report/metrics/quantile.js';

const values = Array.from({ length: 57 }, (_, i) => ((i * 37) % 11) / 10);

describe('seeded PRNG', () => {
  it('xoshiro128** reproduces the reference sequence for a fixed state', () => {
    // Reference: the C implementation (prng.di.unimi.it/xoshiro128starstar.c) with state
    // {1, 2, 3, 4} yields 11520, 0, 5927040, 70819200, 2031721883, …
    const g = Xoshiro128.fromState(1, 2, 3, 4);
    expect([g.nextU32(), g.nextU32(), g.nextU32(), g.nextU32(), g.nextU32()]).toEqual([
      11520, 0, 5927040, 70819200, 2031721883,
    ]);
  });
  it('is deterministic per seed and roughly uniform', () => {
    const a = new Xoshiro128(42);
    const b = new Xoshiro128(42);
    const c = new Xoshiro128(43);
    const sa = Array.from({ length: 5 }, () => a.nextU32());
    expect(Array.from({ length: 5 }, () => b.nextU32())).toEqual(sa);
    expect(Array.from({ length: 5 }, () => c.nextU32())).not.toEqual(sa);
    const counts = new Array<number>(10).fill(0);
    const r = new Xoshiro128(7);
    for (let i = 0; i < 100_000; i++) counts[r.nextInt(10)]!++;
    for (const k of counts) expect(Math.abs(k - 10_000)).toBeLessThan(500);
  });
});

describe('episode bootstrap', () => {
  it('is deterministic with a seed and changes with another seed', () => {
    const a = bootstrapMean(values, { seed: 1 });
    const b = bootstrapMean(values, { seed: 1 });
    const c = bootstrapMean(values, { seed: 2 });
    expect(a).toEqual(b);
    expect(a.resamples).toBe(10_000);
    expect([a.lo, a.hi]).not.toEqual([c.lo, c.hi]);
    expect(a.estimate).toBeCloseTo(values.reduce((s, v) => s + v, 0) / values.length, 12);
    expect(a.lo).toBeLessThan(a.estimate);
    expect(a.hi).toBeGreaterThan(a.estimate);
  });

  it('agrees with a naive recomputation drawing the same indices', () => {
    const seed = 99;
    const resamples = 2000;
    const got = bootstrapMean(values, { seed, resamples });
    // naive: materialise each resample as an array, then sort all means and take percentiles
    const rng = new Xoshiro128(seed);
    const means: number[] = [];
    for (let r = 0; r < resamples; r++) {
      const sample: number[] = [];
      for (let i = 0; i < values.length; i++)
        sample.push(values[Math.floor((rng.nextU32() * values.length) / 2 ** 32)]!);
      means.push(sample.reduce((s, v) => s + v, 0) / sample.length);
    }
    expect(got.lo).toBeCloseTo(quantile(means, 0.025), 12);
    expect(got.hi).toBeCloseTo(quantile(means, 0.975), 12);
  });

  it('percentile interval of the mean is close to the normal approximation for a large sample', () => {
    const big = Array.from({ length: 2000 }, (_, i) => (i % 2 === 0 ? 1 : 0));
    const ci = bootstrapMean(big, { seed: 5 });
    const se = Math.sqrt(0.25 / 2000);
    expect(ci.lo).toBeCloseTo(0.5 - 1.96 * se, 2);
    expect(ci.hi).toBeCloseTo(0.5 + 1.96 * se, 2);
  });

  it('conditional mean drops resamples with no included episode and uses only included ones', () => {
    const v = [0.2, 0.4, 0, 0, 0.9];
    const inc = [true, true, false, false, true];
    const ci = bootstrapConditionalMean(v, inc, { seed: 3, resamples: 500 });
    expect(ci.estimate).toBeCloseTo(0.5, 12);
    expect(ci.lo).toBeGreaterThanOrEqual(0.2);
    expect(ci.hi).toBeLessThanOrEqual(0.9);
    expect(bootstrap(0, () => 1)).toMatchObject({ lo: NaN, hi: NaN });
  });
});

describe('bootstrapMeans (several statistics on shared resamples)', () => {
  it('gives exactly what the single-statistic bootstraps give for the same seed', async () => {
    const { bootstrapMeans } = await import('../../../src/report/metrics/bootstrap.js');
    const inc = values.map((v) => v > 0.3);
    const [a, b] = bootstrapMeans(values.length, [{ values }, { values, include: inc }], { seed: 17, resamples: 3000 });
    expect(a).toEqual(bootstrapMean(values, { seed: 17, resamples: 3000 }));
    const single = bootstrapConditionalMean(values, inc, { seed: 17, resamples: 3000 });
    expect(b!.lo).toBeCloseTo(single.lo, 12);
    expect(b!.hi).toBeCloseTo(single.hi, 12);
    expect(b!.estimate).toBeCloseTo(single.estimate, 12);
  });
});
