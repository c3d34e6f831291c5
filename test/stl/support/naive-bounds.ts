/**
 * Test reference for partialBounds: every operator at every sample, windows scanned directly,
 * O(n·window) and worse. src/stl/bounds.ts must agree with it exactly. The past operators
 * (historically, once, since) are written from the definition over window instants, sharing
 * nothing with src/stl; the future operators (always, eventually, until) still state the same
 * sure/maybe membership rules as the first version of src/stl/bounds.ts (they check its sliding
 * windows, not those rules).
 */
import type { Expr, Formula } from '../../../src/stl/ast.js';
import { exprRobustness } from '../../../src/stl/robustness.js';
import type { Bounds, PartialTrace } from '../../../src/stl/bounds.js';
import { instants, pieceAt } from './naive-reference.js';

export function naivePartialBounds(f: Formula, p: PartialTrace): Bounds {
  const n = p.n;
  const times = p.times;
  const tl = times[n - 1] ?? -Infinity;
  const lo = new Float64Array(n);
  const hi = new Float64Array(n);
  const t = (j: number): number => times[j] ?? NaN;

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
    case 'compare':
      for (let i = 0; i < n; i++) lo[i] = hi[i] = exprRobustness(f.op, expr(f.left, p, i), expr(f.right, p, i));
      return { lo, hi };
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
      for (let i = 0; i < n; i++) {
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
      const c = naivePartialBounds(f.arg, p);
      const isMin = f.kind === 'always';
      const a = f.interval?.lo ?? 0;
      const b = f.interval?.hi ?? Infinity;
      for (let i = 0; i < n; i++) {
        const from = t(i) + a;
        const to = t(i) + b;
        let defLo = isMin ? Infinity : -Infinity; // over members for sure
        let defHi = defLo;
        let anyLo = defLo; // over members for sure or maybe (the latest sample)
        let anyHi = defLo;
        for (let j = i; j < n && t(j) <= to; j++) {
          const sure = j < n - 1 ? t(j + 1) > from : t(j) >= from;
          const maybe = j === n - 1 && !sure; // in the window iff the next sample comes after `from`
          if (!sure && !maybe) continue;
          const l = c.lo[j] ?? NaN;
          const h = c.hi[j] ?? NaN;
          if (sure) {
            defLo = isMin ? Math.min(defLo, l) : Math.max(defLo, l);
            defHi = isMin ? Math.min(defHi, h) : Math.max(defHi, h);
          }
          anyLo = isMin ? Math.min(anyLo, l) : Math.max(anyLo, l);
          anyHi = isMin ? Math.min(anyHi, h) : Math.max(anyHi, h);
        }
        const extends_ = to > tl; // unknown later samples may fall in the window
        if (isMin) {
          lo[i] = extends_ ? -Infinity : anyLo;
          hi[i] = defHi;
        } else {
          lo[i] = defLo;
          hi[i] = extends_ ? Infinity : anyHi;
        }
      }
      return { lo, hi };
    }
    case 'historically':
    case 'once': {
      // From the definition: min (max) of the argument over the pieces in force at some instant of
      // the window [t − b, t − a] (instants enumerated as in naive-reference.ts).
      const c = naivePartialBounds(f.arg, p);
      const isMin = f.kind === 'historically';
      const a = f.interval?.lo ?? 0;
      const b = f.interval?.hi ?? Infinity;
      const known = Array.from(times.subarray(0, n));
      for (let i = 0; i < n; i++) {
        let l = isMin ? Infinity : -Infinity;
        let h = l;
        for (const u of instants(known, t(i) - b, t(i) - a)) {
          const j = pieceAt(known, u);
          l = isMin ? Math.min(l, c.lo[j] ?? NaN) : Math.max(l, c.lo[j] ?? NaN);
          h = isMin ? Math.min(h, c.hi[j] ?? NaN) : Math.max(h, c.hi[j] ?? NaN);
        }
        lo[i] = l;
        hi[i] = h;
      }
      return { lo, hi };
    }
    case 'until': {
      const phi = naivePartialBounds(f.left, p);
      const psi = naivePartialBounds(f.right, p);
      const a = f.interval?.lo ?? 0;
      const b = f.interval?.hi ?? Infinity;
      const minOver = (arr: Float64Array, from: number, to: number): number => {
        let m = Infinity;
        for (let k = from; k <= to; k++) m = Math.min(m, arr[k] ?? NaN);
        return m;
      };
      for (let i = 0; i < n; i++) {
        const from = t(i) + a;
        const to = t(i) + b;
        let l = -Infinity;
        let h = -Infinity;
        for (let j = i; j < n && t(j) <= to; j++) {
          const sure = j < n - 1 ? t(j + 1) > from : t(j) >= from;
          if (sure) {
            const last = t(j) < from ? j : j - 1; // φ at the samples before the witness instant
            l = Math.max(l, Math.min(psi.lo[j] ?? NaN, minOver(phi.lo, i, last)));
            h = Math.max(h, Math.min(psi.hi[j] ?? NaN, minOver(phi.hi, i, last)));
          } else if (j === n - 1) {
            h = Math.max(h, Math.min(psi.hi[j] ?? NaN, minOver(phi.hi, i, j)));
          }
        }
        if (to > tl) h = Math.max(h, minOver(phi.hi, i, n - 1));
        lo[i] = l;
        hi[i] = h;
      }
      return { lo, hi };
    }
    case 'since': {
      // From the definition (design §4), not from src/stl: at t, the max over instants u of the window
      // [t − b, t − a] of min(ψ at the piece in force at u, φ at every sample in (u, t]). The past is
      // fully known, so each bound is the same max–min over the subformulas' bounds. Instants are
      // enumerated as in naive-reference.ts (edges, sample times, midpoints: all quantities are
      // constant between them). O(n³) per sample; the trace is short.
      const phi = naivePartialBounds(f.left, p);
      const psi = naivePartialBounds(f.right, p);
      const a = f.interval?.lo ?? 0;
      const b = f.interval?.hi ?? Infinity;
      const known = Array.from(times.subarray(0, n));
      for (let i = 0; i < n; i++) {
        const now = t(i);
        let l = -Infinity;
        let h = -Infinity;
        for (const u of instants(known, now - b, now - a)) {
          const w = pieceAt(known, u);
          let vl = psi.lo[w] ?? NaN;
          let vh = psi.hi[w] ?? NaN;
          for (let k = 0; k < n; k++) {
            if (!(t(k) > u && t(k) <= now)) continue;
            vl = Math.min(vl, phi.lo[k] ?? NaN);
            vh = Math.min(vh, phi.hi[k] ?? NaN);
          }
          l = Math.max(l, vl);
          h = Math.max(h, vh);
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
