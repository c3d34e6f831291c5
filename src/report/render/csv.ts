/** episodes.csv: one row per episode (RFC 4180 quoting). */
import type { EpisodeRow } from '../build-types.js';

export const EPISODE_CSV_COLUMNS = [
  'episode_id', 'file', 'format', 'file_state', 'robot_id', 'platform', 'task', 'policy', 'gate_mode', 'success', 'safe', 'unsafe_evidence',
  'steps', 'duration_s', 'rho_safe', 'vsi', 'cc', 'ret', 'violated', 'manual_violated', 'reduced_set',
  'gate_holds', 'gate_time_held_s', 'chunks_filtered', 'chunks_held', 'chunks_executed', 'modification_sum',
] as const;

function cell(v: string | number | boolean | undefined): string {
  if (v === undefined) return '';
  const s = typeof v === 'number' ? (Number.isFinite(v) ? String(v) : Number.isNaN(v) ? '' : v > 0 ? 'inf' : '-inf') : String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function renderEpisodesCsv(rows: readonly EpisodeRow[]): string {
  const lines = [EPISODE_CSV_COLUMNS.join(',')];
  for (const r of rows) {
    const g = r.gate;
    lines.push([
      r.episodeId, r.file, r.format, r.fileState, r.robotId, r.platform, r.task, r.policy, r.gateMode, r.success, r.safe, r.safe ? '' : r.evidence,
      r.steps, r.duration, r.rhoSafe, r.vsi, r.cc, r.ret, r.violated.join(' '), r.manualViolated.join(' '), r.reducedSet.join(' '),
      g?.holds, g?.timeHeld, g?.filteredChunks, g?.heldChunks, g?.executedChunks, g?.modificationSum,
    ].map(cell).join(','));
  }
  return `${lines.join('\n')}\n`;
}
