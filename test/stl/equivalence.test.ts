import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluateOffline, OnlineMonitor, printFormula, type Formula } from '../../src/stl/index.js';
import {
  boundedFormulaArb,
  columnsOf,
  episodeFormulaArb,
  rowOf,
  SIGNAL_ORDER,
  traceArb,
  type RandomTrace,
} from './support/arbitraries.js';
import { naiveEvaluate } from './support/naive-reference.js';

/** Equal as numbers (+0 and −0 are the same robustness). */
function same(a: number, b: number): boolean {
  return a === b || (Number.isNaN(a) && Number.isNaN(b));
}

function expectSeries(actual: ArrayLike<number>, expected: ArrayLike<number>, what: string): void {
  for (let i = 0; i < expected.length; i++) {
    if (!same(actual[i]!, expected[i]!)) {
      throw new Error(
        `${what}: sample ${i}: got ${actual[i]}, expected ${expected[i]}\n  actual ${JSON.stringify(Array.from(actual))}\n  expected ${JSON.stringify(Array.from(expected))}`,
      );
    }
  }
  expect(actual.length).toBe(expected.length);
}

/** The per-step margin formula: episode-level always/eventually removed (what `current` reports). */
function marginOf(f: Formula): Formula {
  if ((f.kind === 'always' || f.kind === 'eventually') && f.interval === null) return f.arg;
  if (f.kind === 'not') return { kind: 'not', arg: marginOf(f.arg) };
  if (f.kind === 'and' || f.kind === 'or' || f.kind === 'implies')
    return { kind: f.kind, left: marginOf(f.left), right: marginOf(f.right) };
  return f;
}

function runOnline(
  f: Formula,
  trace: RandomTrace,
  margins: Float64Array,
  check: (m: OnlineMonitor, i: number) => void = () => {},
): OnlineMonitor {
  const m = new OnlineMonitor(f, SIGNAL_ORDER);
  const row = new Float64Array(SIGNAL_ORDER.length);
  for (let i = 0; i < trace.times.length; i++) {
    m.push(trace.times[i]!, rowOf(trace, i, row));
    check(m, i);
  }
  m.finish();
  expect(m.decidedSamples).toBe(margins.length);
  return m;
}

const property = (f: Formula, trace: RandomTrace): void => {
  const context = `formula: ${printFormula(f)}\ntrace: ${JSON.stringify(trace)}`;
  try {
    const times = Float64Array.from(trace.times);
    const offline = evaluateOffline(f, times, columnsOf(trace));
    expectSeries(offline, naiveEvaluate(f, trace), 'offline vs naive');
    const margins = evaluateOffline(marginOf(f), times, columnsOf(trace));
    expectSeries(margins, naiveEvaluate(marginOf(f), trace), 'offline margin vs naive');

    const m = runOnline(f, trace, margins, (mon) => {
      // current is the margin of the latest decided sample; the interval is sound at every prefix.
      if (mon.decidedSamples > 0) expect(same(mon.current, margins[mon.decidedSamples - 1]!)).toBe(true);
      expect(mon.low <= offline[0]! && offline[0]! <= mon.high).toBe(true);
    });
    expect(same(m.final, offline[0]!)).toBe(true);
    expect(m.low).toBe(m.high);

    // Episode statistics equal the ones computed from the offline margin series.
    let min = Infinity;
    let first = NaN;
    for (let i = 0; i < margins.length; i++) {
      min = Math.min(min, margins[i]!);
      if (margins[i]! < 0 && Number.isNaN(first)) first = trace.times[i]!;
    }
    expect(same(m.episodeMin, min)).toBe(true);
    expect(same(m.firstViolationTime, first)).toBe(true);
  } catch (e) {
    throw new Error(`${(e as Error).message}\n${context}`);
  }
};

describe('online == offline == naive reference (random formulas, irregular traces)', () => {
  it('bounded formulas of operator depth 4 (every operator, window edges on and between samples)', () => {
    fc.assert(fc.property(boundedFormulaArb(4), traceArb(24), property), { numRuns: 300 });
  });

  it('episode-level formulas (unbounded always/eventually under not/and/or/->), depth 1–3', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 3 }).chain((d) => episodeFormulaArb(d)),
        traceArb(30),
        property,
      ),
      { numRuns: 300 },
    );
  });

  it('shallow formulas on longer traces (buffers wrap and grow)', () => {
    fc.assert(fc.property(boundedFormulaArb(2), traceArb(120), property), { numRuns: 100 });
  });
});
