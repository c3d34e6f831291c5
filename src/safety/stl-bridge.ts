/** The clause library's link to the STL engine (src/stl): typed signal declarations and parsing. */
import { DERIVED_SIGNALS } from '../schema/derived.js';
import { SIGNALS } from '../schema/signals.js';
import { isEpisodeOperator, parseFormula, type Formula, type StlSignalDecl } from '../stl/index.js';

/** Every schema signal and derived boolean, typed for the STL parser. */
export const STL_SIGNALS: readonly StlSignalDecl[] = [
  ...SIGNALS.map((s) => ({ name: s.name, type: s.kind })),
  ...DERIVED_SIGNALS.map((d) => ({ name: d.name, type: d.kind })),
];

/** A readable problem with an instantiated clause formula, or undefined when it is well formed. */
export function checkFormulaSyntax(text: string, _signals: readonly string[]): string | undefined {
  const r = parseFormula(text, STL_SIGNALS);
  if (!r.ok) return `STL ${r.error.line}:${r.error.column}: ${r.error.message}`;
  if (!isEpisodeOperator(r.formula) || r.formula.kind !== 'always')
    return "the formula must be 'always (…)' over the whole episode";
  return undefined;
}

/** The per-step condition of an instantiated clause formula `always (<step>)`, parsed. */
export function compileStep(formulaText: string): Formula {
  const r = parseFormula(formulaText, STL_SIGNALS);
  if (!r.ok)
    throw new Error(`clause formula '${formulaText}': ${r.error.message} at ${r.error.line}:${r.error.column}`);
  const f = r.formula;
  if (f.kind !== 'always' || f.interval !== null)
    throw new Error(`clause formula '${formulaText}' is not an episode-level always`);
  return f.arg;
}
