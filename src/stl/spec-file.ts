import type { Formula, StlDiagnostic, StlSignalDecl, StlType } from './ast.js';
import { lex, type Token } from './lexer.js';
import { containsEpisodeOperator, parseFormulaAt, RESERVED_WORDS, type NamedFormula } from './parser.js';

/**
 * Spec file format (`.stl`):
 *
 *     # comment
 *     real arm_furniture_contact_force, obj_above_table   # real signals
 *     bool grip                                            # boolean signals (also: boolean)
 *     let tr := grip and obj_above_table > 0.05            # helper, usable by name, not reported
 *     stable_grasp := always (grip -> obj_above_table > -0.02)
 *     always (arm_furniture_contact_force < 200)           # unnamed: reported as formula<N> (N-th formula, or the next free N)
 *
 * A statement starts at column 1; lines that start with whitespace continue the previous one.
 * Signals and named formulas must be declared before use.
 */
export interface StlSpec {
  signals: StlSignalDecl[];
  formulas: { name: string; formula: Formula }[];
}

export type SpecParseResult = { ok: true; spec: StlSpec } | { ok: false; errors: StlDiagnostic[] };

interface Statement {
  start: number;
  end: number;
  line: number;
}

function splitStatements(text: string): Statement[] {
  const statements: Statement[] = [];
  let offset = 0;
  let line = 1;
  let current: Statement | undefined;
  while (offset <= text.length) {
    let eol = text.indexOf('\n', offset);
    if (eol < 0) eol = text.length;
    const raw = text.slice(offset, eol);
    const content = raw.replace(/#.*/, '').trim();
    if (content.length > 0) {
      if (/^[ \t]/.test(raw) && current) current.end = eol;
      else {
        current = { start: offset, end: eol, line };
        statements.push(current);
      }
    }
    offset = eol + 1;
    line++;
  }
  return statements;
}

const DECL_TYPES: Readonly<Record<string, StlType>> = { real: 'real', bool: 'boolean', boolean: 'boolean' };

export function parseSpecFile(text: string): SpecParseResult {
  const errors: StlDiagnostic[] = [];
  const signals: StlSignalDecl[] = [];
  const signalTypes = new Map<string, StlType>();
  const named = new Map<string, NamedFormula>();
  const formulas: { name: string; formula: Formula }[] = [];
  const error = (t: { line: number; column: number }, message: string): void => {
    errors.push({ line: t.line, column: t.column, message });
  };

  for (const st of splitStatements(text)) {
    const lexed = lex(text, st.start, st.end, st.line, 1);
    if (!lexed.ok) {
      error(lexed, lexed.message);
      continue;
    }
    const tokens = lexed.tokens;
    const first = tokens[0];
    if (!first) continue;
    const declType = first.kind === 'ident' ? DECL_TYPES[first.text] : undefined;
    if (declType && tokens[1]?.kind === 'ident') {
      declare(tokens, declType);
      continue;
    }
    let k = 0;
    let helper = false;
    if (first.kind === 'ident' && first.text === 'let') {
      helper = true;
      k = 1;
    }
    const nameTok = tokens[k];
    const assign = tokens[k + 1];
    let name: string | undefined;
    let formulaStart = st.start;
    let line = st.line;
    let column = 1;
    if (nameTok?.kind === 'ident' && assign?.kind === 'punct' && assign.text === ':=') {
      name = nameTok.text;
      const problem = nameProblem(name);
      if (problem) {
        error(nameTok, problem);
        continue;
      }
      formulaStart = assign.offset + 2;
      line = assign.line;
      column = assign.column + 2;
    } else if (helper) {
      error(nameTok ?? first, "expected 'let <name> := <formula>'");
      continue;
    }
    const parsed = parseFormulaAt(text, { signals: signalTypes, named }, formulaStart, st.end, line, column);
    if (!parsed.ok) {
      errors.push(parsed.error);
      continue;
    }
    const finalName = name ?? autoName();
    named.set(finalName, {
      formula: parsed.formula,
      episode: containsEpisodeOperator(parsed.formula),
      depth: parsed.depth,
    });
    if (!helper) formulas.push({ name: finalName, formula: parsed.formula });
  }
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, spec: { signals, formulas } };

  /** `formula<N>` for the N-th reported formula, skipping names a user already gave a formula or signal. */
  function autoName(): string {
    let n = formulas.length + 1;
    while (named.has(`formula${n}`) || signalTypes.has(`formula${n}`)) n++;
    return `formula${n}`;
  }

  function nameProblem(name: string): string | undefined {
    if (RESERVED_WORDS.has(name) || name === 'let') return `'${name}' is a keyword and cannot name a formula`;
    if (signalTypes.has(name)) return `'${name}' is already a signal name`;
    if (named.has(name)) return `formula '${name}' is defined twice`;
    return undefined;
  }

  function declare(tokens: Token[], type: StlType): void {
    // real a, b, c
    for (let k = 1; k < tokens.length; k++) {
      const t = tokens[k];
      if (!t || t.kind === 'eof') return;
      if (t.kind !== 'ident') {
        error(t, `expected a signal name, found '${t.text}'`);
        return;
      }
      if (RESERVED_WORDS.has(t.text) || t.text === 'let') error(t, `'${t.text}' is a keyword and cannot name a signal`);
      else if (signalTypes.has(t.text)) error(t, `signal '${t.text}' is declared twice`);
      else if (named.has(t.text)) error(t, `'${t.text}' is already a formula name`);
      else {
        signalTypes.set(t.text, type);
        signals.push({ name: t.text, type });
      }
      const sep = tokens[k + 1];
      if (!sep || sep.kind === 'eof') return;
      if (sep.kind !== 'punct' || sep.text !== ',') {
        error(sep, `expected ',' or end of line after signal '${t.text}', found '${sep.text}'`);
        return;
      }
      k++;
    }
  }
}
