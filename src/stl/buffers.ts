/**
 * Buffers for the online engine. All grow by doubling only when full, so a monitor reaches a
 * steady size set by its windows and then never allocates again.
 */

/** Values addressed by absolute sample index; indices below `base` have been dropped. */
export class IndexedRing {
  private buf: Float64Array;
  private mask: number;
  private base = 0;
  private end = 0;
  constructor(capacity = 16) {
    let size = 2;
    while (size < capacity) size *= 2;
    this.buf = new Float64Array(size);
    this.mask = size - 1;
  }
  get length(): number {
    return this.end;
  }
  push(v: number): void {
    this.staged = v;
    this.pushStaged();
  }
  /** Value for `pushStaged` (a field, so hot paths pass no double through a call). */
  staged = NaN;
  pushStaged(): void {
    if (this.end - this.base > this.mask) this.grow();
    this.buf[this.end & this.mask] = this.staged;
    this.end++;
  }
  /** Caller guarantees base <= j < length. */
  get(j: number): number {
    return this.buf[j & this.mask] as number;
  }
  dropBefore(k: number): void {
    if (k > this.base) this.base = k < this.end ? k : this.end;
  }
  clear(): void {
    this.base = 0;
    this.end = 0;
  }
  get capacity(): number {
    return this.buf.length;
  }
  /** Make room for `n` values up front (rounded up to a power of two). */
  reserve(n: number): void {
    while (this.buf.length < n) this.grow();
  }
  private grow(): void {
    const next = new Float64Array(this.buf.length * 2);
    const mask = next.length - 1;
    for (let j = this.base; j < this.end; j++) next[j & mask] = this.buf[j & this.mask] as number;
    this.buf = next;
    this.mask = mask;
  }
}

/**
 * FIFO of (index, A, B) with an associative aggregate over its contents in amortised O(1)
 * ("two stacks" sliding-window aggregation). Used for until/since, whose segment summary is
 * A = min φ over the segment and
 *   until: B = max_j min(ψ_j, min φ over the segment's samples before j)
 *   since: B = max_j min(ψ_j, min φ over the segment's samples after j)
 * Combining an earlier segment X with a later Y:
 *   until: (min(Ax, Ay), max(Bx, min(Ax, By)))     since: (min(Ax, Ay), max(min(Bx, Ay), By))
 */
export class SegmentQueue {
  private cap = 16;
  private backIdx: Float64Array = new Float64Array(this.cap);
  private backA: Float64Array = new Float64Array(this.cap);
  private backB: Float64Array = new Float64Array(this.cap);
  private nb = 0;
  private aggBackA = Infinity;
  private aggBackB = -Infinity;
  private frontIdx: Float64Array = new Float64Array(this.cap);
  private frontA: Float64Array = new Float64Array(this.cap);
  private frontB: Float64Array = new Float64Array(this.cap);
  private nf = 0;
  constructor(private readonly until: boolean) {}

  get length(): number {
    return this.nb + this.nf;
  }
  /** Float64 slots held. */
  get capacity(): number {
    return this.cap * 6;
  }
  /** Make room for `n` entries up front. */
  reserve(n: number): void {
    while (this.cap < n) this.grow();
  }

  /** Append sample `index` with A = a.get(index), B = b.get(index). */
  pushFrom(index: number, aValues: IndexedRing, bValues: IndexedRing): void {
    const a = aValues.get(index);
    const b = bValues.get(index);
    if (this.nb === this.cap || this.nf === this.cap) this.grow();
    const k = this.nb++;
    this.backIdx[k] = index;
    this.backA[k] = a;
    this.backB[k] = b;
    const ax = this.aggBackA;
    const bx = this.aggBackB;
    this.aggBackA = ax < a ? ax : a;
    this.aggBackB = this.until ? Math.max(bx, Math.min(ax, b)) : Math.max(Math.min(bx, a), b);
  }

  /** Drop entries with index < k from the front. */
  evictBefore(k: number): void {
    for (;;) {
      if (this.nf === 0) {
        if (this.nb === 0) return;
        this.flip();
      }
      if ((this.frontIdx[this.nf - 1] as number) >= k) return;
      this.nf--;
    }
  }

  /** B of the whole queue (−∞ when empty), set by `aggregate()`. */
  aggregateB = -Infinity;

  // Result in a field rather than a return value: V8 boxes doubles returned from calls it does not inline.
  aggregate(): void {
    if (this.nf === 0) {
      this.aggregateB = this.aggBackB;
      return;
    }
    const ax = this.frontA[this.nf - 1] as number;
    const bx = this.frontB[this.nf - 1] as number;
    const ay = this.aggBackA;
    const by = this.aggBackB;
    this.aggregateB = this.until ? Math.max(bx, Math.min(ax, by)) : Math.max(Math.min(bx, ay), by);
  }

  clear(): void {
    this.nb = 0;
    this.nf = 0;
    this.aggBackA = Infinity;
    this.aggBackB = -Infinity;
  }

  /** Move the back stack onto the (empty) front stack, storing suffix aggregates. */
  private flip(): void {
    let accA = Infinity;
    let accB = -Infinity;
    for (let k = this.nb - 1; k >= 0; k--) {
      const a = this.backA[k] as number;
      const b = this.backB[k] as number;
      // element k is earlier than everything accumulated so far
      accB = this.until ? Math.max(b, Math.min(a, accB)) : Math.max(Math.min(b, accA), accB);
      accA = a < accA ? a : accA;
      this.frontIdx[this.nf] = this.backIdx[k] as number;
      this.frontA[this.nf] = accA;
      this.frontB[this.nf] = accB;
      this.nf++;
    }
    this.nb = 0;
    this.aggBackA = Infinity;
    this.aggBackB = -Infinity;
  }

  private grow(): void {
    const cap = this.cap * 2;
    const copy = (src: Float64Array): Float64Array => {
      const next = new Float64Array(cap);
      next.set(src);
      return next;
    };
    this.backIdx = copy(this.backIdx);
    this.backA = copy(this.backA);
    this.backB = copy(this.backB);
    this.frontIdx = copy(this.frontIdx);
    this.frontA = copy(this.frontA);
    this.frontB = copy(this.frontB);
    this.cap = cap;
  }
}

/**
 * Sliding-window minimum or maximum over samples addressed by index (Lemire's monotonic wedge),
 * amortised O(1). Like util's MonotonicDeque, but values are read from an IndexedRing and the
 * result is left in the `extreme` field, so no double crosses a call boundary on the hot path.
 */
export class IndexDeque {
  private idx: Float64Array = new Float64Array(16);
  private val: Float64Array = new Float64Array(16);
  private mask = 15;
  private head = 0;
  private len = 0;
  /** Window minimum (or maximum) after the last `evictBefore`; the identity when empty. */
  extreme = NaN; // initialised as a double: V8 then stores it unboxed (no allocation per store)
  private readonly identity: number;
  constructor(private readonly isMin: boolean) {
    this.identity = isMin ? Infinity : -Infinity;
    this.extreme = this.identity;
  }
  get length(): number {
    return this.len;
  }
  /** Float64 slots held. */
  get capacity(): number {
    return this.idx.length * 2;
  }
  /** Make room for `n` entries up front. */
  reserve(n: number): void {
    while (this.idx.length < n) this.grow();
  }
  pushFrom(index: number, values: IndexedRing): void {
    const v = values.get(index);
    while (this.len > 0) {
      const back = this.val[(this.head + this.len - 1) & this.mask] as number;
      if (this.isMin ? back >= v : back <= v) this.len--;
      else break;
    }
    if (this.len > this.mask) this.grow();
    const k = (this.head + this.len) & this.mask;
    this.idx[k] = index;
    this.val[k] = v;
    this.len++;
  }
  /** Drop entries with index < k and update `extreme`. */
  evictBefore(k: number): void {
    while (this.len > 0 && (this.idx[this.head] as number) < k) {
      this.head = (this.head + 1) & this.mask;
      this.len--;
    }
    this.extreme = this.len > 0 ? (this.val[this.head] as number) : this.identity;
  }
  clear(): void {
    this.head = 0;
    this.len = 0;
    this.extreme = this.identity;
  }
  private grow(): void {
    const size = this.idx.length * 2;
    const idx = new Float64Array(size);
    const val = new Float64Array(size);
    for (let j = 0; j < this.len; j++) {
      idx[j] = this.idx[(this.head + j) & this.mask] as number;
      val[j] = this.val[(this.head + j) & this.mask] as number;
    }
    this.idx = idx;
    this.val = val;
    this.mask = size - 1;
    this.head = 0;
  }
}
