/**
 * The clause set for one episode or run: applicability decisions and instantiated clauses for a
 * platform, its declared signals and a task. Shared by post-hoc scoring and the online gate.
 */
import { closestMatch, type Result, err, ok } from '../util/index.js';
import type { PlatformProfile, PlatformProfiles } from '../schema/platform.js';
import { applicability, type ClauseApplicability } from './applicability.js';
import type { ClauseLibrary } from './clause.js';
import { instantiateLibrary, type ClauseInstance } from './instantiate.js';
import { resolveTaskTags, type TaskMap, type TaskTags } from './tasks.js';

export interface ScoringSpec {
  readonly library: ClauseLibrary;
  readonly tasks: TaskMap;
  readonly platforms: PlatformProfiles;
}

export interface PlanRequest {
  readonly platform?: string | undefined;
  /** Signals actually available (e.g. a trace's columns, or the platform's signals plus enabled optional ones). */
  readonly signals: Iterable<string>;
  readonly task?: string | undefined;
  readonly templates?: readonly string[];
  readonly objects?: readonly string[];
  /** Clause id → alternate tier. */
  readonly tiers?: ReadonlyMap<string, string>;
}

export interface ClausePlan {
  readonly platform: PlatformProfile | undefined;
  readonly tags: TaskTags;
  /** Declared signals: the available ones the platform can expose (all of them without a platform). */
  readonly declared: ReadonlySet<string>;
  /** Available signals the platform cannot expose (ignored). */
  readonly ignoredSignals: readonly string[];
  readonly decisions: readonly ClauseApplicability[];
  /** Clause id → instance (every clause, active or not). */
  readonly instances: ReadonlyMap<string, ClauseInstance>;
}

/** Errors are keyed by the request field they concern ('platform', 'task' or 'templates'). */
export function planClauses(
  spec: ScoringSpec,
  req: PlanRequest,
): Result<ClausePlan, { field: string; reason: string }> {
  let platform: PlatformProfile | undefined;
  if (req.platform !== undefined) {
    platform = spec.platforms.get(req.platform);
    if (!platform) {
      const hint = closestMatch(req.platform, spec.platforms.keys());
      return err({
        field: 'platform',
        reason: `unknown platform '${req.platform}'${hint ? ` (did you mean '${hint}'?)` : ''}; known: ${[...spec.platforms.keys()].join(', ')}`,
      });
    }
  }
  const tags = resolveTaskTags(spec.tasks, req, spec.library.tags);
  if (!tags.ok)
    return err({
      field: req.task !== undefined && tags.error.includes('task') ? 'task' : 'templates',
      reason: tags.error,
    });
  const available = [...req.signals];
  const allowed = platform ? new Set<string>([...platform.signals, ...platform.optionalSignals]) : undefined;
  const declared = new Set(allowed ? available.filter((s) => allowed.has(s)) : available);
  const ignoredSignals = allowed ? available.filter((s) => !allowed.has(s)) : [];
  const decisions = applicability(spec.library, tags.value, declared);
  const instances = instantiateLibrary(spec.library, {
    platform,
    tags: tags.value.tags,
    ...(req.tiers ? { tiers: req.tiers } : {}),
  });
  return ok({ platform, tags: tags.value, declared, ignoredSignals, decisions, instances });
}
