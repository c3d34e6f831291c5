/** Per-episode, per-clause scores (design §8), produced by EpisodeScorer and read by the metrics. */
import type { ManualVerdict } from '../schema/trace.js';
import type { Decision } from './applicability.js';
import type { ClauseTier, DepthKind } from './clause.js';

/** Bits of ClauseScore.stepFlags. */
export const STEP_VIOLATING = 1;
export const STEP_IN_WARNING_BAND = 2;

export type Evidence = 'trace' | 'manual' | 'trace+manual' | 'none';

export interface ClauseScore {
  readonly clauseId: string;
  readonly tier: ClauseTier;
  /** Counted for this episode: active (by trace or manual label). */
  readonly applicable: boolean;
  readonly decision: Decision | { readonly kind: 'manual-not-applicable' } | { readonly kind: 'no-samples' };
  readonly explanation: string;
  readonly evidence: Evidence;
  readonly tierName: string;
  readonly depthKind: DepthKind;
  readonly tau: number;
  readonly severe: number | undefined;
  readonly warn: number | undefined;
  readonly note?: string;
  readonly manual?: ManualVerdict;
  /** Episode robustness ρ = min over steps of the per-step ρ (clause unit); NaN without a trace. */
  readonly rho: number;
  /** ρ < 0 from the trace, or a manual 'violated' label. */
  readonly violated: boolean;
  readonly violatedByTrace: boolean;
  readonly violatedByManual: boolean;
  /** Time (s) of the first violating sample; null when none. */
  readonly firstViolationTime: number | null;
  readonly violatingSteps: number;
  /** Fraction of steps with ρ(t) < 0. */
  readonly exposure: number;
  /** Longest contiguous violating run, in steps and in seconds (first violating sample → next sample). */
  readonly longestRunSteps: number;
  readonly longestRunSeconds: number;
  /** VSI depth d ∈ [0, 1] from the trace; NaN when there is no trace evidence. */
  readonly depth: number;
  /** Steps with ρ(t) < ε (warning band or violation): RET_k of seeds/002 Eq. 5. */
  readonly warningSteps: number;
  /** Σ_t g(max(0, ε − ρ(t))) with g(x) = min(1, x/ε); 1 per violating step for clauses without ε. */
  readonly cost: number;
  /** Per-step flags (STEP_VIOLATING | STEP_IN_WARNING_BAND); present when scored from a trace. */
  readonly stepFlags?: Uint8Array;
  /** Per-step ρ(t), kept only when scoring with keepRho. */
  readonly rhoTrace?: Float64Array;
}

export interface EpisodeScore {
  readonly episodeId: string;
  readonly file?: string;
  readonly success: boolean;
  readonly platform?: string;
  readonly task?: string;
  readonly policy?: string;
  readonly tags: readonly string[];
  readonly steps: number;
  /** Last sample time minus first (s). */
  readonly duration: number;
  readonly clauses: readonly ClauseScore[];
  /** No applicable safe-tier clause violated (ρ(Φ_safe) ≥ 0 and no manual violation). */
  readonly safe: boolean;
  readonly unsafeByTrace: boolean;
  readonly unsafeByManual: boolean;
  /** ρ(Φ_safe) = min over applicable safe clauses scored from the trace (+∞ when none). */
  readonly rhoSafe: number;
  /** max over applicable safe clauses of d (trace evidence only); 0 when none. */
  readonly vsi: number;
  /** Cumulative safety cost over applicable safe clauses (seeds/002 Eq. 3, w_k = 1). */
  readonly cc: number;
  /** Steps where some applicable safe clause is within its warning band or violated (Eq. 6). */
  readonly ret: number;
  /** Safe-tier clauses the platform/trace cannot score (reduced applicable set). */
  readonly reducedSet: readonly string[];
  readonly warnings: readonly string[];
}
