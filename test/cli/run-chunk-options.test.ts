/**
 * `armguard run`'s chunk-path options: --max-chunk-rate (chunk requests a second per policy user,
 * in [1, 10000]) and --chunk-filter (worker | inline). A bad value is refused with an error naming
 * the flag, what was expected and what was given, and the usage exit code (2); a good value reaches
 * the session options — the rate as its token bucket (burst ⌈0.2 · rate⌉, at least 1, worked out
 * here from that rule), the filter's placement as given (worker when absent).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/command.js';
import { parseRunArgs, runCommand } from '../../src/cli/commands/run.js';
import { emulatedRunArgs, runDir } from '../support/run-process.js';

const { access } = runDir('armguard-run-options-');
const base = emulatedRunArgs(access);

describe('armguard run --max-chunk-rate', () => {
  it('any rate in [1, 10000] reaches the session as its token bucket', async () => {
    await fc.assert(
      fc.asyncProperty(fc.double({ min: 1, max: 10_000, noNaN: true }), async (rate) => {
        const r = await parseRunArgs([...base, '--max-chunk-rate', String(rate)]);
        expect(r.ok).toBe(true);
        if (!r.ok) return;
        expect(r.options.chunkRate?.ratePerS).toBe(rate);
        // the burst: the least whole number of requests ≥ 0.2 · rate, at least 1
        const burst = r.options.chunkRate!.burst;
        expect(Number.isInteger(burst) && burst >= 1).toBe(true);
        expect(burst).toBeGreaterThanOrEqual(0.2 * rate - 1e-9);
        expect(burst === 1 || burst - 1 < 0.2 * rate).toBe(true);
      }),
      { numRuns: 40 },
    );
    const whole = await parseRunArgs([...base, '--max-chunk-rate', '50']);
    expect(whole.ok && whole.options.chunkRate).toEqual({ ratePerS: 50, burst: 10 });
    const least = await parseRunArgs([...base, '--max-chunk-rate', '1']);
    expect(least.ok && least.options.chunkRate).toEqual({ ratePerS: 1, burst: 1 });
    const absent = await parseRunArgs(base);
    expect(absent.ok && absent.options.chunkRate).toBeUndefined();
  });

  it('a value that is not a rate in [1, 10000] is refused, naming the flag, the range and the value (usage exit)', async () => {
    const bad = fc.oneof(
      fc.double({ min: -1e6, max: 1 - 1e-9, noNaN: true }).map(String),
      fc.double({ min: 10_000 + 1e-6, max: 1e9, noNaN: true }).map(String),
      fc.constantFrom('', ' ', 'fast', 'NaN', 'Infinity', '-Infinity', '10Hz', '1e5'),
    );
    await fc.assert(
      fc.asyncProperty(bad, async (raw) => {
        const r = await parseRunArgs([...base, '--max-chunk-rate', raw]);
        expect(r.ok).toBe(false);
        if (r.ok) return;
        expect(r.code).toBe(EXIT.usage);
        expect(r.errors).toEqual([
          `armguard run: --max-chunk-rate: expected requests a second in [1, 10000], got '${raw}'`,
        ]);
      }),
      { numRuns: 40 },
    );
    // fast-check drew '--' (seed 2076047393): the parser takes it for an option, and says so
    for (const raw of ['--', '--gpu']) {
      const r = await parseRunArgs([...base, '--chunk-filter', raw]);
      expect(r.ok).toBe(false);
      if (r.ok) continue;
      expect(r.code).toBe(EXIT.usage);
      expect(r.errors).toEqual([`armguard run: option --chunk-filter needs a value (got option ${raw})`]);
    }
  });
});

describe('armguard run --chunk-filter', () => {
  it('worker or inline reaches the session; absent, the worker', async () => {
    for (const v of ['worker', 'inline'] as const) {
      const r = await parseRunArgs([...base, '--chunk-filter', v]);
      expect(r.ok && r.options.chunkFilter).toBe(v);
    }
    const absent = await parseRunArgs(base);
    expect(absent.ok && absent.options.chunkFilter).toBe('worker');
  });

  it('anything else is refused, naming the flag, the choices and the value (usage exit)', async () => {
    // a value that starts with '--' reads as the next option (below), not as a value
    const bad = fc.string().filter((s) => s !== 'worker' && s !== 'inline' && !s.startsWith('--'));
    await fc.assert(
      fc.asyncProperty(fc.oneof(bad, fc.constantFrom('Worker', 'INLINE', ' inline', 'gpu', '')), async (raw) => {
        const r = await parseRunArgs([...base, '--chunk-filter', raw]);
        expect(r.ok).toBe(false);
        if (r.ok) return;
        expect(r.code).toBe(EXIT.usage);
        expect(r.errors).toEqual([`armguard run: --chunk-filter: expected worker or inline, got '${raw}'`]);
      }),
      { numRuns: 40 },
    );
  });

  it('the command prints the error and exits non-zero before starting anything', async () => {
    for (const args of [
      [...base, '--chunk-filter', 'gpu'],
      [...base, '--max-chunk-rate', '0'],
    ]) {
      const err: string[] = [];
      const out: string[] = [];
      const code = await runCommand.run(args, { out: (t) => out.push(t), err: (t) => err.push(t) });
      expect(code).toBe(EXIT.usage);
      expect(err.join('\n')).toMatch(/--(chunk-filter|max-chunk-rate): expected /);
      expect(out).toEqual([]);
    }
  });
});
