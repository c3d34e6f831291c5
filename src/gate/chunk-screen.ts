/**
 * Checks of a parsed chunk against the arm and the stream (SPEC §7, §12): shape (H × n for this
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
}

export class ChunkScreen {
  private lastStamp = -Infinity;
  private readonly ids = new Set<string>();
  private readonly idRing: string[];
  private ringPos = 0;

  constructor(readonly config: ChunkScreenConfig) {
    if (config.qmin.length !== config.joints || config.qmax.length !== config.joints) {
      throw new RangeError(`joint limits must have ${config.joints} entries (qmin ${config.qmin.length}, qmax ${config.qmax.length})`);
    }
    this.idRing = new Array<string>(Math.max(1, config.idMemory)).fill('');
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
    if (!(c.dt >= cfg.minDt && c.dt <= cfg.maxDt)) return { code: 'malformed', field: 'dt', expected: `a step period in [${cfg.minDt}, ${cfg.maxDt}] s` };
    if (duplicate) return { code: 'duplicate-id', id: c.id };
    if (!Number.isFinite(c.stamp)) return { code: 'malformed', field: 'stamp', expected: 'a finite number (s)' };
    const age = now - c.stamp;
    if (!(age <= cfg.maxAge)) return { code: 'stale', age, maxAge: cfg.maxAge };
    if (-age > cfg.futureTolerance) return { code: 'from-future', ahead: -age, tolerance: cfg.futureTolerance };
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
    return null;
  }

  private remember(id: string): void {
    const evicted = this.idRing[this.ringPos];
    if (evicted) this.ids.delete(evicted);
    this.idRing[this.ringPos] = id;
    this.ringPos = (this.ringPos + 1) % this.idRing.length;
    this.ids.add(id);
  }
}
