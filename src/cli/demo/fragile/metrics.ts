/**
 * Per-episode motion figures of the fragile-obstacle pilot (issue 15): smoothness of the executed
 * joint targets, how far and how often the gate corrected the nominal chunk, end-effector path
 * length, and percentiles of filter time. Pure functions over row-major series (ticks × n).
 */
import { quantile } from '../../../report/metrics/quantile.js';

/**
 * Mean squared jerk (rad²/s⁶) of a joint-target series: jerk_k = (x_{k+1} − 3x_k + 3x_{k−1} −
 * x_{k−2}) / dt³ per joint, its squared Euclidean norm over the `cols` first columns, averaged over
 * every k with a full stencil. 0 for fewer than 4 rows.
 */
export function meanSquaredJerk(rows: Float64Array, stride: number, cols: number, dt: number): number {
  const ticks = Math.floor(rows.length / stride);
  if (ticks < 4) return 0;
  const inv = 1 / (dt * dt * dt);
  let sum = 0;
  for (let k = 2; k + 1 < ticks; k++) {
    let sq = 0;
    for (let j = 0; j < cols; j++) {
      const x = (i: number): number => rows[i * stride + j]!;
      const jerk = (x(k + 1) - 3 * x(k) + 3 * x(k - 1) - x(k - 2)) * inv;
      sq += jerk * jerk;
    }
    sum += sq;
  }
  return sum / (ticks - 3);
}

/**
 * Sign reversals of a correction series (ticks × cols): per column, the number of times the
 * correction changes sign, counting only values beyond ±deadband (a return to zero is not a
 * reversal; +, 0, − is one). Summed over columns. Ticks where `active[k]` is 0 are skipped
 * (e.g. held ticks, where there is no correction of a chunk).
 */
export function signReversals(corr: Float64Array, stride: number, cols: number, deadband: number, active?: Uint8Array): number {
  const ticks = Math.floor(corr.length / stride);
  let count = 0;
  for (let j = 0; j < cols; j++) {
    let last = 0;
    for (let k = 0; k < ticks; k++) {
      if (active && active[k] !== 1) continue;
      const v = corr[k * stride + j]!;
      const s = v > deadband ? 1 : v < -deadband ? -1 : 0;
      if (s === 0) continue;
      if (last !== 0 && s !== last) count++;
      last = s;
    }
  }
  return count;
}

/** Length of a polyline of 3-D points (ticks × 3). */
export function pathLength(points: Float64Array): number {
  let len = 0;
  for (let k = 3; k + 2 < points.length; k += 3) {
    len += Math.hypot(points[k]! - points[k - 3]!, points[k + 1]! - points[k - 2]!, points[k + 2]! - points[k - 1]!);
  }
  return len;
}

/** Per-tick ‖u − u_nom‖₂ over the first `cols` columns. */
export function correctionNorms(corr: Float64Array, stride: number, cols: number): Float64Array {
  const ticks = Math.floor(corr.length / stride);
  const out = new Float64Array(ticks);
  for (let k = 0; k < ticks; k++) {
    let s = 0;
    for (let j = 0; j < cols; j++) s += corr[k * stride + j]! ** 2;
    out[k] = Math.sqrt(s);
  }
  return out;
}

/** p50 and p99 of samples (NaN for none). */
export function p50p99(samples: readonly number[]): { p50: number; p99: number } {
  if (samples.length === 0) return { p50: NaN, p99: NaN };
  return { p50: quantile(samples, 0.5), p99: quantile(samples, 0.99) };
}
