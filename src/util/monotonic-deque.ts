import { Float64Ring } from './ring-buffer.js';

/**
 * Sliding-window minimum (or maximum) over timestamped values in amortised O(1) per push
 * (Lemire's monotonic wedge). Values are pushed in time order; `evictBefore(t)` drops entries that
 * are superseded for windows starting at or after t.
 */
export class MonotonicDeque {
  private readonly times = new Float64Ring();
  private readonly values = new Float64Ring();
  /** `kind: 'min'` keeps the window minimum at the front; 'max' the maximum. */
  constructor(readonly kind: 'min' | 'max') {}

  get length(): number {
    return this.values.length;
  }
  push(t: number, v: number): void {
    const min = this.kind === 'min';
    while (this.values.length > 0) {
      const back = this.values.back();
      if (min ? back >= v : back <= v) {
        this.values.popBack();
        this.times.popBack();
      } else break;
    }
    this.times.pushBack(t);
    this.values.pushBack(v);
  }
  /** Drop front entries whose time is < t. */
  evictBefore(t: number): void {
    while (this.times.length > 0 && this.times.front() < t) {
      this.times.popFront();
      this.values.popFront();
    }
  }
  /** Window extreme, or the identity (+∞ for min, −∞ for max) when empty. */
  peek(): number {
    if (this.values.length === 0) return this.kind === 'min' ? Infinity : -Infinity;
    return this.values.front();
  }
  peekTime(): number {
    return this.times.length === 0 ? NaN : this.times.front();
  }
  clear(): void {
    this.times.clear();
    this.values.clear();
  }
}
