import { MonotonicDeque } from '../util/monotonic-deque.js';
import { IndexedRing, SegmentQueue } from './buffers.js';

/** Shared per-monitor state the nodes read. */
export interface EngineState {
  /** Sample times by absolute index (strictly increasing). */
  readonly times: IndexedRing;
  /** Samples pushed so far. */
  n: number;
  /** Time of the latest sample. */
  tLatest: number;
  /** Episode over: future windows are truncated to the samples that exist. */
  finished: boolean;
  /** Values of the latest sample, in the monitor's signal order. */
  values: ArrayLike<number>;
}

/**
 * One operator of a compiled formula. `out` holds its ρ at samples [0, count) that its parent has
 * not consumed yet; values are final once written ("decided").
 */
export abstract class StreamNode {
  readonly out = new IndexedRing();
  count = 0;
  /** Decide as many further samples as the trace so far allows. */
  abstract update(s: EngineState): void;
  /** Lowest sample index whose time this node may still read. */
  lowestTimeIndex(): number {
    return this.count;
  }
  reset(): void {
    this.out.clear();
    this.count = 0;
    this.resetState();
  }
  protected resetState(): void {}
}

/** Is every sample of `child` up to time `edge` decided? */
function decidedThrough(s: EngineState, child: StreamNode, edge: number): boolean {
  return child.count === s.n || s.times.get(child.count) > edge;
}

export class LiteralNode extends StreamNode {
  constructor(private readonly value: number) {
    super();
  }
  update(s: EngineState): void {
    while (this.count < s.n) {
      this.out.push(this.value);
      this.count++;
    }
  }
}

/** A boolean signal: +∞ when true (≥ 0.5), −∞ when false. */
export class BoolAtomNode extends StreamNode {
  constructor(private readonly index: number) {
    super();
  }
  update(s: EngineState): void {
    if (this.count < s.n) {
      this.out.push((s.values[this.index] as number) >= 0.5 ? Infinity : -Infinity);
      this.count++;
    }
  }
}

/** `x < c` (ρ = c − x, `cMinusX`) or `x > c` (ρ = x − c). */
export class ThresholdNode extends StreamNode {
  constructor(
    private readonly index: number,
    private readonly c: number,
    private readonly cMinusX: boolean,
  ) {
    super();
  }
  update(s: EngineState): void {
    if (this.count < s.n) {
      const x = s.values[this.index] as number;
      this.out.push(this.cMinusX ? this.c - x : x - this.c);
      this.count++;
    }
  }
}

/** Any other atom (abs, ==, !=): evaluated by a compiled closure. */
export class ClosureAtomNode extends StreamNode {
  constructor(private readonly evaluate: (values: ArrayLike<number>) => number) {
    super();
  }
  update(s: EngineState): void {
    if (this.count < s.n) {
      this.out.push(this.evaluate(s.values));
      this.count++;
    }
  }
}

export class NotNode extends StreamNode {
  constructor(private readonly child: StreamNode) {
    super();
  }
  update(): void {
    const c = this.child;
    while (this.count < c.count) this.out.push(-c.out.get(this.count++));
    c.out.dropBefore(this.count);
  }
}

export class BoolNode extends StreamNode {
  constructor(
    private readonly kind: 'and' | 'or' | 'implies',
    private readonly left: StreamNode,
    private readonly right: StreamNode,
  ) {
    super();
  }
  update(): void {
    const l = this.left;
    const r = this.right;
    const end = l.count < r.count ? l.count : r.count;
    while (this.count < end) {
      const x = l.out.get(this.count);
      const y = r.out.get(this.count);
      this.out.push(this.kind === 'and' ? Math.min(x, y) : this.kind === 'or' ? Math.max(x, y) : Math.max(-x, y));
      this.count++;
    }
    l.out.dropBefore(this.count);
    r.out.dropBefore(this.count);
  }
}

/** always[a:b] (min) / eventually[a:b] (max): decided once the trace reaches t + b. */
export class FutureWindowNode extends StreamNode {
  private readonly deque: MonotonicDeque;
  private fed = 0;
  private start = 0;
  constructor(
    kind: 'min' | 'max',
    private readonly a: number,
    private readonly b: number,
    private readonly child: StreamNode,
  ) {
    super();
    this.deque = new MonotonicDeque(kind);
  }
  update(s: EngineState): void {
    const c = this.child;
    const times = s.times;
    while (this.count < s.n) {
      const i = this.count;
      const t = times.get(i);
      const edge = t + this.b;
      if (!s.finished && !(s.tLatest >= edge && decidedThrough(s, c, edge))) break;
      while (this.fed < c.count && times.get(this.fed) <= edge) {
        this.deque.push(this.fed, c.out.get(this.fed));
        this.fed++;
      }
      let j = this.start < i ? i : this.start;
      const lo = t + this.a;
      while (j < s.n && (j + 1 < s.n ? times.get(j + 1) <= lo : times.get(j) < lo)) j++;
      this.start = j;
      this.deque.evictBefore(j);
      this.out.push(this.deque.peek());
      this.count++;
    }
    c.out.dropBefore(this.fed);
  }
  override lowestTimeIndex(): number {
    return Math.min(this.count, this.start);
  }
  protected override resetState(): void {
    this.deque.clear();
    this.fed = 0;
    this.start = 0;
  }
}

/** historically[a:b] (min) / once[a:b] (max); b = ∞ for the whole past. Exact at once when a = 0. */
export class PastWindowNode extends StreamNode {
  private readonly deque: MonotonicDeque;
  private readonly min: boolean;
  private fed = 0;
  private start = 0;
  private running: number;
  constructor(
    kind: 'min' | 'max',
    private readonly a: number,
    private readonly b: number,
    private readonly child: StreamNode,
  ) {
    super();
    this.deque = new MonotonicDeque(kind);
    this.min = kind === 'min';
    this.running = this.min ? Infinity : -Infinity;
  }
  update(s: EngineState): void {
    const c = this.child;
    const times = s.times;
    const bounded = this.b !== Infinity;
    while (this.count < s.n) {
      const i = this.count;
      const t = times.get(i);
      const edge = t - this.a;
      if (!(c.count > i || times.get(c.count) > edge)) break;
      while (this.fed < c.count && this.fed <= i && times.get(this.fed) <= edge) {
        const v = c.out.get(this.fed);
        if (bounded) this.deque.push(this.fed, v);
        else this.running = this.min ? Math.min(this.running, v) : Math.max(this.running, v);
        this.fed++;
      }
      if (bounded) {
        const lo = t - this.b;
        while (this.start < this.fed && this.start + 1 < s.n && times.get(this.start + 1) <= lo) this.start++;
        this.deque.evictBefore(this.start);
        this.out.push(this.deque.peek());
      } else this.out.push(this.running);
      this.count++;
    }
    c.out.dropBefore(this.fed);
  }
  override lowestTimeIndex(): number {
    return Math.min(this.count, this.start, this.fed);
  }
  protected override resetState(): void {
    this.deque.clear();
    this.fed = 0;
    this.start = 0;
    this.running = this.min ? Infinity : -Infinity;
  }
}

/**
 * φ until[a:b] ψ at t_i = min(min φ over samples [i, r], B of the window [s, e]) where r is the
 * last sample before t_i + a (φ must hold from t_i on) and B is the until-summary of the window.
 */
export class UntilNode extends StreamNode {
  private readonly window = new SegmentQueue(true);
  private readonly prefix = new MonotonicDeque('min');
  private fedWindow = 0;
  private fedPrefix = 0;
  private start = 0;
  private lastBefore = -1;
  constructor(
    private readonly a: number,
    private readonly b: number,
    private readonly left: StreamNode,
    private readonly right: StreamNode,
  ) {
    super();
  }
  update(s: EngineState): void {
    const l = this.left;
    const r = this.right;
    const times = s.times;
    while (this.count < s.n) {
      const i = this.count;
      const t = times.get(i);
      const edge = t + this.b;
      if (!s.finished && !(s.tLatest >= edge && decidedThrough(s, l, edge) && decidedThrough(s, r, edge))) break;
      while (this.fedWindow < l.count && this.fedWindow < r.count && times.get(this.fedWindow) <= edge) {
        this.window.push(this.fedWindow, l.out.get(this.fedWindow), r.out.get(this.fedWindow));
        this.fedWindow++;
      }
      const lo = t + this.a;
      let j = this.start < i ? i : this.start;
      while (j < s.n && (j + 1 < s.n ? times.get(j + 1) <= lo : times.get(j) < lo)) j++;
      this.start = j;
      this.window.evictBefore(j);
      while (this.lastBefore + 1 < this.fedWindow && times.get(this.lastBefore + 1) < lo) this.lastBefore++;
      while (this.fedPrefix <= this.lastBefore) {
        this.prefix.push(this.fedPrefix, l.out.get(this.fedPrefix));
        this.fedPrefix++;
      }
      this.prefix.evictBefore(i);
      const empty = this.window.length === 0;
      this.out.push(empty ? -Infinity : Math.min(this.prefix.peek(), this.window.aggregateB()));
      this.count++;
    }
    l.out.dropBefore(Math.min(this.fedPrefix, this.fedWindow));
    r.out.dropBefore(this.fedWindow);
  }
  override lowestTimeIndex(): number {
    return Math.min(this.count, this.start, this.lastBefore + 1);
  }
  protected override resetState(): void {
    this.window.clear();
    this.prefix.clear();
    this.fedWindow = 0;
    this.fedPrefix = 0;
    this.start = 0;
    this.lastBefore = -1;
  }
}

/**
 * φ since[a:b] ψ at t_i = min(B of the window [s, e], min φ over samples (e, i]); b = ∞ keeps a
 * running summary of the whole past instead of a window.
 */
export class SinceNode extends StreamNode {
  private readonly window = new SegmentQueue(false);
  private readonly suffix = new MonotonicDeque('min');
  private fedWindow = 0;
  private fedSuffix = 0;
  private start = 0;
  private runA = Infinity;
  private runB = -Infinity;
  constructor(
    private readonly a: number,
    private readonly b: number,
    private readonly left: StreamNode,
    private readonly right: StreamNode,
  ) {
    super();
  }
  update(s: EngineState): void {
    const l = this.left;
    const r = this.right;
    const times = s.times;
    const bounded = this.b !== Infinity;
    while (this.count < s.n) {
      const i = this.count;
      const t = times.get(i);
      const edge = t - this.a;
      if (!(l.count > i && (r.count > i || times.get(r.count) > edge))) break;
      while (this.fedWindow <= i && times.get(this.fedWindow) <= edge) {
        const phi = l.out.get(this.fedWindow);
        const psi = r.out.get(this.fedWindow);
        if (bounded) this.window.push(this.fedWindow, phi, psi);
        else {
          this.runB = Math.max(Math.min(this.runB, phi), psi);
          this.runA = Math.min(this.runA, phi);
        }
        this.fedWindow++;
      }
      while (this.fedSuffix <= i) {
        this.suffix.push(this.fedSuffix, l.out.get(this.fedSuffix));
        this.fedSuffix++;
      }
      this.suffix.evictBefore(this.fedWindow);
      let value: number;
      if (bounded) {
        const lo = t - this.b;
        while (this.start < this.fedWindow && this.start + 1 < s.n && times.get(this.start + 1) <= lo) this.start++;
        this.window.evictBefore(this.start);
        value = this.window.length === 0 ? -Infinity : Math.min(this.window.aggregateB(), this.suffix.peek());
      } else value = this.fedWindow === 0 ? -Infinity : Math.min(this.runB, this.suffix.peek());
      this.out.push(value);
      this.count++;
    }
    l.out.dropBefore(Math.min(this.fedWindow, this.fedSuffix));
    r.out.dropBefore(this.fedWindow);
  }
  override lowestTimeIndex(): number {
    return Math.min(this.count, this.start, this.fedWindow);
  }
  protected override resetState(): void {
    this.window.clear();
    this.suffix.clear();
    this.fedWindow = 0;
    this.fedSuffix = 0;
    this.start = 0;
    this.runA = Infinity;
    this.runB = -Infinity;
  }
}
