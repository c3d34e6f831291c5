/**
 * Clause instances: a clause with its tier chosen and numbers filled in for one platform and task.
 * Tier choice: an explicit tier (sensitivity variant) > a tier selected by a task tag (tier_when)
 * > main. Numbers: the platform's recalibration when it has one for the clause, else the library.
 */
import type { PlatformProfile, TierNumbers } from '../schema/platform.js';
import type { ClauseDef, ClauseLibrary, DepthKind } from './clause.js';
import { substituteTau } from './formula-text.js';

export interface ClauseInstance {
  readonly clause: ClauseDef;
  readonly tierName: string;
  readonly tau: number;
  readonly severe: number | undefined;
  /** Warning band ε in the clause's unit; undefined means no band (only violations count). */
  readonly warn: number | undefined;
  readonly depth: DepthKind;
  /** Full STL text of the clause: `always (…)` with τ substituted. */
  readonly formula: string;
  /** The per-step condition with τ substituted. */
  readonly step: string;
  /** Where the numbers came from. */
  readonly numbersFrom: 'library' | `platform ${string}`;
  /** Set when the requested tier had to fall back (e.g. a platform without that tier). */
  readonly note?: string;
}

/** Default warning band when a tier names none: 10% of |τ| (none when τ = 0, e.g. binary counts). */
export function defaultWarn(t: TierNumbers): number | undefined {
  if (t.warn !== undefined) return t.warn;
  return t.tau !== 0 ? 0.1 * Math.abs(t.tau) : undefined;
}

export function instantiateClause(
  clause: ClauseDef,
  opts: { platform?: PlatformProfile | undefined; tags?: ReadonlySet<string>; tier?: string | undefined } = {},
): ClauseInstance {
  let tierName = opts.tier ?? 'main';
  if (opts.tier === undefined && opts.tags) {
    for (const [tag, tier] of clause.tierWhen) if (opts.tags.has(tag)) tierName = tier;
  }
  const override = opts.platform?.thresholds.get(clause.id);
  const table = override ? override.tiers : clause.thresholds;
  let note: string | undefined;
  let numbers = table.get(tierName);
  if (!numbers) {
    note = `tier '${tierName}' not defined${override ? ` for platform ${opts.platform?.id}` : ''}; main used`;
    tierName = 'main';
    numbers = table.get('main') ?? clause.thresholds.get('main')!;
  }
  return {
    clause,
    tierName,
    tau: numbers.tau,
    severe: numbers.severe,
    warn: defaultWarn(numbers),
    depth: clause.depth,
    formula: substituteTau(clause.formula, numbers.tau),
    step: substituteTau(clause.step, numbers.tau),
    numbersFrom: override ? `platform ${opts.platform?.id ?? ''}` : 'library',
    ...(note ? { note } : {}),
  };
}

/**
 * A platform profile with per-arm thresholds applied (a calibration file's, or the ones an episode
 * recorded as monitored): τ replaces every tier of that clause; the severe anchor and the warning
 * band keep their ratio to τ. Throws an Error naming an unknown clause.
 */
export function profileWithThresholds(
  profile: PlatformProfile,
  thresholds: readonly { clause: string; tau: number; reason: string; source: string; file: string }[],
  library: ClauseLibrary,
): PlatformProfile {
  const overrides = new Map(profile.thresholds);
  for (const t of thresholds) {
    const clause = library.clauses.find((c) => c.id === t.clause);
    if (!clause) throw new Error(`${t.file}: thresholds.${t.clause}: no clause '${t.clause}' in the clause library`);
    const base = profile.thresholds.get(t.clause)?.tiers ?? clause.thresholds;
    const tiers = new Map<string, TierNumbers>();
    for (const [name, n] of base) {
      const ratio = n.tau !== 0 ? t.tau / n.tau : NaN;
      tiers.set(name, {
        tau: t.tau,
        ...(n.severe !== undefined ? { severe: Number.isFinite(ratio) ? n.severe * ratio : n.severe } : {}),
        ...(n.warn !== undefined ? { warn: Number.isFinite(ratio) ? n.warn * ratio : n.warn } : {}),
      });
    }
    overrides.set(t.clause, {
      clause: t.clause,
      tiers,
      reason: t.reason,
      source: t.source,
      where: { file: t.file, line: undefined },
    });
  }
  return { ...profile, thresholds: overrides };
}

/** Clause id → instance for every clause of the library. `tiers` picks alternate tiers per clause. */
export function instantiateLibrary(
  library: ClauseLibrary,
  opts: {
    platform?: PlatformProfile | undefined;
    tags?: ReadonlySet<string>;
    tiers?: ReadonlyMap<string, string>;
  } = {},
): Map<string, ClauseInstance> {
  const out = new Map<string, ClauseInstance>();
  for (const c of library.clauses) {
    out.set(
      c.id,
      instantiateClause(c, {
        platform: opts.platform,
        ...(opts.tags ? { tags: opts.tags } : {}),
        tier: opts.tiers?.get(c.id),
      }),
    );
  }
  return out;
}
