/**
 * Per-episode motion figures of the fragile-obstacle pilot (issue 15). The definitions are those of
 * branch simarm's shared demo metrics (src/cli/demo/metrics.ts there), so the two scenarios report
 * the same quantities; this module goes once that one is on main.
 * - modification of a chunk: ‖U − U_nom‖ (Frobenius over its steps and the arm joints, rad) of an
 *   executed chunk against the policy's nominal chunk; held chunks are not counted;
 * - jerk: mean squared jerk of the executed joint targets, Σ_j (Δ³q_j / dt³)², averaged over the
 *   ticks with three predecessors (rad²/s⁶);
 * - reversals per second: per arm joint, consecutive corrections c = u − u_nom of opposite sign,
 *   both beyond the deadband, summed over joints, per second of executed motion.
 */
import { quantile } from '../../../report/metrics/quantile.js';

/** ‖U − U_nom‖ over the first `arm` columns of two chunks of `columns` columns (row-major). */
export function chunkModification(executed: ArrayLike<number>, nominal: ArrayLike<number>, columns: number, arm: number): number {
  let sum = 0;
  const rows = Math.floor(nominal.length / columns);
  for (let k = 0; k < rows; k++) {
    for (let j = 0; j < arm; j++) {
      const d = (executed[k * columns + j] ?? NaN) - (nominal[k * columns + j] ?? NaN);
      sum += d * d;
    }
  }
  return Math.sqrt(sum);
}

/** Mean squared jerk (rad²/s⁶) of a T × n series (row-major) at period dt; NaN for T < 4. */
export function meanSquaredJerk(rows: ArrayLike<number>, n: number, dt: number): number {
  const T = Math.floor(rows.length / n);
  if (T < 4) return NaN;
  const inv = 1 / (dt * dt * dt);
  let sum = 0;
  for (let t = 3; t < T; t++) {
    for (let j = 0; j < n; j++) {
      const x = (k: number): number => rows[k * n + j] ?? NaN;
      const jerk = (x(t) - 3 * x(t - 1) + 3 * x(t - 2) - x(t - 3)) * inv;
      sum += jerk * jerk;
    }
  }
  return sum / (T - 3);
}

/** Sign reversals per second of a T × n correction series at period dt (see the module comment). */
export function correctionReversalsPerSecond(corr: ArrayLike<number>, n: number, dt: number, deadband: number): number {
  const T = Math.floor(corr.length / n);
  if (T < 1) return NaN;
  let count = 0;
  for (let j = 0; j < n; j++) {
    for (let t = 1; t < T; t++) {
      const a = corr[(t - 1) * n + j] ?? 0;
      const b = corr[t * n + j] ?? 0;
      if (Math.abs(a) > deadband && Math.abs(b) > deadband && (a > 0) !== (b > 0)) count++;
    }
  }
  return count / (T * dt);
}

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
