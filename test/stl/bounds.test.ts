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
import { printFormula } from '../../src/stl/index.js';
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
  // partialBounds (online.test.ts), so NaN here is off the monitor's path. Where some completion's
  // robustness is NaN (undefined) the reference's bound is NaN while partialBounds bounds the
  // completions it structurally picks; where every completion is defined they must agree.
  it('agrees with the reference wherever every completion is defined, with NaN in the trace', () => {
    let compared = 0;
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 }).chain((d) => boundedFormulaArb(d)),
        traceArb(20),
        fc.array(fc.nat(), { maxLength: 3 }),
        (f, trace, holes) => {
          const x = trace.columns['x']!;
          for (const h of holes) x[h % x.length] = NaN;
          const p = prefixOf(trace);
          const ref = naivePartialBounds(f, p);
          const full = partialBounds(f, inNs(p));
          const what = `${printFormula(f)} on x = ${JSON.stringify(x.map(String))}`;
          for (const side of ['lo', 'hi'] as const) {
            const defined = ref[side].map((v) => (Number.isNaN(v) ? 0 : 1));
            const pick = (b: Float64Array): Float64Array => b.filter((_, i) => defined[i] === 1);
            compared += defined.reduce((a, b) => a + b, 0);
            expectSame(pick(full[side]), pick(ref[side]), `${what}: ${side} where defined`);
          }
        },
      ),
      { numRuns: 300 },
    );
    expect(compared).toBeGreaterThan(1000);
  });
});
