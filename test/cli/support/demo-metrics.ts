import type { EpisodeMetrics } from '../../../src/cli/demo/metrics.js';

/** One demo episode's figures: a clean, safe, successful `off` episode with nothing measured, then `over`. */
export function episodeMetrics(over: Partial<EpisodeMetrics> = {}): EpisodeMetrics {
  return {
    policy: 'clean',
    mode: 'off',
    success: true,
    unsafe: false,
    obstacleContact: false,
    held: false,
    modifications: [],
    jerk: 0,
    reversalsPerS: 0,
    filterMs: [],
    ...over,
  };
}
