/**
 * Gate statistics of one episode (design §8: holds, filtered chunks, mean modification, time held),
 * folded from its gate and executed-chunk records in file order.
 */
import type { ExecutedChunkRecord, GateRecord } from '../episode/types.js';
import type { GateStats, GateSummary } from './build-types.js';

export class GateAccumulator {
  private holds = 0;
  private transitions = 0;
  private faults = 0;
  private executed = 0;
  private filtered = 0;
  private held = 0;
  private modificationSum = 0;
  private timeHeld = 0;
  /** Time the current hold began; undefined when not holding. */
  private holdSince: number | undefined;
  private first = Infinity;
  private last = -Infinity;
  private records = 0;

  /** `t0`: the episode start, so a gate whose first transition leaves `hold` counts from there. */
  constructor(private readonly t0: number) {}

  gate(r: GateRecord): void {
    this.see(r.t);
    if (r.kind === 'fault') {
      this.faults++;
      return;
    }
    if (r.kind !== 'transition') return;
    this.transitions++;
    if (r.from === 'hold' && this.holdSince === undefined && this.transitions === 1)
      this.holdSince = Math.min(this.t0, r.t);
    if (r.to === 'hold' && this.holdSince === undefined) {
      this.holds++;
      this.holdSince = r.t;
    } else if (r.to !== 'hold' && this.holdSince !== undefined) {
      this.timeHeld += r.t - this.holdSince;
      this.holdSince = undefined;
    }
  }

  chunk(r: ExecutedChunkRecord): void {
    this.see(r.t);
    if (r.verdict === 'filtered') {
      this.filtered++;
      this.modificationSum += r.modification;
    } else if (r.verdict === 'held') {
      this.held++;
    } else {
      this.executed++;
    }
  }

  private see(t: number): void {
    this.records++;
    if (t < this.first) this.first = t;
    if (t > this.last) this.last = t;
  }

  /** Undefined when the episode had no gate or chunk records. `tEnd`: the episode's last time. */
  finish(tEnd: number): GateStats | undefined {
    if (this.records === 0) return undefined;
    const end = Math.max(tEnd, this.last);
    const open = this.holdSince === undefined ? 0 : end - this.holdSince;
    return {
      holds: this.holds,
      transitions: this.transitions,
      faults: this.faults,
      executedChunks: this.executed,
      filteredChunks: this.filtered,
      heldChunks: this.held,
      modificationSum: this.modificationSum,
      timeHeld: this.timeHeld + open,
      span: end - Math.min(this.t0, this.first),
    };
  }
}

/** Sum of per-episode gate statistics. */
export function summariseGate(stats: readonly (GateStats | undefined)[]): GateSummary {
  let episodes = 0;
  let withHold = 0;
  let span = 0;
  const s = {
    holds: 0,
    transitions: 0,
    faults: 0,
    executedChunks: 0,
    filteredChunks: 0,
    heldChunks: 0,
    modificationSum: 0,
    timeHeld: 0,
  };
  for (const g of stats) {
    if (!g) continue;
    episodes++;
    if (g.holds > 0) withHold++;
    span += g.span;
    s.holds += g.holds;
    s.transitions += g.transitions;
    s.faults += g.faults;
    s.executedChunks += g.executedChunks;
    s.filteredChunks += g.filteredChunks;
    s.heldChunks += g.heldChunks;
    s.modificationSum += g.modificationSum;
    s.timeHeld += g.timeHeld;
  }
  return {
    episodesWithRecords: episodes,
    holds: s.holds,
    episodesWithHold: withHold,
    transitions: s.transitions,
    faults: s.faults,
    executedChunks: s.executedChunks,
    filteredChunks: s.filteredChunks,
    heldChunks: s.heldChunks,
    meanModification: s.filteredChunks === 0 ? NaN : s.modificationSum / s.filteredChunks,
    timeHeld: s.timeHeld,
    timeHeldFraction: span > 0 ? s.timeHeld / span : NaN,
  };
}
