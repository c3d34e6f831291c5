/**
 * The fragile-obstacle pilot's figures beyond the shared demo metrics (src/cli/demo/metrics.ts:
 * modification, jerk, reversals, the --json keys): end-effector path length and percentiles of
 * the filter-time samples (wall and CPU) the table prints.
 */
import { quantile } from '../../../report/metrics/quantile.js';

/** Length of a polyline of 3-D points (T × 3). */
export function pathLength(points: ArrayLike<number>): number {
  let len = 0;
  for (let k = 3; k + 2 < points.length; k += 3) {
    len += Math.hypot(points[k]! - points[k - 3]!, points[k + 1]! - points[k - 2]!, points[k + 2]! - points[k - 1]!);
  }
  return len;
}

/** p50 and p99 of samples (NaN for none). */
export function p50p99(samples: readonly number[]): { p50: number; p99: number } {
  if (samples.length === 0) return { p50: NaN, p99: NaN };
  return { p50: quantile(samples, 0.5), p99: quantile(samples, 0.99) };
}
