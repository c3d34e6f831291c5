/**
 * Seeded nonparametric episode bootstrap (design §8: 10,000 resamples): resample episodes with
 * replacement, recompute the statistic, report the percentile interval.
 */
import { Xoshiro128 } from '../../util/rng.js';
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
export function bootstrap(
  n: number,
  statistic: (indices: Uint32Array) => number,
  opts: BootstrapOptions = {},
): Interval {
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
  return {
    estimate,
    lo: quantileSorted(sorted, alpha / 2),
    hi: quantileSorted(sorted, 1 - alpha / 2),
    resamples,
    seed,
  };
}

/** Bootstrap of the mean of `values`. */
export function bootstrapMean(values: ArrayLike<number>, opts: BootstrapOptions = {}): Interval {
  return bootstrap(values.length, (idx) => meanAt(values, idx), opts);
}

/** Bootstrap of the mean of `values` over the episodes where `include` is true (e.g. VSI|U). */
export function bootstrapConditionalMean(
  values: ArrayLike<number>,
  include: ArrayLike<boolean>,
  opts: BootstrapOptions = {},
): Interval {
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

/** One statistic of bootstrapMeans: the mean of `values`, over the episodes `include` selects. */
export interface MeanSpec {
  readonly values: ArrayLike<number>;
  readonly include?: ArrayLike<boolean>;
}

/**
 * Several (conditional) means bootstrapped on the same resamples: one index draw per resample
 * serves every statistic. Each result equals what bootstrapMean / bootstrapConditionalMean give
 * for the same seed.
 */
export function bootstrapMeans(n: number, specs: readonly MeanSpec[], opts: BootstrapOptions = {}): Interval[] {
  const resamples = opts.resamples ?? DEFAULT_RESAMPLES;
  const seed = opts.seed ?? DEFAULT_SEED;
  const alpha = 1 - (opts.confidence ?? 0.95);
  const k = specs.length;
  const estimate = specs.map((s) => conditionalMean(s, n));
  if (n === 0) return specs.map((_, i) => ({ estimate: estimate[i]!, lo: NaN, hi: NaN, resamples, seed }));
  const values = specs.map((s) => Float64Array.from({ length: n }, (_, i) => s.values[i]!));
  const include = specs.map((s) =>
    s.include ? Uint8Array.from({ length: n }, (_, i) => (s.include![i] ? 1 : 0)) : null,
  );
  const reps = specs.map(() => new Float64Array(resamples));
  const kept = new Array<number>(k).fill(0);
  const sums = new Float64Array(k);
  const counts = new Float64Array(k);
  const rng = new Xoshiro128(seed);
  for (let r = 0; r < resamples; r++) {
    sums.fill(0);
    counts.fill(0);
    for (let i = 0; i < n; i++) {
      const j = rng.nextInt(n);
      for (let s = 0; s < k; s++) {
        const inc = include[s];
        if (inc === null || inc![j] === 1) {
          sums[s] = sums[s]! + values[s]![j]!;
          counts[s] = counts[s]! + 1;
        }
      }
    }
    for (let s = 0; s < k; s++) if (counts[s]! > 0) reps[s]![kept[s]!++] = sums[s]! / counts[s]!;
  }
  return specs.map((_, s) => {
    const sorted = reps[s]!.subarray(0, kept[s]).sort();
    return {
      estimate: estimate[s]!,
      lo: quantileSorted(sorted, alpha / 2),
      hi: quantileSorted(sorted, 1 - alpha / 2),
      resamples,
      seed,
    };
  });
}

function conditionalMean(s: MeanSpec, n: number): number {
  let sum = 0;
  let m = 0;
  for (let i = 0; i < n; i++) {
    if (!s.include || s.include[i]) {
      sum += s.values[i]!;
      m++;
    }
  }
  return m === 0 ? NaN : sum / m;
}
