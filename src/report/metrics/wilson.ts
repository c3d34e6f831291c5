/** Wilson score interval for a binomial proportion (design §8; seeds/000 A.8). */

/** Two-sided 95% standard normal quantile. */
export const Z95 = 1.959963984540054;

export interface Proportion {
  readonly k: number;
  readonly n: number;
  /** k / n; NaN when n = 0. */
  readonly p: number;
  readonly lo: number;
  readonly hi: number;
}

export function wilson(k: number, n: number, z = Z95): Proportion {
  if (!Number.isInteger(k) || !Number.isInteger(n) || k < 0 || n < 0 || k > n) {
    throw new RangeError(`wilson: need integers 0 <= k <= n, got k=${k}, n=${n}`);
  }
  if (n === 0) return { k, n, p: NaN, lo: NaN, hi: NaN };
  const p = k / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denom;
  const half = (z / denom) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  // Clamp the rounding residue at the ends (k = 0 or k = n give exactly 0 or 1).
  return { k, n, p, lo: k === 0 ? 0 : Math.max(0, centre - half), hi: k === n ? 1 : Math.min(1, centre + half) };
}
