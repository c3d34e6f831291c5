/**
 * Per-mode figures of the fragile-obstacle pilot: the shared demo figures and `--json` shape of
 * src/cli/demo/metrics.ts, plus the extra columns of the printed table.
 */
import { FRAGILE_POLICY } from '../../../../drivers/sim/index.js';
import type { FragileEpisodeResult } from './episode.js';
import type { FragileMode } from './filters.js';
import { demoJson, modeStats, type DemoJson, type DemoModeStats, type EpisodeMetrics } from '../metrics.js';
import { p50p99 } from './metrics.js';

/** The table's columns beyond the shared per-mode figures. */
export interface FragileModeExtras {
  readonly tip_overs: number;
  readonly max_modification: number;
  readonly path_length: number;
  readonly filter_cpu_ms_p50: number;
  readonly filter_cpu_ms_p99: number;
  readonly filter_calls: number;
}

const mean = (xs: readonly number[]): number => (xs.length === 0 ? NaN : xs.reduce((a, b) => a + b, 0) / xs.length);

/** What one episode contributes to the shared per-mode figures (src/cli/demo/metrics.ts). */
export function episodeMetrics(r: FragileEpisodeResult): EpisodeMetrics {
  return {
    policy: FRAGILE_POLICY,
    mode: r.mode,
    success: r.success,
    unsafe: r.unsafe,
    obstacleContact: r.contact,
    held: r.held,
    modifications: r.modifications,
    jerk: r.jerk,
    reversalsPerS: r.reversalsPerS,
    filterMs: r.filterMs,
  };
}

export function modeFigures(results: readonly FragileEpisodeResult[]): DemoModeStats & FragileModeExtras {
  const c = p50p99(results.flatMap((r) => r.filterCpuMs));
  return {
    ...modeStats(results.map(episodeMetrics)),
    tip_overs: results.filter((r) => r.tipped).length,
    max_modification: results.reduce((m, r) => Math.max(m, r.maxModification), 0),
    path_length: mean(results.map((r) => r.pathLength)),
    filter_cpu_ms_p50: c.p50,
    filter_cpu_ms_p99: c.p99,
    filter_calls: results.reduce((n, r) => n + r.filterMs.length, 0),
  };
}

/** The --json document (the shared shape: per mode, and per policy per mode). */
export function fragileJson(results: readonly FragileEpisodeResult[], modes: readonly FragileMode[]): DemoJson {
  return demoJson(results.map(episodeMetrics), modes);
}

const fmt = (x: number | null, d: number): string => (x !== null && Number.isFinite(x) ? x.toFixed(d) : '—');
const exp = (x: number | null): string => (x !== null && Number.isFinite(x) ? x.toExponential(2) : '—');

/** The table as cells: a header row, then one row per mode. */
export function fragileTableCells(results: readonly FragileEpisodeResult[], modes: readonly FragileMode[]): string[][] {
  const head = [
    'mode',
    'success',
    'contacts',
    'tip-overs',
    'SBU',
    'holds',
    'mean‖U−Unom‖',
    'max‖U−Unom‖',
    'path m',
    'jerk rad²/s⁶',
    'reversals/s',
    'filter ms p50/p99 (wall)',
    'cpu ms p50/p99',
  ];
  const rows = modes.map((m) => {
    const f = modeFigures(results.filter((r) => r.mode === m));
    return [
      m,
      `${f.successes}/${f.episodes}`,
      String(f.obstacle_contacts),
      String(f.tip_overs),
      String(f.unsafe_successes),
      String(f.holds),
      fmt(f.mean_modification, 3),
      fmt(f.max_modification, 3),
      fmt(f.path_length, 3),
      exp(f.jerk),
      fmt(f.reversals_per_s, 2),
      `${fmt(f.filter_ms_p50, 2)} / ${fmt(f.filter_ms_p99, 2)}`,
      `${fmt(f.filter_cpu_ms_p50, 2)} / ${fmt(f.filter_cpu_ms_p99, 2)}`,
    ];
  });
  return [head, ...rows];
}

/** The printed table: one row per mode. */
export function fragileTable(results: readonly FragileEpisodeResult[], modes: readonly FragileMode[]): string[] {
  const [head, ...rows] = fragileTableCells(results, modes);
  const widths = head!.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]): string =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(head!), ...rows.map(line)];
}

/** stepwise ÷ cbf for jerk and reversals per second (NaN when a mode is missing). */
export function roughnessRatio(results: readonly FragileEpisodeResult[]): { jerk: number; reversals: number } {
  const s = results.filter((r) => r.mode === 'stepwise');
  const c = results.filter((r) => r.mode === 'cbf');
  if (s.length === 0 || c.length === 0) return { jerk: NaN, reversals: NaN };
  const fs = modeFigures(s);
  const fc = modeFigures(c);
  return {
    jerk: (fs.jerk ?? NaN) / (fc.jerk ?? NaN),
    reversals: (fs.reversals_per_s ?? NaN) / (fc.reversals_per_s ?? NaN),
  };
}

/** One progress line per episode. */
export function fragileProgressLine(r: FragileEpisodeResult, index: number, total: number): string {
  const harm = r.contact
    ? `bottle touched by ${r.contactBy.join(', ')}${r.tipped ? ', tipped over' : ''}`
    : r.tipped
      ? 'bottle tipped over'
      : 'bottle untouched';
  const hold = r.held ? `; HOLD at ${r.holdT.toFixed(2)} s: ${r.holdReason}` : '';
  return `[${String(index).padStart(String(total).length)}/${total}] ${r.arm} ${r.mode.padEnd(8)} seed ${r.seed}: ${r.success ? 'success' : 'failure'}, ${harm}${hold}`;
}
