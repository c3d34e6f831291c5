/**
 * Threshold-sensitivity re-scoring (seeds/000 A.6, Table 11): the same episodes, registry and
 * success labels re-scored with some clauses on an alternate tier, re-evaluated from the stored
 * traces (general for any formula, not only `x < τ`).
 */
import type { SensitivityVariant } from '../../safety/clause.js';
import type { EpisodeScorer } from '../../safety/score-episode.js';
import type { EpisodeScore } from '../../safety/score-types.js';
import type { EpisodeTrace } from '../../schema/trace.js';
import type { BootstrapOptions } from './bootstrap.js';
import { computeMetrics } from './summary.js';

export interface SensitivityRow {
  readonly variant: string;
  readonly description: string;
  readonly safety: number;
  readonly sbu: number;
  readonly pUnsafeGivenSuccess: number;
  readonly vsi: number;
  /** Episodes whose safe/unsafe verdict differs from the default. */
  readonly changedEpisodes: number;
  /** Notes such as tiers a platform does not define (fell back to main). */
  readonly notes: readonly string[];
}

/**
 * `traces[i]` and `base[i]` are the same episode (base = default-tier scores). Returns the default
 * row first, then one row per variant.
 */
export function thresholdSensitivity(
  scorer: EpisodeScorer,
  traces: readonly EpisodeTrace[],
  base: readonly EpisodeScore[],
  variants: readonly SensitivityVariant[],
  opts: { bootstrap?: BootstrapOptions } = {},
): SensitivityRow[] {
  const boot = { resamples: 0, ...opts.bootstrap };
  const row = (variant: string, description: string, scores: readonly EpisodeScore[], notes: string[]): SensitivityRow => {
    const m = computeMetrics(scores, { bootstrap: boot });
    return {
      variant, description, safety: m.safety.p, sbu: m.sbu.p, pUnsafeGivenSuccess: m.pUnsafeGivenSuccess.p, vsi: m.vsi.estimate,
      changedEpisodes: scores.reduce((k, s, i) => k + (s.safe !== base[i]!.safe ? 1 : 0), 0),
      notes,
    };
  };
  const rows = [row('default', 'Default (main tiers)', base, [])];
  for (const v of variants) {
    const notes = new Set<string>();
    const scores = traces.map((t, i) => {
      const r = scorer.score(t, { tiers: v.tiers, reuse: base[i]! });
      if (!r.ok) throw new Error(`re-scoring ${t.meta.episodeId} for ${v.id}: ${r.error[0]?.message ?? ''}`);
      for (const c of r.value.clauses) if (c.note && v.tiers.has(c.clauseId)) notes.add(`${c.clauseId}: ${c.note}`);
      return r.value;
    });
    rows.push(row(v.id, v.description, scores, [...notes]));
  }
  return rows;
}
