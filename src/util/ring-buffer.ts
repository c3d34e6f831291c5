/** Double-ended queue over a power-of-two Float64Array; grows by doubling only when full (amortised O(1)). */
export class Float64Ring {
  private buf: Float64Array;
  private head = 0;
  private len = 0;
  constructor(capacity = 16) {
    let size = 2;
    while (size < capacity) size *= 2;
    this.buf = new Float64Array(size);
  }
  get length(): number {
    return this.len;
  }
  /** i-th element from the front (0 = oldest). Caller guarantees 0 <= i < length. */
  at(i: number): number {
    return this.buf[(this.head + i) & (this.buf.length - 1)] ?? NaN;
  }
  front(): number {
    return this.at(0);
  }
  back(): number {
    return this.at(this.len - 1);
  }
  pushBack(v: number): void {
    if (this.len === this.buf.length) this.grow();
    this.buf[(this.head + this.len) & (this.buf.length - 1)] = v;
    this.len++;
  }
  popFront(): number {
    const v = this.front();
    this.head = (this.head + 1) & (this.buf.length - 1);
    this.len--;
    return v;
  }
  popBack(): number {
    const v = this.back();
    this.len--;
    return v;
  }
  clear(): void {
    this.head = 0;
    this.len = 0;
  }
  private grow(): void {
    const next = new Float64Array(this.buf.length * 2);
    for (let i = 0; i < this.len; i++) next[i] = this.at(i);
    this.buf = next;
    this.head = 0;
  }
}
