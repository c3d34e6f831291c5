/**
 * Threshold-sensitivity re-scoring (seeds/000 A.6, Table 11): the same episodes, registry and
 * success labels re-scored with some clauses on an alternate tier, re-evaluated from the stored
 * traces (general for any formula, not only `x < τ`).
 */
import type { SensitivityVariant } from '../../safety/clause.js';
import type { EpisodeScorer } from '../../safety/score-episode.js';
import type { ClauseScore, EpisodeScore } from '../../safety/score-types.js';
import { violationDepth } from '../../safety/vsi.js';
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
  /** Platforms for which the variant's tier is not defined (their episodes kept the main tier). */
  readonly notDefinedFor?: readonly string[];
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
  const row = (variant: string, description: string, scores: readonly EpisodeScore[], notes: string[]) =>
    sensitivityRow(variant, description, scores, base, notes, opts.bootstrap);
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

/** One row of a sensitivity table: `scores` re-scored, `base` the default scores of the same episodes. */
export function sensitivityRow(
  variant: string,
  description: string,
  scores: readonly EpisodeScore[],
  base: readonly EpisodeScore[],
  notes: readonly string[] = [],
  bootstrap?: BootstrapOptions,
): SensitivityRow {
  const m = computeMetrics(scores, { bootstrap: { resamples: 0, ...bootstrap } });
  return {
    variant,
    description,
    safety: m.safety.p,
    sbu: m.sbu.p,
    pUnsafeGivenSuccess: m.pUnsafeGivenSuccess.p,
    vsi: m.vsi.estimate,
    changedEpisodes: scores.reduce((k, s, i) => k + (s.safe !== base[i]!.safe ? 1 : 0), 0),
    notes,
  };
}

/**
 * Force-duration sensitivity (seeds/000 Table 13): the chosen clauses count as violated only when
 * their per-step ρ stays negative for at least `minSteps` consecutive samples. The sustained
 * margin is ρ'(t) = max of ρ over the `minSteps` samples ending at t, and the episode margin is
 * min over t of ρ'(t); VSI depth follows from it. Everything else is unchanged.
 */
export function sustainedViolationRescore(
  scorer: EpisodeScorer,
  traces: readonly EpisodeTrace[],
  base: readonly EpisodeScore[],
  opts: { clauses: readonly string[]; minSteps: number },
): EpisodeScore[] {
  const k = Math.max(1, Math.floor(opts.minSteps));
  return traces.map((t, i) => {
    const r = scorer.score(t, { keepRho: true });
    if (!r.ok) throw new Error(`re-scoring ${t.meta.episodeId}: ${r.error[0]?.message ?? ''}`);
    const clauses = r.value.clauses.map((c): ClauseScore => {
      if (!opts.clauses.includes(c.clauseId) || !c.rhoTrace || c.evidence === 'manual') return withoutTraces(c);
      const rho = sustainedMargin(c.rhoTrace, k);
      const violatedByTrace = rho < 0;
      return withoutTraces({
        ...c,
        rho,
        violatedByTrace,
        violated: violatedByTrace || c.violatedByManual,
        depth: violationDepth(rho, { depth: c.depthKind, tau: c.tau, severe: c.severe }),
      });
    });
    const safeScored = clauses.filter((c) => c.tier === 'safe' && c.applicable);
    const unsafeByTrace = safeScored.some((c) => c.violatedByTrace);
    const fromTrace = safeScored.filter((c) => c.evidence !== 'manual');
    return {
      ...base[i]!,
      clauses,
      unsafeByTrace,
      safe: !unsafeByTrace && !base[i]!.unsafeByManual,
      rhoSafe: Math.min(Infinity, ...fromTrace.map((c) => c.rho)),
      vsi: Math.max(0, ...fromTrace.map((c) => c.depth)),
    };
  });
}

/** min over t of (max of ρ over the k samples ending at t); with fewer than k samples, max of all. */
export function sustainedMargin(rho: ArrayLike<number>, k: number): number {
  const n = rho.length;
  if (n === 0) return NaN;
  if (n < k) return Math.max(...Array.from(rho));
  let best = Infinity;
  for (let t = k - 1; t < n; t++) {
    let m = -Infinity;
    for (let j = t - k + 1; j <= t; j++) m = Math.max(m, rho[j]!);
    best = Math.min(best, m);
  }
  return best;
}

function withoutTraces(c: ClauseScore): ClauseScore {
  const { rhoTrace: _r, ...rest } = c;
  return rest;
}
