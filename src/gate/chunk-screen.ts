/**
 * Checks of a parsed chunk against the arm and the stream (design §7, §12): shape (H × n for this
 * arm), finite targets within joint limits, age, duplicate ids and stamp order. A chunk that fails
 * any of them is rejected with the reason and never reaches the filter or the arm.
 */
import type { ChunkRejection, GateChunk } from './chunk.js';

export interface ChunkScreenConfig {
  /** The arm's joint count n. */
  readonly joints: number;
  readonly maxHorizon: number;
  /** Joint limits (rad), length n. */
  readonly qmin: readonly number[];
  readonly qmax: readonly number[];
  /** A chunk older than this (now − stamp, s) is stale. */
  readonly maxAge: number;
  /** A stamp this far ahead of `now` (s) is refused (clock disagreement). */
  readonly futureTolerance: number;
  /** Accepted step period range (s). */
  readonly minDt: number;
  readonly maxDt: number;
  /** How many recent ids are remembered for duplicate detection. */
  readonly idMemory: number;
  /**
   * Stamps are on the policy's own clock (a policy on another machine), not the gate's. Then a
   * chunk's age is its transit delay beyond the fastest of the recent chunks: receipt − stamp minus
   * the clock offset, estimated as the smallest receipt − stamp over the last `offsetWindow`
   * accepted chunks (the offset plus the quickest transit). `maxAge` is the validity window
   * relative to receipt; `futureTolerance` does not apply (there is no common clock to be ahead
   * of). A policy whose clock restarts (stamps more than `clockResetS` back) starts a new estimate.
   */
  readonly policyClock?: boolean;
  /** Accepted chunks the offset estimate spans (default 64). */
  readonly offsetWindow?: number;
  /** A stamp this far (s) before the last accepted one is a restarted policy clock (default 1). */
  readonly clockResetS?: number;
}

export class ChunkScreen {
  private lastStamp = -Infinity;
  private readonly ids = new Set<string>();
  private readonly idRing: string[];
  private ringPos = 0;
  /** receipt − stamp of the last accepted chunks (policy clock); NaN = empty slot. */
  private readonly delays: Float64Array;
  private delayPos = 0;
  private offset = NaN;
  private resets = 0;

  constructor(readonly config: ChunkScreenConfig) {
    if (config.qmin.length !== config.joints || config.qmax.length !== config.joints) {
      throw new RangeError(
        `joint limits must have ${config.joints} entries (qmin ${config.qmin.length}, qmax ${config.qmax.length})`,
      );
    }
    this.idRing = new Array<string>(Math.max(1, config.idMemory)).fill('');
    this.delays = new Float64Array(config.policyClock ? Math.max(1, config.offsetWindow ?? 64) : 0).fill(NaN);
  }

  /**
   * The policy clock's offset estimate (s): receipt time on the gate's clock minus the stamp, at
   * its smallest over the recent accepted chunks. NaN before the first chunk or on a shared clock.
   */
  get clockOffset(): number {
    return this.offset;
  }
  /** How many times the policy's clock restarted (stamps jumped back). */
  get clockResets(): number {
    return this.resets;
  }

  /** null if the chunk may go on to the filter; otherwise why not. Every well-formed id is remembered. */
  check(c: GateChunk, now: number): ChunkRejection | null {
    const cfg = this.config;
    const duplicate = this.ids.has(c.id);
    if (!duplicate) this.remember(c.id);
    if (c.joints !== cfg.joints) return { code: 'mis-sized', field: 'joints', expected: cfg.joints, got: c.joints };
    if (!(c.horizon >= 1 && c.horizon <= cfg.maxHorizon && Number.isInteger(c.horizon))) {
      return { code: 'mis-sized', field: 'horizon', expected: cfg.maxHorizon, got: c.horizon };
    }
    if (c.targets.length !== c.horizon * c.joints) {
      return { code: 'mis-sized', field: 'targets', expected: c.horizon * c.joints, got: c.targets.length };
    }
    if (!(c.dt >= cfg.minDt && c.dt <= cfg.maxDt))
      return { code: 'malformed', field: 'dt', expected: `a step period in [${cfg.minDt}, ${cfg.maxDt}] s` };
    if (duplicate) return { code: 'duplicate-id', id: c.id };
    if (!Number.isFinite(c.stamp)) return { code: 'malformed', field: 'stamp', expected: 'a finite number (s)' };
    const delay = now - c.stamp;
    if (cfg.policyClock) {
      if (c.stamp < this.lastStamp - (cfg.clockResetS ?? 1)) this.resetClock();
      // The first chunk defines the offset (age 0); a faster one lowers it (its age is 0 too).
      const age = this.offset === this.offset ? Math.max(0, delay - this.offset) : 0;
      if (!(age <= cfg.maxAge)) return { code: 'stale', age, maxAge: cfg.maxAge };
    } else {
      if (!(delay <= cfg.maxAge)) return { code: 'stale', age: delay, maxAge: cfg.maxAge };
      if (-delay > cfg.futureTolerance) return { code: 'from-future', ahead: -delay, tolerance: cfg.futureTolerance };
    }
    if (!(c.stamp > this.lastStamp)) return { code: 'out-of-order', stamp: c.stamp, lastStamp: this.lastStamp };
    const n = cfg.joints;
    for (let k = 0; k < c.horizon; k++) {
      for (let j = 0; j < n; j++) {
        const x = c.targets[k * n + j] ?? NaN;
        if (!Number.isFinite(x)) return { code: 'non-finite', step: k, joint: j };
        const lo = cfg.qmin[j] ?? NaN;
        const hi = cfg.qmax[j] ?? NaN;
        if (!(x >= lo && x <= hi)) return { code: 'beyond-limits', step: k, joint: j, value: x, min: lo, max: hi };
      }
    }
    this.lastStamp = c.stamp;
    if (cfg.policyClock) this.observeDelay(delay);
    return null;
  }

  private observeDelay(delay: number): void {
    const d = this.delays;
    d[this.delayPos] = delay;
    this.delayPos = (this.delayPos + 1) % d.length;
    let min = Infinity;
    for (let i = 0; i < d.length; i++) if (d[i]! < min) min = d[i]!;
    this.offset = min;
  }

  private resetClock(): void {
    this.delays.fill(NaN);
    this.delayPos = 0;
    this.offset = NaN;
    this.lastStamp = -Infinity;
    this.resets++;
  }

  private remember(id: string): void {
    const evicted = this.idRing[this.ringPos];
    if (evicted) this.ids.delete(evicted);
    this.idRing[this.ringPos] = id;
    this.ringPos = (this.ringPos + 1) % this.idRing.length;
    this.ids.add(id);
  }
}
