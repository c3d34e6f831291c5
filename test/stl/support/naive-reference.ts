/**
 * Deliberately naive reference evaluator, written only for tests, straight from design §4:
 * signals are piecewise constant (sample j holds on [t_j, t_{j+1}); the last sample only at its
 * own instant, where the trace ends); windows cover every piece they meet; until/since quantify
 * over every instant t' of the window (enumerated as sample times, window edges and the midpoints
 * between them, where all the quantities are constant) with φ checked at the sample times in
 * [t, t') resp. (t', t]. O(n·window) and worse; no deques, no clever indexing.
 */
import type { CompareOp, Expr, Formula } from '../../../src/stl/index.js';

export interface NaiveTrace {
  times: readonly number[];
  columns: Readonly<Record<string, readonly number[]>>;
}

export function naiveEvaluate(f: Formula, trace: NaiveTrace): number[] {
  const n = trace.times.length;
  const memo = new Map<Formula, number[]>();
  return Array.from({ length: n }, (_, i) => at(f, i, { ...trace, memo }));
}

/** ρ of f at sample i only. */
export function naiveEvaluateAt(f: Formula, trace: NaiveTrace, i: number): number {
  return at(f, i, { ...trace, memo: new Map() });
}

interface Memo extends NaiveTrace {
  memo: Map<Formula, number[]>;
}

function col(trace: NaiveTrace, name: string): readonly number[] {
  const c = trace.columns[name];
  if (!c) throw new Error(`no column ${name}`);
  return c;
}

/** The value of expression e at sample i. */
export function expr(e: Expr, i: number, trace: NaiveTrace): number {
  switch (e.kind) {
    case 'num':
      return e.value;
    case 'var':
      return col(trace, e.name)[i]!;
    case 'neg':
      return -expr(e.arg, i, trace);
    case 'abs':
      return Math.abs(expr(e.arg, i, trace));
    case 'scale':
      return e.factor * expr(e.arg, i, trace);
    case 'add':
      return expr(e.left, i, trace) + expr(e.right, i, trace);
    case 'sub':
      return expr(e.left, i, trace) - expr(e.right, i, trace);
  }
}

/** Robustness of `l op r` (design §4). */
export function compare(op: CompareOp, l: number, r: number): number {
  if (op === '<' || op === '<=') return r - l;
  if (op === '>' || op === '>=') return l - r;
  if (op === '==') return -Math.abs(l - r);
  return Math.abs(l - r);
}

/** Does piece j ([t_j, t_{j+1}), or just t_j for the last sample) meet [lo, hi]? */
function pieceMeets(times: readonly number[], j: number, lo: number, hi: number): boolean {
  const start = times[j]!;
  if (j === times.length - 1) return start >= lo && start <= hi;
  return start <= hi && times[j + 1]! > lo;
}

/** The sample in force at instant u, or -1 outside the trace [t_0, t_{n-1}]. */
export function pieceAt(times: readonly number[], u: number): number {
  const n = times.length;
  if (n === 0 || u < times[0]! || u > times[n - 1]!) return -1;
  let j = 0;
  while (j + 1 < n && times[j + 1]! <= u) j++;
  return j;
}

/** Instants at which to test a quantifier over [lo, hi]: edges, sample times inside, midpoints. */
export function instants(times: readonly number[], lo: number, hi: number): number[] {
  const first = times[0]!;
  const last = times[times.length - 1]!;
  const a = Math.max(lo, first);
  const b = Math.min(hi, last);
  if (a > b) return [];
  const points = [a, b, ...times.filter((u) => u >= a && u <= b)].sort((x, y) => x - y);
  const out: number[] = [];
  for (let k = 0; k < points.length; k++) {
    out.push(points[k]!);
    if (k + 1 < points.length) out.push((points[k]! + points[k + 1]!) / 2);
  }
  return out;
}

/** ρ of f at sample i (memoised per subformula so nested operators stay tractable). */
function at(f: Formula, i: number, trace: Memo): number {
  let row = trace.memo.get(f);
  if (!row) trace.memo.set(f, (row = []));
  const cached = row[i];
  if (cached !== undefined) return cached;
  const v = atUncached(f, i, trace);
  row[i] = v;
  return v;
}

function atUncached(f: Formula, i: number, trace: Memo): number {
  const times = trace.times;
  const n = times.length;
  const t = times[i]!;
  switch (f.kind) {
    case 'literal':
      return f.value ? Infinity : -Infinity;
    case 'atom':
      return col(trace, f.name)[i]! >= 0.5 ? Infinity : -Infinity;
    case 'compare':
      return compare(f.op, expr(f.left, i, trace), expr(f.right, i, trace));
    case 'not':
      return -at(f.arg, i, trace);
    case 'and':
      return Math.min(at(f.left, i, trace), at(f.right, i, trace));
    case 'or':
      return Math.max(at(f.left, i, trace), at(f.right, i, trace));
    case 'implies':
      return Math.max(-at(f.left, i, trace), at(f.right, i, trace));
    case 'always':
    case 'eventually':
    case 'historically':
    case 'once': {
      const future = f.kind === 'always' || f.kind === 'eventually';
      const a = f.interval?.lo ?? 0;
      const b = f.interval?.hi ?? Infinity;
      const lo = future ? t + a : t - b;
      const hi = future ? t + b : t - a;
      const useMin = f.kind === 'always' || f.kind === 'historically';
      let r = useMin ? Infinity : -Infinity;
      for (let j = 0; j < n; j++) {
        if (!pieceMeets(times, j, lo, hi)) continue;
        const v = at(f.arg, j, trace);
        r = useMin ? Math.min(r, v) : Math.max(r, v);
      }
      return r;
    }
    case 'until': {
      const a = f.interval?.lo ?? 0;
      const b = f.interval?.hi ?? Infinity;
      let best = -Infinity;
      for (const u of instants(times, t + a, t + b)) {
        let v = at(f.right, pieceAt(times, u), trace);
        for (let k = 0; k < n; k++) if (times[k]! >= t && times[k]! < u) v = Math.min(v, at(f.left, k, trace));
        best = Math.max(best, v);
      }
      return best;
    }
    case 'since': {
      const a = f.interval?.lo ?? 0;
      const b = f.interval?.hi ?? Infinity;
      let best = -Infinity;
      for (const u of instants(times, t - b, t - a)) {
        let v = at(f.right, pieceAt(times, u), trace);
        for (let k = 0; k < n; k++) if (times[k]! > u && times[k]! <= t) v = Math.min(v, at(f.left, k, trace));
        best = Math.max(best, v);
      }
      return best;
    }
  }
}
