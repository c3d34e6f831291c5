import { evaluateOffline, parseFormula, type Formula, type StlSignalDecl } from '../../../src/stl/index.js';

export function formula(text: string, signals: readonly StlSignalDecl[]): Formula {
  const r = parseFormula(text, signals);
  if (!r.ok) throw new Error(`${text}: ${r.error.line}:${r.error.column} ${r.error.message}`);
  return r.formula;
}

export function offline(
  text: string,
  signals: readonly StlSignalDecl[],
  times: number[],
  columns: Record<string, number[]>,
): number[] {
  const cols = new Map(Object.entries(columns).map(([k, v]) => [k, Float64Array.from(v)]));
  // +0 and −0 are the same margin; normalise so toEqual compares values.
  return Array.from(evaluateOffline(formula(text, signals), Float64Array.from(times), cols), (v) => (v === 0 ? 0 : v));
}

export const real = (...names: string[]): StlSignalDecl[] => names.map((name) => ({ name, type: 'real' }));
export const bool = (...names: string[]): StlSignalDecl[] => names.map((name) => ({ name, type: 'boolean' }));
