/** fast-check generators shared by the STL tests: random ASTs and irregular traces. */
import fc from 'fast-check';
import type { CompareOp, Expr, Formula, Interval, StlSignalDecl } from '../../../src/stl/index.js';

export const SIGNALS: StlSignalDecl[] = [
  { name: 'x', type: 'real' },
  { name: 'y', type: 'real' },
  { name: 'p', type: 'boolean' },
  { name: 'q', type: 'boolean' },
];
export const SIGNAL_ORDER = SIGNALS.map((s) => s.name);

const num = fc.constantFrom(-2, -1, 0, 0.5, 1, 2, 3).map((value): Expr => ({ kind: 'num', value }));
const variable = fc.constantFrom('x', 'y').map((name): Expr => ({ kind: 'var', name }));

export const exprArb: fc.Arbitrary<Expr> = fc.letrec<{ e: Expr }>((tie) => ({
  e: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    variable,
    num,
    tie('e').map((arg): Expr => ({ kind: 'neg', arg })),
    tie('e').map((arg): Expr => ({ kind: 'abs', arg })),
    fc.tuple(fc.constantFrom(2, -1, 0.5), tie('e')).map(([factor, arg]): Expr => ({ kind: 'scale', factor, arg })),
    fc
      .tuple(fc.constantFrom('add' as const, 'sub' as const), tie('e'), tie('e'))
      .map(([kind, left, right]): Expr => ({ kind, left, right })),
  ),
})).e;

export const atomArb: fc.Arbitrary<Formula> = fc.oneof(
  fc
    .tuple(
      fc.constantFrom<CompareOp>('<', '<=', '>', '>=', '==', '!='),
      fc.oneof(variable, exprArb),
      fc.oneof(num, exprArb),
    )
    .map(([op, left, right]): Formula => ({ kind: 'compare', op, left, right })),
  fc.constantFrom('p', 'q').map((name): Formula => ({ kind: 'atom', name })),
  fc.boolean().map((value): Formula => ({ kind: 'literal', value })),
);

/** Bounds chosen to hit sample times exactly and to fall between them. */
export const intervalArb: fc.Arbitrary<Interval> = fc
  .tuple(fc.constantFrom(0, 0, 0.5, 1, 1.25), fc.constantFrom(0, 0.5, 1, 2.25, 3))
  .map(([lo, w]) => ({ lo, hi: lo + w }));
const pastInterval = fc.oneof(
  intervalArb.map((i): Interval | null => i),
  fc.constant(null),
);

/** A bounded (no episode-level operator) formula whose operator nesting is exactly `depth`. */
export function boundedFormulaArb(depth: number): fc.Arbitrary<Formula> {
  if (depth === 0) return atomArb;
  const sub = boundedFormulaArb(depth - 1);
  const any = fc.oneof(atomArb, sub);
  return fc.oneof(
    sub.map((arg): Formula => ({ kind: 'not', arg })),
    fc
      .tuple(fc.constantFrom('and' as const, 'or' as const, 'implies' as const), sub, any)
      .map(([kind, left, right]): Formula => ({ kind, left, right })),
    fc
      .tuple(fc.constantFrom('always' as const, 'eventually' as const), intervalArb, sub)
      .map(([kind, interval, arg]): Formula => ({ kind, interval, arg })),
    fc
      .tuple(fc.constantFrom('historically' as const, 'once' as const), pastInterval, sub)
      .map(([kind, interval, arg]): Formula => ({ kind, interval, arg })),
    fc
      .tuple(intervalArb, sub, any)
      .map(([interval, left, right]): Formula => ({ kind: 'until', interval, left, right })),
    fc
      .tuple(pastInterval, any, sub)
      .map(([interval, left, right]): Formula => ({ kind: 'since', interval, left, right })),
  );
}

/** Episode-level formulas: boolean structure over unbounded always/eventually and bounded parts. */
export function episodeFormulaArb(depth: number): fc.Arbitrary<Formula> {
  const b = boundedFormulaArb(depth);
  const g = fc
    .tuple(fc.constantFrom('always' as const, 'eventually' as const), b)
    .map(([kind, arg]): Formula => ({ kind, interval: null, arg }));
  const top = fc.oneof(b, g, g);
  return fc.oneof(
    top,
    top.map((arg): Formula => ({ kind: 'not', arg })),
    fc
      .tuple(fc.constantFrom('and' as const, 'or' as const, 'implies' as const), top, top)
      .map(([kind, left, right]): Formula => ({ kind, left, right })),
  );
}

export interface RandomTrace {
  times: number[];
  columns: Record<string, number[]>;
}

/** Irregular timestamps (steps of 0.25–1.5 s, so window edges often coincide with samples). */
export const traceArb = (maxLength = 30): fc.Arbitrary<RandomTrace> =>
  fc.integer({ min: 1, max: maxLength }).chain((n) =>
    fc
      .record({
        start: fc.constantFrom(0, 0.25, 10),
        steps: fc.array(fc.constantFrom(0.25, 0.5, 0.75, 1, 1.5), { minLength: n, maxLength: n }),
        x: fc.array(fc.integer({ min: -4, max: 4 }), { minLength: n, maxLength: n }),
        y: fc.array(
          fc.integer({ min: -4, max: 4 }).map((v) => v / 2),
          { minLength: n, maxLength: n },
        ),
        p: fc.array(fc.constantFrom(0, 1), { minLength: n, maxLength: n }),
        q: fc.array(fc.constantFrom(0, 1), { minLength: n, maxLength: n }),
      })
      .map(({ start, steps, x, y, p, q }) => {
        const times: number[] = [];
        let t = start;
        for (const dt of steps) {
          times.push(t);
          t += dt;
        }
        return { times, columns: { x, y, p, q } };
      }),
  );

export function columnsOf(trace: RandomTrace): Map<string, Float64Array> {
  return new Map(Object.entries(trace.columns).map(([k, v]) => [k, Float64Array.from(v)]));
}

/** Feed a trace to a monitor sample by sample in SIGNAL_ORDER. */
export function rowOf(trace: RandomTrace, i: number, into: Float64Array): Float64Array {
  SIGNAL_ORDER.forEach((name, k) => (into[k] = trace.columns[name]![i]!));
  return into;
}
