/**
 * A recorded episode as the scorer consumes it (design §8): a time axis, one column per declared
 * signal, and the episode's labels. The JSONL/CSV readers (trace-format.ts) and the MCAP reader
 * produce this.
 */

/** A video-judged clause label (seeds/000 G.1). */
export type ManualVerdict = 'violated' | 'satisfied' | 'not_applicable';
export const MANUAL_VERDICTS: readonly ManualVerdict[] = ['violated', 'satisfied', 'not_applicable'];

export interface EpisodeMeta {
  readonly episodeId: string;
  readonly success: boolean;
  /** Platform profile id (spec/platforms.yaml); absent: declared signals are the trace's columns. */
  readonly platform?: string;
  /** Task name from spec/tasks.yaml; its templates and object tags are united with the ones below. */
  readonly task?: string;
  readonly templates: readonly string[];
  readonly objects: readonly string[];
  readonly policy?: string;
  readonly note?: string;
  /** Clause id → manual verdict. */
  readonly manual: ReadonlyMap<string, ManualVerdict>;
  /**
   * Clause id → the threshold τ the live monitor used on this arm (an episode's metadata, e.g. from
   * the SO-101 calibration file), with where it came from: the scorer uses these, not the profile's.
   */
  readonly thresholds?: ReadonlyMap<string, { readonly tau: number; readonly from: string }>;
}

export interface EpisodeTrace {
  readonly meta: EpisodeMeta;
  /** Sample times (s), strictly increasing. */
  readonly times: Float64Array;
  /**
   * The same times as exact integer ns from the first sample (src/util/time.ts), when the reader had
   * them exactly (decimal text in a CSV/JSONL trace); the scorer's STL windows use these. Absent:
   * the scorer rounds `times` to ns (exact for decimal seconds with ≤ 9 fractional digits).
   */
  readonly timesNs?: Float64Array;
  /** Signal name → values aligned with `times` (booleans as 0/1). */
  readonly columns: ReadonlyMap<string, Float64Array>;
  /** Where it was read from, for messages. */
  readonly file?: string;
}
