import { NS_PER_S } from '../util/time.js';
import { futureHorizon, signalsOf, type Formula } from './ast.js';
import { IndexedRing } from './buffers.js';
import { partialBounds, type PartialTrace } from './bounds.js';
import { compile, type EpisodeTree, type Tap } from './compile.js';
import { spanSamples, type EngineState, type StreamNode } from './online-nodes.js';

const RETENTION_CHECK_MASK = 255;
/**
 * The undecided first sample's bounds are recomputed when the kept prefix has grown by 1/64 of its
 * length (every sample up to 64 samples): a recomputation costs O(prefix), so this is O(1) per
 * sample amortised, and the bounds lag the trace by at most 1/64 of the time since it started.
 */
const PREFIX_BOUNDS_LAG_SHIFT = 6;
/**
 * Longest prefix kept for the partial-trace interval (each evaluation is O(prefix) for the
 * common shapes); past it, low/high fall back to the decided parts only (still sound, looser).
 */
const PREFIX_LIMIT = 4096;

/**
 * Online robustness monitor for one formula (one clause) over one episode (design §4).
 *
 * Samples arrive with strictly increasing timestamps at any spacing. Every operator updates in
 * amortised O(1) per sample and, once its buffers have grown to the formula's windows, `push`
 * allocates nothing. Past-time results are decided on the sample itself; a bounded-future result
 * is decided once the trace reaches its horizon (or at `finish`).
 *
 * Two views:
 * - the per-step margin: ρ at each decided sample of the formula with its episode-level
 *   `always`/`eventually` removed (for `always φ`, that is ρ_φ(t)). `current`, `episodeMin`,
 *   `firstViolationTime` and `longestViolation` describe this series; a margin < 0 is a violation.
 * - ρ at the episode's first sample (the formula's value): `low`/`high` bound it on the partial
 *   trace (the robust satisfaction interval); after `finish()` both equal `final`, which equals
 *   `evaluateOffline(...)[0]` exactly.
 */
export class OnlineMonitor {
  private readonly state: EngineState;
  private readonly order: StreamNode[];
  private readonly margin: StreamNode;
  private readonly episode: EpisodeTree;
  private readonly taps: Tap[];
  private marginSeen = 0;
  private current_ = NaN;
  private episodeMin_ = Infinity;
  private firstViolationTime_ = NaN;
  private runStartTime = NaN;
  private runEndTime = NaN;
  private runSamples = 0;
  private readonly longest = { seconds: 0, samples: 0 };
  private rejected = 0;
  private invalid = 0;
  /** Columns of the row the formula reads. */
  private readonly readColumns: Int32Array;
  /**
   * While ρ at the first sample is undecided (bounded-future parts at episode level), the raw
   * samples so far are kept so low/high can be computed on the partial trace. At most the
   * formula's horizon of samples; released for reuse once decided.
   */
  private readonly formula: Formula;
  private readonly hasStartTaps: boolean;
  private prefixActive: boolean;
  private readonly prefix: PartialTrace;
  private boundsCacheN = -1;
  private boundsLo = NaN;
  private boundsHi = NaN;

  /**
   * `options.minSampleInterval` (seconds): when samples are known to be at least this far apart,
   * every buffer is sized up front for the formula's windows and never grows during an episode
   * (no allocation at all after construction). Closer samples still work; buffers then grow.
   */
  constructor(f: Formula, signalOrder: readonly string[], options: { minSampleInterval?: number } = {}) {
    const index = new Map<string, number>();
    signalOrder.forEach((name, k) => index.set(name, k));
    this.formula = f;
    const compiled = compile(f, index);
    this.order = compiled.order;
    this.margin = compiled.margin;
    if (!this.margin.immediate) this.margin.ringed = true;
    this.episode = compiled.episode;
    this.taps = compiled.taps;
    this.readColumns = Int32Array.from(signalsOf(f), (name) => index.get(name)!);
    this.state = { times: new IndexedRing(), n: 0, tLatest: -Infinity, finished: false, values: new Float64Array(0) };
    this.hasStartTaps = this.taps.some((t) => t.mode === 'first');
    this.prefixActive = this.hasStartTaps;
    const width = Math.max(1, signalOrder.length);
    this.prefix = { times: new Float64Array(16), rows: new Float64Array(16 * width), width, n: 0, index };
    const dt = options.minSampleInterval;
    if (dt !== undefined && dt > 0 && Number.isFinite(dt)) {
      // Any value or time is needed for at most the sum of all window bounds (a loose upper bound).
      const lag = boundSum(f);
      // nodes compare times in ns: their window spans are ns, so is the spacing they are sized by
      for (const node of this.order) node.reserve(dt * NS_PER_S, lag * NS_PER_S);
      this.state.times.reserve(spanSamples(lag, dt) + 2 * (RETENTION_CHECK_MASK + 1));
      if (this.hasStartTaps) {
        const n = Math.min(PREFIX_LIMIT, spanSamples(futureHorizon(f), dt));
        this.prefix.times = new Float64Array(n);
        this.prefix.rows = new Float64Array(n * width);
      }
    }
  }

  /**
   * One sample: time in seconds (strictly after the previous one) and the signal values in the
   * constructor's order (booleans 0/1). Out-of-order samples and samples after `finish()` are
   * ignored and counted in `rejectedSamples`; a sample missing a value the formula reads, or
   * reading NaN, is ignored and counted in `invalidSamples`. Neither throws.
   * The time is compared in integer ns (`secondsToNs`, exact for decimal seconds with ≤ 9 fractional
   * digits below 25 days); a caller holding integer ns uses `pushNs`. Use one of the two per episode.
   */
  push(t: number, values: ArrayLike<number>): void {
    this.pendingT = Math.round(t * NS_PER_S);
    this.accept(values);
  }

  /** One sample at an integer ns time (episode-relative, < 2^53; see time.ts). */
  pushNs(tNs: number, values: ArrayLike<number>): void {
    this.pendingT = tNs;
    this.accept(values);
  }

  // The time travels in a field, not an argument: V8 boxes doubles crossing calls it does not inline.
  private pendingT = 0;

  private accept(values: ArrayLike<number>): void {
    const t = this.pendingT;
    const s = this.state;
    if (s.finished || !(t > s.tLatest) || !Number.isFinite(t)) {
      this.rejected++;
      return;
    }
    // NaN compares false both ways: in a window it breaks the monotone deques and can hide a later
    // violation, and it would stick in the episode bounds.
    const cols = this.readColumns;
    for (let k = 0; k < cols.length; k++) {
      const c = cols[k]!;
      if (c >= values.length || Number.isNaN(values[c])) {
        this.invalid++;
        return;
      }
    }
    s.times.push(t);
    s.n++;
    s.tLatest = t;
    s.values = values;
    if (this.prefixActive) this.keepPrefix(t, values);
    this.run();
    if (this.prefixActive && (this.startDecided() || this.prefix.n >= PREFIX_LIMIT)) this.prefixActive = false;
    if ((s.n & RETENTION_CHECK_MASK) === 0) this.dropOldTimes();
  }

  /** Episode end: future windows are truncated to the samples that exist; everything is decided. */
  finish(): void {
    if (this.state.finished) return;
    this.state.finished = true;
    this.run();
  }

  /** Start a new episode, keeping the buffers. */
  reset(): void {
    const s = this.state;
    s.times.clear();
    s.n = 0;
    s.tLatest = -Infinity;
    s.finished = false;
    for (const node of this.order) node.reset();
    this.marginSeen = 0;
    this.current_ = NaN;
    this.episodeMin_ = Infinity;
    this.firstViolationTime_ = NaN;
    this.runStartTime = NaN;
    this.runSamples = 0;
    this.longest.seconds = 0;
    this.longest.samples = 0;
    this.rejected = 0;
    this.invalid = 0;
    this.prefixActive = this.hasStartTaps;
    this.prefix.n = 0;
    this.boundsCacheN = -1;
  }

  /** Margin at the latest decided sample (NaN before any). */
  get current(): number {
    return this.current_;
  }
  /** Minimum margin over the decided samples (+∞ before any). */
  get episodeMin(): number {
    return this.episodeMin_;
  }
  /** Time (s) of the first decided sample with margin < 0 (NaN if none). */
  get firstViolationTime(): number {
    return this.firstViolationTime_ / NS_PER_S;
  }
  /** The same in integer ns, as pushed. */
  get firstViolationTimeNs(): number {
    return this.firstViolationTime_;
  }
  /**
   * The longest run of consecutive violating samples. Its duration runs from its first sample to
   * the first non-violating sample after it, or to the latest decided sample while it lasts.
   */
  get longestViolation(): { readonly seconds: number; readonly samples: number } {
    return this.longest;
  }
  /** Samples decided for the margin so far. */
  get decidedSamples(): number {
    return this.marginSeen;
  }
  get samples(): number {
    return this.state.n;
  }
  get rejectedSamples(): number {
    return this.rejected;
  }
  /** Samples ignored because a value the formula reads was NaN or missing. */
  get invalidSamples(): number {
    return this.invalid;
  }
  get finished(): boolean {
    return this.state.finished;
  }
  /**
   * Lower end of the robust satisfaction interval of ρ at the episode's first sample: bounds
   * that hold however the episode continues (or if it ends now). O(1) once the first sample's
   * bounded parts are decided; before that, computed from the kept prefix on each new sample.
   */
  get low(): number {
    if (this.usePrefixBounds()) return this.boundsLo;
    return lowOf(this.episode, this.state.finished);
  }
  /** Upper end: high < 0 means a violation is already certain. */
  get high(): number {
    if (this.usePrefixBounds()) return this.boundsHi;
    return highOf(this.episode, this.state.finished);
  }

  private usePrefixBounds(): boolean {
    if (!this.prefixActive || this.state.finished || this.prefix.n === 0) return false;
    // Bounds from a shorter prefix still hold for every continuation of it, the actual one
    // included, so recomputing them less often than every sample keeps them sound, only less tight.
    const n = this.prefix.n;
    if (this.boundsCacheN < 0 || n - this.boundsCacheN >= Math.max(1, n >> PREFIX_BOUNDS_LAG_SHIFT)) {
      const b = partialBounds(this.formula, this.prefix, 1);
      this.boundsLo = b.lo[0] ?? NaN;
      this.boundsHi = b.hi[0] ?? NaN;
      this.boundsCacheN = this.prefix.n;
    }
    return true;
  }

  private startDecided(): boolean {
    for (const tap of this.taps) if (tap.mode === 'first' && !tap.decided) return false;
    return true;
  }

  private keepPrefix(t: number, values: ArrayLike<number>): void {
    const p = this.prefix;
    if (p.n === p.times.length) {
      const times = new Float64Array(p.times.length * 2);
      times.set(p.times);
      const rows = new Float64Array(p.rows.length * 2);
      rows.set(p.rows);
      p.times = times;
      p.rows = rows;
    }
    p.times[p.n] = t;
    const o = p.n * p.width;
    for (let k = 0; k < p.width; k++) p.rows[o + k] = values[k] ?? NaN;
    p.n++;
  }
  /** ρ at the episode's first sample once finished (NaN before). */
  get final(): number {
    return this.state.finished ? this.low : NaN;
  }
  /**
   * Float64 slots held by the monitor's buffers (8 bytes each). Grows to the windows' high-water
   * mark (samples per window) and then stays: constant in episode length for past-time and
   * bounded formulas.
   */
  get bufferCapacity(): number {
    let total = this.state.times.capacity + this.prefix.times.length + this.prefix.rows.length;
    for (const node of this.order) total += node.bufferCapacity();
    return total;
  }
  /** Number of operators, for diagnostics. */
  get operatorCount(): number {
    return this.order.length - this.taps.length;
  }

  private run(): void {
    const s = this.state;
    const order = this.order;
    for (let k = 0; k < order.length; k++) (order[k] as StreamNode).update(s);
    const m = this.margin;
    if (this.marginSeen < m.count) this.consumeMargins();
  }

  // Per-sample path: doubles stay in locals and fields (no double-typed calls, which V8 boxes).
  private consumeMargins(): void {
    const m = this.margin;
    const times = this.state.times;
    const immediate = m.immediate;
    const from = immediate ? m.count - 1 : this.marginSeen;
    for (let j = from; j < m.count; j++) {
      const v = immediate ? m.last : m.out.get(j);
      this.current_ = v;
      if (v < this.episodeMin_) this.episodeMin_ = v;
      if (v < 0) {
        if (this.runSamples === 0) {
          this.runStartTime = times.get(j);
          if (this.firstViolationTime_ !== this.firstViolationTime_) this.firstViolationTime_ = this.runStartTime;
        }
        this.runSamples++;
      } else if (this.runSamples > 0) {
        this.runEndTime = times.get(j);
        this.recordRun();
        this.runSamples = 0;
      }
    }
    this.marginSeen = m.count;
    if (this.runSamples > 0) {
      this.runEndTime = times.get(m.count - 1);
      this.recordRun();
    }
    if (!immediate) m.out.dropBefore(m.count);
  }

  private recordRun(): void {
    const seconds = (this.runEndTime - this.runStartTime) / NS_PER_S;
    if (
      seconds > this.longest.seconds ||
      (seconds === this.longest.seconds && this.runSamples > this.longest.samples)
    ) {
      this.longest.seconds = seconds;
      this.longest.samples = this.runSamples;
    }
  }

  private dropOldTimes(): void {
    let lowest = this.marginSeen;
    for (let k = 0; k < this.order.length; k++) {
      const l = (this.order[k] as StreamNode).lowestTimeIndex();
      if (l < lowest) lowest = l;
    }
    this.state.times.dropBefore(lowest);
  }
}

/** Sum of the finite time bounds of every temporal operator in f. */
function boundSum(f: Formula): number {
  switch (f.kind) {
    case 'literal':
    case 'atom':
    case 'compare':
      return 0;
    case 'not':
      return boundSum(f.arg);
    case 'and':
    case 'or':
    case 'implies':
      return boundSum(f.left) + boundSum(f.right);
    case 'always':
    case 'eventually':
    case 'historically':
    case 'once':
      return (f.interval?.hi ?? 0) + boundSum(f.arg);
    case 'until':
    case 'since':
      return (f.interval?.hi ?? 0) + boundSum(f.left) + boundSum(f.right);
  }
}

function lowOf(e: EpisodeTree, finished: boolean): number {
  switch (e.kind) {
    case 'tap': {
      const t = e.tap;
      if (t.mode === 'first') return t.decided ? t.value : -Infinity;
      return finished || t.mode === 'max' ? t.value : -Infinity;
    }
    case 'not':
      return -highOf(e.arg, finished);
    case 'and':
      return Math.min(lowOf(e.left, finished), lowOf(e.right, finished));
    case 'or':
      return Math.max(lowOf(e.left, finished), lowOf(e.right, finished));
    case 'implies':
      return Math.max(-highOf(e.left, finished), lowOf(e.right, finished));
  }
}

function highOf(e: EpisodeTree, finished: boolean): number {
  switch (e.kind) {
    case 'tap': {
      const t = e.tap;
      if (t.mode === 'first') return t.decided ? t.value : Infinity;
      return finished || t.mode === 'min' ? t.value : Infinity;
    }
    case 'not':
      return -lowOf(e.arg, finished);
    case 'and':
      return Math.min(highOf(e.left, finished), highOf(e.right, finished));
    case 'or':
      return Math.max(highOf(e.left, finished), highOf(e.right, finished));
    case 'implies':
      return Math.max(-lowOf(e.left, finished), highOf(e.right, finished));
  }
}
