/**
 * The STL dialect's abstract syntax (design §4). Formulas are typed by construction: the parser
 * only builds real-valued expressions over real signals and boolean atoms over boolean signals.
 */
import { secondsToNs } from '../util/time.js';

export type StlType = 'real' | 'boolean';

export interface StlSignalDecl {
  name: string;
  type: StlType;
}

/** A position in the source text; lines and columns count from 1. */
export interface StlDiagnostic {
  line: number;
  column: number;
  message: string;
}

/** Real-valued term: linear in the signals, plus `abs`. */
export type Expr =
  | { kind: 'num'; value: number }
  | { kind: 'var'; name: string }
  | { kind: 'neg'; arg: Expr }
  | { kind: 'add' | 'sub'; left: Expr; right: Expr }
  | { kind: 'scale'; factor: number; arg: Expr }
  | { kind: 'abs'; arg: Expr };

export type CompareOp = '<' | '<=' | '>' | '>=' | '==' | '!=';

/**
 * A time interval in seconds relative to the evaluation time; 0 <= lo <= hi, both finite.
 * `loNs`/`hiNs`: the same bounds as exact integer ns, set by the parser from the bound's decimal
 * text; the engine compares times with these (or with the rounded seconds when a hand-built AST
 * has none — exact for bounds with at most 9 fractional digits, see time.ts).
 */
export interface Interval {
  lo: number;
  hi: number;
  loNs?: number;
  hiNs?: number;
}

/** An interval's bounds in integer ns (what the engine compares sample times with). */
export function intervalNs(i: Interval): { lo: number; hi: number } {
  return { lo: i.loNs ?? secondsToNs(i.lo), hi: i.hiNs ?? secondsToNs(i.hi) };
}

export type UnaryTemporalKind = 'always' | 'eventually' | 'historically' | 'once';
export type BinaryTemporalKind = 'until' | 'since';

export type Formula =
  | { kind: 'literal'; value: boolean }
  | { kind: 'atom'; name: string }
  | { kind: 'compare'; op: CompareOp; left: Expr; right: Expr }
  | { kind: 'not'; arg: Formula }
  | { kind: 'and' | 'or' | 'implies'; left: Formula; right: Formula }
  /**
   * `interval: null` means unbounded: for `always`/`eventually` the rest of the episode (allowed
   * only at episode level, see isEpisodeLevelAllowed), for `historically`/`once` the whole past.
   */
  | { kind: UnaryTemporalKind; interval: Interval | null; arg: Formula }
  /** `until` always has an interval; `since` may be unbounded (whole past). */
  | { kind: BinaryTemporalKind; interval: Interval | null; left: Formula; right: Formula };

/** True for an unbounded `always`/`eventually`: "over the whole rest of the episode". */
export function isEpisodeOperator(f: Formula): boolean {
  return (f.kind === 'always' || f.kind === 'eventually') && f.interval === null;
}

/** Signals a formula reads. */
export function signalsOf(f: Formula, into = new Set<string>()): Set<string> {
  const expr = (e: Expr): void => {
    switch (e.kind) {
      case 'num':
        return;
      case 'var':
        into.add(e.name);
        return;
      case 'neg':
      case 'abs':
      case 'scale':
        expr(e.arg);
        return;
      case 'add':
      case 'sub':
        expr(e.left);
        expr(e.right);
        return;
    }
  };
  const walk = (g: Formula): void => {
    switch (g.kind) {
      case 'literal':
        return;
      case 'atom':
        into.add(g.name);
        return;
      case 'compare':
        expr(g.left);
        expr(g.right);
        return;
      case 'not':
      case 'always':
      case 'eventually':
      case 'historically':
      case 'once':
        walk(g.arg);
        return;
      case 'and':
      case 'or':
      case 'implies':
      case 'until':
      case 'since':
        walk(g.left);
        walk(g.right);
        return;
    }
  };
  walk(f);
  return into;
}

/**
 * How far into the future (seconds) the formula's value at t depends on the trace: 0 for
 * past-time formulas, +Infinity when an episode-level operator is present.
 */
export function futureHorizon(f: Formula): number {
  switch (f.kind) {
    case 'literal':
    case 'atom':
    case 'compare':
      return 0;
    case 'not':
      return futureHorizon(f.arg);
    case 'and':
    case 'or':
    case 'implies':
      return Math.max(futureHorizon(f.left), futureHorizon(f.right));
    case 'always':
    case 'eventually':
      return f.interval === null ? Infinity : f.interval.hi + futureHorizon(f.arg);
    case 'historically':
    case 'once':
      return Math.max(0, futureHorizon(f.arg) - (f.interval?.lo ?? 0));
    case 'until':
      return (f.interval?.hi ?? Infinity) + Math.max(futureHorizon(f.left), futureHorizon(f.right));
    case 'since':
      return Math.max(futureHorizon(f.left), futureHorizon(f.right) - (f.interval?.lo ?? 0));
  }
}
