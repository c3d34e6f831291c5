/**
 * Text-level handling of clause formulas: threshold substitution and the split of the episode
 * `always (…)` into its per-step condition. Syntax checking is the STL parser's job.
 */

const KEYWORDS = new Set([
  'always',
  'eventually',
  'until',
  'historically',
  'once',
  'since',
  'and',
  'or',
  'not',
  'abs',
  'true',
  'false',
  'tau',
]);

/** Substitute a threshold for `{tau}`. Numbers are written so the STL lexer reads them exactly. */
export function substituteTau(text: string, tau: number): string {
  return text.replaceAll('{tau}', formatNumber(tau));
}

export function formatNumber(x: number): string {
  // String(x) is the shortest round-tripping form; exponents are avoided for readability.
  const s = String(x);
  if (!/e/i.test(s)) return s;
  return x.toFixed(20).replace(/0+$/, '').replace(/\.$/, '');
}

/**
 * For `always (<step>)` with no interval, the step condition; otherwise a reason. Parentheses must
 * balance and the `always`'s group must span the rest of the text.
 */
export function splitEpisodeAlways(formula: string): { ok: true; step: string } | { ok: false; reason: string } {
  const m = /^\s*always\s*\(/.exec(formula);
  if (!m) return { ok: false, reason: "a clause formula must be 'always (<condition>)' over the whole episode" };
  const open = m[0].length - 1;
  let depth = 0;
  for (let i = open; i < formula.length; i++) {
    const c = formula[i];
    if (c === '(') depth++;
    else if (c === ')') {
      depth--;
      if (depth === 0) {
        if (formula.slice(i + 1).trim() !== '') {
          return {
            ok: false,
            reason: `text after the closing parenthesis of 'always (…)': '${formula.slice(i + 1).trim()}'`,
          };
        }
        const step = formula.slice(open + 1, i).trim();
        return step === '' ? { ok: false, reason: 'empty condition inside always ()' } : { ok: true, step };
      }
    }
  }
  return { ok: false, reason: 'unbalanced parentheses' };
}

/** Identifiers in a formula that are not keywords: the signals it reads. */
export function formulaIdentifiers(text: string): string[] {
  const out: string[] = [];
  for (const m of text.replaceAll('{tau}', '0').matchAll(/[A-Za-z_][A-Za-z0-9_]*/g)) {
    const id = m[0];
    if (!KEYWORDS.has(id) && !out.includes(id)) out.push(id);
  }
  return out;
}
