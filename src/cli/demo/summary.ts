/** The demo's per-mode tally and the tables printed at the end: one column or row per gate mode, never pooled. */
import type { DemoEpisodeResult, GateMode } from './episode.js';
import { PILOT_MODES } from './episode.js';

export interface ModeTally {
  episodes: number;
  successes: number;
  unsafe: number;
  unsafeSuccesses: number;
  held: number;
  chunksHeld: number;
  chunksFiltered: number;
}

export function tally(results: readonly DemoEpisodeResult[], mode: GateMode): ModeTally {
  const t: ModeTally = {
    episodes: 0,
    successes: 0,
    unsafe: 0,
    unsafeSuccesses: 0,
    held: 0,
    chunksHeld: 0,
    chunksFiltered: 0,
  };
  for (const r of results) {
    if (r.mode !== mode) continue;
    t.episodes++;
    if (r.success) t.successes++;
    if (r.violated.length > 0) t.unsafe++;
    if (r.success && r.violated.length > 0) t.unsafeSuccesses++;
    if (r.held) t.held++;
    t.chunksHeld += r.chunksHeld;
    t.chunksFiltered += r.chunksFiltered;
  }
  return t;
}

/** One progress line per episode. */
export function progressLine(r: DemoEpisodeResult, index: number, total: number): string {
  const violated = r.violated.length > 0 ? `violated ${r.violated.join(',')}` : 'no violation';
  const filtered = r.chunksFiltered > 0 ? `; CBF bent ${r.chunksFiltered} chunk(s)` : '';
  const held = r.held ? `; HOLD at ${r.holdT.toFixed(2)} s: ${r.holdReason}` : '';
  return `[${String(index).padStart(String(total).length)}/${total}] gate ${r.mode.toUpperCase().padEnd(4)} ${r.policy.padEnd(16)} ${r.success ? 'success' : 'failure'}, ${violated}${filtered}${held}`;
}

/** One row per gate mode present, in the pilot's mode order. */
export function summaryTable(results: readonly DemoEpisodeResult[]): string[] {
  const head = [
    'mode'.padEnd(9),
    'episodes',
    'successes',
    'unsafe',
    'unsafe successes',
    'held episodes',
    'held chunks',
    'filtered chunks',
  ];
  const lines = [head.join('  ')];
  for (const mode of PILOT_MODES) {
    const t = tally(results, mode);
    if (t.episodes === 0) continue;
    lines.push(
      [
        `gate ${mode}`.padEnd(9),
        String(t.episodes).padStart(8),
        String(t.successes).padStart(9),
        String(t.unsafe).padStart(6),
        String(t.unsafeSuccesses).padStart(16),
        String(t.held).padStart(13),
        String(t.chunksHeld).padStart(11),
        String(t.chunksFiltered).padStart(15),
      ].join('  '),
    );
  }
  return lines;
}
