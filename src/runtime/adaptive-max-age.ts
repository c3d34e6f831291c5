/**
 * The max-age floor of `run` while it runs (issue 14 item 13). The start-up measurement (1 s of
 * reads) cannot foresee load that arrives later: a read that stalls past the derived floor holds
 * the arm although nothing is wrong. So the floor follows the read cycle measured during the run —
 * a high quantile of the recent reads, with the same formula as at start-up — between two bounds:
 * never below the start-up floor, never above a hard ceiling (the safety bound: a signal that truly
 * stops is caught as stale within the ceiling, whatever the reads did before). It rises at once and
 * comes down only when the reads want a fifth less (hysteresis). Pure: the durations
 * come in from the caller; nothing here reads a clock.
 */

/** The floor comes down only once the reads want at most this fraction of it. */
const LOWER_BELOW = 0.8;

export interface AdaptiveMaxAgeOptions {
  /** Control steps per second (the period is part of a sample's worst age). */
  readonly rateHz: number;
  /** The floor derived at start-up (s): the floor never goes below it. */
  readonly startFloorS: number;
  /** Hard upper bound (s) of the floor, the safety bound. Below the start-up floor: no adaptation. */
  readonly ceilingS: number;
  /** How many recent reads the quantile is taken over (default 200: 2 s at 100 Hz). */
  readonly window?: number;
  /**
   * Which quantile of the recent reads (default 1: the slowest, as at start-up — a one-off stall
   * raises the floor for one window; 0.99 would ignore it and hold on the next such stall).
   */
  readonly quantile?: number;
  /** The floor is this × (period + quantile read), as at start-up (default 2). */
  readonly factor?: number;
  /** Floors are rounded up to a multiple of this (s), so small jitter does not change them (default 0.005). */
  readonly stepS?: number;
}

/** A new floor (the caller derives the watchdog from it as at start-up). */
export interface MaxAgeChange {
  readonly floorS: number;
  /** The quantile read duration (s) it was derived from. */
  readonly readS: number;
  /** The floor was capped at the ceiling (the reads would want more). */
  readonly capped: boolean;
}

export class AdaptiveMaxAge {
  private readonly reads: Float64Array;
  private readonly scratch: Float64Array;
  private count = 0;
  private next = 0;
  private current: number;
  private readonly period: number;
  private readonly quantile: number;
  private readonly factor: number;
  private readonly step: number;

  constructor(private readonly o: AdaptiveMaxAgeOptions) {
    const window = o.window ?? 200;
    if (!(Number.isInteger(window) && window > 0))
      throw new RangeError(`window: expected a positive integer, got ${window}`);
    if (!(o.rateHz > 0)) throw new RangeError(`rateHz: expected > 0, got ${o.rateHz}`);
    this.reads = new Float64Array(window);
    this.scratch = new Float64Array(window);
    this.period = 1 / o.rateHz;
    this.quantile = o.quantile ?? 1;
    this.factor = o.factor ?? 2;
    this.step = o.stepS ?? 0.005;
    this.current = o.startFloorS;
  }

  get startFloorS(): number {
    return this.o.startFloorS;
  }
  get ceilingS(): number {
    return this.o.ceilingS;
  }

  /** The floor in force (s). */
  get floorS(): number {
    return this.current;
  }

  /**
   * One completed read took `durationS`. Returns the new floor when it changed, else undefined.
   * A non-finite or negative duration is ignored (it says nothing about the cycle).
   */
  observe(durationS: number): MaxAgeChange | undefined {
    if (!(durationS >= 0) || !Number.isFinite(durationS)) return undefined;
    this.reads[this.next] = durationS;
    this.next = (this.next + 1) % this.reads.length;
    if (this.count < this.reads.length) this.count++;
    const q = this.quantileRead();
    const wanted = Math.ceil((this.factor * (this.period + q)) / this.step - 1e-9) * this.step;
    const capped = wanted > this.o.ceilingS;
    const floor = Math.max(this.o.startFloorS, Math.min(this.o.ceilingS, wanted));
    // Up at once (a slower cycle must not hold the arm); down only by a fifth or more, so a load
    // that comes and goes does not change the limits (and the log) on every few reads.
    if (floor === this.current || (floor < this.current && floor > LOWER_BELOW * this.current)) return undefined;
    this.current = floor;
    return { floorS: floor, readS: q, capped };
  }

  /** The nearest-rank quantile of the reads in the window (sorted in a preallocated copy). */
  /** Called on every control-loop read: no allocation (no subarray views), the maximum without sorting. */
  private quantileRead(): number {
    const n = this.count;
    const reads = this.reads;
    if (this.quantile >= 1) {
      let max = -Infinity;
      for (let i = 0; i < n; i++) if (reads[i]! > max) max = reads[i]!;
      return max;
    }
    // The unfilled tail sorts after every read, so rank k of the whole array is rank k of the reads.
    const s = this.scratch;
    for (let i = 0; i < s.length; i++) s[i] = i < n ? reads[i]! : Infinity;
    s.sort();
    const rank = Math.min(n, Math.max(1, Math.ceil(this.quantile * n)));
    return s[rank - 1]!;
  }
}
