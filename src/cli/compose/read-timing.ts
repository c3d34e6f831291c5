/**
 * Timing defaults derived from the measured read cycle (issue 14 item 13). On a loaded host or a
 * slow USB adapter a full-state read of the six servos can take tens of milliseconds, and the SPEC
 * max ages (0.05 s for torque) then hold the arm on samples that are merely as old as the read
 * cycle makes them. `run` measures the cycle at start-up and raises the max ages to cover it.
 */

/** How many back-to-back state reads the start-up measurement takes (after the warm-up reads). */
export const TIMING_SAMPLE_READS = 20;
/** The measurement goes on for at least this long (s), so periodic load on the host shows in it. */
export const TIMING_MIN_WINDOW_S = 1;
/** Reads done and discarded first: the first ones include one-off costs (code warm-up, port buffers). */
export const TIMING_WARMUP_READS = 5;
/** A derived floor above this (s) is reported as a warning: staleness is then caught late. */
export const SLOW_FLOOR_S = 0.25;
/**
 * Default hard ceiling (s) of the max-age floor while it follows the read cycle (--max-age-ceiling):
 * the safety bound — a signal that stops is held as stale within it, however slow the reads were.
 */
export const DEFAULT_MAX_AGE_CEILING_S = 0.25;

export interface ReadCycle {
  /** Read durations (s), in the order measured. */
  readonly durations: readonly number[];
  readonly median: number;
  readonly max: number;
}

export function summariseReads(durations: readonly number[]): ReadCycle {
  const sorted = [...durations].sort((a, b) => a - b);
  const n = sorted.length;
  const median = n === 0 ? NaN : n % 2 === 1 ? sorted[(n - 1) / 2]! : (sorted[n / 2 - 1]! + sorted[n / 2]!) / 2;
  return { durations, median, max: n === 0 ? NaN : sorted[n - 1]! };
}

/**
 * The oldest a sample can be at a control step when reads run back to back from the loop's ticks:
 * a read is started on the first tick after the previous one settled (up to one period later) and
 * takes up to the slowest measured read — so the sample the step sees is at most one period plus
 * one read old. The floor is twice that, for scheduling jitter on a busy host.
 */
export function maxAgeFloor(cycle: ReadCycle, rateHz: number): number {
  return 2 * (1 / rateHz + cycle.max);
}

/** The source watchdog by default: twice the age floor, at least the pipeline's 0.1 s. */
export function defaultWatchdog(floor: number): number {
  return Math.max(0.1, 2 * floor);
}
