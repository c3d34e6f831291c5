/**
 * Time is integer ns end to end (issue 13 item 3): decimal seconds parse exactly, and decimal
 * timestamps placed exactly on window edges get the declared window. The reference below is written
 * from the window semantics (src/stl/windows.ts, design §4) with BigInt arithmetic on the times as
 * written — no float anywhere — and compared with the engine (offline and online) and `armguard stl`.
 */
import fc from 'fast-check';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { parseTraceCsv } from '../../src/cli/commands/stl.js';
import { parseTraceText } from '../../src/schema/trace-format.js';
import {
  evaluateOfflineNs,
  formatNsAsSeconds,
  OnlineMonitor,
  parseDecimalSeconds,
  parseDecimalSecondsNs,
} from '../../src/stl/index.js';
import { formula, real } from './support/formula.js';
import { windowReference as reference, type WindowOp as Op } from './support/window-reference.js';

const MS = 1_000_000n;

describe('decimal seconds → integer ns', () => {
  it('hand-computed cases', () => {
    expect(parseDecimalSecondsNs('0.005')).toBe(5_000_000n);
    expect(parseDecimalSecondsNs('1717000000.123456789')).toBe(1_717_000_000_123_456_789n);
    expect(parseDecimalSecondsNs('-0.25')).toBe(-250_000_000n);
    expect(parseDecimalSecondsNs('5e-3')).toBe(5_000_000n);
    expect(parseDecimalSecondsNs('1.5E2')).toBe(150_000_000_000n);
    expect(parseDecimalSecondsNs('.5')).toBe(500_000_000n);
    expect(parseDecimalSecondsNs('7')).toBe(7_000_000_000n);
    expect(parseDecimalSeconds('0.0000000015')).toEqual({ ns: 2n, exact: false }); // 1.5 ns rounds half away from zero
    expect(parseDecimalSeconds('0.000000001')).toEqual({ ns: 1n, exact: true });
    for (const bad of ['', '.', 'abc', '1..2', '0x10', '1e', 'NaN', 'Infinity'])
      expect(parseDecimalSecondsNs(bad), bad).toBeUndefined();
  });
  it('property: ns → exact decimal text → the same ns (also with an exponent)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 19n), max: 10n ** 19n }), fc.integer({ min: -6, max: 6 }), (ns, e) => {
        const text = formatNsAsSeconds(ns);
        expect(parseDecimalSecondsNs(text)).toBe(ns);
        // the same value with the point moved: text × 10^-e written with exponent e
        const [w, f = ''] = text.replace('-', '').split('.');
        const digits = `${w}${f}`;
        const shifted = `${ns < 0n ? '-' : ''}${digits}e${e - f.length}`;
        // reference: ns × 10^e, rounded half away from zero when e < 0
        let want = ns * 10n ** BigInt(Math.max(0, e));
        let exact = true;
        if (e < 0) {
          const d = 10n ** BigInt(-e);
          const mag = ns < 0n ? -ns : ns;
          let q = mag / d;
          exact = mag % d === 0n;
          if ((mag % d) * 2n >= d) q += 1n;
          want = ns < 0n ? -q : q;
        }
        expect(parseDecimalSeconds(shifted)).toEqual({ ns: want, exact });
      }),
      { numRuns: 300 },
    );
  });
});

/** Times built so that many pairs are exactly a, b or b − a apart, from a Unix-time origin. */
const scenario = fc
  .record({
    origin: fc.bigInt({ min: 1_600_000_000n * 10n ** 9n, max: 1_800_000_000n * 10n ** 9n }),
    aMs: fc.integer({ min: 0, max: 6 }),
    widthMs: fc.integer({ min: 1, max: 8 }),
    gaps: fc.array(fc.oneof(fc.constantFrom('a', 'b', 'w', 'ms'), fc.integer({ min: 1, max: 3_000_000 })), {
      minLength: 2,
      maxLength: 40,
    }),
    xs: fc.array(fc.integer({ min: -9, max: 9 }), { minLength: 41, maxLength: 41 }),
    op: fc.constantFrom<Op>('historically', 'once', 'always', 'eventually'),
  })
  .map((s) => {
    const a = BigInt(s.aMs) * MS;
    const b = a + BigInt(s.widthMs) * MS;
    const times: bigint[] = [s.origin];
    for (const g of s.gaps) {
      const step = g === 'a' ? a : g === 'b' ? b : g === 'w' ? b - a : g === 'ms' ? MS : BigInt(g);
      times.push(times[times.length - 1]! + (step === 0n ? MS : step));
    }
    return { ...s, a, b, times, x: times.map((_, i) => s.xs[i]! / 2) };
  });

const bound = (ns: bigint) => formatNsAsSeconds(ns);

describe('window edges are exact (integer ns end to end)', () => {
  it('property: decimal timestamps on window edges give the declared window — offline, online and via the CSV readers', () => {
    fc.assert(
      fc.property(scenario, ({ op, a, b, times, x }) => {
        const text = `${op}[${bound(a)}:${bound(b)}] (x < 0.5)`;
        const f = formula(text, real('x'));
        const expected = reference(op, a, b, times, x);
        const csv = ['t,x', ...times.map((t, i) => `${formatNsAsSeconds(t)},${x[i]}`)].join('\n');
        // `armguard stl`'s CSV reader and the trace-format reader both keep the times exactly
        const stlTrace = parseTraceCsv('edges.csv', csv, new Set());
        const rho = Array.from(evaluateOfflineNs(f, stlTrace.timesNs, stlTrace.columns));
        expect(rho, text).toEqual(expected);
        const jsonl = [
          JSON.stringify({
            format: 'armguard-trace/1',
            episode: 'e',
            success: true,
            columns: ['t', 'contact_force_max'],
          }),
          ...times.map((t, i) => `[${formatNsAsSeconds(t)}, ${x[i]}]`),
        ].join('\n');
        const parsed = parseTraceText(jsonl, 'edges.jsonl');
        if (!parsed.ok) throw new Error(parsed.error.map((e) => e.message).join('\n'));
        expect(Array.from(parsed.value.timesNs!), 'JSONL times').toEqual(times.map((t) => Number(t - times[0]!)));
        // online: past windows are decided on the sample itself
        if (op === 'historically' || op === 'once') {
          const m = new OnlineMonitor(f, ['x']);
          const online: number[] = [];
          stlTrace.timesNs.forEach((t, i) => {
            m.pushNs(t, [x[i]!]);
            online.push(m.current);
          });
          expect(online, `${text} online`).toEqual(expected);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('armguard stl --series on a Unix-time 1 kHz log: a sample exactly 5 ms earlier is inside historically[0:0.005], one 5 ms + 1 ns earlier is not', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'armguard-edges-'));
    const csv = join(dir, 'edges.csv');
    // x = 1 (violating) only at the first sample; samples at +0, +1 ms … and exactly +5 ms, then +5 ms + 1 ns after the second
    const t0 = 1_717_000_000_123_456_789n;
    const ts = [t0, t0 + 1n * MS, t0 + 2n * MS, t0 + 5n * MS, t0 + 6n * MS + 1n];
    writeFileSync(csv, ['time,x', ...ts.map((t, i) => `${formatNsAsSeconds(t)},${i === 0 ? 1 : 0}`)].join('\n'));
    let out = '';
    expect(
      await main(['stl', '--spec', 'historically[0:0.005] (x < 0.5)', '--trace', csv, '--series'], {
        out: (t) => (out += t),
        err: () => {},
      }),
    ).toBe(0);
    const series = (JSON.parse(out) as { results: { series: [number, number][] }[] }).results[0]!.series.map(
      (p) => p[1],
    );
    // at +5 ms the window [t − 0.005, t] starts exactly at the first sample: it is in
    // at +6 ms + 1 ns it starts 1 ns after the second sample (in force from +1 ms): the first is out
    expect(series).toEqual([-0.5, -0.5, -0.5, -0.5, 0.5]);
  });
});
