/**
 * episodes.csv: one row per episode (RFC 4180 quoting). The semantic gate's columns (issue 18) are
 * empty for episodes without semantic records: the twin and its variant and hazard category, the
 * judge and its model, the verdict (refuse when any verdict refused, else the last one; 'none' when
 * the judge never answered), its reason, mean and max latency, refused yes/no, judge faults, and
 * the stage times t_attempt/t_commit/t_success in seconds since the episode started (empty when
 * not reached; stages_observed says whether they were observed at all).
 */
import type { EpisodeRow } from '../build-types.js';
import { judgeModel, type SemanticEpisode } from '../build-semantic.js';

export const EPISODE_CSV_COLUMNS = [
  'episode_id',
  'file',
  'format',
  'file_state',
  'robot_id',
  'platform',
  'task',
  'policy',
  'gate_mode',
  'success',
  'safe',
  'unsafe_evidence',
  'steps',
  'duration_s',
  'rho_safe',
  'vsi',
  'cc',
  'ret',
  'violated',
  'manual_violated',
  'reduced_set',
  'gate_holds',
  'gate_time_held_s',
  'chunks_filtered',
  'chunks_held',
  'chunks_executed',
  'modification_sum',
  'twin',
  'twin_variant',
  'hazard_category',
  'judge',
  'judge_model',
  'judge_verdict',
  'judge_reason',
  'judge_latency_mean_s',
  'judge_latency_max_s',
  'judge_refused',
  'judge_faults',
  'stages_observed',
  't_attempt_s',
  't_commit_s',
  't_success_s',
] as const;

function semanticCells(s: SemanticEpisode | undefined): (string | number | boolean | undefined)[] {
  if (!s) return new Array<undefined>(15).fill(undefined);
  const refusal = s.verdicts.find((v) => v.decision === 'refuse');
  const last = s.verdicts.at(-1);
  const shown = refusal ?? last;
  const lat = s.verdicts.map((v) => v.latency).filter(Number.isFinite);
  const judged = s.judge !== null;
  return [
    s.twin || undefined,
    s.variant,
    s.category || undefined,
    s.judge ?? undefined,
    judged ? judgeModel(s.judge) : undefined,
    judged ? (shown?.decision ?? 'none') : undefined,
    shown?.reason,
    lat.length > 0 ? lat.reduce((a, b) => a + b, 0) / lat.length : undefined,
    lat.length > 0 ? Math.max(...lat) : undefined,
    judged ? s.refusals > 0 : undefined,
    judged ? s.faults.length : undefined,
    s.stagesObserved,
    s.stagesObserved ? (s.stages.attempt ?? undefined) : undefined,
    s.stagesObserved ? (s.stages.commit ?? undefined) : undefined,
    s.stagesObserved ? (s.stages.success ?? undefined) : undefined,
  ];
}

function cell(v: string | number | boolean | undefined): string {
  if (v === undefined) return '';
  const s =
    typeof v === 'number'
      ? Number.isFinite(v)
        ? String(v)
        : Number.isNaN(v)
          ? ''
          : v > 0
            ? 'inf'
            : '-inf'
      : String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function renderEpisodesCsv(rows: readonly EpisodeRow[]): string {
  const lines = [EPISODE_CSV_COLUMNS.join(',')];
  for (const r of rows) {
    const g = r.gate;
    lines.push(
      [
        r.episodeId,
        r.file,
        r.format,
        r.fileState,
        r.robotId,
        r.platform,
        r.task,
        r.policy,
        r.gateMode,
        r.success,
        r.safe,
        r.safe ? '' : r.evidence,
        r.steps,
        r.duration,
        r.rhoSafe,
        r.vsi,
        r.cc,
        r.ret,
        r.violated.join(' '),
        r.manualViolated.join(' '),
        r.reducedSet.join(' '),
        g?.holds,
        g?.timeHeld,
        g?.filteredChunks,
        g?.heldChunks,
        g?.executedChunks,
        g?.modificationSum,
        ...semanticCells(r.semantic),
      ]
        .map(cell)
        .join(','),
    );
  }
  return `${lines.join('\n')}\n`;
}
