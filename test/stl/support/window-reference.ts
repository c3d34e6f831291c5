/**
 * Reference for the window operators, written from the semantics (src/stl/windows.ts, design §4) with
 * BigInt arithmetic on the times exactly as written — no float anywhere. Shared by the engine's
 * exact-time tests and the live Franka path's (test/nodes/franka-exact-time.test.ts).
 */
export type WindowOp = 'historically' | 'once' | 'always' | 'eventually';

/** ρ(t_i) of `op[a:b] (x < threshold)` from the semantics, times as BigInt ns exactly as written. */
export function windowReference(
  op: WindowOp,
  a: bigint,
  b: bigint,
  t: readonly bigint[],
  x: readonly number[],
  threshold = 0.5,
): number[] {
  const n = t.length;
  const out: number[] = [];
  const min = op === 'historically' || op === 'always';
  for (let i = 0; i < n; i++) {
    let best = min ? Infinity : -Infinity;
    for (let j = 0; j < n; j++) {
      let member: boolean;
      if (op === 'historically' || op === 'once') {
        // past window [t−b, t−a]: samples j ≤ i in force somewhere in it
        member = j <= i && t[j]! <= t[i]! - a && (j === i ? a === 0n : t[j + 1]! > t[i]! - b);
      } else {
        // future window [t+a, t+b]: samples whose piece meets it; the last covers its own instant only
        member = j >= i && t[j]! <= t[i]! + b && (j + 1 < n ? t[j + 1]! > t[i]! + a : t[j]! >= t[i]! + a);
      }
      if (!member) continue;
      const r = threshold - x[j]!;
      best = min ? Math.min(best, r) : Math.max(best, r);
    }
    out.push(best);
  }
  return out;
}
