import type { CompareOp } from './ast.js';

/** ρ of `left op right` (design §4): `x < c` gives c − x, `x > c` gives x − c, in the signal's unit. */
export function exprRobustness(op: CompareOp, left: number, right: number): number {
  switch (op) {
    case '<':
    case '<=':
      return right - left;
    case '>':
    case '>=':
      return left - right;
    case '==':
      return -Math.abs(left - right);
    case '!=':
      return Math.abs(left - right);
  }
}
