/**
 * The worst unsafe episodes for robustness-trace plots, kept while streaming: only the current
 * candidates hold their (downsampled) ρ(t) traces. Unsafe successes rank before unsafe failures;
 * then deeper VSI, then lower normalised ρ. The K plotted are spread over policies and highlighted
 * clauses: the worst episode of each (policy, clause) pair first, in rank order, then the rest —
 * so ten episodes of one policy violating one clause do not hide every other failure. The pool
 * keeps DIVERSITY_POOL × K candidates.
 */
import { STEP_VIOLATING, type ClauseScore, type EpisodeScore } from '../safety/score-types.js';
import type { ClauseTracePlot, WorstEpisode } from './build-types.js';

/** Points kept per plotted trace (pairs of bucket min/max beyond this). */
export const PLOT_POINTS = 600;

interface Rank {
  success: boolean;
  vsi: number;
  normRho: number;
}

const norm = (c: ClauseScore): number => c.rho / (c.tau === 0 ? 1 : Math.abs(c.tau));

/** a is worse than b. */
function worse(a: Rank, b: Rank): boolean {
  if (a.success !== b.success) return a.success;
  if (a.vsi !== b.vsi) return a.vsi > b.vsi;
  return a.normRho < b.normRho;
}

/** The violated safe clause a plot highlights: deepest violation, then earliest. */
function highlightClause(score: EpisodeScore): ClauseScore | undefined {
  let best: ClauseScore | undefined;
  for (const c of score.clauses) {
    if (c.tier !== 'safe' || !c.applicable || !c.violatedByTrace) continue;
    if (
      !best ||
      c.depth > best.depth ||
      (c.depth === best.depth && (c.firstViolationTime ?? Infinity) < (best.firstViolationTime ?? Infinity))
    )
      best = c;
  }
  return best;
}

/** Downsample to about PLOT_POINTS points, keeping each bucket's min and max in time order. */
export function downsample(
  times: ArrayLike<number>,
  values: ArrayLike<number>,
  maxPoints = PLOT_POINTS,
): { t: Float64Array; value: Float64Array } {
  const n = values.length;
  if (n <= maxPoints) return { t: Float64Array.from(times), value: Float64Array.from(values) };
  const buckets = Math.max(1, Math.floor(maxPoints / 2));
  const t: number[] = [];
  const v: number[] = [];
  for (let b = 0; b < buckets; b++) {
    const from = Math.floor((b * n) / buckets);
    const to = Math.floor(((b + 1) * n) / buckets);
    let lo = from;
    let hi = from;
    for (let i = from; i < to; i++) {
      const x = values[i]!;
      if (Number.isNaN(x)) continue;
      if (!(values[lo]! <= x)) lo = i;
      if (!(values[hi]! >= x)) hi = i;
    }
    for (const i of lo === hi ? [lo] : lo < hi ? [lo, hi] : [hi, lo]) {
      t.push(times[i]!);
      v.push(values[i]!);
    }
  }
  return { t: Float64Array.from(t), value: Float64Array.from(v) };
}

/** Candidates kept per plotted episode, so the pick can spread over policies and clauses. */
export const DIVERSITY_POOL = 4;

export class WorstTracker {
  private readonly kept: { rank: Rank; episode: WorstEpisode }[] = [];
  private readonly pool: number;

  constructor(private readonly k: number) {
    this.pool = k * DIVERSITY_POOL;
  }

  /** Offer a scored episode (scored with keepRho) and its sample times. */
  offer(score: EpisodeScore, times: Float64Array, robotId: string): void {
    if (this.k <= 0 || score.safe || !score.unsafeByTrace) return;
    const clause = highlightClause(score);
    if (!clause) return;
    const rank: Rank = { success: score.success, vsi: score.vsi, normRho: norm(clause) };
    if (this.kept.length >= this.pool && !worse(rank, this.kept[this.kept.length - 1]!.rank)) return;
    const episode = this.snapshot(score, clause, times, robotId);
    let at = this.kept.findIndex((e) => worse(rank, e.rank));
    if (at < 0) at = this.kept.length;
    this.kept.splice(at, 0, { rank, episode });
    if (this.kept.length > this.pool) this.kept.pop();
  }

  /** The K to plot, in rank order: one per (policy, clause) pair first, then the next worst. */
  worst(): WorstEpisode[] {
    const seen = new Set<string>();
    const first: number[] = [];
    const rest: number[] = [];
    this.kept.forEach((e, i) => {
      const key = `${e.episode.policy ?? ''}\u0000${e.episode.clauseId}`;
      if (seen.has(key)) rest.push(i);
      else {
        seen.add(key);
        first.push(i);
      }
    });
    return [...first, ...rest]
      .slice(0, this.k)
      .sort((a, b) => a - b)
      .map((i) => this.kept[i]!.episode);
  }

  private snapshot(score: EpisodeScore, clause: ClauseScore, times: Float64Array, robotId: string): WorstEpisode {
    const traces: ClauseTracePlot[] = [];
    for (const c of score.clauses) {
      // Figure 5 plots the safe tier; a report-only diagnostic only when it fired.
      if (!c.applicable || !c.rhoTrace || (c.tier !== 'safe' && !c.violatedByTrace)) continue;
      const scale = c.tau === 0 ? 1 : Math.abs(c.tau);
      const normalised = c.rhoTrace.map((r) => r / scale);
      traces.push({
        clauseId: c.clauseId,
        tier: c.tier,
        tau: c.tau,
        violated: c.violatedByTrace,
        ...downsample(times, normalised),
      });
    }
    const flags = clause.stepFlags;
    let step = -1;
    if (flags) for (let i = 0; i < flags.length && step < 0; i++) if (flags[i]! & STEP_VIOLATING) step = i;
    const n = times.length;
    return {
      episodeId: score.episodeId,
      ...(score.file === undefined ? {} : { file: score.file }),
      robotId,
      ...(score.task === undefined ? {} : { task: score.task }),
      ...(score.policy === undefined ? {} : { policy: score.policy }),
      success: score.success,
      vsi: score.vsi,
      clauseId: clause.clauseId,
      rho: clause.rho,
      tau: clause.tau,
      violationTime: clause.firstViolationTime ?? NaN,
      violationStep: step,
      violatedClauses: score.clauses.filter((c) => c.applicable && c.violated).map((c) => c.clauseId),
      t0: n > 0 ? times[0]! : 0,
      duration: score.duration,
      traces,
    };
  }
}
