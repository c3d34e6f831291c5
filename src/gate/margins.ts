/**
 * What the gate needs from the clause monitors, and nothing more: per active clause, normalised
 * robustness (ρ/|τ|, dimensionless, > 0 satisfied) and its soft band ε (seeds/002 §IV-A). The gate
 * never imports the STL engine; the runtime's MonitorBank implements this over OnlineMonitors.
 */
export interface ClauseMargins {
  /** Number of active clauses. */
  readonly count: number;
  /** Clause name, for causes and logs (not called on the per-sample path unless transitioning). */
  name(i: number): string;
  /** Normalised robustness of what is already final (past/current); < 0 means violated. */
  margin(i: number): number;
  /** Normalised lower bound of the robust satisfaction interval of the partial trace. */
  low(i: number): number;
  /** Normalised upper bound; < 0 means a violation is already certain. */
  high(i: number): number;
  /** Soft band ε > 0 (normalised): margin in [0, ε) is a warning. */
  epsilon(i: number): number;
}

/** A fixed set of margins held in arrays; used by tests, replays and simple integrations. */
export class ArrayClauseMargins implements ClauseMargins {
  readonly margins: Float64Array;
  readonly lows: Float64Array;
  readonly highs: Float64Array;
  readonly epsilons: Float64Array;
  constructor(
    readonly names: readonly string[],
    epsilons: readonly number[] | number = 0.1,
  ) {
    const n = names.length;
    this.margins = new Float64Array(n).fill(1);
    this.lows = new Float64Array(n).fill(1);
    this.highs = new Float64Array(n).fill(1);
    this.epsilons = new Float64Array(n);
    for (let i = 0; i < n; i++) this.epsilons[i] = typeof epsilons === 'number' ? epsilons : (epsilons[i] ?? 0.1);
  }
  get count(): number {
    return this.names.length;
  }
  name(i: number): string {
    return this.names[i] ?? `clause#${i}`;
  }
  margin(i: number): number {
    return this.margins[i] ?? NaN;
  }
  low(i: number): number {
    return this.lows[i] ?? NaN;
  }
  high(i: number): number {
    return this.highs[i] ?? NaN;
  }
  epsilon(i: number): number {
    return this.epsilons[i] ?? NaN;
  }
  /** Set a clause whose margin is final (low = high = margin). */
  setFinal(i: number, margin: number): void {
    this.margins[i] = margin;
    this.lows[i] = margin;
    this.highs[i] = margin;
  }
  setInterval(i: number, margin: number, low: number, high: number): void {
    this.margins[i] = margin;
    this.lows[i] = low;
    this.highs[i] = high;
  }
}

/** No clauses: a gate driven only by signals, faults and chunks. */
export const NO_CLAUSES: ClauseMargins = {
  count: 0,
  name: (i) => `clause#${i}`,
  margin: () => NaN,
  low: () => NaN,
  high: () => NaN,
  epsilon: () => NaN,
};
