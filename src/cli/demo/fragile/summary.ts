/**
 * Per-mode figures of the fragile-obstacle pilot: the `--json` shape of issue 15 (one entry per
 * mode, and per policy and mode) plus the extra columns of the printed table.
 */
import { FRAGILE_POLICY } from '../../../../drivers/sim/index.js';
import type { FragileEpisodeResult } from './episode.js';
import type { FragileMode } from './filters.js';
import { p50p99 } from './metrics.js';

/** The issue's --json keys, per mode. */
export interface FragileModeFigures {
  readonly episodes: number;
  readonly successes: number;
  readonly unsafe: number;
  readonly unsafe_successes: number;
  readonly obstacle_contacts: number;
  readonly holds: number;
  readonly mean_modification: number;
  readonly jerk: number;
  readonly reversals_per_s: number;
  readonly filter_ms_p50: number;
  readonly filter_ms_p99: number;
}

/** The table's further columns. */
export interface FragileModeExtras {
  readonly tip_overs: number;
  readonly max_modification: number;
  readonly path_length: number;
  readonly filter_cpu_ms_p50: number;
  readonly filter_cpu_ms_p99: number;
  readonly filter_calls: number;
}

export interface FragileJson {
  readonly modes: Partial<Record<FragileMode, FragileModeFigures>>;
  readonly policies: Record<string, Partial<Record<FragileMode, FragileModeFigures>>>;
}

const mean = (xs: readonly number[]): number => (xs.length === 0 ? NaN : xs.reduce((a, b) => a + b, 0) / xs.length);

export function modeFigures(results: readonly FragileEpisodeResult[]): FragileModeFigures & FragileModeExtras {
  const wall = results.flatMap((r) => r.filterMs);
  const cpu = results.flatMap((r) => r.filterCpuMs);
  const w = p50p99(wall);
  const c = p50p99(cpu);
  return {
    episodes: results.length,
    successes: results.filter((r) => r.success).length,
    unsafe: results.filter((r) => r.unsafe).length,
    unsafe_successes: results.filter((r) => r.unsafe && r.success).length,
    obstacle_contacts: results.filter((r) => r.contact).length,
    holds: results.filter((r) => r.held).length,
    mean_modification: mean(results.flatMap((r) => r.modifications)),
    jerk: mean(results.map((r) => r.jerk)),
    reversals_per_s: mean(results.map((r) => r.reversalsPerS)),
    filter_ms_p50: w.p50,
    filter_ms_p99: w.p99,
    tip_overs: results.filter((r) => r.tipped).length,
    max_modification: results.reduce((m, r) => Math.max(m, r.maxModification), 0),
    path_length: mean(results.map((r) => r.pathLength)),
    filter_cpu_ms_p50: c.p50,
    filter_cpu_ms_p99: c.p99,
    filter_calls: wall.length,
  };
}

function jsonFigures(f: FragileModeFigures): FragileModeFigures {
  const { episodes, successes, unsafe, unsafe_successes, obstacle_contacts, holds, mean_modification, jerk, reversals_per_s, filter_ms_p50, filter_ms_p99 } = f;
  // JSON has no NaN: a mode without a filter (off) reports null filter times.
  return { episodes, successes, unsafe, unsafe_successes, obstacle_contacts, holds, mean_modification, jerk, reversals_per_s, filter_ms_p50: nullIfNaN(filter_ms_p50), filter_ms_p99: nullIfNaN(filter_ms_p99) } as FragileModeFigures;
}

function nullIfNaN(x: number): number {
  return (Number.isNaN(x) ? null : x) as number;
}

export function fragileJson(results: readonly FragileEpisodeResult[], modes: readonly FragileMode[]): FragileJson {
  const byMode: Partial<Record<FragileMode, FragileModeFigures>> = {};
  for (const m of modes) byMode[m] = jsonFigures(modeFigures(results.filter((r) => r.mode === m)));
  // One scripted policy: its per-mode figures are the modes' figures.
  return { modes: byMode, policies: { [FRAGILE_POLICY]: byMode } };
}

const fmt = (x: number, d: number): string => (Number.isFinite(x) ? x.toFixed(d) : '—');
const exp = (x: number): string => (Number.isFinite(x) ? x.toExponential(2) : '—');

/** The table as cells: a header row, then one row per mode. */
export function fragileTableCells(results: readonly FragileEpisodeResult[], modes: readonly FragileMode[]): string[][] {
  const head = ['mode', 'success', 'contacts', 'tip-overs', 'SBU', 'holds', 'mean‖U−Unom‖', 'max‖U−Unom‖', 'path m', 'jerk rad²/s⁶', 'reversals/s', 'filter ms p50/p99 (wall)', 'cpu ms p50/p99'];
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
  const line = (cells: readonly string[]): string => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(head!), ...rows.map(line)];
}

/** stepwise ÷ cbf for jerk and reversals per second (NaN when a mode is missing). */
export function roughnessRatio(results: readonly FragileEpisodeResult[]): { jerk: number; reversals: number } {
  const s = results.filter((r) => r.mode === 'stepwise');
  const c = results.filter((r) => r.mode === 'cbf');
  if (s.length === 0 || c.length === 0) return { jerk: NaN, reversals: NaN };
  const fs = modeFigures(s);
  const fc = modeFigures(c);
  return { jerk: fs.jerk / fc.jerk, reversals: fs.reversals_per_s / fc.reversals_per_s };
}

/** One progress line per episode. */
export function fragileProgressLine(r: FragileEpisodeResult, index: number, total: number): string {
  const harm = r.contact ? `bottle touched by ${r.contactBy.join(', ')}${r.tipped ? ', tipped over' : ''}` : r.tipped ? 'bottle tipped over' : 'bottle untouched';
  const hold = r.held ? `; HOLD at ${r.holdT.toFixed(2)} s: ${r.holdReason}` : '';
  return `[${String(index).padStart(String(total).length)}/${total}] ${r.arm} ${r.mode.padEnd(8)} seed ${r.seed}: ${r.success ? 'success' : 'failure'}, ${harm}${hold}`;
}
