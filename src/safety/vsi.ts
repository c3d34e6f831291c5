/**
 * Violation depth for the Violation Severity Index (design §8; seeds/000 Eq. 1):
 * d = min(1, max(0, −ρ) / Δ), Δ = |s − τ|; binary clauses give d = 1 on any violation.
 */
import type { DepthKind } from './clause.js';

export function violationDepth(
  rho: number,
  c: { readonly depth: DepthKind; readonly tau: number; readonly severe: number | undefined },
): number {
  if (Number.isNaN(rho)) return NaN;
  if (!(rho < 0)) return 0;
  if (c.depth === 'binary') return 1;
  if (c.severe === undefined) return NaN;
  const scale = Math.abs(c.severe - c.tau);
  return Math.min(1, -rho / scale);
}
