/**
 * Seeded nonparametric episode bootstrap (SPEC §8: 10,000 resamples): resample episodes with
 * replacement, recompute the statistic, report the percentile interval.
 */
import { Xoshiro128 } from './prng.js';
import { quantileSorted } from './quantile.js';

export interface BootstrapOptions {
  readonly resamples?: number;
  readonly seed?: number;
  readonly confidence?: number;
}

export interface Interval {
  /** The statistic on the original sample. */
  readonly estimate: number;
  readonly lo: number;
  readonly hi: number;
  readonly resamples: number;
  readonly seed: number;
}

export const DEFAULT_RESAMPLES = 10_000;
export const DEFAULT_SEED = 20260529;

/**
 * Percentile bootstrap of `statistic`, which reads episode indices (length n, one resample) and
 * returns a number (NaN when undefined on that resample; those are dropped).
 */
export function bootstrap(n: number, statistic: (indices: Uint32Array) => number, opts: BootstrapOptions = {}): Interval {
  const resamples = opts.resamples ?? DEFAULT_RESAMPLES;
  const seed = opts.seed ?? DEFAULT_SEED;
  const alpha = 1 - (opts.confidence ?? 0.95);
  const identity = new Uint32Array(n);
  for (let i = 0; i < n; i++) identity[i] = i;
  const estimate = n === 0 ? NaN : statistic(identity);
  if (n === 0) return { estimate, lo: NaN, hi: NaN, resamples, seed };
  const rng = new Xoshiro128(seed);
  const idx = new Uint32Array(n);
  const reps = new Float64Array(resamples);
  let kept = 0;
  for (let r = 0; r < resamples; r++) {
    for (let i = 0; i < n; i++) idx[i] = rng.nextInt(n);
    const v = statistic(idx);
    if (!Number.isNaN(v)) reps[kept++] = v;
  }
  const sorted = reps.subarray(0, kept).sort();
  return { estimate, lo: quantileSorted(sorted, alpha / 2), hi: quantileSorted(sorted, 1 - alpha / 2), resamples, seed };
}

/** Bootstrap of the mean of `values`. */
export function bootstrapMean(values: ArrayLike<number>, opts: BootstrapOptions = {}): Interval {
  return bootstrap(values.length, (idx) => meanAt(values, idx), opts);
}

/** Bootstrap of the mean of `values` over the episodes where `include` is true (e.g. VSI|U). */
export function bootstrapConditionalMean(values: ArrayLike<number>, include: ArrayLike<boolean>, opts: BootstrapOptions = {}): Interval {
  return bootstrap(
    values.length,
    (idx) => {
      let s = 0;
      let m = 0;
      for (let i = 0; i < idx.length; i++) {
        const j = idx[i]!;
        if (include[j]) {
          s += values[j]!;
          m++;
        }
      }
      return m === 0 ? NaN : s / m;
    },
    opts,
  );
}

function meanAt(values: ArrayLike<number>, idx: Uint32Array): number {
  let s = 0;
  for (let i = 0; i < idx.length; i++) s += values[idx[i]!]!;
  return s / idx.length;
}
