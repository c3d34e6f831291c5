/**
 * Time in the STL engine is integer nanoseconds, so a window edge `t − 0.005` is exact and a sample
 * exactly 5 ms earlier is in the window or not by the declared semantics, never by float rounding.
 *
 * Representation (one design, used everywhere):
 * - Inside the engine a time is an integer count of ns held in a JS number (Float64Array). Integers
 *   are exact up to 2^53 ns ≈ 104 days, so times are episode-relative: a trace's first sample (or the
 *   monitor bank's first push) is 0.
 * - At the boundary, absolute times (ROS 2 stamps, MCAP log times, Unix seconds in a CSV) are BigInt
 *   ns — `parseDecimalSecondsNs` reads decimal text exactly — and an episode's start is subtracted in
 *   BigInt before converting to a number.
 * - Callers holding float seconds (a monotonic clock, float32 timestamps) convert with
 *   `secondsToNs`: Math.round(s · 1e9). For |s| < 2.2e6 s (25 days) the product's error is below
 *   0.5 ns, so every decimal with at most 9 fractional digits maps to its exact ns.
 * Pure: no I/O, no clock.
 */

export const NS_PER_S = 1_000_000_000;
const NS_PER_S_BIG = 1_000_000_000n;

/** Largest episode-relative time (ns) held exactly in a JS number: 2^53 ns ≈ 104 days. */
export const MAX_EXACT_NS = Number.MAX_SAFE_INTEGER;

/**
 * Decimal seconds text → integer ns, exactly (no float arithmetic): `[+-]digits[.digits][e±N]`.
 * Digits finer than 1 ns are rounded half away from zero (a decimal time written with more than 9
 * fractional digits). undefined for text that is not a decimal number.
 */
export function parseDecimalSecondsNs(text: string): bigint | undefined {
  return parseDecimalSeconds(text)?.ns;
}

/** As parseDecimalSecondsNs, and whether the text was a whole number of ns (no digits rounded away). */
export function parseDecimalSeconds(text: string): { ns: bigint; exact: boolean } | undefined {
  const m = /^\s*([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d{1,4}))?\s*$/.exec(text);
  if (!m) return undefined;
  const [, sign = '', intPart = '', fracPart = '', expPart] = m;
  if (intPart === '' && fracPart === '') return undefined;
  const digits = `${intPart}${fracPart}`.replace(/^0+(?=\d)/, '');
  // value = digits × 10^(exp − fracLen) s = digits × 10^(exp − fracLen + 9) ns
  const shift = Number(expPart ?? 0) - fracPart.length + 9;
  let ns: bigint;
  let exact = true;
  if (shift >= 0) ns = BigInt(digits) * 10n ** BigInt(shift);
  else {
    const div = 10n ** BigInt(-shift);
    const whole = BigInt(digits);
    ns = whole / div;
    const rest = whole % div;
    exact = rest === 0n;
    if (rest * 2n >= div) ns += 1n;
  }
  return { ns: sign === '-' ? -ns : ns, exact };
}

/** Float seconds → integer ns (see the module comment for when this is exact). */
export function secondsToNs(s: number): number {
  return Math.round(s * NS_PER_S);
}

/** Integer ns → float seconds (for display and for APIs in seconds). */
export function nsToSeconds(ns: number): number {
  return ns / NS_PER_S;
}

/** BigInt ns relative to `originNs` as a JS number; undefined when it would not be exact. */
export function relativeNs(ns: bigint, originNs: bigint): number | undefined {
  const d = ns - originNs;
  return d > BigInt(MAX_EXACT_NS) || d < -BigInt(MAX_EXACT_NS) ? undefined : Number(d);
}

/** Integer ns as exact decimal seconds text (`-1.5`, `0.000000001`, `12`). */
export function formatNsAsSeconds(ns: bigint): string {
  const neg = ns < 0n;
  const a = neg ? -ns : ns;
  const whole = a / NS_PER_S_BIG;
  const frac = (a % NS_PER_S_BIG).toString().padStart(9, '0').replace(/0+$/, '');
  return `${neg ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
}
