/**
 * Aggregate metrics over scored episodes (design §8; seeds/000 §3.3, A.4–A.7; seeds/002 §IV):
 * SR, Safety, SBU, P[U|S] with Wilson intervals; VSI and VSI|U with seeded bootstrap intervals;
 * four-quadrant outcomes; CC and RET; per-clause marginal rates, exposure and SBU composition.
 */
import type { ClauseScore, EpisodeScore } from '../../safety/score-types.js';
import { bootstrapMeans, type BootstrapOptions, type Interval } from './bootstrap.js';
import { median, quantile } from './quantile.js';
import { wilson, type Proportion } from './wilson.js';

export interface ClauseMetrics {
  readonly clauseId: string;
  readonly tier: 'safe' | 'report';
  /** Violated episodes over episodes where the clause applies (Tables 7, 33). */
  readonly rate: Proportion;
  /** Of the violations, how many came (also or only) from manual labels. */
  readonly manualViolations: number;
  /** Episodes where the clause could not be scored for want of a signal (reduced set). */
  readonly unavailable: number;
  /** Episodes a manual `not_applicable` label took out of the denominator. */
  readonly manualNotApplicable: number;
  /** Within violating episodes scored from traces (Table 10): exposure median and p90, longest run median. */
  readonly exposureMedian: number;
  readonly exposureP90: number;
  readonly longestRunMedianSteps: number;
  readonly longestRunMedianSeconds: number;
  /** Share of the spec-violation count among unsafe successes (Table 14); NaN when there are none. */
  readonly sbuShare: number;
  readonly sbuCount: number;
  /** Mean RET_k / T over episodes where the clause was scored from a trace. */
  readonly retFraction: number;
}

export interface Quadrants {
  readonly safeSuccess: Proportion;
  readonly unsafeSuccess: Proportion;
  readonly safeFailure: Proportion;
  readonly unsafeFailure: Proportion;
}

export interface MetricsSummary {
  readonly episodes: number;
  readonly sr: Proportion;
  readonly safety: Proportion;
  readonly sbu: Proportion;
  /** Unsafe successes over successes. */
  readonly pUnsafeGivenSuccess: Proportion;
  /** Mean per-episode VSI (trace evidence only) with bootstrap interval. */
  readonly vsi: Interval;
  /** Mean VSI over unsafe episodes (any evidence), with bootstrap interval; `unsafe` episodes. */
  readonly vsiGivenUnsafe: Interval & { readonly unsafe: number };
  readonly quadrants: Quadrants;
  /** Mean cumulative cost per episode and mean CC/T (seeds/002: episode-averaged normalised CC). */
  readonly ccMean: number;
  readonly ccPerStepMean: number;
  readonly ccPerStep: Interval;
  /** Mean RET (steps) and mean RET/T. */
  readonly retMean: number;
  readonly retFractionMean: number;
  /** Unsafe episodes whose only evidence is a manual label. */
  readonly unsafeByManualOnly: number;
  readonly clauses: readonly ClauseMetrics[];
}

export interface MetricsOptions {
  readonly bootstrap?: BootstrapOptions;
  /** Clause ids in display order (default: order of first appearance). */
  readonly clauseOrder?: readonly string[];
}

const count = <T>(xs: readonly T[], p: (x: T) => boolean): number => xs.reduce((k, x) => k + (p(x) ? 1 : 0), 0);
const mean = (xs: readonly number[]): number => (xs.length === 0 ? NaN : xs.reduce((s, x) => s + x, 0) / xs.length);

export function computeMetrics(episodes: readonly EpisodeScore[], opts: MetricsOptions = {}): MetricsSummary {
  const n = episodes.length;
  const successes = count(episodes, (e) => e.success);
  const unsafeSuccesses = count(episodes, (e) => e.success && !e.safe);
  const vsiValues = Float64Array.from(episodes, (e) => e.vsi);
  const unsafe = episodes.map((e) => !e.safe);
  const ccPerStep = Float64Array.from(episodes, (e) => (e.steps > 0 ? e.cc / e.steps : 0));
  const boot = opts.bootstrap ?? {};
  // One resampling serves VSI, VSI|U and CC/T (each equals its own seeded bootstrap).
  const [vsi, vsiU, cc] = bootstrapMeans(
    n,
    [{ values: vsiValues }, { values: vsiValues, include: unsafe }, { values: ccPerStep }],
    boot,
  ) as [Interval, Interval, Interval];
  return {
    episodes: n,
    sr: wilson(successes, n),
    safety: wilson(
      count(episodes, (e) => e.safe),
      n,
    ),
    sbu: wilson(unsafeSuccesses, n),
    pUnsafeGivenSuccess: wilson(unsafeSuccesses, successes),
    vsi,
    vsiGivenUnsafe: { ...vsiU, unsafe: count(unsafe, (u) => u) },
    quadrants: {
      safeSuccess: wilson(
        count(episodes, (e) => e.success && e.safe),
        n,
      ),
      unsafeSuccess: wilson(unsafeSuccesses, n),
      safeFailure: wilson(
        count(episodes, (e) => !e.success && e.safe),
        n,
      ),
      unsafeFailure: wilson(
        count(episodes, (e) => !e.success && !e.safe),
        n,
      ),
    },
    ccMean: mean(episodes.map((e) => e.cc)),
    ccPerStepMean: mean(Array.from(ccPerStep)),
    ccPerStep: cc,
    retMean: mean(episodes.map((e) => e.ret)),
    retFractionMean: mean(episodes.map((e) => (e.steps > 0 ? e.ret / e.steps : 0))),
    unsafeByManualOnly: count(episodes, (e) => e.unsafeByManual && !e.unsafeByTrace),
    clauses: clauseMetrics(episodes, opts.clauseOrder),
  };
}

function clauseMetrics(episodes: readonly EpisodeScore[], order?: readonly string[]): ClauseMetrics[] {
  const byClause = new Map<string, ClauseScore[]>();
  for (const id of order ?? []) byClause.set(id, []);
  for (const e of episodes) {
    for (const c of e.clauses) {
      let list = byClause.get(c.clauseId);
      if (!list) byClause.set(c.clauseId, (list = []));
      list.push(c);
    }
  }
  // SBU composition (Table 14): each unsafe success adds 1 per violated safe clause, k in total.
  const sbuCounts = new Map<string, number>();
  let sbuTotal = 0;
  for (const e of episodes) {
    if (!e.success || e.safe) continue;
    for (const c of e.clauses) {
      if (c.tier === 'safe' && c.applicable && c.violated) {
        sbuCounts.set(c.clauseId, (sbuCounts.get(c.clauseId) ?? 0) + 1);
        sbuTotal++;
      }
    }
  }
  const out: ClauseMetrics[] = [];
  for (const [clauseId, scores] of byClause) {
    if (scores.length === 0) continue;
    const applicable = scores.filter((c) => c.applicable);
    const violated = applicable.filter((c) => c.violated);
    const traceViolated = violated.filter((c) => c.violatedByTrace);
    const scoredByTrace = applicable.filter((c) => c.evidence === 'trace' || c.evidence === 'trace+manual');
    const sbuCount = sbuCounts.get(clauseId) ?? 0;
    out.push({
      clauseId,
      tier: scores[0]!.tier,
      rate: wilson(violated.length, applicable.length),
      manualViolations: count(violated, (c) => c.violatedByManual),
      unavailable: count(scores, (c) => c.decision.kind === 'missing-signal' && !c.applicable),
      manualNotApplicable: count(scores, (c) => c.decision.kind === 'manual-not-applicable'),
      exposureMedian: median(traceViolated.map((c) => c.exposure)),
      exposureP90: quantile(
        traceViolated.map((c) => c.exposure),
        0.9,
      ),
      longestRunMedianSteps: median(traceViolated.map((c) => c.longestRunSteps)),
      longestRunMedianSeconds: median(traceViolated.map((c) => c.longestRunSeconds)),
      sbuShare: sbuTotal === 0 ? NaN : sbuCount / sbuTotal,
      sbuCount,
      retFraction: mean(
        scoredByTrace.map((c) => (c.stepFlags && c.stepFlags.length > 0 ? c.warningSteps / c.stepFlags.length : 0)),
      ),
    });
  }
  return out;
}

/** Metrics per group (e.g. per task, like Table 33), in first-appearance order. */
export function metricsBy(
  episodes: readonly EpisodeScore[],
  key: (e: EpisodeScore) => string,
  opts: MetricsOptions = {},
): Map<string, MetricsSummary> {
  const groups = new Map<string, EpisodeScore[]>();
  for (const e of episodes) {
    const k = key(e);
    let g = groups.get(k);
    if (!g) groups.set(k, (g = []));
    g.push(e);
  }
  const out = new Map<string, MetricsSummary>();
  for (const [k, g] of groups) out.set(k, computeMetrics(g, opts));
  return out;
}
