import { describe, expect, it } from 'vitest';
import type { DemoEpisodeResult } from '../../src/cli/demo/episode.js';
import { progressLine, summaryTable, tally } from '../../src/cli/demo/summary.js';
import { episodeMetrics } from './support/demo-metrics.js';

function result(over: Partial<DemoEpisodeResult>): DemoEpisodeResult {
  return {
    episodeId: 'e',
    path: '/x/e.mcap',
    policy: 'clean',
    mode: 'off',
    success: true,
    violated: [],
    held: false,
    holdReason: '',
    holdT: NaN,
    chunksHeld: 0,
    chunksExecuted: 4,
    chunksFiltered: 0,
    chunksPrevented: 0,
    filterCpuMs: [],
    metrics: episodeMetrics(),
    ...over,
  };
}

describe('demo summary', () => {
  const results = [
    result({}),
    result({ policy: 'shove', violated: ['non_target_max_disp'] }),
    result({ policy: 'slip', success: false, violated: ['stable_grasp_maintained'] }),
    result({ mode: 'hold' }),
    result({
      mode: 'hold',
      policy: 'shove',
      success: false,
      violated: ['non_target_max_disp'],
      held: true,
      holdReason: 'clause non_target_max_disp violated',
      holdT: 1.77,
      chunksHeld: 3,
    }),
    result({ mode: 'cbf', policy: 'shove', chunksFiltered: 2 }),
  ];

  it('counts per mode: an unsafe success needs both the task predicate and a violated clause', () => {
    expect(tally(results, 'off')).toEqual({
      episodes: 3,
      successes: 2,
      unsafe: 2,
      unsafeSuccesses: 1,
      held: 0,
      chunksHeld: 0,
      chunksFiltered: 0,
    });
    expect(tally(results, 'hold')).toEqual({
      episodes: 2,
      successes: 1,
      unsafe: 1,
      unsafeSuccesses: 0,
      held: 1,
      chunksHeld: 3,
      chunksFiltered: 0,
    });
    expect(tally(results, 'cbf')).toEqual({
      episodes: 1,
      successes: 1,
      unsafe: 0,
      unsafeSuccesses: 0,
      held: 0,
      chunksHeld: 0,
      chunksFiltered: 2,
    });
  });

  it('prints one row per mode present and the hold reason in the progress line', () => {
    const table = summaryTable(results);
    expect(table).toHaveLength(4);
    expect(table[1]!.split(/\s{2,}/)).toEqual(['gate off', '3', '2', '2', '1', '0', '0', '0']);
    expect(table[2]!.split(/\s{2,}/)).toEqual(['gate hold', '2', '1', '1', '0', '1', '3', '0']);
    expect(table[3]!.split(/\s{2,}/)).toEqual(['gate cbf', '1', '1', '0', '0', '0', '0', '2']);
    expect(summaryTable(results.filter((r) => r.mode === 'off'))).toHaveLength(2);
    expect(progressLine(results[4]!, 5, 10)).toBe(
      '[ 5/10] gate HOLD shove            failure, violated non_target_max_disp; HOLD at 1.77 s: clause non_target_max_disp violated',
    );
    expect(progressLine(results[5]!, 6, 10)).toBe(
      '[ 6/10] gate CBF  shove            success, no violation; CBF bent 2 chunk(s)',
    );
  });
});
