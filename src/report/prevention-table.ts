/**
 * The report's per-clause prevention table (issue 15; design §6): for every safe-tier clause the
 * report covers, how the gate prevents it — a chunk-CBF constraint, a warning band (what it
 * predicts from the chunk, what it does, ε), or only a hold after the violation ("reactive") —
 * from the clause library's `prevention` declarations. Rows, Markdown and HTML.
 */
import type { ClauseDef } from '../safety/clause.js';
import { DASH, escapeHtml as h, mdCell } from './render/format.js';

export interface PreventionRow {
  readonly clause: string;
  /** cbf | warning_band | reactive | none (a library without a declaration). */
  readonly kind: string;
  /** The constraint, or predictor → action (and the CBF constraint beside it), or the reason. */
  readonly how: string;
  /** ε of the main tier, with the clause's unit ('' when none). */
  readonly epsilon: string;
  /** True when the gate can only hold after the violation. */
  readonly reactive: boolean;
}

const words = (s: string): string => s.replace(/_/g, ' ');

/** One row per safe-tier clause in `ids`, in library order. */
export function preventionRows(clauses: readonly ClauseDef[], ids: ReadonlySet<string>): PreventionRow[] {
  return clauses
    .filter((c) => c.tier === 'safe' && ids.has(c.id))
    .map((c): PreventionRow => {
      const p = c.prevention;
      const warn = c.thresholds.get('main')?.warn;
      if (!p)
        return {
          clause: c.id,
          kind: 'none',
          how: 'no prevention declared: the gate holds after the violation',
          epsilon: '',
          reactive: true,
        };
      switch (p.kind) {
        case 'cbf':
          return { clause: c.id, kind: 'CBF constraint', how: words(p.constraint), epsilon: '', reactive: false };
        case 'warning_band':
          return {
            clause: c.id,
            kind: 'warning band',
            how: `predict ${words(p.predictor)} → ${p.action}${p.cbf ? `; CBF ${words(p.cbf)}` : ''}`,
            epsilon: warn !== undefined ? `${warn} ${c.unit}` : '',
            reactive: false,
          };
        case 'reactive':
          return { clause: c.id, kind: 'reactive only', how: p.reason, epsilon: '', reactive: true };
      }
    });
}

const HEAD = ['Clause', 'Prevention', 'How', 'ε (main tier)', 'Reactive only'];
const cells = (r: PreventionRow): string[] => [r.clause, r.kind, r.how, r.epsilon || DASH, r.reactive ? 'yes' : 'no'];

function summaryLine(rows: readonly PreventionRow[]): string {
  const reactive = rows.filter((r) => r.reactive).map((r) => r.clause);
  return reactive.length === 0
    ? 'Every clause here is prevented before its margin reaches 0; none is reactive only.'
    : `Reactive only (the gate can hold only after the violation): ${reactive.join(', ')}.`;
}

export function preventionMarkdown(rows: readonly PreventionRow[]): string[] {
  if (rows.length === 0) return ['## Prevention per clause', '', 'No safe-tier clause applies to these episodes.', ''];
  return [
    '## Prevention per clause',
    '',
    `| ${HEAD.join(' | ')} |`,
    `| ${HEAD.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${cells(r).map(mdCell).join(' | ')} |`),
    '',
    summaryLine(rows),
    '',
  ];
}

export function preventionHtml(rows: readonly PreventionRow[]): string {
  if (rows.length === 0)
    return '<section id="prevention"><h2>Prevention per clause</h2><p>No safe-tier clause applies to these episodes.</p></section>';
  const body = rows
    .map(
      (r) =>
        `<tr>${cells(r)
          .map((c) => `<td>${h(c)}</td>`)
          .join('')}</tr>`,
    )
    .join('');
  return `<section id="prevention"><h2>Prevention per clause</h2><table><thead><tr>${HEAD.map((x) => `<th>${h(x)}</th>`).join('')}</tr></thead><tbody>${body}</tbody></table><p>${h(summaryLine(rows))}</p></section>`;
}
