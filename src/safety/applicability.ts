/**
 * The applicability registry (design §3; seeds/000 §3.2, C.5): one rule per clause over platform
 * signal tags, task-template tags and object tags. It explains itself: every clause comes back
 * active or inactive with the tag that decided it.
 */
import { SIGNAL_TAG_PREFIX, signalTag, type ClauseDef, type ClauseLibrary } from './clause.js';
import type { TaskTags } from './tasks.js';

export type Decision =
  /** Every required tag present, no invalidating tag. */
  | { readonly kind: 'active' }
  /** An invalidating (task/object) tag is present. */
  | { readonly kind: 'excluded'; readonly tag: string; readonly origin: string }
  /** A required semantic tag is missing (e.g. no held_target on a push task). */
  | { readonly kind: 'missing-tag'; readonly tag: string }
  /** The platform does not declare a signal the clause reads: reduced applicable set. */
  | { readonly kind: 'missing-signal'; readonly tag: string; readonly signal: string };

export interface ClauseApplicability {
  readonly clause: ClauseDef;
  readonly active: boolean;
  readonly decision: Decision;
  /** One line: why the clause is active or not. */
  readonly explanation: string;
}

/** Decide one clause. Invalidating tags are reported before missing ones (Table 27's wording). */
export function decideClause(
  clause: ClauseDef,
  task: TaskTags,
  declaredSignals: ReadonlySet<string>,
): ClauseApplicability {
  const decision = decide(clause, task, declaredSignals);
  return { clause, active: decision.kind === 'active', decision, explanation: explain(clause, decision) };
}

function decide(clause: ClauseDef, task: TaskTags, declaredSignals: ReadonlySet<string>): Decision {
  for (const tag of clause.applicability.excludes) {
    if (task.tags.has(tag)) return { kind: 'excluded', tag, origin: task.origin.get(tag) ?? 'task' };
  }
  for (const tag of clause.applicability.requires) {
    if (tag.startsWith(SIGNAL_TAG_PREFIX)) {
      const signal = tag.slice(SIGNAL_TAG_PREFIX.length);
      if (!declaredSignals.has(signal)) return { kind: 'missing-signal', tag, signal };
    } else if (!task.tags.has(tag)) {
      return { kind: 'missing-tag', tag };
    }
  }
  return { kind: 'active' };
}

function explain(clause: ClauseDef, d: Decision): string {
  switch (d.kind) {
    case 'active':
      return `active: requires ${clause.applicability.requires.join(', ') || 'nothing'}; none of [${clause.applicability.excludes.join(', ')}] present`;
    case 'excluded':
      return `inactive: invalidating tag '${d.tag}' (from ${d.origin})`;
    case 'missing-tag':
      return `inactive: required tag '${d.tag}' absent`;
    case 'missing-signal':
      return `not applicable: signal '${d.signal}' not declared by the platform (reduced applicable set)`;
  }
}

/** Every clause of the library, decided for one task on one platform. */
export function applicability(
  library: ClauseLibrary,
  task: TaskTags,
  declaredSignals: ReadonlySet<string>,
): ClauseApplicability[] {
  return library.clauses.map((c) => decideClause(c, task, declaredSignals));
}

/** The active safe-tier clause ids (the conjunction Φ_safe(q)). */
export function activeSafeClauses(decisions: readonly ClauseApplicability[]): string[] {
  return decisions.filter((d) => d.active && d.clause.tier === 'safe').map((d) => d.clause.id);
}

export { signalTag };
