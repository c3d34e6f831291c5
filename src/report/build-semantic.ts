/**
 * The report's semantic-gate section (issue 18): per episode the twin roles, the judge's verdicts
 * with latencies, refusals and faults, and the stage times (folded from /armguard/semantic records
 * in file order); over episodes seeds/003's table — per twin, per hazard category and in all, for
 * each policy label (e.g. `hazard-twins/off` vs `hazard-twins/judge`): SR, attempt and commit
 * rates on safe and unsafe twins, the judge's recall and FPR. Times are seconds since the episode
 * started (live episodes stamp records on the gate's clock).
 */
import type { SemanticRecord } from '../episode/types.js';
import { twinMetrics, type TwinEpisodeOutcome, type TwinMetrics } from '../semantic/twin-metrics.js';

export interface SemanticVerdictRow {
  readonly t: number;
  readonly decision: string;
  readonly latency: number;
  readonly reason: string;
  readonly judge: string;
}

/** One episode's semantic records, summarised. */
export interface SemanticEpisode {
  readonly task: string;
  readonly twin: string;
  readonly variant: 'safe' | 'unsafe';
  readonly category: string;
  readonly instruction: string;
  /** The judge's name, null when the gate was off. */
  readonly judge: string | null;
  readonly failMode: string | null;
  readonly queries: number;
  readonly verdicts: readonly SemanticVerdictRow[];
  readonly faults: readonly { readonly t: number; readonly cause: string; readonly detail: string }[];
  /** Verdicts that refused. */
  readonly refusals: number;
  /** Frames the judge saw (recorded for audit). */
  readonly frames: number;
  readonly stages: { readonly attempt: number | null; readonly commit: number | null; readonly success: number | null };
  /** Whether the stage events were observed (the testbed always; a live run with a target position). */
  readonly stagesObserved: boolean;
}

/** The model behind a judge name: `openai:<model>@<url>` → the model, `lexicon:<file>` → `lexicon`. */
export function judgeModel(judge: string | null): string {
  if (judge === null) return '';
  const m = /^openai:([^@]+)@/.exec(judge);
  return m ? m[1]! : judge.split(':')[0]!;
}

const num = (v: unknown): number => (typeof v === 'number' ? v : NaN);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export class SemanticAccumulator {
  /** `t0`: the episode's start time (record times are reported relative to it). */
  constructor(private readonly t0 = 0) {}
  private task: SemanticRecord | undefined;
  private queries = 0;
  private frames = 0;
  private readonly verdicts: SemanticVerdictRow[] = [];
  private readonly faults: { t: number; cause: string; detail: string }[] = [];
  private stages = { attempt: null as number | null, commit: null as number | null, success: null as number | null };
  private sawStages = false;
  private stagesUnobserved = false;

  add(record: SemanticRecord): void {
    const r: SemanticRecord = { ...record, t: record.t - this.t0 };
    const rel = (v: unknown): number | null => (typeof v === 'number' ? v - this.t0 : null);
    switch (r.kind) {
      case 'task':
        this.task ??= r;
        break;
      case 'query':
        this.queries++;
        break;
      case 'frame':
        this.frames++;
        break;
      case 'verdict':
        this.verdicts.push({
          t: r.t,
          decision: str(r['decision']),
          latency: num(r['latency']),
          reason: str(r['reason']),
          judge: str(r['judge']),
        });
        break;
      case 'fault':
        this.faults.push({ t: r.t, cause: str(r['cause']), detail: str(r['detail']) });
        break;
      case 'stage': {
        // Live first-hit events; the closing 'stages' record (when present) is authoritative.
        if (this.sawStages) break;
        const s = str(r['stage']);
        if ((s === 'attempt' || s === 'commit' || s === 'success') && this.stages[s] === null)
          this.stages = { ...this.stages, [s]: r.t };
        break;
      }
      case 'stages':
        // A live task whose every step went unobserved (no joint state, no target) observed nothing.
        this.sawStages = r['observed_steps'] !== 0;
        this.stagesUnobserved = r['observed_steps'] === 0;
        this.stages = { attempt: rel(r['attempt']), commit: rel(r['commit']), success: rel(r['success']) };
        break;
      default:
        break;
    }
  }

  /** Undefined when the episode has no semantic task record. */
  finish(): SemanticEpisode | undefined {
    const t = this.task;
    if (!t) return undefined;
    const variant = t['variant'] === 'unsafe' ? 'unsafe' : 'safe';
    return {
      task: str(t['task']),
      twin: str(t['twin']),
      variant,
      category: str(t['category']),
      instruction: str(t['instruction']),
      judge: typeof t['judge'] === 'string' ? t['judge'] : null,
      failMode: typeof t['fail_mode'] === 'string' ? t['fail_mode'] : null,
      queries: this.queries,
      verdicts: this.verdicts,
      faults: this.faults,
      refusals: this.verdicts.filter((v) => v.decision === 'refuse').length,
      frames: this.frames,
      stages: this.stages,
      stagesObserved: this.sawStages || (t['stage_events'] === true && !this.stagesUnobserved),
    };
  }
}

export interface SemanticTableRow {
  /** Policy label the episodes were recorded under. */
  readonly policy: string;
  /** A twin id, a hazard category, or 'all'. */
  readonly key: string;
  readonly kind: 'twin' | 'category' | 'all';
  readonly category: string;
  readonly metrics: TwinMetrics;
}

export interface SemanticSummary {
  readonly rows: readonly SemanticTableRow[];
  readonly episodes: number;
  readonly verdicts: number;
  readonly refusals: number;
  readonly faults: number;
  readonly meanLatency: number;
  readonly maxLatency: number;
}

export function summariseSemantic(
  rows: readonly { readonly policy: string; readonly success: boolean; readonly semantic?: SemanticEpisode }[],
): SemanticSummary | undefined {
  const withSem = rows.filter((r): r is typeof r & { semantic: SemanticEpisode } => r.semantic !== undefined);
  if (withSem.length === 0) return undefined;
  const outcome = (r: (typeof withSem)[number]): TwinEpisodeOutcome => ({
    twin: r.semantic.twin,
    category: r.semantic.category,
    variant: r.semantic.variant,
    success: r.success,
    stages: r.semantic.stagesObserved ? r.semantic.stages : null,
    refused: r.semantic.judge === null || r.semantic.queries === 0 ? null : r.semantic.refusals > 0,
  });
  const out: SemanticTableRow[] = [];
  const policies = [...new Set(withSem.map((r) => r.policy))].sort();
  for (const policy of policies) {
    const mine = withSem.filter((r) => r.policy === policy);
    const twins = [...new Set(mine.map((r) => r.semantic.twin))].sort();
    for (const twin of twins) {
      const eps = mine.filter((r) => r.semantic.twin === twin);
      out.push({
        policy,
        key: twin,
        kind: 'twin',
        category: eps[0]!.semantic.category,
        metrics: twinMetrics(eps.map(outcome)),
      });
    }
    for (const cat of [...new Set(mine.map((r) => r.semantic.category))].sort()) {
      out.push({
        policy,
        key: cat,
        kind: 'category',
        category: cat,
        metrics: twinMetrics(mine.filter((r) => r.semantic.category === cat).map(outcome)),
      });
    }
    out.push({ policy, key: 'all', kind: 'all', category: '', metrics: twinMetrics(mine.map(outcome)) });
  }
  const lat = withSem.flatMap((r) => r.semantic.verdicts.map((v) => v.latency)).filter(Number.isFinite);
  return {
    rows: out,
    episodes: withSem.length,
    verdicts: lat.length,
    refusals: withSem.reduce((n, r) => n + r.semantic.refusals, 0),
    faults: withSem.reduce((n, r) => n + r.semantic.faults.length, 0),
    meanLatency: lat.length === 0 ? NaN : lat.reduce((a, b) => a + b, 0) / lat.length,
    maxLatency: lat.length === 0 ? NaN : Math.max(...lat),
  };
}
