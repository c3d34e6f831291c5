import { ArmguardError } from '../util/errors.js';
import { intervalNs, type Expr, type Formula, type Interval } from './ast.js';
import { secondsToNs } from '../util/time.js';
import { futureWindows, pastWindows } from './windows.js';
import { exprRobustness } from './robustness.js';

/**
 * Offline robustness over a whole recorded trace: ρ(t_i) for every sample (design §4), with the
 * trace-end truncation rule (a future window that starts after the last sample is empty: +∞ for
 * always, −∞ for eventually/until). `times` strictly increasing seconds; `columns` holds one array
 * per signal the formula reads (booleans 0/1, ≥ 0.5 is true). Times are taken relative to the first
 * and compared as integer ns (time.ts): exact for decimal times with ≤ 9 fractional digits.
 * `evaluateOfflineNs` takes the integer ns directly (exact for any source that has them).
 *
 * Independent of the online engine on purpose (index windows over the whole trace, a segment tree
 * for until/since), so the two can check each other.
 */
export function evaluateOffline(
  f: Formula,
  times: Float64Array,
  columns: ReadonlyMap<string, Float64Array>,
): Float64Array {
  const t0 = times[0] ?? 0;
  return evaluateOfflineNs(
    f,
    times.map((t) => secondsToNs(t - t0)),
    columns,
  );
}

/** As evaluateOffline with sample times in integer ns (episode-relative, strictly increasing). */
export function evaluateOfflineNs(
  f: Formula,
  times: Float64Array,
  columns: ReadonlyMap<string, Float64Array>,
): Float64Array {
  const n = times.length;
  for (let i = 1; i < n; i++) {
    if (!((times[i] ?? NaN) > (times[i - 1] ?? NaN))) {
      throw new ArmguardError(
        `sample times must be strictly increasing: sample ${i} has t=${times[i]} after t=${times[i - 1]}`,
        { index: i },
      );
    }
  }
  const column = (name: string): Float64Array => {
    const c = columns.get(name);
    if (!c) throw new ArmguardError(`no column for signal '${name}'`, { field: name });
    if (c.length < n)
      throw new ArmguardError(`column '${name}' has ${c.length} values for ${n} samples`, { field: name });
    return c;
  };
  return new OfflineEvaluator(times, n, column).formula(f);
}

class OfflineEvaluator {
  constructor(
    private readonly times: Float64Array,
    private readonly n: number,
    private readonly column: (name: string) => Float64Array,
  ) {}

  expr(e: Expr): Float64Array {
    const n = this.n;
    const out = new Float64Array(n);
    switch (e.kind) {
      case 'num':
        out.fill(e.value);
        return out;
      case 'var':
        out.set(this.column(e.name).subarray(0, n));
        return out;
      case 'neg': {
        const a = this.expr(e.arg);
        for (let i = 0; i < n; i++) out[i] = -(a[i] ?? NaN);
        return out;
      }
      case 'abs': {
        const a = this.expr(e.arg);
        for (let i = 0; i < n; i++) out[i] = Math.abs(a[i] ?? NaN);
        return out;
      }
      case 'scale': {
        const a = this.expr(e.arg);
        for (let i = 0; i < n; i++) out[i] = e.factor * (a[i] ?? NaN);
        return out;
      }
      case 'add':
      case 'sub': {
        const a = this.expr(e.left);
        const b = this.expr(e.right);
        const sign = e.kind === 'add' ? 1 : -1;
        for (let i = 0; i < n; i++) out[i] = (a[i] ?? NaN) + sign * (b[i] ?? NaN);
        return out;
      }
    }
  }

  formula(f: Formula): Float64Array {
    const n = this.n;
    const out = new Float64Array(n);
    switch (f.kind) {
      case 'literal':
        return out.fill(f.value ? Infinity : -Infinity);
      case 'atom': {
        const c = this.column(f.name);
        for (let i = 0; i < n; i++) out[i] = (c[i] ?? NaN) >= 0.5 ? Infinity : -Infinity;
        return out;
      }
      case 'compare': {
        const l = this.expr(f.left);
        const r = this.expr(f.right);
        for (let i = 0; i < n; i++) out[i] = exprRobustness(f.op, l[i] ?? NaN, r[i] ?? NaN);
        return out;
      }
      case 'not': {
        const a = this.formula(f.arg);
        for (let i = 0; i < n; i++) out[i] = -(a[i] ?? NaN);
        return out;
      }
      case 'and':
      case 'or':
      case 'implies': {
        const a = this.formula(f.left);
        const b = this.formula(f.right);
        for (let i = 0; i < n; i++) {
          const x = a[i] ?? NaN;
          const y = b[i] ?? NaN;
          out[i] = f.kind === 'and' ? Math.min(x, y) : f.kind === 'or' ? Math.max(x, y) : Math.max(-x, y);
        }
        return out;
      }
      case 'always':
      case 'eventually':
      case 'historically':
      case 'once': {
        const arg = this.formula(f.arg);
        const { s, e } = this.windows(f.kind === 'always' || f.kind === 'eventually', f.interval);
        return slidingExtreme(arg, s, e, f.kind === 'always' || f.kind === 'historically' ? 'min' : 'max');
      }
      case 'until':
      case 'since':
        return f.kind === 'until' ? this.until(f.left, f.right, f.interval) : this.since(f.left, f.right, f.interval);
    }
  }

  private windows(future: boolean, interval: Interval | null): { s: Int32Array; e: Int32Array } {
    const ns = interval ? intervalNs(interval) : null;
    if (future) {
      if (ns) return futureWindows(this.times, this.n, ns.lo, ns.hi);
      // Episode level: the rest of the trace.
      const s = new Int32Array(this.n);
      const e = new Int32Array(this.n).fill(this.n - 1);
      for (let i = 0; i < this.n; i++) s[i] = i;
      return { s, e };
    }
    return pastWindows(this.times, this.n, ns?.lo ?? 0, ns?.hi ?? Infinity);
  }

  /** max over witness j in the window of min(ψ_j, φ at the samples in [t, t')), t' = max(t_j, t+a). */
  private until(left: Formula, right: Formula, interval: Interval | null): Float64Array {
    const n = this.n;
    const phi = this.formula(left);
    const psi = this.formula(right);
    const a = interval ? intervalNs(interval).lo : 0;
    const { s, e } = this.windows(true, interval);
    const tree = new PairTree(phi, psi, 'until');
    const out = new Float64Array(n);
    let r = -1; // last sample with t_r < t_i + a
    for (let i = 0; i < n; i++) {
      const si = s[i] ?? 0;
      const ei = e[i] ?? -1;
      if (si > ei) {
        out[i] = -Infinity;
        continue;
      }
      const t = this.times[i] ?? NaN;
      while (r + 1 < n && (this.times[r + 1] ?? NaN) < t + a) r++;
      const prefix = tree.minPhi(i, r);
      out[i] = Math.min(prefix, tree.query(si, ei));
    }
    return out;
  }

  /** max over witness j in the window of min(ψ_j, φ at the samples after j up to t). */
  private since(left: Formula, right: Formula, interval: Interval | null): Float64Array {
    const n = this.n;
    const phi = this.formula(left);
    const psi = this.formula(right);
    const { s, e } = this.windows(false, interval);
    const tree = new PairTree(phi, psi, 'since');
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const si = s[i] ?? 0;
      const ei = e[i] ?? -1;
      out[i] = si > ei ? -Infinity : Math.min(tree.query(si, ei), tree.minPhi(ei + 1, i));
    }
    return out;
  }
}

/** out[i] = min (or max) of v over [s_i, e_i]; identity when empty. Bounds nondecreasing in i. */
function slidingExtreme(v: Float64Array, s: Int32Array, e: Int32Array, kind: 'min' | 'max'): Float64Array {
  const n = v.length;
  const out = new Float64Array(n);
  const dq = new Int32Array(n);
  let head = 0;
  let tail = 0;
  let fed = 0;
  const better = kind === 'min' ? (x: number, y: number) => x <= y : (x: number, y: number) => x >= y;
  for (let i = 0; i < n; i++) {
    const ei = e[i] ?? -1;
    const si = s[i] ?? 0;
    while (fed <= ei) {
      const x = v[fed] ?? NaN;
      while (tail > head && better(x, v[dq[tail - 1] ?? 0] ?? NaN)) tail--;
      dq[tail++] = fed++;
    }
    while (tail > head && (dq[head] ?? 0) < si) head++;
    out[i] = si > ei || tail === head ? (kind === 'min' ? Infinity : -Infinity) : (v[dq[head] ?? 0] ?? NaN);
  }
  return out;
}

/**
 * Segment tree over (A, B) pairs for until/since. For a run of samples [s, e]:
 * A = min φ; B = until: max_j min(ψ_j, min φ[s, j)); since: max_j min(ψ_j, min φ(j, e]).
 * Both combines are associative (not commutative), so ranges are folded left and right.
 */
class PairTree {
  private readonly size: number;
  private readonly A: Float64Array;
  private readonly B: Float64Array;
  constructor(
    phi: Float64Array,
    psi: Float64Array,
    private readonly kind: 'until' | 'since',
  ) {
    let size = 1;
    while (size < phi.length) size *= 2;
    this.size = size;
    this.A = new Float64Array(2 * size).fill(Infinity);
    this.B = new Float64Array(2 * size).fill(-Infinity);
    for (let i = 0; i < phi.length; i++) {
      this.A[size + i] = phi[i] ?? NaN;
      this.B[size + i] = psi[i] ?? NaN;
    }
    for (let k = size - 1; k >= 1; k--) {
      const [a, b] = this.combine(
        this.A[2 * k] ?? NaN,
        this.B[2 * k] ?? NaN,
        this.A[2 * k + 1] ?? NaN,
        this.B[2 * k + 1] ?? NaN,
      );
      this.A[k] = a;
      this.B[k] = b;
    }
  }

  private combine(ax: number, bx: number, ay: number, by: number): [number, number] {
    const a = Math.min(ax, ay);
    return this.kind === 'until' ? [a, Math.max(bx, Math.min(ax, by))] : [a, Math.max(Math.min(bx, ay), by)];
  }

  private fold(lo: number, hi: number): [number, number] {
    let la = Infinity;
    let lb = -Infinity;
    let ra = Infinity;
    let rb = -Infinity;
    let l = lo + this.size;
    let r = hi + this.size + 1;
    while (l < r) {
      if (l & 1) {
        [la, lb] = this.combine(la, lb, this.A[l] ?? NaN, this.B[l] ?? NaN);
        l++;
      }
      if (r & 1) {
        r--;
        [ra, rb] = this.combine(this.A[r] ?? NaN, this.B[r] ?? NaN, ra, rb);
      }
      l >>= 1;
      r >>= 1;
    }
    return this.combine(la, lb, ra, rb);
  }

  /** B over [lo, hi] (lo <= hi). */
  query(lo: number, hi: number): number {
    return this.fold(lo, hi)[1];
  }
  /** min φ over [lo, hi]; +∞ when empty. */
  minPhi(lo: number, hi: number): number {
    return lo > hi ? Infinity : this.fold(lo, hi)[0];
  }
}
