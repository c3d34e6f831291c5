import type { Expr, Formula } from './ast.js';

/** Prints a formula so that parsing the text gives back the same AST (fully parenthesised). */
export function printFormula(f: Formula): string {
  switch (f.kind) {
    case 'literal':
      return f.value ? 'true' : 'false';
    case 'atom':
      return f.name;
    case 'compare':
      return `${printExpr(f.left)} ${f.op} ${printExpr(f.right)}`;
    case 'not':
      return `not ${wrap(f.arg)}`;
    case 'and':
    case 'or':
      return `${wrap(f.left)} ${f.kind} ${wrap(f.right)}`;
    case 'implies':
      return `${wrap(f.left)} -> ${wrap(f.right)}`;
    case 'always':
    case 'eventually':
    case 'historically':
    case 'once':
      return `${f.kind}${printInterval(f.interval)} ${wrap(f.arg)}`;
    case 'until':
    case 'since':
      return `${wrap(f.left)} ${f.kind}${printInterval(f.interval)} ${wrap(f.right)}`;
  }
}

function wrap(f: Formula): string {
  return f.kind === 'literal' || f.kind === 'atom' ? printFormula(f) : `(${printFormula(f)})`;
}

function printInterval(i: { lo: number; hi: number } | null): string {
  return i === null ? '' : `[${printNumber(i.lo)}:${printNumber(i.hi)}]`;
}

function printNumber(v: number): string {
  if (Object.is(v, -0)) return '(-0)';
  return v < 0 ? `(${String(v)})` : String(v);
}

export function printExpr(e: Expr): string {
  switch (e.kind) {
    case 'num':
      return printNumber(e.value);
    case 'var':
      return e.name;
    case 'neg':
      return `-(${printExpr(e.arg)})`;
    case 'add':
      return `(${printExpr(e.left)} + ${printExpr(e.right)})`;
    case 'sub':
      return `(${printExpr(e.left)} - ${printExpr(e.right)})`;
    case 'scale':
      return `(${printExpr(e.arg)} * ${printNumber(e.factor)})`;
    case 'abs':
      return `abs(${printExpr(e.arg)})`;
  }
}
