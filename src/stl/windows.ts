/**
 * Which samples a window covers (design §4). Samples are pieces of a piecewise-constant signal:
 * sample j is in force on [t_j, t_{j+1}); the last sample of a finished trace covers only its own
 * instant (the trace ends there). A window covers every sample whose piece meets it, so it
 * includes the value in force at the window's start.
 *
 * Future window [t+a, t+b]: j with t_j <= t+b and (t_{j+1} > t+a, or j last and t_j >= t+a).
 * Past window [t-b, t-a]:   j with t_j <= t-a and t_{j+1} > t-b (j = i counts when a = 0).
 */

/** First index j >= from whose piece ends after `edge` (future window start). n when none. */
export function firstPieceEndingAfter(times: ArrayLike<number>, n: number, from: number, edge: number): number {
  let j = from;
  while (j < n && (j + 1 < n ? (times[j + 1] ?? NaN) <= edge : (times[j] ?? NaN) < edge)) j++;
  return j;
}

/** For each i, the future window [s_i, e_i] (empty when s_i > e_i). Bounds nondecreasing in i. */
export function futureWindows(
  times: ArrayLike<number>,
  n: number,
  a: number,
  b: number,
): { s: Int32Array; e: Int32Array } {
  const s = new Int32Array(n);
  const e = new Int32Array(n);
  let sp = 0;
  let ep = -1;
  for (let i = 0; i < n; i++) {
    const t = times[i] ?? NaN;
    if (sp < i) sp = i;
    sp = firstPieceEndingAfter(times, n, sp, t + a);
    while (ep + 1 < n && (times[ep + 1] ?? NaN) <= t + b) ep++;
    s[i] = sp;
    e[i] = ep;
  }
  return { s, e };
}

/** For each i, the past window [s_i, e_i]; b = Infinity for the whole past. */
export function pastWindows(
  times: ArrayLike<number>,
  n: number,
  a: number,
  b: number,
): { s: Int32Array; e: Int32Array } {
  const s = new Int32Array(n);
  const e = new Int32Array(n);
  let sp = 0;
  let ep = -1;
  for (let i = 0; i < n; i++) {
    const t = times[i] ?? NaN;
    while (ep + 1 <= i && (times[ep + 1] ?? NaN) <= t - a) ep++;
    while (sp + 1 < n && sp < i && (times[sp + 1] ?? NaN) <= t - b) sp++;
    s[i] = sp;
    e[i] = ep;
  }
  return { s, e };
}
