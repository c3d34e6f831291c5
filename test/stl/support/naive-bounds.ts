/**
 * Test reference for partialBounds (src/stl/bounds.ts), written from the definition and sharing
 * nothing with src/stl but the AST types.
 *
 * The bounds of a partial trace are defined operator by operator (a robust satisfaction interval in
 * the sense of Deshmukh et al.): at a known sample, a non-temporal formula of the signals is decided;
 * `not` swaps and negates the interval; `and`/`or`/`implies` combine intervals by min/max; and a
 * temporal operator's interval at sample i is
 *
 *   [ min, max ] over every completion of the trace of the operator's offline robustness at i,
 *
 * where its argument may take any value in its own interval at each known sample and any value at
 * all at the new samples, and a completion either ends the episode now (truncation rule) or adds
 * samples at any later times. The offline robustness is the naive evaluator written from design §4
 * (naive-reference.ts), run on each completed trace.
 *
 * The completions are enumerated, not reasoned about. Every operator is monotone (non-decreasing)
 * in its arguments, so the minimum over values is reached with every argument at its lower bound
 * and every new sample at −∞, the maximum with upper bounds and +∞. Only the times of the new
 * samples then matter, and since they all carry the same value only two shapes need trying: one new
 * sample at T (the trace ends there), or one at T and one far beyond every window. T ranges over
 * every window edge t_j + a, t_j + b after the last known sample, the midpoints between consecutive
 * ones (and between the last sample and the first edge), and a time beyond them all — the
 * offline result is constant between those points. O(completions · n · window²): slow, plain.
 */
import type { Formula } from '../../../src/stl/ast.js';
import type { Bounds, PartialTrace } from '../../../src/stl/bounds.js';
import { compare, expr, naiveEvaluateAt, type NaiveTrace } from './naive-reference.js';

type Temporal = Extract<Formula, { kind: 'always' | 'eventually' | 'historically' | 'once' | 'until' | 'since' }>;

export function naivePartialBounds(f: Formula, p: PartialTrace): Bounds {
  const n = p.n;
  const lo = new Float64Array(n);
  const hi = new Float64Array(n);
  switch (f.kind) {
    case 'literal':
      lo.fill(f.value ? Infinity : -Infinity);
      hi.set(lo);
      return { lo, hi };
    case 'atom': {
      const k = p.index.get(f.name) ?? 0;
      for (let i = 0; i < n; i++) lo[i] = hi[i] = (p.rows[i * p.width + k] ?? NaN) >= 0.5 ? Infinity : -Infinity;
      return { lo, hi };
    }
    case 'compare': {
      const known = knownTrace(p);
      for (let i = 0; i < n; i++) lo[i] = hi[i] = compare(f.op, expr(f.left, i, known), expr(f.right, i, known));
      return { lo, hi };
    }
    case 'not': {
      const a = naivePartialBounds(f.arg, p);
      for (let i = 0; i < n; i++) {
        lo[i] = -(a.hi[i] ?? NaN);
        hi[i] = -(a.lo[i] ?? NaN);
      }
      return { lo, hi };
    }
    case 'and':
    case 'or':
    case 'implies': {
      const a = naivePartialBounds(f.left, p);
      const b = naivePartialBounds(f.right, p);
      // Robustness: and = min, or = max, a → b = max(−a, b). min and max are monotone in each
      // argument, so the bounds of the result are the operator applied to the lower bounds and to
      // the upper bounds (negation swaps and negates a's bounds).
      for (let i = 0; i < n; i++) {
        const aLo = a.lo[i] ?? NaN;
        const aHi = a.hi[i] ?? NaN;
        const bLo = b.lo[i] ?? NaN;
        const bHi = b.hi[i] ?? NaN;
        if (f.kind === 'and') {
          lo[i] = Math.min(aLo, bLo);
          hi[i] = Math.min(aHi, bHi);
        } else if (f.kind === 'or') {
          lo[i] = Math.max(aLo, bLo);
          hi[i] = Math.max(aHi, bHi);
        } else {
          lo[i] = Math.max(-aHi, bLo);
          hi[i] = Math.max(-aLo, bHi);
        }
      }
      return { lo, hi };
    }
    case 'always':
    case 'eventually':
    case 'historically':
    case 'once':
      return overCompletions(f, p, [naivePartialBounds(f.arg, p)]);
    case 'until':
    case 'since':
      return overCompletions(f, p, [naivePartialBounds(f.left, p), naivePartialBounds(f.right, p)]);
  }
}

/** Column names the operator's arguments are read from in the completed traces. */
const ARG = ['arg0', 'arg1'] as const;
/** `argK > 0`: robustness argK − 0, i.e. exactly the column's value (±∞ and NaN included). */
const column = (name: string): Formula => ({
  kind: 'compare',
  op: '>',
  left: { kind: 'var', name },
  right: { kind: 'num', value: 0 },
});

/** The operator of `f` applied to the argument columns instead of its subformulas. */
function overColumns(f: Temporal): Formula {
  if (f.kind === 'until' || f.kind === 'since')
    return { kind: f.kind, interval: f.interval, left: column(ARG[0]), right: column(ARG[1]) };
  return { kind: f.kind, interval: f.interval, arg: column(ARG[0]) };
}

function overCompletions(f: Temporal, p: PartialTrace, args: readonly Bounds[]): Bounds {
  const n = p.n;
  const lo = new Float64Array(n);
  const hi = new Float64Array(n);
  if (n === 0) return { lo, hi };
  const g = overColumns(f);
  const known = Array.from(p.times.subarray(0, n));
  const last = known[n - 1]!;
  const a = f.interval?.lo ?? 0;
  const b = f.interval?.hi ?? Infinity;
  const future = f.kind === 'always' || f.kind === 'eventually' || f.kind === 'until';
  const completions = completionTimes(known, future ? a : -b, future ? b : -a);
  const traceOf = (extra: readonly number[], side: 'lo' | 'hi'): NaiveTrace => {
    const fill = side === 'lo' ? -Infinity : Infinity;
    const columns: Record<string, number[]> = {};
    args.forEach((arg, k) => {
      columns[ARG[k]!] = [...Array.from(arg[side].subarray(0, n)), ...extra.map(() => fill)];
    });
    return { times: [...known, ...extra], columns };
  };
  const lowTraces = completions.map((extra) => traceOf(extra, 'lo'));
  const highTraces = completions.map((extra) => traceOf(extra, 'hi'));
  for (let i = 0; i < n; i++) {
    // a window that ends before the last known sample sees the same pieces in every completion
    const reachesEnd = future && known[i]! + b >= last;
    const lows = (reachesEnd ? lowTraces : lowTraces.slice(0, 1)).map((t) => naiveEvaluateAt(g, t, i));
    const highs = (reachesEnd ? highTraces : highTraces.slice(0, 1)).map((t) => naiveEvaluateAt(g, t, i));
    lo[i] = Math.min(...lows);
    hi[i] = Math.max(...highs);
  }
  return { lo, hi };
}

/**
 * The new sample times of the completions tried: none (the episode ends now), [T] and [T, far] for
 * every representative T after the last known sample (window edges of the known samples `from`
 * and `to` after it, the midpoints between consecutive edges, one beyond them all).
 */
function completionTimes(known: readonly number[], from: number, to: number): number[][] {
  const last = known[known.length - 1]!;
  const edges = [
    ...new Set(known.flatMap((t) => [t + from, t + to]).filter((e) => Number.isFinite(e) && e > last)),
  ].sort((x, y) => x - y);
  const points = [last, ...edges];
  const beyond = points[points.length - 1]! + 1;
  const times: number[] = [];
  for (let k = 1; k < points.length; k++) times.push((points[k - 1]! + points[k]!) / 2, points[k]!);
  times.push(beyond);
  return [[], ...times.flatMap((t) => [[t], [t, beyond + 1]])];
}

/** The known samples as the naive evaluator's trace (columns by signal name). */
function knownTrace(p: PartialTrace): NaiveTrace {
  const columns: Record<string, number[]> = {};
  for (const [name, k] of p.index)
    columns[name] = Array.from({ length: p.n }, (_, i) => p.rows[i * p.width + k] ?? NaN);
  return { times: Array.from(p.times.subarray(0, p.n)), columns };
}
