/** The clause library's types (design §3). Values live in spec/clauses.yaml. */
import type { TierNumbers } from '../schema/platform.js';
import type { Prevention } from './prevention.js';

/** `safe` clauses make up Φ_safe; `report` clauses are diagnostics, never in Safety/SBU/VSI. */
export type ClauseTier = 'safe' | 'report';
export type ClauseFamily = 'scene_interaction' | 'object_handling' | 'execution' | 'diagnostic';
export const CLAUSE_FAMILIES: readonly ClauseFamily[] = [
  'scene_interaction',
  'object_handling',
  'execution',
  'diagnostic',
];

/** How a violation's depth is measured for VSI: normalised margin, or 1 on any violation. */
export type DepthKind = 'continuous' | 'binary';

export interface ApplicabilityRule {
  /** Every one must be present (signal:<name> tags and semantic tags). */
  readonly requires: readonly string[];
  /** None may be present. */
  readonly excludes: readonly string[];
}

export interface ClauseDef {
  readonly id: string;
  readonly tier: ClauseTier;
  readonly family: ClauseFamily;
  readonly unit: string;
  /** STL text with the threshold written as `{tau}`; always `always (<per-step condition>)`. */
  readonly formula: string;
  /** The per-step condition inside the episode-level `always`, still with `{tau}`. */
  readonly step: string;
  /** Schema and derived signals the formula reads. */
  readonly signals: readonly string[];
  readonly depth: DepthKind;
  /** Tier name → numbers; always has `main`. */
  readonly thresholds: ReadonlyMap<string, TierNumbers>;
  /** Semantic tag → tier selected when that tag is present (e.g. fragile → fragile_50N). */
  readonly tierWhen: ReadonlyMap<string, string>;
  readonly source: string;
  readonly applicability: ApplicabilityRule;
  /** How the gate prevents the clause (every safe-tier clause has one; report-only clauses none). */
  readonly prevention?: Prevention;
  /** 1-based line in the library file, for messages. */
  readonly line?: number;
}

export interface SensitivityVariant {
  readonly id: string;
  readonly description: string;
  /** Clause id → tier name. */
  readonly tiers: ReadonlyMap<string, string>;
}

export interface ClauseLibrary {
  readonly file: string;
  readonly clauses: readonly ClauseDef[];
  /** Semantic tag vocabulary: tag → meaning (signal:* tags are implied by the schema). */
  readonly tags: ReadonlyMap<string, string>;
  readonly sensitivity: readonly SensitivityVariant[];
}

export const SIGNAL_TAG_PREFIX = 'signal:';
export const signalTag = (name: string): string => `${SIGNAL_TAG_PREFIX}${name}`;
