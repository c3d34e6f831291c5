/** Number and text formatting shared by the report renderers. */
import type { Interval, Proportion } from '../metrics/index.js';
import type { ClauseCell } from '../build-types.js';

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Markdown table cell: pipes escaped, newlines flattened. */
export function mdCell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

export const DASH = '—';

/** The leading columns of the per-clause table, the same in the HTML and the Markdown report. */
export const CLAUSE_TABLE_COLUMNS = [
  'Clause',
  'Tier',
  'Rate',
  'k/n',
  'Wilson 95%',
  'Manual',
  'Manual n/a',
  'No signal',
] as const;

export function pct(p: number, digits = 1): string {
  return Number.isFinite(p) ? `${(100 * p).toFixed(digits)}%` : DASH;
}

export function num(x: number, digits = 3): string {
  if (Number.isNaN(x)) return DASH;
  if (x === Infinity) return '+∞';
  if (x === -Infinity) return '−∞';
  return x.toFixed(digits);
}

export function kn(p: { k: number; n: number }): string {
  return `${p.k}/${p.n}`;
}

export function propInterval(p: Proportion): string {
  return p.n === 0 ? DASH : `[${pct(p.lo)}, ${pct(p.hi)}]`;
}

export function meanInterval(i: Interval, digits = 3): string {
  return Number.isFinite(i.lo) ? `[${num(i.lo, digits)}, ${num(i.hi, digits)}]` : DASH;
}

/** Table 33 cell text: `violated/applicable`, `—` when never applicable; manual marked with †. */
/** "k/n", † when manual labels count in it: a manual violation, or a manual not_applicable that reduced n. */
export function cellText(c: ClauseCell | undefined): string {
  const dagger = c && (c.manual > 0 || c.manualNotApplicable > 0) ? '†' : '';
  if (!c || c.applicable === 0) return `${DASH}${dagger}`;
  return `${c.violated}/${c.applicable}${dagger}`;
}

export function fraction(k: number, n: number): string {
  return n === 0 ? DASH : `${k}/${n}`;
}

export function seconds(s: number): string {
  if (!Number.isFinite(s)) return DASH;
  return s < 1 ? `${(s * 1000).toFixed(0)} ms` : `${s.toFixed(s < 10 ? 2 : 1)} s`;
}
