/**
 * partialBounds (the monitor's bounds on ρ at the first sample of a partial trace) against the
 * reference in support/naive-bounds.ts, which computes the bounds from their definition — min and
 * max over enumerated completions of the trace of the naive offline semantics — sharing no code
 * with src/stl/bounds.ts: the same values at every sample, and at the first `count` samples when
 * only those are asked for (OnlineMonitor asks for 1).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { partialBounds, type PartialTrace } from '../../src/stl/bounds.js';
import { secondsToNs } from '../../src/util/time.js';
import { printFormula, type Formula } from '../../src/stl/index.js';
import { boundedFormulaArb, rowOf, SIGNAL_ORDER, traceArb, type RandomTrace } from './support/arbitraries.js';
import { naivePartialBounds } from './support/naive-bounds.js';

function prefixOf(trace: RandomTrace): PartialTrace {
  const n = trace.times.length;
  const width = SIGNAL_ORDER.length;
  const rows = new Float64Array(n * width);
  const row = new Float64Array(width);
  for (let i = 0; i < n; i++) rows.set(rowOf(trace, i, row), i * width);
  return { times: Float64Array.from(trace.times), rows, width, n, index: new Map(SIGNAL_ORDER.map((s, k) => [s, k])) };
}
/** The engine's view of the same prefix: times in integer ns (the reference works in seconds). */
const inNs = (p: PartialTrace): PartialTrace => ({ ...p, times: p.times.map(secondsToNs) });

/** Equal as robustness values: +0 and −0 are the same, NaN equals NaN. */
function expectSame(actual: Float64Array, expected: Float64Array, what: string): void {
  expect(actual.length, what).toBe(expected.length);
  for (let i = 0; i < expected.length; i++) {
    const a = actual[i]!;
    const b = expected[i]!;
    if (!(a === b || (Number.isNaN(a) && Number.isNaN(b))))
      throw new Error(`${what}: sample ${i}: got ${a}, expected ${b}`);
  }
}

describe('partialBounds (sliding windows, computed only where needed)', () => {
  it('equals the plain reference at every sample, and at the first count samples when asked for those (random formulas up to depth 3)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 3 }).chain((d) => boundedFormulaArb(d)),
        traceArb(25),
        fc.nat(),
        (f, trace, k) => {
          const p = prefixOf(trace);
          const what = `${printFormula(f)} on ${JSON.stringify(trace)}`;
          const ref = naivePartialBounds(f, p);
          const full = partialBounds(f, inNs(p));
          expectSame(full.lo, ref.lo, `${what}: lo`);
          expectSame(full.hi, ref.hi, `${what}: hi`);
          const count = k % (p.n + 1);
          const part = partialBounds(f, inNs(p), count);
          expectSame(part.lo, ref.lo.subarray(0, count), `${what}: lo of the first ${count}`);
          expectSame(part.hi, ref.hi.subarray(0, count), `${what}: hi of the first ${count}`);
        },
      ),
      { numRuns: 500 },
    );
  });

  // OnlineMonitor drops a sample whose values the formula reads are NaN before it reaches
  // partialBounds (online.test.ts), so NaN here is off the monitor's path; still the function keeps
  // to its definition there: a bound is NaN where some completion's robustness is NaN (undefined).
  // Before, a window reaching past the last sample bounded it by ±∞ over a NaN member.
  it('equals the reference with NaN in the trace: NaN wherever some completion is NaN', () => {
    let nanBounds = 0;
    let definedBounds = 0;
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 }).chain((d) => boundedFormulaArb(d)),
        traceArb(20),
        fc.array(fc.nat(), { maxLength: 3 }),
        fc.nat(),
        (f, trace, holes, k) => {
          const x = trace.columns['x']!;
          for (const h of holes) x[h % x.length] = NaN;
          const p = prefixOf(trace);
          const ref = naivePartialBounds(f, p);
          const full = partialBounds(f, inNs(p));
          const what = `${printFormula(f)} on x = ${JSON.stringify(x.map(String))}`;
          for (const side of ['lo', 'hi'] as const) {
            expectSame(full[side], ref[side], `${what}: ${side}`);
            for (const v of ref[side])
              if (Number.isNaN(v)) nanBounds++;
              else definedBounds++;
          }
          const count = k % (p.n + 1);
          const part = partialBounds(f, inNs(p), count);
          expectSame(part.lo, ref.lo.subarray(0, count), `${what}: lo of the first ${count}`);
          expectSame(part.hi, ref.hi.subarray(0, count), `${what}: hi of the first ${count}`);
        },
      ),
      { numRuns: 300 },
    );
    // both kinds compared, many times over
    expect(nanBounds).toBeGreaterThan(200);
    expect(definedBounds).toBeGreaterThan(1000);
  });

  it('a NaN sample in an always window that reaches past the trace: lo is NaN, not −∞ (hand-computed)', () => {
    const f: Formula = {
      kind: 'always',
      interval: { lo: 0, hi: 1 },
      arg: { kind: 'compare', op: '<', left: { kind: 'var', name: 'x' }, right: { kind: 'num', value: 1 } },
    };
    // x = 0, NaN at t = 0, 0.5 s: the window [0, 1] s of sample 0 holds the NaN and extends past 0.5 s
    const p: PartialTrace = {
      times: Float64Array.from([0, 0.5].map(secondsToNs)),
      rows: Float64Array.from([0, NaN]),
      width: 1,
      n: 2,
      index: new Map([['x', 0]]),
    };
    const b = partialBounds(f, p, 1);
    expect(b.lo[0]).toBeNaN();
    expect(b.hi[0]).toBeNaN();
    // the same trace with x = 0.5 at 0.5 s: ρ ≤ min(1, 0.5) however it goes on, and any value below
    const ok = partialBounds(f, { ...p, rows: Float64Array.from([0, 0.5]) }, 1);
    expect([ok.lo[0], ok.hi[0]]).toEqual([-Infinity, 0.5]);
  });
});
