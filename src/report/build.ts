/**
 * Streaming report aggregation (design §8): episodes are added one at a time; only per-episode
 * summaries (scores without per-step data) and the worst-K candidates' ρ(t) traces are kept.
 * `finish()` computes the metrics (src/report/metrics) and the report tables.
 */
import type { SensitivityVariant } from '../safety/clause.js';
import type { EpisodeScorer } from '../safety/score-episode.js';
import type { ClauseScore, EpisodeScore } from '../safety/score-types.js';
import type { EpisodeTrace } from '../schema/trace.js';
import { computeMetrics, type MetricsSummary, type SensitivityRow } from './metrics/index.js';
import { summariseGate } from './build-gate.js';
import { summariseSemantic } from './build-semantic.js';
import { WorstTracker } from './build-worst.js';
import type {
  ClauseCell,
  ClauseRun,
  DamagedEpisode,
  EpisodeExtras,
  EpisodeRow,
  GroupKey,
  GroupReport,
  ReportData,
  RunGateMode,
  RunGroup,
  TaskRow,
  UnlabelledEpisode,
} from './build-types.js';
import { preventionRows } from './prevention-table.js';

export interface BuildOptions {
  readonly scorer: EpisodeScorer;
  readonly bootstrap: { readonly resamples: number; readonly seed: number };
  readonly sensitivity?: readonly SensitivityVariant[];
  readonly groupBy?: GroupKey;
  /** Two policies shown side by side. */
  readonly compare?: readonly [string, string];
  /** How many worst unsafe episodes get trace plots (default 10). */
  readonly worst?: number;
  readonly title?: string;
  readonly source: string;
  /** ISO time stamp written into the report (passed in: the builder reads no clock). */
  readonly generatedAt: string;
}

/** How an episode's file fell short of a whole recording (set by the reader; absent when read whole). */
export interface EpisodeDamage {
  readonly state: 'complete' | 'truncated' | 'corrupt';
  /** describeScanEnd of the scan: where and why reading stopped. */
  readonly end: string;
  /** Records that did not decode and were skipped. */
  readonly skippedRecords: number;
  readonly firstErrors: readonly string[];
  /** Damaged regions of the file that were skipped (records lost). */
  readonly lostRegions?: number;
}

const NO_VALUE = '(none)';

function semanticPart(rows: readonly EpisodeRow[]): { semantic?: NonNullable<ReturnType<typeof summariseSemantic>> } {
  const s = summariseSemantic(rows);
  return s ? { semantic: s } : {};
}

type SlimScore = EpisodeScore;

/** The score without its per-step arrays (what the report keeps per episode). */
function slim(s: EpisodeScore): SlimScore {
  return { ...s, clauses: s.clauses.map(({ stepFlags: _f, rhoTrace: _r, ...rest }) => rest as ClauseScore) };
}

function evidenceOf(s: EpisodeScore): EpisodeRow['evidence'] {
  if (s.unsafeByTrace && s.unsafeByManual) return 'trace+manual';
  if (s.unsafeByTrace) return 'trace';
  if (s.unsafeByManual) return 'manual';
  return s.clauses.some((c) => c.applicable && c.evidence !== 'manual' && c.evidence !== 'none')
    ? 'trace'
    : s.clauses.some((c) => c.applicable)
      ? 'manual'
      : 'none';
}

interface TaskAcc {
  episodes: number;
  successes: number;
  safe: number;
  unsafeSuccesses: number;
  cells: Map<string, { violated: number; applicable: number; manual: number; manualNotApplicable: number }>;
}

interface RunAcc {
  steps: number;
  seconds: number;
  episodeId: string;
  exposureSum: number;
  scored: number;
}

export class ReportBuilder {
  private readonly scores: SlimScore[] = [];
  private readonly rows: EpisodeRow[] = [];
  private readonly robots = new Map<string, number>();
  /** "clause\u0000τ\u0000from" → episodes that recorded that monitored threshold. */
  private readonly monitored = new Map<string, number>();
  private readonly variants: {
    variant: SensitivityVariant;
    safe: boolean[];
    vsi: number[];
    notes: Set<string>;
    notDefinedFor: Set<string>;
  }[];
  private readonly worst: WorstTracker;
  private readonly skipped: { file: string; reason: string }[] = [];
  private readonly unlabelledEpisodes: UnlabelledEpisode[] = [];
  private readonly warnings: string[] = [];
  private readonly damaged: DamagedEpisode[] = [];
  private readonly clauseOrder: string[];
  private readonly safeClauses: Set<string>;

  constructor(private readonly opts: BuildOptions) {
    this.variants = (opts.sensitivity ?? []).map((variant) => ({
      variant,
      safe: [],
      vsi: [],
      notes: new Set<string>(),
      notDefinedFor: new Set<string>(),
    }));
    this.worst = new WorstTracker(opts.worst ?? 10);
    const clauses = opts.scorer.spec.library.clauses;
    this.clauseOrder = clauses.map((c) => c.id);
    this.safeClauses = new Set(clauses.filter((c) => c.tier === 'safe').map((c) => c.id));
  }

  get episodes(): number {
    return this.scores.length;
  }

  /** A file that could not be read or scored: listed in the report, not counted. */
  exclude(file: string, reason: string): void {
    this.skipped.push({ file, reason });
  }

  /** An episode that ended without a success/failure label: listed and counted apart, not scored. */
  unlabelled(episode: UnlabelledEpisode): void {
    this.unlabelledEpisodes.push(episode);
  }

  /** Score one episode and fold it in. Returns the scoring problems (then nothing is counted). */
  add(trace: EpisodeTrace, extras: EpisodeExtras & { readonly damage?: EpisodeDamage }): string[] {
    const scored = this.opts.scorer.score(trace, { keepRho: this.opts.worst !== 0 });
    if (!scored.ok) {
      const problems = scored.error.map((e) => e.message);
      this.exclude(trace.file ?? trace.meta.episodeId, problems.join('; '));
      return problems;
    }
    const score = scored.value;
    for (const v of this.variants) {
      const r = this.opts.scorer.score(trace, { tiers: v.variant.tiers, reuse: score });
      if (!r.ok) {
        this.warnings.push(`sensitivity ${v.variant.id}: ${score.episodeId}: ${r.error[0]?.message ?? 'not scored'}`);
        v.safe.push(score.safe);
        v.vsi.push(score.vsi);
        continue;
      }
      for (const c of r.value.clauses) {
        if (!c.note || !v.variant.tiers.has(c.clauseId)) continue;
        v.notes.add(`${c.clauseId}: ${c.note}`);
        if (c.applicable) v.notDefinedFor.add(score.platform ?? NO_VALUE);
      }
      v.safe.push(r.value.safe);
      v.vsi.push(r.value.vsi);
    }
    this.worst.offer(score, trace.times, extras.robotId);
    this.robots.set(extras.robotId, (this.robots.get(extras.robotId) ?? 0) + 1);
    for (const [id, t] of trace.meta.thresholds ?? []) {
      const key = `${id}\u0000${t.tau}\u0000${t.from}`;
      this.monitored.set(key, (this.monitored.get(key) ?? 0) + 1);
    }
    for (const w of score.warnings) if (this.warnings.length < 200) this.warnings.push(`${score.episodeId}: ${w}`);
    this.scores.push(slim(score));
    this.rows.push(this.row(score, trace, extras));
    this.noteDamage(score.episodeId, trace.file ?? score.episodeId, extras);
    return [];
  }

  private noteDamage(
    episodeId: string,
    file: string,
    extras: EpisodeExtras & { readonly damage?: EpisodeDamage },
  ): void {
    const state = extras.damage?.state ?? extras.fileState ?? 'complete';
    const skippedRecords = extras.damage?.skippedRecords ?? 0;
    if (state === 'complete' && skippedRecords === 0 && !extras.damage?.lostRegions) return;
    const end = extras.damage?.end ?? state;
    this.damaged.push({
      file,
      episodeId,
      state,
      end,
      skippedRecords,
      ...(extras.damage?.lostRegions ? { lostRegions: extras.damage.lostRegions } : {}),
    });
    const first = extras.damage?.firstErrors[0];
    this.warnings.push(
      `${file}: episode ${episodeId} counted from a damaged file (${end}; ${skippedRecords} undecodable record(s) skipped${first ? `, first: ${first}` : ''}): its figures cover only what was read`,
    );
  }

  private row(s: EpisodeScore, trace: EpisodeTrace, extras: EpisodeExtras): EpisodeRow {
    const violated = s.clauses.filter((c) => c.applicable && c.violated);
    return {
      episodeId: s.episodeId,
      file: trace.file ?? '',
      format: extras.format,
      fileState: extras.fileState ?? 'complete',
      robotId: extras.robotId,
      platform: s.platform ?? NO_VALUE,
      task: s.task ?? NO_VALUE,
      policy: s.policy ?? NO_VALUE,
      gateMode: extras.gateMode ?? 'unrecorded',
      success: s.success,
      safe: s.safe,
      evidence: evidenceOf(s),
      steps: s.steps,
      duration: s.duration,
      rhoSafe: s.rhoSafe,
      vsi: s.vsi,
      cc: s.cc,
      ret: s.ret,
      violated: violated.map((c) => c.clauseId),
      manualViolated: violated.filter((c) => c.violatedByManual).map((c) => c.clauseId),
      reducedSet: s.reducedSet,
      ...(extras.gate ? { gate: extras.gate } : {}),
      ...(extras.semantic ? { semantic: extras.semantic } : {}),
    };
  }

  private foldTask(tasks: Map<string, TaskAcc>, s: EpisodeScore): void {
    const key = s.task ?? NO_VALUE;
    let t = tasks.get(key);
    if (!t) tasks.set(key, (t = { episodes: 0, successes: 0, safe: 0, unsafeSuccesses: 0, cells: new Map() }));
    t.episodes++;
    if (s.success) t.successes++;
    if (s.safe) t.safe++;
    if (s.success && !s.safe) t.unsafeSuccesses++;
    for (const c of s.clauses) {
      if (!this.safeClauses.has(c.clauseId)) continue;
      let cell = t.cells.get(c.clauseId);
      if (!cell) t.cells.set(c.clauseId, (cell = { violated: 0, applicable: 0, manual: 0, manualNotApplicable: 0 }));
      if (c.decision.kind === 'manual-not-applicable') cell.manualNotApplicable++;
      if (!c.applicable) continue;
      cell.applicable++;
      if (c.violated) cell.violated++;
      if (c.violatedByManual) cell.manual++;
    }
  }

  private foldRuns(runs: Map<string, RunAcc>, s: EpisodeScore): void {
    for (const c of s.clauses) {
      if (!c.applicable || (c.evidence !== 'trace' && c.evidence !== 'trace+manual')) continue;
      let r = runs.get(c.clauseId);
      if (!r) runs.set(c.clauseId, (r = { steps: 0, seconds: 0, episodeId: '', exposureSum: 0, scored: 0 }));
      r.scored++;
      r.exposureSum += c.exposure;
      if (c.longestRunSteps > r.steps) {
        r.steps = c.longestRunSteps;
        r.seconds = c.longestRunSeconds;
        r.episodeId = s.episodeId;
      }
    }
  }

  private metrics(scores: readonly SlimScore[], bootstrap = this.opts.bootstrap): MetricsSummary {
    const m = computeMetrics(scores, { bootstrap, clauseOrder: this.clauseOrder });
    // computeMetrics reads RET_k/T from per-step flags, which the report does not keep.
    const ret = new Map<string, { sum: number; n: number }>();
    for (const e of scores) {
      for (const c of e.clauses) {
        if (!c.applicable || (c.evidence !== 'trace' && c.evidence !== 'trace+manual')) continue;
        const a = ret.get(c.clauseId) ?? { sum: 0, n: 0 };
        a.sum += e.steps > 0 ? c.warningSteps / e.steps : 0;
        a.n++;
        ret.set(c.clauseId, a);
      }
    }
    return {
      ...m,
      clauses: m.clauses.map((c) => {
        const a = ret.get(c.clauseId);
        return { ...c, retFraction: a ? a.sum / a.n : NaN };
      }),
    };
  }

  /** Groups by `key`; when the report holds more than one gate mode, also by gate mode (never pooled). */
  private group(key: (r: EpisodeRow) => string): GroupReport[] {
    const idx = new Map<string, number[]>();
    const mixed = new Set(this.rows.map((r) => r.gateMode)).size > 1;
    this.rows.forEach((r, i) => {
      const k = mixed ? `${key(r)}@${r.gateMode}` : key(r);
      const list = idx.get(k);
      if (list) list.push(i);
      else idx.set(k, [i]);
    });
    return [...idx]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, is]) => ({ key: k, metrics: this.metrics(is.map((i) => this.scores[i]!)) }));
  }

  /** Per-task cells and clause runs over the episodes at `is` (indices into scores/rows). */
  private accumulate(is: readonly number[]): { tasks: Map<string, TaskAcc>; runs: Map<string, RunAcc> } {
    const tasks = new Map<string, TaskAcc>();
    const runs = new Map<string, RunAcc>();
    for (const i of is) {
      this.foldTask(tasks, this.scores[i]!);
      this.foldRuns(runs, this.scores[i]!);
    }
    return { tasks, runs };
  }

  /** Every summary section over the episodes at `is`; `taskClauses` are the report's per-task columns. */
  private sections(
    is: readonly number[],
    metrics: MetricsSummary,
    taskClauses: readonly string[],
  ): Pick<RunGroup, 'tasks' | 'taskAll' | 'runs' | 'sensitivity' | 'gate'> {
    const acc = this.accumulate(is);
    const taskRow = (task: string, t: TaskAcc): TaskRow => {
      const clauses: Record<string, ClauseCell> = {};
      for (const id of taskClauses)
        clauses[id] = { ...(t.cells.get(id) ?? { violated: 0, applicable: 0, manual: 0, manualNotApplicable: 0 }) };
      return {
        task,
        episodes: t.episodes,
        successes: t.successes,
        safe: t.safe,
        unsafeSuccesses: t.unsafeSuccesses,
        clauses,
      };
    };
    const all: TaskAcc = { episodes: 0, successes: 0, safe: 0, unsafeSuccesses: 0, cells: new Map() };
    for (const t of acc.tasks.values()) {
      all.episodes += t.episodes;
      all.successes += t.successes;
      all.safe += t.safe;
      all.unsafeSuccesses += t.unsafeSuccesses;
      for (const [id, c] of t.cells) {
        const a = all.cells.get(id) ?? { violated: 0, applicable: 0, manual: 0, manualNotApplicable: 0 };
        all.cells.set(id, {
          violated: a.violated + c.violated,
          applicable: a.applicable + c.applicable,
          manual: a.manual + c.manual,
          manualNotApplicable: a.manualNotApplicable + c.manualNotApplicable,
        });
      }
    }
    const runs: ClauseRun[] = this.clauseOrder.flatMap((id) => {
      const r = acc.runs.get(id);
      return r
        ? [
            {
              clauseId: id,
              longestRunSteps: r.steps,
              longestRunSeconds: r.seconds,
              episodeId: r.episodeId,
              meanExposure: r.exposureSum / r.scored,
            },
          ]
        : [];
    });
    return {
      tasks: [...acc.tasks].map(([k, t]) => taskRow(k, t)),
      taskAll: taskRow('All', all),
      runs,
      sensitivity: this.sensitivityRows(metrics, is),
      gate: summariseGate(is.map((i) => this.rows[i]!.gate)),
    };
  }

  /** Headlines per gate mode × policy: gate off (the baseline) first, then monitor, on, unrecorded. */
  private runGroups(taskClauses: readonly string[]): RunGroup[] {
    const order: Record<RunGateMode, number> = { off: 0, monitor: 1, on: 2, unrecorded: 3 };
    const idx = new Map<string, { gateMode: RunGateMode; policy: string; is: number[] }>();
    this.rows.forEach((r, i) => {
      const key = `${r.gateMode}\u0000${r.policy}`;
      const g = idx.get(key);
      if (g) g.is.push(i);
      else idx.set(key, { gateMode: r.gateMode, policy: r.policy, is: [i] });
    });
    return [...idx.values()]
      .sort((a, b) => order[a.gateMode] - order[b.gateMode] || a.policy.localeCompare(b.policy))
      .map((g) => {
        const metrics = this.metrics(g.is.map((i) => this.scores[i]!));
        return {
          key: `gate ${g.gateMode} · ${g.policy}`,
          gateMode: g.gateMode,
          policy: g.policy,
          metrics,
          ...this.sections(g.is, metrics, taskClauses),
        };
      });
  }

  finish(): ReportData {
    const summary = this.metrics(this.scores);
    const everyone = this.scores.map((_, i) => i);
    const applicableSafe = new Set<string>();
    for (const t of this.accumulate(everyone).tasks.values())
      for (const [id, c] of t.cells) if (c.applicable > 0) applicableSafe.add(id);
    const taskClauses = this.clauseOrder.filter((id) => applicableSafe.has(id));
    const { tasks, taskAll: all, runs, sensitivity, gate } = this.sections(everyone, summary, taskClauses);
    const runGroups = this.runGroups(taskClauses);
    const keyOf: Record<GroupKey, (r: EpisodeRow) => string> = {
      policy: (r) => r.policy,
      task: (r) => r.task,
      platform: (r) => r.platform,
      robot: (r) => r.robotId,
    };
    const groupBy = this.opts.groupBy
      ? { by: this.opts.groupBy, groups: this.group(keyOf[this.opts.groupBy]) }
      : undefined;
    let compare: ReportData['compare'];
    if (this.opts.compare) {
      const [a, b] = this.opts.compare;
      // 'policy' or 'policy@mode' (mode: off, on, monitor, unrecorded); a policy run in more than one
      // gate mode must name the mode: the two sides are never pooled across gate modes.
      const select = (name: string): number[] | undefined => {
        const at = name.lastIndexOf('@');
        const mode = at > 0 ? name.slice(at + 1) : undefined;
        const policy = mode !== undefined ? name.slice(0, at) : name;
        const is = this.rows.flatMap((r, i) =>
          r.policy === policy && (mode === undefined || r.gateMode === mode) ? [i] : [],
        );
        const modes = [...new Set(is.map((i) => this.rows[i]!.gateMode))];
        if (mode === undefined && modes.length > 1) {
          this.warnings.push(
            `--compare: policy '${policy}' has episodes in gate modes ${modes.join(', ')}: name one (e.g. ${policy}@${modes[0]}); not compared`,
          );
          return undefined;
        }
        if (is.length === 0) {
          const known = [...new Set(this.rows.map((r) => r.policy))].sort();
          this.warnings.push(
            `--compare: no episode has policy '${policy}'${mode !== undefined ? ` in gate mode ${mode}` : ''} (policies: ${known.join(', ')})`,
          );
        }
        return is;
      };
      const ia = select(a);
      const ib = select(b);
      if (ia && ib) {
        compare = {
          a: { key: a, metrics: this.metrics(ia.map((i) => this.scores[i]!)) },
          b: { key: b, metrics: this.metrics(ib.map((i) => this.scores[i]!)) },
        };
      }
    }
    return {
      format: 'armguard-report/1',
      title: this.opts.title ?? 'armguard safety report',
      source: this.opts.source,
      generatedAt: this.opts.generatedAt,
      bootstrap: this.opts.bootstrap,
      episodes: this.scores.length,
      robots: [...this.robots]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([robotId, episodes]) => ({ robotId, episodes })),
      monitoredThresholds: [...this.monitored]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([key, episodes]) => {
          const [clauseId = '', tau = '', from = ''] = key.split('\u0000');
          return { clauseId, tau: Number(tau), from, episodes };
        }),
      summary,
      runGroups,
      gateModes: [...new Set(runGroups.map((g) => g.gateMode))],
      taskClauses,
      tasks,
      taskAll: all,
      runs,
      sensitivity,
      gate,
      prevention: preventionRows(this.opts.scorer.spec.library.clauses, new Set(taskClauses)),
      ...semanticPart(this.rows),
      ...(groupBy ? { groupBy } : {}),
      ...(compare ? { compare } : {}),
      worst: this.worst
        .worst()
        .map((w) => ({ ...w, gateMode: this.rows.find((r) => r.episodeId === w.episodeId)?.gateMode ?? 'unrecorded' })),
      rows: this.rows,
      skipped: this.skipped,
      unlabelled: this.unlabelledEpisodes,
      warnings: this.warnings,
      damaged: this.damaged,
    };
  }

  /** Table 11 rows, as thresholdSensitivity computes them, from the per-variant verdicts kept while streaming. */
  private sensitivityRows(summary: MetricsSummary, is: readonly number[]): SensitivityRow[] {
    if (this.variants.length === 0) return [];
    const success = is.map((i) => this.scores[i]!.success);
    const baseSafe = is.map((i) => this.scores[i]!.safe);
    const row = (
      variant: string,
      description: string,
      safe: readonly boolean[],
      vsi: readonly number[],
      notes: string[],
      notDefinedFor: readonly string[] = [],
    ): SensitivityRow => {
      const n = safe.length;
      let safeK = 0;
      let sbu = 0;
      let vsiSum = 0;
      let changed = 0;
      for (let i = 0; i < n; i++) {
        if (safe[i]) safeK++;
        if (success[i] && !safe[i]) sbu++;
        if (safe[i] !== baseSafe[i]) changed++;
        vsiSum += vsi[i]!;
      }
      const successes = summary.sr.k;
      return {
        variant,
        description,
        safety: n === 0 ? NaN : safeK / n,
        sbu: n === 0 ? NaN : sbu / n,
        pUnsafeGivenSuccess: successes === 0 ? NaN : sbu / successes,
        vsi: n === 0 ? NaN : vsiSum / n,
        changedEpisodes: changed,
        notes,
        notDefinedFor,
      };
    };
    return [
      row(
        'default',
        'Default (main tiers)',
        baseSafe,
        is.map((i) => this.scores[i]!.vsi),
        [],
      ),
      ...this.variants.map((v) =>
        row(
          v.variant.id,
          v.variant.description,
          is.map((i) => v.safe[i]!),
          is.map((i) => v.vsi[i]!),
          [...v.notes],
          [...v.notDefinedFor].sort(),
        ),
      ),
    ];
  }
}
