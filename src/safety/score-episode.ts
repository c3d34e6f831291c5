/**
 * Post-hoc scoring of one recorded episode (design §8): applicability for its platform and task,
 * per-clause robustness over the trace (offline STL), violation statistics, VSI depth and the
 * warning-band cost/exposure of seeds/002 §IV. Pure: the trace comes in already read.
 */
import { InputError, type Result, closestMatch, err, ok } from '../util/index.js';
import { deriveColumns, derivedSignal } from '../schema/derived.js';
import { coverageVerdict, type ClauseCoverage } from '../schema/clause-coverage.js';
import type { EpisodeTrace, ManualVerdict } from '../schema/trace.js';
import { evaluateOffline, evaluateOfflineNs, signalsOf, type Formula } from '../stl/index.js';
import type { ClauseApplicability } from './applicability.js';
import type { ClauseInstance } from './instantiate.js';
import { planClauses, type ScoringSpec } from './plan.js';
import { profileWithThresholds } from './instantiate.js';
import { STEP_IN_WARNING_BAND, STEP_VIOLATING, type ClauseScore, type EpisodeScore } from './score-types.js';
import { compileStep } from './stl-bridge.js';
import { violationDepth } from './vsi.js';

export type { ScoringSpec } from './plan.js';

export interface ScoreOptions {
  /** Clause id → alternate tier (a sensitivity variant). */
  readonly tiers?: ReadonlyMap<string, string>;
  /** A previous score of the same trace: clauses whose numbers are unchanged are reused. */
  readonly reuse?: EpisodeScore;
  /** Keep per-step ρ(t) on each clause score (memory: 8 bytes × steps × clauses). */
  readonly keepRho?: boolean;
}

export class EpisodeScorer {
  private readonly compiled = new Map<string, Formula>();

  constructor(readonly spec: ScoringSpec) {}

  score(trace: EpisodeTrace, opts: ScoreOptions = {}): Result<EpisodeScore, InputError[]> {
    const { meta } = trace;
    const file = trace.file;
    const errors: InputError[] = [];
    const warnings: string[] = [];
    const fail = (field: string, reason: string) => errors.push(new InputError({ file, line: 1, field }, reason));

    for (const id of meta.manual.keys()) {
      if (!this.spec.library.clauses.some((c) => c.id === id)) {
        const hint = closestMatch(
          id,
          this.spec.library.clauses.map((c) => c.id),
        );
        fail(`manual.${id}`, `unknown clause '${id}'${hint ? ` (did you mean '${hint}'?)` : ''}`);
      }
    }
    // The thresholds the live monitor used (episode metadata) are this arm's: score with them.
    const spec =
      meta.thresholds && meta.platform !== undefined && this.spec.platforms.has(meta.platform)
        ? this.withRecordedThresholds(meta.platform, meta.thresholds, file)
        : this.spec;
    const plan = planClauses(spec, {
      platform: meta.platform,
      signals: trace.columns.keys(),
      task: meta.task,
      templates: meta.templates,
      objects: meta.objects,
      ...(opts.tiers ? { tiers: opts.tiers } : {}),
    });
    if (!plan.ok) errors.unshift(new InputError({ file, line: 1, field: plan.error.field }, plan.error.reason));
    if (!plan.ok || errors.length > 0) return err(errors);
    const { platform, decisions, instances } = plan.value;
    for (const c of plan.value.ignoredSignals)
      warnings.push(`column '${c}' is not a signal platform ${platform?.id ?? ''} declares; ignored`);
    // Declared by the platform but absent from this recording: the clause was not evaluated (not "not applicable").
    const absentDeclared = new Set<string>();
    if (platform) {
      const absent = platform.signals.filter((s) => !trace.columns.has(s));
      for (const s of absent) absentDeclared.add(s);
      if (absent.length > 0)
        warnings.push(
          `platform ${platform.id} declares ${absent.join(', ')} but the trace has no column for ${absent.length === 1 ? 'it' : 'them'}`,
        );
    }

    const n = trace.times.length;
    let allColumns: ReadonlyMap<string, Float64Array> | undefined;
    const getColumns = () => (allColumns ??= new Map([...trace.columns, ...deriveColumns(trace.columns, n)]));

    const clauses: ClauseScore[] = [];
    for (const d of decisions) {
      const inst = instances.get(d.clause.id)!;
      const previous = opts.reuse?.clauses.find((c) => c.clauseId === d.clause.id);
      if (
        previous &&
        previous.tau === inst.tau &&
        previous.tierName === inst.tierName &&
        previous.note === inst.note &&
        (!opts.keepRho || previous.rhoTrace)
      ) {
        clauses.push(previous);
        continue;
      }
      const missing =
        d.decision.kind === 'missing-signal' && absentDeclared.has(d.decision.signal) ? d.decision.signal : undefined;
      const decided =
        missing === undefined
          ? d
          : {
              ...d,
              explanation: `not evaluated: signal ${missing} missing (platform ${platform?.id ?? '?'} declares it; the recording has no column for it)`,
            };
      clauses.push(
        this.scoreClause(
          decided,
          inst,
          trace,
          n,
          meta.manual.get(d.clause.id),
          getColumns,
          opts.keepRho === true,
          warnings,
        ),
      );
    }
    return ok(summarise(trace, clauses, plan.value.tags.tags, warnings));
  }

  private withRecordedThresholds(
    platform: string,
    thresholds: NonNullable<EpisodeTrace['meta']['thresholds']>,
    file: string | undefined,
  ): ScoringSpec {
    const known = [...thresholds].filter(([id]) => this.spec.library.clauses.some((c) => c.id === id));
    const profile = profileWithThresholds(
      this.spec.platforms.get(platform)!,
      known.map(([clause, t]) => ({
        clause,
        tau: t.tau,
        reason: 'monitored threshold recorded in the episode',
        source: t.from,
        file: file ?? '(episode)',
      })),
      this.spec.library,
    );
    return { ...this.spec, platforms: new Map(this.spec.platforms).set(platform, profile) };
  }

  private scoreClause(
    d: ClauseApplicability,
    inst: ClauseInstance,
    trace: EpisodeTrace,
    n: number,
    manual: ManualVerdict | undefined,
    getColumns: () => ReadonlyMap<string, Float64Array>,
    keepRho: boolean,
    warnings: string[],
  ): ClauseScore {
    const base = {
      clauseId: d.clause.id,
      tier: d.clause.tier,
      tierName: inst.tierName,
      depthKind: inst.depth,
      tau: inst.tau,
      severe: inst.severe,
      warn: inst.warn,
      ...(inst.note ? { note: inst.note } : {}),
      ...(manual ? { manual } : {}),
    };
    const semanticallyOn = d.active || d.decision.kind === 'missing-signal';
    if (manual !== undefined && !semanticallyOn) {
      warnings.push(`manual label for ${d.clause.id} ignored: ${d.explanation}`);
    }
    if (manual === 'not_applicable' && semanticallyOn) {
      return {
        ...base,
        ...notScored(),
        applicable: false,
        decision: { kind: 'manual-not-applicable' },
        explanation: 'inactive: manual label not_applicable',
        evidence: 'none',
      };
    }
    const byManual = manual === 'violated' && semanticallyOn;
    const manualCounts = manual !== undefined && semanticallyOn;
    if (!d.active || n === 0) {
      if (manualCounts) {
        return {
          ...base,
          ...notScored(),
          applicable: true,
          decision: d.decision,
          explanation: `${d.explanation}; scored by manual label`,
          evidence: 'manual',
          violated: byManual,
          violatedByManual: byManual,
        };
      }
      if (d.active && n === 0) {
        return {
          ...base,
          ...notScored(),
          applicable: false,
          decision: { kind: 'no-samples' },
          explanation: 'not scored: the trace has no samples',
          evidence: 'none',
        };
      }
      return {
        ...base,
        ...notScored(),
        applicable: false,
        decision: d.decision,
        explanation: d.explanation,
        evidence: 'none',
      };
    }

    let step = this.compiled.get(inst.formula);
    if (!step) {
      step = compileStep(inst.formula);
      this.compiled.set(inst.formula, step);
    }
    // Where the clause can be evaluated: every schema signal it reads (derived ones' inputs) present.
    const { covered, coverage } = clauseCoverage(step, trace.columns, n);
    const rho = evaluateCovered(step, trace, getColumns(), covered, coverage.evaluatedSteps);
    let violatingCovered = 0;
    for (let i = 0; i < n; i++) if (covered[i] && rho[i]! < 0) violatingCovered++;
    const verdict = coverageVerdict(coverage, n, violatingCovered);
    if (verdict.kind === 'not-evaluated') {
      // Never evaluated, or evaluated on part of the episode with no violation there: not satisfied
      // (design §2, §8), like a signal the recording has no column for — the reduced set.
      const signal = coverage.missing[0]?.signal ?? '?';
      const decision = { kind: 'missing-signal', tag: `signal:${signal}`, signal } as const;
      return manualCounts
        ? {
            ...base,
            ...notScored(),
            applicable: true,
            decision,
            explanation: `${verdict.note}; scored by manual label`,
            evidence: 'manual',
            violated: byManual,
            violatedByManual: byManual,
          }
        : { ...base, ...notScored(), applicable: false, decision, explanation: verdict.note, evidence: 'none' };
    }
    const coverageNote = verdict.kind === 'violated' && verdict.note ? `; ${verdict.note}` : '';
    const flags = new Uint8Array(n);
    let min = Infinity;
    let first = -1;
    let violating = 0;
    let warning = 0;
    let cost = 0;
    let run = 0;
    let bestRun = 0;
    let bestRunStart = -1;
    const eps = inst.warn;
    for (let i = 0; i < n; i++) {
      // Not evaluated here (a signal missing): no verdict, and a violating run does not span it.
      if (!covered[i]) {
        run = 0;
        continue;
      }
      // An undefined margin where every signal was present counts as the deepest violation (fail safe).
      const r = Number.isNaN(rho[i]!) ? -Infinity : rho[i]!;
      if (r < min) min = r;
      let f = 0;
      if (r < 0) {
        f = STEP_VIOLATING | STEP_IN_WARNING_BAND;
        violating++;
        if (first < 0) first = i;
        run++;
        if (run > bestRun) {
          bestRun = run;
          bestRunStart = i - run + 1;
        }
      } else {
        run = 0;
      }
      if (eps !== undefined) {
        if (r < eps) {
          f |= STEP_IN_WARNING_BAND;
          cost += Math.min(1, (eps - r) / eps);
        }
      } else if (f & STEP_VIOLATING) {
        cost += 1;
      }
      if (f & STEP_IN_WARNING_BAND) warning++;
      flags[i] = f;
    }
    const t = trace.times;
    const runEnd = bestRunStart + bestRun; // first sample after the run, or n
    const longestRunSeconds = bestRun === 0 ? 0 : t[Math.min(runEnd, n - 1)]! - t[bestRunStart]!;
    const violatedByTrace = violating > 0;
    return {
      ...base,
      applicable: true,
      decision: d.decision,
      explanation: (manualCounts ? `${d.explanation}; manual label ${manual}` : d.explanation) + coverageNote,
      evidence: manualCounts ? 'trace+manual' : 'trace',
      rho: min,
      violated: violatedByTrace || byManual,
      violatedByTrace,
      violatedByManual: byManual,
      firstViolationTime: first < 0 ? null : t[first]!,
      violatingSteps: violating,
      exposure: violating / n,
      longestRunSteps: bestRun,
      longestRunSeconds,
      depth: violationDepth(min, inst),
      warningSteps: warning,
      cost,
      stepFlags: flags,
      ...(keepRho ? { rhoTrace: rho } : {}),
    };
  }
}

/**
 * Per sample, whether every schema signal `step` reads (a derived signal's inputs) is present (not
 * NaN: the reader's missing or invalid), and the clause's coverage in the live bank's terms.
 */
function clauseCoverage(
  step: Formula,
  columns: ReadonlyMap<string, Float64Array>,
  n: number,
): { covered: Uint8Array; coverage: ClauseCoverage } {
  const names = [...new Set([...signalsOf(step)].flatMap((s): readonly string[] => derivedSignal(s)?.inputs ?? [s]))];
  const covered = new Uint8Array(n).fill(1);
  const missing: { signal: string; steps: number }[] = [];
  for (const name of names) {
    const col = columns.get(name);
    let steps = 0;
    for (let i = 0; i < n; i++) {
      if (col === undefined || Number.isNaN(col[i]!)) {
        covered[i] = 0;
        steps++;
      }
    }
    if (steps > 0) missing.push({ signal: name, steps });
  }
  let evaluatedSteps = 0;
  for (let i = 0; i < n; i++) evaluatedSteps += covered[i]!;
  return { covered, coverage: { evaluatedSteps, missing } };
}

/**
 * ρ at every sample: over the samples where the clause is evaluated, as if the others had not been
 * recorded (what the live monitor bank does: it is not fed while a signal is missing); NaN elsewhere.
 */
function evaluateCovered(
  step: Formula,
  trace: EpisodeTrace,
  columns: ReadonlyMap<string, Float64Array>,
  covered: Uint8Array,
  evaluated: number,
): Float64Array {
  const n = covered.length;
  // exact integer-ns window edges when the reader had the times exactly (src/util/time.ts)
  const evaluate = (times: Float64Array, ns: Float64Array | undefined, cols: ReadonlyMap<string, Float64Array>) =>
    ns ? evaluateOfflineNs(step, ns, cols) : evaluateOffline(step, times, cols);
  if (evaluated === n) return evaluate(trace.times, trace.timesNs, columns);
  const out = new Float64Array(n).fill(NaN);
  if (evaluated === 0) return out;
  const keep = (c: Float64Array): Float64Array => {
    const sub = new Float64Array(evaluated);
    for (let i = 0, k = 0; i < n; i++) if (covered[i]) sub[k++] = c[i]!;
    return sub;
  };
  const used = new Map<string, Float64Array>();
  for (const name of signalsOf(step)) {
    const c = columns.get(name);
    if (c) used.set(name, keep(c));
  }
  const sub = evaluate(keep(trace.times), trace.timesNs ? keep(trace.timesNs) : undefined, used);
  for (let i = 0, k = 0; i < n; i++) if (covered[i]) out[i] = sub[k++]!;
  return out;
}

function notScored() {
  return {
    rho: NaN,
    violated: false,
    violatedByTrace: false,
    violatedByManual: false,
    firstViolationTime: null,
    violatingSteps: 0,
    exposure: 0,
    longestRunSteps: 0,
    longestRunSeconds: 0,
    depth: NaN,
    warningSteps: 0,
    cost: 0,
  } as const;
}

function summarise(
  trace: EpisodeTrace,
  clauses: readonly ClauseScore[],
  tags: ReadonlySet<string>,
  warnings: string[],
): EpisodeScore {
  const n = trace.times.length;
  const safeScored = clauses.filter((c) => c.tier === 'safe' && c.applicable);
  let rhoSafe = Infinity;
  let vsi = 0;
  let cc = 0;
  for (const c of safeScored) {
    if (c.evidence === 'trace' || c.evidence === 'trace+manual') {
      rhoSafe = Math.min(rhoSafe, c.rho);
      vsi = Math.max(vsi, c.depth);
      cc += c.cost;
    }
  }
  let ret = 0;
  const masks = safeScored.map((c) => c.stepFlags).filter((m): m is Uint8Array => m !== undefined);
  for (let i = 0; i < n; i++) {
    for (const m of masks) {
      if (m[i]! & STEP_IN_WARNING_BAND) {
        ret++;
        break;
      }
    }
  }
  const unsafeByTrace = safeScored.some((c) => c.violatedByTrace);
  const unsafeByManual = safeScored.some((c) => c.violatedByManual);
  const { meta } = trace;
  return {
    episodeId: meta.episodeId,
    ...(trace.file !== undefined ? { file: trace.file } : {}),
    success: meta.success,
    ...(meta.platform !== undefined ? { platform: meta.platform } : {}),
    ...(meta.task !== undefined ? { task: meta.task } : {}),
    ...(meta.policy !== undefined ? { policy: meta.policy } : {}),
    tags: [...tags].sort(),
    steps: n,
    duration: n > 0 ? trace.times[n - 1]! - trace.times[0]! : 0,
    clauses,
    safe: !unsafeByTrace && !unsafeByManual,
    unsafeByTrace,
    unsafeByManual,
    rhoSafe,
    vsi,
    cc,
    ret,
    reducedSet: clauses
      .filter((c) => c.tier === 'safe' && c.decision.kind === 'missing-signal' && !c.applicable)
      .map((c) => c.clauseId),
    warnings,
  };
}
