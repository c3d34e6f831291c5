import { closestMatch } from '../util/levenshtein.js';
import {
  isEpisodeOperator,
  type BinaryTemporalKind,
  type CompareOp,
  type Expr,
  type Formula,
  type Interval,
  type StlDiagnostic,
  type StlSignalDecl,
  type StlType,
  type UnaryTemporalKind,
} from './ast.js';
import { lex, type Token } from './lexer.js';
import { MAX_EXACT_NS, parseDecimalSeconds } from '../util/time.js';

const UNARY_KEYWORDS: Readonly<Record<string, UnaryTemporalKind>> = {
  always: 'always',
  G: 'always',
  eventually: 'eventually',
  F: 'eventually',
  historically: 'historically',
  H: 'historically',
  once: 'once',
  O: 'once',
};
const BINARY_KEYWORDS: Readonly<Record<string, BinaryTemporalKind>> = { until: 'until', since: 'since' };
export const RESERVED_WORDS: ReadonlySet<string> = new Set([
  ...Object.keys(UNARY_KEYWORDS),
  ...Object.keys(BINARY_KEYWORDS),
  'not',
  'and',
  'or',
  'true',
  'false',
  'abs',
  'real',
  'bool',
  'boolean',
]);
const COMPARE_OPS: ReadonlySet<string> = new Set(['<', '<=', '>', '>=', '==', '!=']);
const ARITH_OPS: ReadonlySet<string> = new Set(['+', '-', '*', '/']);

/** A named formula defined earlier in a spec file, usable by name in later formulas. */
export interface NamedFormula {
  formula: Formula;
  /** Contains an episode-level (unbounded future) operator. */
  episode: boolean;
  /** Nesting depth as counted by the parser (see MAX_NESTING); using the formula by name nests it this deep. */
  depth: number;
}

/**
 * Deepest nesting a formula may have: the parser and every later pass over the AST recurse, so an
 * unbounded depth would end in a stack overflow instead of a positioned error.
 */
export const MAX_NESTING = 256;

export interface ParseContext {
  signals: ReadonlyMap<string, StlType>;
  named?: ReadonlyMap<string, NamedFormula>;
}

class ParseError extends Error {
  constructor(readonly diagnostic: StlDiagnostic) {
    super(diagnostic.message);
  }
}

export type ParseResult = { ok: true; formula: Formula } | { ok: false; error: StlDiagnostic };
export type ParseAtResult = { ok: true; formula: Formula; depth: number } | { ok: false; error: StlDiagnostic };

/** Parses text[start, end) as one formula; positions are reported relative to the whole text. */
export function parseFormulaAt(
  text: string,
  ctx: ParseContext,
  start = 0,
  end = text.length,
  line = 1,
  column = 1,
): ParseAtResult {
  const lexed = lex(text, start, end, line, column);
  if (!lexed.ok) return { ok: false, error: { line: lexed.line, column: lexed.column, message: lexed.message } };
  try {
    const parser = new Parser(lexed.tokens, ctx);
    const formula = parser.formula(false);
    parser.expectEnd();
    return { ok: true, formula, depth: parser.maxDepth };
  } catch (e) {
    if (e instanceof ParseError) return { ok: false, error: e.diagnostic };
    throw e;
  }
}

export function parseFormula(text: string, signals: readonly StlSignalDecl[]): ParseResult {
  const map = new Map<string, StlType>();
  for (const s of signals) map.set(s.name, s.type);
  const r = parseFormulaAt(text, { signals: map });
  return r.ok ? { ok: true, formula: r.formula } : r;
}

class Parser {
  private pos = 0;
  /** Nesting of the AST being built on the current path: recursion plus left-associative chain links. */
  private depth = 0;
  maxDepth = 0;
  constructor(
    private readonly tokens: readonly Token[],
    private readonly ctx: ParseContext,
  ) {}

  private peek(offset = 0): Token {
    const t = this.tokens[Math.min(this.pos + offset, this.tokens.length - 1)];
    if (!t) throw new Error('lexer always ends with eof');
    return t;
  }
  private next(): Token {
    const t = this.peek();
    if (this.pos < this.tokens.length - 1) this.pos++;
    return t;
  }
  private isPunct(text: string, offset = 0): boolean {
    const t = this.peek(offset);
    return t.kind === 'punct' && t.text === text;
  }
  private isWord(text: string): boolean {
    const t = this.peek();
    return t.kind === 'ident' && t.text === text;
  }
  private fail(at: Token, message: string): never {
    throw new ParseError({ line: at.line, column: at.column, message });
  }
  /** One level deeper at `at`; undo with `leave`. */
  private enter(at: Token, levels = 1): void {
    this.depth += levels;
    if (this.depth > MAX_NESTING) this.fail(at, `formula nested too deeply (more than ${MAX_NESTING} levels)`);
    if (this.depth > this.maxDepth) this.maxDepth = this.depth;
  }
  private leave(levels = 1): void {
    this.depth -= levels;
  }
  private describe(t: Token): string {
    return t.kind === 'eof' ? 'end of formula' : `'${t.text}'`;
  }
  private expectPunct(text: string, why: string): Token {
    const t = this.peek();
    if (t.kind !== 'punct' || t.text !== text) this.fail(t, `expected '${text}' ${why}, found ${this.describe(t)}`);
    return this.next();
  }

  expectEnd(): void {
    const t = this.peek();
    if (t.kind !== 'eof') {
      const hint =
        t.kind === 'ident' || t.kind === 'number' || this.isPunct('(') ? " (missing 'and', 'or' or '->'?)" : '';
      this.fail(t, `unexpected ${this.describe(t)} after a complete formula${hint}`);
    }
  }

  /** `inTemporal`: inside a temporal operator's operand, where episode-level operators are not allowed. */
  formula(inTemporal: boolean): Formula {
    return this.implies(inTemporal);
  }

  private implies(inTemporal: boolean): Formula {
    const left = this.or(inTemporal);
    if (this.isPunct('->')) {
      this.enter(this.next());
      const right = this.implies(inTemporal);
      this.leave();
      return { kind: 'implies', left, right };
    }
    return left;
  }

  private or(inTemporal: boolean): Formula {
    let left = this.and(inTemporal);
    let links = 0;
    while (this.isWord('or')) {
      this.enter(this.next());
      links++;
      left = { kind: 'or', left, right: this.and(inTemporal) };
    }
    this.leave(links);
    return left;
  }

  private and(inTemporal: boolean): Formula {
    let left = this.binaryTemporal(inTemporal);
    let links = 0;
    while (this.isWord('and')) {
      this.enter(this.next());
      links++;
      left = { kind: 'and', left, right: this.binaryTemporal(inTemporal) };
    }
    this.leave(links);
    return left;
  }

  private binaryTemporal(inTemporal: boolean): Formula {
    let left = this.unary(inTemporal);
    let links = 0;
    for (;;) {
      const t = this.peek();
      const kind = t.kind === 'ident' ? BINARY_KEYWORDS[t.text] : undefined;
      if (!kind) {
        this.leave(links);
        return left;
      }
      this.enter(this.next());
      links++;
      const interval = this.optionalInterval(t);
      if (kind === 'until' && interval === null) {
        this.fail(t, "'until' needs a time bound, e.g. 'a until[0:2] b' (seconds)");
      }
      const right = this.unary(true);
      left = { kind, interval, left: this.checkNested(left, t), right };
    }
  }

  /** The left operand of until/since was parsed before we knew it was nested; check it now. */
  private checkNested(f: Formula, at: Token): Formula {
    if (containsEpisodeOperator(f)) {
      this.fail(
        at,
        `the left side of '${at.text}' contains an unbounded 'always'/'eventually' (the whole episode); give it a bound like always[0:5]`,
      );
    }
    return f;
  }

  private unary(inTemporal: boolean): Formula {
    const t = this.peek();
    if (t.kind === 'ident' && t.text === 'not') {
      this.enter(this.next());
      const arg = this.unary(inTemporal);
      this.leave();
      return { kind: 'not', arg };
    }
    const kind = t.kind === 'ident' ? UNARY_KEYWORDS[t.text] : undefined;
    if (kind) {
      this.enter(this.next());
      const interval = this.optionalInterval(t);
      if (interval === null && (kind === 'always' || kind === 'eventually') && inTemporal) {
        this.fail(
          t,
          `unbounded '${t.text}' means the whole episode and may only appear at the top level (under not/and/or/->); inside another temporal operator give it a bound, e.g. ${kind}[0:5]`,
        );
      }
      const arg = this.unary(true);
      this.leave();
      return { kind, interval, arg };
    }
    return this.primary(inTemporal);
  }

  private optionalInterval(op: Token): Interval | null {
    if (!this.isPunct('[')) return null;
    const open = this.next();
    const lo = this.bound(op, 'lower');
    if (!this.isPunct(':') && !this.isPunct(','))
      this.fail(
        this.peek(),
        `expected ':' between the bounds of '${op.text}[a:b]', found ${this.describe(this.peek())}`,
      );
    this.next();
    const hi = this.bound(op, 'upper');
    this.expectPunct(']', `to close the interval of '${op.text}' opened at ${open.line}:${open.column}`);
    if (lo.s > hi.s)
      this.fail(open, `interval of '${op.text}' has lower bound ${lo.s} greater than upper bound ${hi.s}`);
    return { lo: lo.s, hi: hi.s, loNs: lo.ns, hiNs: hi.ns };
  }

  /** A time bound: its value in seconds and, exactly from its text, in integer ns. */
  private bound(op: Token, which: string): { s: number; ns: number } {
    const value = this.boundSeconds(op, which);
    const t = this.lastBoundToken!;
    const parsed = parseDecimalSeconds(t.text);
    if (parsed === undefined || parsed.ns > BigInt(MAX_EXACT_NS))
      this.fail(
        t,
        `time bound '${t.text}' is not a decimal number of seconds up to ${Math.floor(MAX_EXACT_NS / 1e9)} s`,
      );
    if (!parsed.exact) this.fail(t, `time bound '${t.text}' is finer than 1 ns (time is counted in whole nanoseconds)`);
    return { s: value, ns: Number(parsed.ns) };
  }

  private lastBoundToken: Token | undefined;

  private boundSeconds(op: Token, which: string): number {
    const t = this.peek();
    if (t.kind !== 'number') {
      const neg = this.isPunct('-') ? ' (bounds are seconds >= 0)' : '';
      this.fail(t, `expected the ${which} time bound of '${op.text}' in seconds, found ${this.describe(t)}${neg}`);
    }
    this.next();
    if (!Number.isFinite(t.value)) this.fail(t, `time bound '${t.text}' is not a finite number`);
    this.lastBoundToken = t;
    return t.value;
  }

  private primary(inTemporal: boolean): Formula {
    const t = this.peek();
    if (t.kind === 'punct' && t.text === '(') {
      if (this.parenthesisedExpression()) return this.comparison();
      this.enter(this.next());
      const inner = this.formula(inTemporal);
      this.expectPunct(')', `to close '(' opened at ${t.line}:${t.column}`);
      this.leave();
      return inner;
    }
    if (t.kind === 'ident') {
      if (t.text === 'true' || t.text === 'false') {
        this.next();
        return { kind: 'literal', value: t.text === 'true' };
      }
      const type = this.ctx.signals.get(t.text);
      if (type === 'boolean') {
        this.next();
        if (this.peekIsArithOrCompare()) {
          this.fail(
            this.peek(),
            `'${t.text}' is a boolean signal and cannot be compared or used in arithmetic; use it directly as a formula, e.g. '${t.text} -> ...'`,
          );
        }
        return { kind: 'atom', name: t.text };
      }
      const named = this.ctx.named?.get(t.text);
      if (named && type === undefined) {
        this.next();
        if (named.episode && inTemporal) {
          this.fail(
            t,
            `named formula '${t.text}' contains an unbounded 'always'/'eventually' (the whole episode) and cannot be used inside a temporal operator`,
          );
        }
        this.enter(t, named.depth);
        this.leave(named.depth);
        return named.formula;
      }
    }
    if (t.kind === 'ident' || t.kind === 'number' || (t.kind === 'punct' && t.text === '-')) return this.comparison();
    this.fail(
      t,
      `expected a formula (a comparison such as 'x < 3', a boolean signal, 'not', a temporal operator or '('), found ${this.describe(t)}`,
    );
  }

  private peekIsArithOrCompare(): boolean {
    const t = this.peek();
    return t.kind === 'punct' && (COMPARE_OPS.has(t.text) || ARITH_OPS.has(t.text));
  }

  /** At '(': is this the start of an arithmetic expression (followed by an operator after ')')? */
  private parenthesisedExpression(): boolean {
    let depth = 0;
    for (let k = this.pos; k < this.tokens.length; k++) {
      const t = this.tokens[k];
      if (!t || t.kind === 'eof') return false;
      if (t.kind !== 'punct') continue;
      if (t.text === '(') depth++;
      else if (t.text === ')') {
        depth--;
        if (depth === 0) {
          const after = this.tokens[k + 1];
          return (
            after !== undefined && after.kind === 'punct' && (COMPARE_OPS.has(after.text) || ARITH_OPS.has(after.text))
          );
        }
      }
    }
    return false;
  }

  private comparison(): Formula {
    const left = this.expr();
    const op = this.peek();
    if (op.kind !== 'punct' || !COMPARE_OPS.has(op.text)) {
      this.fail(
        op,
        `expected a comparison operator (<, <=, >, >=, ==, !=) after the expression, found ${this.describe(op)}`,
      );
    }
    this.next();
    const right = this.expr();
    const chained = this.peek();
    if (chained.kind === 'punct' && COMPARE_OPS.has(chained.text)) {
      this.fail(chained, `comparisons cannot be chained; write 'a < x and x < b'`);
    }
    return { kind: 'compare', op: op.text as CompareOp, left, right };
  }

  private expr(): Expr {
    let left = this.term();
    let links = 0;
    for (;;) {
      if (this.isPunct('+')) {
        this.enter(this.next());
        links++;
        left = { kind: 'add', left, right: this.term() };
      } else if (this.isPunct('-')) {
        this.enter(this.next());
        links++;
        left = { kind: 'sub', left, right: this.term() };
      } else {
        this.leave(links);
        return left;
      }
    }
  }

  private term(): Expr {
    let left = this.factor();
    let links = 0;
    for (;;) {
      if (this.isPunct('*')) {
        const op = this.next();
        this.enter(op);
        links++;
        const right = this.factor();
        if (right.kind === 'num') left = { kind: 'scale', factor: right.value, arg: left };
        else if (left.kind === 'num') left = { kind: 'scale', factor: left.value, arg: right };
        else this.fail(op, "'*' needs a number on one side: expressions must be linear in the signals");
      } else if (this.isPunct('/')) {
        const op = this.next();
        this.enter(op);
        links++;
        const right = this.factor();
        if (right.kind !== 'num')
          this.fail(op, "'/' must divide by a number: expressions must be linear in the signals");
        if (right.value === 0) this.fail(op, 'division by zero');
        left = { kind: 'scale', factor: 1 / right.value, arg: left };
      } else {
        this.leave(links);
        return left;
      }
    }
  }

  private factor(): Expr {
    const t = this.peek();
    if (t.kind === 'punct' && t.text === '-') {
      this.next();
      const n = this.peek();
      if (n.kind === 'number') {
        this.next();
        return { kind: 'num', value: -n.value };
      }
      this.enter(t);
      const arg = this.factor();
      this.leave();
      return { kind: 'neg', arg };
    }
    if (t.kind === 'number') {
      this.next();
      if (!Number.isFinite(t.value)) this.fail(t, `number '${t.text}' is out of range`);
      return { kind: 'num', value: t.value };
    }
    if (t.kind === 'punct' && t.text === '(') {
      this.enter(this.next());
      const inner = this.expr();
      this.expectPunct(')', `to close '(' opened at ${t.line}:${t.column}`);
      this.leave();
      return inner;
    }
    if (t.kind === 'ident') {
      if (t.text === 'abs') {
        this.enter(this.next());
        this.expectPunct('(', "after 'abs'");
        const inner = this.expr();
        this.expectPunct(')', `to close 'abs(' at ${t.line}:${t.column}`);
        this.leave();
        return { kind: 'abs', arg: inner };
      }
      const type = this.ctx.signals.get(t.text);
      if (type === 'real') {
        this.next();
        return { kind: 'var', name: t.text };
      }
      if (type === 'boolean')
        this.fail(t, `'${t.text}' is a boolean signal and cannot be used in arithmetic or comparisons`);
      if (this.ctx.named?.has(t.text))
        this.fail(t, `'${t.text}' is a named formula, not a real-valued signal; it cannot be used in arithmetic`);
      if (RESERVED_WORDS.has(t.text)) this.fail(t, `expected a signal or number, found keyword '${t.text}'`);
      const known = [...this.ctx.signals.keys(), ...(this.ctx.named?.keys() ?? [])];
      const guess = closestMatch(t.text, known);
      this.fail(
        t,
        `unknown signal '${t.text}'${guess ? ` — did you mean '${guess}'?` : ''}${known.length === 0 ? ' (no signals are declared)' : ` (declared: ${[...this.ctx.signals.keys()].join(', ')})`}`,
      );
    }
    this.fail(t, `expected a signal, number, 'abs(' or '(', found ${this.describe(t)}`);
  }
}

export function containsEpisodeOperator(f: Formula): boolean {
  if (isEpisodeOperator(f)) return true;
  switch (f.kind) {
    case 'literal':
    case 'atom':
    case 'compare':
      return false;
    case 'not':
    case 'always':
    case 'eventually':
    case 'historically':
    case 'once':
      return containsEpisodeOperator(f.arg);
    case 'and':
    case 'or':
    case 'implies':
    case 'until':
    case 'since':
      return containsEpisodeOperator(f.left) || containsEpisodeOperator(f.right);
  }
}
