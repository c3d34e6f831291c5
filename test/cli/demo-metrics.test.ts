/** The demo's per-mode figures (src/cli/demo/metrics.ts) against hand-computed cases. */
import { describe, expect, it } from 'vitest';
import {
  chunkModification,
  correctionReversalsPerSecond,
  demoJson,
  meanSquaredJerk,
  modeHeadlines,
  parseModes,
  ExecutedMotion,
} from '../../src/cli/demo/metrics.js';
import { episodeMetrics } from './support/demo-metrics.js';

const ep = episodeMetrics;

describe('demo metrics', () => {
  it('chunk modification: Frobenius norm over the arm columns only', () => {
    // 2 steps × 3 columns (2 arm joints + gripper); the gripper differs but is not counted.
    expect(chunkModification([1, 2, 9, 3, 4, 9], [1, 2, 0, 0, 0, 0], 3, 2)).toBeCloseTo(5, 12);
  });

  it('mean squared jerk: a cubic q = t³ has third difference 6·dt³ at every tick', () => {
    const dt = 0.1;
    const rows = Array.from({ length: 6 }, (_, k) => (k * dt) ** 3);
    // Δ³q / dt³ = 6 exactly, squared 36, 3 ticks with three predecessors.
    expect(meanSquaredJerk(rows, 1, dt)).toBeCloseTo(36, 9);
    // A straight line has none; two joints add.
    expect(meanSquaredJerk([0, 0, 1, 1, 2, 2, 3, 3], 2, 0.5)).toBe(0);
    expect(meanSquaredJerk([0, 0, 0, 0, 0, 0, 1, 1], 2, 1)).toBe(2);
    expect(meanSquaredJerk([1, 2, 3], 1, 1)).toBeNaN();
  });

  it('reversals: sign changes beyond the deadband, per second', () => {
    // one joint, 10 ticks at 0.1 s: + − + then zeros and a tiny wiggle below the deadband
    const c = [0.01, -0.01, 0.01, 0, 0, 1e-5, -1e-5, 0, 0, 0];
    expect(correctionReversalsPerSecond(c, 1, 0.1)).toBeCloseTo(2 / 1.0, 12);
    // two joints interleaved: joint 0 reverses once, joint 1 never
    expect(correctionReversalsPerSecond([0.1, 0.1, -0.1, 0.2], 2, 0.5)).toBeCloseTo(1 / 1.0, 12);
  });

  it('ExecutedMotion collects targets every tick and corrections only while a chunk plays', () => {
    const m = new ExecutedMotion(1, 0.1);
    m.push([0, 5], [0, 0]);
    m.push([0.01, 5], [0, 0]);
    m.push([0.01, 5], null);
    m.push([-0.01, 5], [0, 0]);
    expect(m.reversalsPerS).toBeCloseTo(1 / 0.3, 9);
    // targets 0, .01, .01, −.01: Δ³ = −.01 − 3·.01 + 3·.01 − 0 = −.01 → (−.01/.001)² = 100
    expect(m.jerk).toBeCloseTo(100, 9);
  });

  it('JSON: one entry per mode and per policy per mode, never pooled; null where a mode does not filter', () => {
    const eps = [
      ep({}),
      ep({ policy: 'shove', unsafe: true, obstacleContact: true }),
      ep({ mode: 'hold', policy: 'shove', success: false, unsafe: true, held: true, modifications: [0] }),
      ep({ mode: 'cbf', policy: 'shove', modifications: [0.2, 0.4], filterMs: [1, 2, 3, 4, 100] }),
    ];
    const j = demoJson(eps, ['off', 'hold', 'cbf']);
    expect(Object.keys(j.modes)).toEqual(['off', 'hold', 'cbf']);
    expect(j.modes.off).toMatchObject({
      episodes: 2,
      successes: 2,
      unsafe: 1,
      unsafe_successes: 1,
      obstacle_contacts: 1,
      holds: 0,
      mean_modification: null,
      filter_ms_p50: null,
    });
    expect(j.modes.hold).toMatchObject({
      episodes: 1,
      successes: 0,
      unsafe: 1,
      unsafe_successes: 0,
      holds: 1,
      mean_modification: 0,
    });
    expect(j.modes.cbf!.mean_modification).toBeCloseTo(0.3, 12);
    expect(j.modes.cbf!.filter_ms_p50).toBe(3);
    // type-7 quantile of [1,2,3,4,100] at 0.99: 4 + 0.96·96
    expect(j.modes.cbf!.filter_ms_p99).toBeCloseTo(4 + 0.96 * 96, 9);
    expect(Object.keys(j.policies).sort()).toEqual(['clean', 'shove']);
    expect(j.policies.clean!.hold!.episodes).toBe(0);
    expect(j.policies.shove!.off).toMatchObject({ episodes: 1, unsafe: 1 });
    expect(Object.keys(j.modes.off!).sort()).toEqual([
      'episodes',
      'filter_ms_p50',
      'filter_ms_p99',
      'holds',
      'jerk',
      'mean_modification',
      'obstacle_contacts',
      'reversals_per_s',
      'successes',
      'unsafe',
      'unsafe_successes',
    ]);
    const lines = modeHeadlines(j);
    expect(lines[0]).toMatch(/gate mode\s+off\s+hold\s+cbf$/);
    expect(lines.find((l) => l.startsWith('Safety'))).toMatch(/1\/2 \(50%\)\s+0\/1 \(0%\)\s+1\/1 \(100%\)$/);
  });

  it('--modes: order kept, unknown or repeated modes refused, the scenario decides what is supported', () => {
    expect(parseModes(undefined, ['off', 'hold', 'cbf'])).toEqual({ ok: true, modes: ['off', 'hold', 'cbf'] });
    expect(parseModes('cbf,off', ['off', 'hold', 'cbf'])).toEqual({ ok: true, modes: ['cbf', 'off'] });
    expect(parseModes('off,stepwise', ['off', 'hold', 'cbf'])).toMatchObject({
      ok: false,
      error: expect.stringContaining("unknown mode 'stepwise'"),
    });
    expect(parseModes('off,off', ['off', 'hold', 'cbf'])).toMatchObject({
      ok: false,
      error: expect.stringContaining('twice'),
    });
    expect(parseModes(',', ['off'])).toMatchObject({ ok: false });
    expect(parseModes('stepwise', ['off', 'hold', 'cbf', 'stepwise'])).toEqual({ ok: true, modes: ['stepwise'] });
  });
});
