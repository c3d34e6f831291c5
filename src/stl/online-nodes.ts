import { IndexDeque, IndexedRing, SegmentQueue } from './buffers.js';

/** Most samples at least `dt` apart that a time span of `seconds` (plus its edge pieces) can hold. */
export function spanSamples(seconds: number, dt: number): number {
  return Math.ceil(seconds / dt) + 4;
}

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
  /** ρ at the latest decided sample. */
  last = NaN;
  /** Decides exactly the newest sample on every push (atoms and pointwise combinations of them). */
  immediate = false;
  /** A consumer reads `out`; otherwise only `last` is kept (no buffer traffic). */
  ringed = false;
  /**
   * Decide the next sample with the value already stored in `last`. (Values travel through
   * fields, not call arguments or return values: V8 boxes doubles crossing calls it does not inline,
   * which would allocate per sample.)
   */
  protected commit(): void {
    if (this.ringed) {
      this.out.staged = this.last;
      this.out.pushStaged();
    }
    this.count++;
  }
  /** Decide as many further samples as the trace so far allows. */
  abstract update(s: EngineState): void;
  /**
   * Size buffers for samples at least `dt` seconds apart, `lag` seconds being the longest a
   * consumer may leave this node's values unread; afterwards they never grow.
   */
  reserve(dt: number, lag: number): void {
    if (this.ringed) this.out.reserve(spanSamples(lag, dt));
  }
  /** Float64 slots this node's buffers hold (for memory diagnostics). */
  bufferCapacity(): number {
    return this.out.capacity;
  }
  /** Lowest sample index whose time this node may still read. */
  lowestTimeIndex(): number {
    return this.count;
  }
  reset(): void {
    this.out.clear();
    this.count = 0;
    this.last = NaN;
    this.resetState();
  }
  protected resetState(): void {}
}

export class LiteralNode extends StreamNode {
  constructor(private readonly value: number) {
    super();
    this.immediate = true;
  }
  update(s: EngineState): void {
    if (this.count < s.n) {
      this.last = this.value;
      this.commit();
    }
  }
}

/** A boolean signal: +∞ when true (≥ 0.5), −∞ when false. */
export class BoolAtomNode extends StreamNode {
  constructor(private readonly index: number) {
    super();
    this.immediate = true;
  }
  update(s: EngineState): void {
    if (this.count < s.n) {
      this.last = (s.values[this.index] as number) >= 0.5 ? Infinity : -Infinity;
      this.commit();
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
    this.immediate = true;
  }
  update(s: EngineState): void {
    if (this.count < s.n) {
      const x = s.values[this.index] as number;
      this.last = this.cMinusX ? this.c - x : x - this.c;
      this.commit();
    }
  }
}

/** Any other atom (abs, ==, !=): evaluated by a compiled closure. */
export class ClosureAtomNode extends StreamNode {
  constructor(private readonly evaluate: (values: ArrayLike<number>) => number) {
    super();
    this.immediate = true;
  }
  update(s: EngineState): void {
    if (this.count < s.n) {
      this.last = this.evaluate(s.values);
      this.commit();
    }
  }
}

export class NotNode extends StreamNode {
  constructor(private readonly child: StreamNode) {
    super();
    this.immediate = child.immediate;
    child.ringed ||= !child.immediate;
  }
  update(): void {
    const c = this.child;
    if (this.immediate) {
      if (this.count < c.count) {
        this.last = -c.last;
        this.commit();
      }
      return;
    }
    while (this.count < c.count) {
      this.last = -c.out.get(this.count);
      this.commit();
    }
    c.out.dropBefore(this.count);
  }
}

const AND = 0;
const OR = 1;
const IMPLIES = 2;

export class BoolNode extends StreamNode {
  private readonly op: number;
  constructor(
    kind: 'and' | 'or' | 'implies',
    private readonly left: StreamNode,
    private readonly right: StreamNode,
  ) {
    super();
    this.op = kind === 'and' ? AND : kind === 'or' ? OR : IMPLIES;
    this.immediate = left.immediate && right.immediate;
    if (!this.immediate) {
      left.ringed = true;
      right.ringed = true;
    }
  }
  update(): void {
    const l = this.left;
    const r = this.right;
    if (this.immediate) {
      if (this.count < l.count) {
        const x = l.last;
        const y = r.last;
        this.last = this.op === AND ? Math.min(x, y) : this.op === OR ? Math.max(x, y) : Math.max(-x, y);
        this.commit();
      }
      return;
    }
    const end = l.count < r.count ? l.count : r.count;
    while (this.count < end) {
      const x = l.out.get(this.count);
      const y = r.out.get(this.count);
      this.last = this.op === AND ? Math.min(x, y) : this.op === OR ? Math.max(x, y) : Math.max(-x, y);
      this.commit();
    }
    l.out.dropBefore(this.count);
    r.out.dropBefore(this.count);
  }
}

/** always[a:b] (min) / eventually[a:b] (max): decided once the trace reaches t + b. */
export class FutureWindowNode extends StreamNode {
  private readonly deque: IndexDeque;
  private fed = 0;
  private start = 0;
  constructor(
    kind: 'min' | 'max',
    private readonly a: number,
    private readonly b: number,
    private readonly child: StreamNode,
  ) {
    super();
    this.deque = new IndexDeque(kind === 'min');
    child.ringed = true;
  }
  update(s: EngineState): void {
    const c = this.child;
    const times = s.times;
    while (this.count < s.n) {
      const i = this.count;
      const t = times.get(i);
      const edge = t + this.b;
      if (!s.finished && !(s.tLatest >= edge && (c.count === s.n || times.get(c.count) > edge))) break;
      while (this.fed < c.count && times.get(this.fed) <= edge) {
        this.deque.pushFrom(this.fed, c.out);
        this.fed++;
      }
      let j = this.start < i ? i : this.start;
      const lo = t + this.a;
      while (j < s.n && (j + 1 < s.n ? times.get(j + 1) <= lo : times.get(j) < lo)) j++;
      this.start = j;
      this.deque.evictBefore(j);
      this.last = this.deque.extreme;
      this.commit();
    }
    c.out.dropBefore(this.fed);
  }
  override lowestTimeIndex(): number {
    return Math.min(this.count, this.start);
  }
  override reserve(dt: number, lag: number): void {
    super.reserve(dt, lag);
    this.deque.reserve(spanSamples(this.b - this.a, dt));
  }
  override bufferCapacity(): number {
    return this.out.capacity + this.deque.capacity;
  }
  protected override resetState(): void {
    this.deque.clear();
    this.fed = 0;
    this.start = 0;
  }
}

/** historically[a:b] (min) / once[a:b] (max); b = ∞ for the whole past. Exact at once when a = 0. */
export class PastWindowNode extends StreamNode {
  private readonly deque: IndexDeque;
  private readonly min: boolean;
  private fed = 0;
  private start = 0;
  private running = NaN; // a double from the start: stores must not allocate
  constructor(
    kind: 'min' | 'max',
    private readonly a: number,
    private readonly b: number,
    private readonly child: StreamNode,
  ) {
    super();
    child.ringed = true;
    this.deque = new IndexDeque(kind === 'min');
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
        if (bounded) this.deque.pushFrom(this.fed, c.out);
        else {
          const v = c.out.get(this.fed);
          if (this.min ? v < this.running : v > this.running) this.running = v;
        }
        this.fed++;
      }
      if (bounded) {
        const lo = t - this.b;
        while (this.start < this.fed && this.start + 1 < s.n && times.get(this.start + 1) <= lo) this.start++;
        this.deque.evictBefore(this.start);
        this.last = this.deque.extreme;
        this.commit();
      } else {
        this.last = this.running;
        this.commit();
      }
    }
    c.out.dropBefore(this.fed);
  }
  override lowestTimeIndex(): number {
    // unbounded: `start` never moves and no time before `fed` is read again
    return this.b === Infinity ? Math.min(this.count, this.fed) : Math.min(this.count, this.start, this.fed);
  }
  override bufferCapacity(): number {
    return this.out.capacity + this.deque.capacity;
  }
  override reserve(dt: number, lag: number): void {
    super.reserve(dt, lag);
    if (this.b !== Infinity) this.deque.reserve(spanSamples(this.b - this.a, dt));
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
  private readonly prefix = new IndexDeque(true);
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
    left.ringed = true;
    right.ringed = true;
  }
  update(s: EngineState): void {
    const l = this.left;
    const r = this.right;
    const times = s.times;
    while (this.count < s.n) {
      const i = this.count;
      const t = times.get(i);
      const edge = t + this.b;
      // both operands decided through the window's end (inlined: V8 boxes doubles passed to calls)
      if (
        !s.finished &&
        !(
          s.tLatest >= edge &&
          (l.count === s.n || times.get(l.count) > edge) &&
          (r.count === s.n || times.get(r.count) > edge)
        )
      ) {
        break;
      }
      while (this.fedWindow < l.count && this.fedWindow < r.count && times.get(this.fedWindow) <= edge) {
        this.window.pushFrom(this.fedWindow, l.out, r.out);
        this.fedWindow++;
      }
      const lo = t + this.a;
      let j = this.start < i ? i : this.start;
      while (j < s.n && (j + 1 < s.n ? times.get(j + 1) <= lo : times.get(j) < lo)) j++;
      this.start = j;
      this.window.evictBefore(j);
      while (this.lastBefore + 1 < this.fedWindow && times.get(this.lastBefore + 1) < lo) this.lastBefore++;
      while (this.fedPrefix <= this.lastBefore) {
        this.prefix.pushFrom(this.fedPrefix, l.out);
        this.fedPrefix++;
      }
      this.prefix.evictBefore(i);
      if (this.window.length === 0) {
        this.last = -Infinity;
        this.commit();
      } else {
        this.window.aggregate();
        this.last = Math.min(this.prefix.extreme, this.window.aggregateB);
        this.commit();
      }
    }
    l.out.dropBefore(Math.min(this.fedPrefix, this.fedWindow));
    r.out.dropBefore(this.fedWindow);
  }
  override lowestTimeIndex(): number {
    return Math.min(this.count, this.start, this.lastBefore + 1);
  }
  override bufferCapacity(): number {
    return this.out.capacity + this.window.capacity + this.prefix.capacity;
  }
  override reserve(dt: number, lag: number): void {
    super.reserve(dt, lag);
    this.window.reserve(spanSamples(this.b, dt));
    this.prefix.reserve(spanSamples(this.a, dt));
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
  private readonly suffix = new IndexDeque(true);
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
    left.ringed = true;
    right.ringed = true;
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
        if (bounded) this.window.pushFrom(this.fedWindow, l.out, r.out);
        else {
          const phi = l.out.get(this.fedWindow);
          const psi = r.out.get(this.fedWindow);
          this.runB = Math.max(Math.min(this.runB, phi), psi);
          this.runA = Math.min(this.runA, phi);
        }
        this.fedWindow++;
      }
      while (this.fedSuffix <= i) {
        this.suffix.pushFrom(this.fedSuffix, l.out);
        this.fedSuffix++;
      }
      this.suffix.evictBefore(this.fedWindow);
      let value: number;
      if (bounded) {
        const lo = t - this.b;
        while (this.start < this.fedWindow && this.start + 1 < s.n && times.get(this.start + 1) <= lo) this.start++;
        this.window.evictBefore(this.start);
        if (this.window.length === 0) value = -Infinity;
        else {
          this.window.aggregate();
          value = Math.min(this.window.aggregateB, this.suffix.extreme);
        }
      } else value = this.fedWindow === 0 ? -Infinity : Math.min(this.runB, this.suffix.extreme);
      this.last = value;
      this.commit();
    }
    l.out.dropBefore(Math.min(this.fedWindow, this.fedSuffix));
    r.out.dropBefore(this.fedWindow);
  }
  override lowestTimeIndex(): number {
    return this.b === Infinity
      ? Math.min(this.count, this.fedWindow)
      : Math.min(this.count, this.start, this.fedWindow);
  }
  override bufferCapacity(): number {
    return this.out.capacity + this.window.capacity + this.suffix.capacity;
  }
  override reserve(dt: number, lag: number): void {
    super.reserve(dt, lag);
    if (this.b !== Infinity) this.window.reserve(spanSamples(this.b - this.a, dt));
    this.suffix.reserve(spanSamples(this.a, dt));
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
