/** Tokens of the STL dialect, with 1-based line:column positions into the original text. */
export type TokenKind = 'ident' | 'number' | 'punct' | 'eof';

export interface Token {
  kind: TokenKind;
  text: string;
  /** Numeric value for 'number' tokens. */
  value: number;
  /** Offset of the token's first character in the text. */
  offset: number;
  line: number;
  column: number;
}

const PUNCT = ['->', '<=', '>=', '==', '!=', ':=', '(', ')', '[', ']', ':', ',', '<', '>', '+', '-', '*', '/'];

const IDENT = /[A-Za-z_][A-Za-z0-9_]*/y;
const NUMBER = /(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/y;

function matchAt(re: RegExp, text: string, i: number, end: number): RegExpExecArray | null {
  re.lastIndex = i;
  const m = re.exec(text);
  return m && i + m[0].length <= end ? m : null;
}

export type LexResult = { ok: true; tokens: Token[] } | { ok: false; line: number; column: number; message: string };

/**
 * Tokenises text[start, end). `line`/`column` give the position of text[start] so diagnostics
 * point into the whole file. `#` starts a comment to the end of the line.
 */
export function lex(text: string, start = 0, end = text.length, line = 1, column = 1): LexResult {
  const tokens: Token[] = [];
  let i = start;
  const advance = (n: number): void => {
    for (let k = 0; k < n; k++) {
      if (text.charCodeAt(i) === 10) {
        line++;
        column = 1;
      } else column++;
      i++;
    }
  };
  while (i < end) {
    const c = text[i] ?? '';
    if (c === ' ' || c === '\t' || c === '\r' || c === '\n') {
      advance(1);
      continue;
    }
    if (c === '#') {
      while (i < end && text[i] !== '\n') advance(1);
      continue;
    }
    const ident = matchAt(IDENT, text, i, end);
    if (ident) {
      tokens.push({ kind: 'ident', text: ident[0], value: NaN, offset: i, line, column });
      advance(ident[0].length);
      continue;
    }
    const num = matchAt(NUMBER, text, i, end);
    if (num) {
      const after = i + num[0].length < end ? text[i + num[0].length] : undefined;
      if (after !== undefined && /[A-Za-z_]/.test(after)) {
        return {
          ok: false,
          line,
          column,
          message: `malformed number '${num[0]}${after}' (units are not written in formulas; use plain numbers in the signal's unit)`,
        };
      }
      tokens.push({ kind: 'number', text: num[0], value: Number(num[0]), offset: i, line, column });
      advance(num[0].length);
      continue;
    }
    const p = PUNCT.find((q) => text.startsWith(q, i) && i + q.length <= end);
    if (p) {
      tokens.push({ kind: 'punct', text: p, value: NaN, offset: i, line, column });
      advance(p.length);
      continue;
    }
    const hint =
      c === '&'
        ? " (write 'and')"
        : c === '|'
          ? " (write 'or')"
          : c === '!'
            ? " (write 'not')"
            : c === '='
              ? " (write '==' to compare)"
              : '';
    return { ok: false, line, column, message: `unexpected character '${c}'${hint}` };
  }
  tokens.push({ kind: 'eof', text: '', value: NaN, offset: i, line, column });
  return { ok: true, tokens };
}
