import { intervalNs, type Expr, type Formula } from './ast.js';
import { exprRobustness } from './robustness.js';

/**
 * Robust satisfaction interval on a partial trace: for every sample, bounds [lo, hi] on ρ that
 * hold however the episode continues — with more samples of any value at any later times, or
 * ending right now (truncation rule). Used by OnlineMonitor for ρ at the episode's first sample
 * while that value is undecided (at most the formula's horizon of samples). It favours plainness
 * over speed, but computes each operator only at the samples its parent needs (`count`: the bounds
 * at samples 0..count−1): for the monitor's count = 1 a top-level future operator over a
 * non-temporal argument costs O(samples in its window) per call, not O(n·window).
 *
 * NaN (an undefined value — a NaN sample, or NaN − NaN) follows the definition, min and max over
 * every completion: a bound is NaN where the operator's robustness is NaN in some completion,
 * i.e. where a sample that can be in the operator's window (for `until` also a φ sample before a
 * possible witness) is NaN — also where an unknown continuation would otherwise make that bound
 * ±∞. OnlineMonitor drops such samples before they reach here, so this costs it nothing.
 */
export interface PartialTrace {
  /** Sample times in integer ns (time.ts). */
  times: Float64Array;
  /** Row-major sample values, `width` per sample, in the monitor's signal order. */
  rows: Float64Array;
  width: number;
  n: number;
  index: ReadonlyMap<string, number>;
}

export interface Bounds {
  lo: Float64Array;
  hi: Float64Array;
}

export function partialBounds(f: Formula, p: PartialTrace, count = p.n): Bounds {
  const n = p.n;
  const m = Math.max(0, Math.min(count, n));
  const times = p.times;
  const tl = times[n - 1] ?? -Infinity;
  const lo = new Float64Array(m);
  const hi = new Float64Array(m);
  const t = (j: number): number => times[j] ?? NaN;
  /** Samples 0..k−1 where k − 1 is the last index a window [t(i)+a, t(i)+b] of some i < m reaches. */
  const reach = (b: number): number => {
    if (m === 0) return 0;
    const end = t(m - 1) + b;
    let k = m;
    while (k < n && t(k) <= end) k++;
    return k;
  };

  switch (f.kind) {
    case 'literal':
      lo.fill(f.value ? Infinity : -Infinity);
      hi.set(lo);
      return { lo, hi };
    case 'atom': {
      const k = p.index.get(f.name) ?? 0;
      for (let i = 0; i < m; i++) lo[i] = hi[i] = (p.rows[i * p.width + k] ?? NaN) >= 0.5 ? Infinity : -Infinity;
      return { lo, hi };
    }
    case 'compare':
      for (let i = 0; i < m; i++) lo[i] = hi[i] = exprRobustness(f.op, expr(f.left, p, i), expr(f.right, p, i));
      return { lo, hi };
    case 'not': {
      const a = partialBounds(f.arg, p, m);
      for (let i = 0; i < m; i++) {
        lo[i] = -(a.hi[i] ?? NaN);
        hi[i] = -(a.lo[i] ?? NaN);
      }
      return { lo, hi };
    }
    case 'and':
    case 'or':
    case 'implies': {
      const a = partialBounds(f.left, p, m);
      const b = partialBounds(f.right, p, m);
      for (let i = 0; i < m; i++) {
        const [alo, ahi] =
          f.kind === 'implies' ? [-(a.hi[i] ?? NaN), -(a.lo[i] ?? NaN)] : [a.lo[i] ?? NaN, a.hi[i] ?? NaN];
        const pick = f.kind === 'and' ? Math.min : Math.max;
        lo[i] = pick(alo, b.lo[i] ?? NaN);
        hi[i] = pick(ahi, b.hi[i] ?? NaN);
      }
      return { lo, hi };
    }
    case 'always':
    case 'eventually': {
      const isMin = f.kind === 'always';
      const a = f.interval ? intervalNs(f.interval).lo : 0;
      const b = f.interval ? intervalNs(f.interval).hi : Infinity;
      const c = partialBounds(f.arg, p, reach(b));
      // Members j of sample i's window: sure for j ≤ n−2 when t(j+1) > t(i)+a and t(j) ≤ t(i)+b — a
      // range [s_i, e_i] moving right with i — and the latest sample n−1, sure when t(n−1) ≥ t(i)+a,
      // maybe (in the window iff the next sample comes after t(i)+a) otherwise.
      const s = new Int32Array(m);
      const e = new Int32Array(m);
      let j0 = 0;
      let j1 = -1;
      for (let i = 0; i < m; i++) {
        const from = t(i) + a;
        const to = t(i) + b;
        while (j0 < n - 1 && !(t(j0 + 1) > from)) j0++;
        while (j1 + 1 < n && t(j1 + 1) <= to) j1++;
        s[i] = Math.max(i, j0);
        e[i] = Math.min(j1, n - 2);
      }
      const rangeLo = slidingExtreme(c.lo, s, e, isMin);
      const rangeHi = slidingExtreme(c.hi, s, e, isMin);
      const pick = isMin ? Math.min : Math.max;
      const last = n - 1;
      for (let i = 0; i < m; i++) {
        const from = t(i) + a;
        const to = t(i) + b;
        let defLo = rangeLo[i] ?? NaN; // over members for sure
        let defHi = rangeHi[i] ?? NaN;
        let anyLo = defLo; // over members for sure or maybe (the latest sample)
        let anyHi = defHi;
        if (last >= i && t(last) <= to) {
          const l = c.lo[last] ?? NaN;
          const h = c.hi[last] ?? NaN;
          if (t(last) >= from) {
            defLo = pick(defLo, l);
            defHi = pick(defHi, h);
          }
          anyLo = pick(anyLo, l);
          anyHi = pick(anyHi, h);
        }
        const extends_ = to > tl; // unknown later samples may fall in the window
        // anyLo/anyHi are NaN iff a sample that can be a member is: then some completion is NaN.
        if (isMin) {
          lo[i] = extends_ && !Number.isNaN(anyLo) ? -Infinity : anyLo;
          hi[i] = Number.isNaN(anyHi) ? NaN : defHi;
        } else {
          lo[i] = Number.isNaN(anyLo) ? NaN : defLo;
          hi[i] = extends_ && !Number.isNaN(anyHi) ? Infinity : anyHi;
        }
      }
      return { lo, hi };
    }
    case 'historically':
    case 'once': {
      const c = partialBounds(f.arg, p, m);
      const isMin = f.kind === 'historically';
      const a = f.interval ? intervalNs(f.interval).lo : 0;
      const b = f.interval ? intervalNs(f.interval).hi : Infinity;
      // members of sample i: j ≤ i with t(j) ≤ t(i) − a whose hold interval reaches past t(i) − b
      // (the latest sample always does): a range [s_i, e_i] moving right with i
      const s = new Int32Array(m);
      const e = new Int32Array(m);
      let k0 = 0;
      let k1 = -1;
      for (let i = 0; i < m; i++) {
        while (k0 < n - 1 && !(t(k0 + 1) > t(i) - b)) k0++;
        while (k1 + 1 <= i && t(k1 + 1) <= t(i) - a) k1++;
        s[i] = k0;
        e[i] = k1;
      }
      lo.set(slidingExtreme(c.lo, s, e, isMin));
      hi.set(slidingExtreme(c.hi, s, e, isMin));
      return { lo, hi };
    }
    case 'until': {
      const a = f.interval ? intervalNs(f.interval).lo : 0;
      const b = f.interval ? intervalNs(f.interval).hi : Infinity;
      // φ up to the last sample when some window reaches past it (the prefix of unknown length)
      const psi = partialBounds(f.right, p, reach(b));
      const phi = partialBounds(f.left, p, m > 0 && t(m - 1) + b > tl ? n : reach(b));
      for (let i = 0; i < m; i++) {
        const from = t(i) + a;
        const to = t(i) + b;
        let l = -Infinity;
        let h = -Infinity;
        // Some completion is NaN where ψ at a possible witness, or φ at a sample before a possible
        // witness instant (i ≤ k, t(k) < t(i)+b), is NaN.
        let nanLo = false;
        let nanHi = false;
        for (let k = i; k < n && t(k) < to; k++) {
          nanLo ||= Number.isNaN(phi.lo[k] ?? NaN);
          nanHi ||= Number.isNaN(phi.hi[k] ?? NaN);
        }
        // running minima of φ over samples i..k−1 (k only grows while j does)
        let k = i;
        let phiLo = Infinity;
        let phiHi = Infinity;
        const upTo = (last: number): void => {
          for (; k <= last; k++) {
            phiLo = Math.min(phiLo, phi.lo[k] ?? NaN);
            phiHi = Math.min(phiHi, phi.hi[k] ?? NaN);
          }
        };
        for (let j = i; j < n && t(j) <= to; j++) {
          const sure = j < n - 1 ? t(j + 1) > from : t(j) >= from;
          if (sure || j === n - 1) {
            nanLo ||= Number.isNaN(psi.lo[j] ?? NaN);
            nanHi ||= Number.isNaN(psi.hi[j] ?? NaN);
          }
          if (sure) {
            upTo(t(j) < from ? j : j - 1); // φ at the samples before the witness instant
            l = Math.max(l, Math.min(psi.lo[j] ?? NaN, phiLo));
            h = Math.max(h, Math.min(psi.hi[j] ?? NaN, phiHi));
          } else if (j === n - 1) {
            upTo(j);
            h = Math.max(h, Math.min(psi.hi[j] ?? NaN, phiHi));
          }
        }
        if (to > tl) {
          upTo(n - 1);
          h = Math.max(h, phiHi);
        }
        lo[i] = nanLo ? NaN : l;
        hi[i] = nanHi ? NaN : h;
      }
      return { lo, hi };
    }
    case 'since': {
      const phi = partialBounds(f.left, p, m);
      const psi = partialBounds(f.right, p, m);
      const a = f.interval ? intervalNs(f.interval).lo : 0;
      const b = f.interval ? intervalNs(f.interval).hi : Infinity;
      for (let i = 0; i < m; i++) {
        let l = -Infinity;
        let h = -Infinity;
        for (let j = 0; j <= i; j++) {
          if (!(t(j) <= t(i) - a && (j + 1 < n ? t(j + 1) > t(i) - b : true))) continue;
          let pl = psi.lo[j] ?? NaN;
          let ph = psi.hi[j] ?? NaN;
          for (let k = j + 1; k <= i; k++) {
            pl = Math.min(pl, phi.lo[k] ?? NaN);
            ph = Math.min(ph, phi.hi[k] ?? NaN);
          }
          l = Math.max(l, pl);
          h = Math.max(h, ph);
        }
        lo[i] = l;
        hi[i] = h;
      }
      return { lo, hi };
    }
  }
}

function expr(e: Expr, p: PartialTrace, i: number): number {
  switch (e.kind) {
    case 'num':
      return e.value;
    case 'var':
      return p.rows[i * p.width + (p.index.get(e.name) ?? 0)] ?? NaN;
    case 'neg':
      return -expr(e.arg, p, i);
    case 'abs':
      return Math.abs(expr(e.arg, p, i));
    case 'scale':
      return e.factor * expr(e.arg, p, i);
    case 'add':
      return expr(e.left, p, i) + expr(e.right, p, i);
    case 'sub':
      return expr(e.left, p, i) - expr(e.right, p, i);
  }
}

/**
 * out[i] = min (or max) of v[s[i]..e[i]] (inclusive; +∞ for min, −∞ for max when empty) for
 * nondecreasing s and e, in one pass with a monotonic deque of indices; NaN anywhere in a window
 * makes that window's extreme NaN, as Math.min/Math.max would.
 */
function slidingExtreme(v: Float64Array, s: Int32Array, e: Int32Array, isMin: boolean): Float64Array {
  const m = s.length;
  const out = new Float64Array(m);
  const dq = new Int32Array(v.length + 1);
  const nanBefore = new Int32Array(v.length + 1); // NaNs among v[0..k−1]
  for (let k = 0; k < v.length; k++) nanBefore[k + 1] = nanBefore[k]! + (Number.isNaN(v[k]!) ? 1 : 0);
  let head = 0;
  let tail = 0;
  let next = 0;
  for (let i = 0; i < m; i++) {
    const from = s[i]!;
    const to = e[i]!;
    for (; next <= to; next++) {
      const x = v[next]!;
      if (Number.isNaN(x)) continue;
      while (tail > head && (isMin ? v[dq[tail - 1]!]! >= x : v[dq[tail - 1]!]! <= x)) tail--;
      dq[tail++] = next;
    }
    while (tail > head && dq[head]! < from) head++;
    if (to < from) out[i] = isMin ? Infinity : -Infinity;
    else if (nanBefore[to + 1]! - nanBefore[from]! > 0) out[i] = NaN;
    else out[i] = tail > head ? v[dq[head]!]! : isMin ? Infinity : -Infinity;
  }
  return out;
}
