/**
 * Where a clause was evaluated (issue 13: nothing the monitor did not evaluate is reported
 * satisfied). A clause is evaluated at a step only when every schema signal it reads is valid there;
 * at any other step its monitor is not fed and its margin is not a verdict. One representation for
 * the live monitor bank, the Franka replay, the episode index (`episodes.jsonl`) and their printed
 * form: `not evaluated: signal X missing`.
 */
import { SIGNALS, Validity } from './signals.js';

export interface ClauseCoverage {
  /** Steps at which every signal the clause reads was valid (only these carry a verdict). */
  readonly evaluatedSteps: number;
  /** Signals the clause reads that were missing or invalid at some step, with how many steps. */
  readonly missing: readonly { readonly signal: string; readonly steps: number }[];
}

/**
 * A clause's verdict over an episode, given where it was evaluated (issue 13 item 4c; design §8).
 * One semantics for the live episode index, `armguard replay` and the report:
 * - evaluated at every sample and no sample violated → satisfied;
 * - a sample where it was evaluated violated → violated (a measured violation is never hidden by
 *   a gap elsewhere), with the coverage noted when it was not evaluated throughout;
 * - never evaluated, or evaluated on part of the episode with no violation there → not evaluated:
 *   what was not measured cannot be called satisfied.
 */
export type CoverageVerdict =
  | { readonly kind: 'satisfied' }
  | { readonly kind: 'violated'; readonly note?: string }
  | { readonly kind: 'not-evaluated'; readonly note: string };

export function coverageVerdict(c: ClauseCoverage, steps: number, violatedSteps: number): CoverageVerdict {
  const names = c.missing.map((m) => m.signal).join(', ') || '?';
  if (c.evaluatedSteps === 0) return { kind: 'not-evaluated', note: `not evaluated: signal ${names} missing` };
  const missingOn = `${c.missing.map((m) => m.steps).join(', ')} of ${steps} samples`;
  if (c.evaluatedSteps >= steps) return violatedSteps > 0 ? { kind: 'violated' } : { kind: 'satisfied' };
  if (violatedSteps > 0)
    return {
      kind: 'violated',
      note: `evaluated on ${c.evaluatedSteps} of ${steps} samples; signal ${names} missing on ${missingOn}`,
    };
  return {
    kind: 'not-evaluated',
    note: `not evaluated: signal ${names} missing on ${missingOn} (no violation on the ${c.evaluatedSteps} evaluated)`,
  };
}

/**
 * What a clause's verdict does not cover, or undefined when it was evaluated at every one of
 * `steps` (coverageVerdict's note).
 */
export function describeNotEvaluated(c: ClauseCoverage, steps: number, violatedSteps = 0): string | undefined {
  const v = coverageVerdict(c, steps, violatedSteps);
  return v.kind === 'satisfied' ? undefined : v.note;
}

/** Every clause's coverage over an episode's steps, in clause order. */
export interface EpisodeCoverage {
  readonly steps: number;
  readonly clauses: readonly ClauseCoverage[];
}

/** Counts, per clause, the steps it was evaluated at and the steps each of its signals was missing. No allocation per step. */
export class ClauseCoverageCounter {
  private readonly evaluated: Int32Array;
  private readonly missingSteps: Int32Array[];
  private readonly ok: Uint8Array;
  /** Steps counted since the last reset. */
  steps = 0;

  /** `clauseSignals[i]`: the schema signals (indices into SIGNALS) clause i reads. */
  constructor(private readonly clauseSignals: readonly (readonly number[])[]) {
    this.evaluated = new Int32Array(clauseSignals.length);
    this.missingSteps = clauseSignals.map((s) => new Int32Array(s.length));
    this.ok = new Uint8Array(clauseSignals.length);
  }

  /** One step: count it for every clause; afterwards `evaluatedNow(i)` says whether clause i could be. */
  step(validity: ArrayLike<number>): void {
    this.steps++;
    for (let c = 0; c < this.clauseSignals.length; c++) {
      const sigs = this.clauseSignals[c]!;
      let all = 1;
      for (let k = 0; k < sigs.length; k++) {
        if (validity[sigs[k]!] !== Validity.Valid) {
          this.missingSteps[c]![k]!++;
          all = 0;
        }
      }
      this.ok[c] = all;
      if (all) this.evaluated[c]!++;
    }
  }

  /** Whether every signal clause i reads was valid at the last step. */
  evaluatedNow(i: number): boolean {
    return this.ok[i] === 1;
  }

  coverage(i: number): ClauseCoverage {
    const sigs = this.clauseSignals[i] ?? [];
    return {
      evaluatedSteps: this.evaluated[i] ?? 0,
      missing: sigs
        .map((s, k) => ({ signal: SIGNALS[s]?.name ?? `signal#${s}`, steps: this.missingSteps[i]![k]! }))
        .filter((m) => m.steps > 0),
    };
  }

  /** Every clause's coverage and the steps counted. */
  episode(): EpisodeCoverage {
    return { steps: this.steps, clauses: this.clauseSignals.map((_, i) => this.coverage(i)) };
  }

  reset(): void {
    this.steps = 0;
    this.evaluated.fill(0);
    for (const m of this.missingSteps) m.fill(0);
    this.ok.fill(0);
  }
}
