/**
 * A robustness-trace plot (the layout of SafeVLA-Bench's Figure 5): every applicable clause's
 * ρ(t)/|τ| over the episode, one colour per clause with a legend that says whether each clause was
 * violated or satisfied, the highlighted (deepest) violation drawn thick, ρ = 0 dashed, the first
 * violation step marked with a dotted line, and the ±clip stated on the axis. Pure SVG, no script.
 */
import type { WorstEpisode } from '../build-types.js';
import { escapeHtml, num } from './format.js';

const W = 760;
const H = 230;
const M = { left: 48, right: 230, top: 14, bottom: 34 };
/** Normalised robustness is drawn within ±Y_CLIP; the axis label says so. */
export const Y_CLIP = 3;

/** Clause colours: a clause keeps its colour across every plot of a report (index in the clause order). */
export const CLAUSE_PALETTE = [
  '#d62728',
  '#1f77b4',
  '#ff7f0e',
  '#2ca02c',
  '#9467bd',
  '#8c564b',
  '#e377c2',
  '#17becf',
  '#bcbd22',
  '#7f7f7f',
  '#393b79',
  '#637939',
];

/** The colour of a clause given the report's clause order (unknown clauses after the known ones). */
export function clauseColour(clauseId: string, order: readonly string[]): string {
  const i = order.indexOf(clauseId);
  return CLAUSE_PALETTE[(i < 0 ? order.length : i) % CLAUSE_PALETTE.length]!;
}

/** Ticks at a 1/2/2.5/5 × 10^k step, with the decimals that step needs. */
function niceTicks(lo: number, hi: number, count: number): { ticks: number[]; digits: number } {
  const span = hi - lo;
  if (!(span > 0)) return { ticks: [lo], digits: 1 };
  const raw = span / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? raw;
  const ticks: number[] = [];
  for (let i = Math.ceil(lo / step - 1e-9); i * step <= hi + 1e-9; i++)
    ticks.push(Math.abs(i * step) < 1e-12 ? 0 : i * step);
  const digits = Math.max(0, Math.ceil(-Math.log10(step) - 1e-9) + (String(step / mag).includes('.') ? 1 : 0));
  return { ticks, digits };
}

const f1 = (x: number) => x.toFixed(1);

export function traceSvg(
  ep: WorstEpisode,
  id: string,
  clauseOrder: readonly string[] = ep.traces.map((t) => t.clauseId),
): string {
  const traces = [...ep.traces].sort((a, b) => Number(a.clauseId === ep.clauseId) - Number(b.clauseId === ep.clauseId));
  let tMin = Infinity;
  let tMax = -Infinity;
  let vMin = Infinity;
  let vMax = -Infinity;
  for (const tr of traces) {
    for (let i = 0; i < tr.t.length; i++) {
      const t = tr.t[i]! - ep.t0;
      const v = tr.value[i]!;
      if (t < tMin) tMin = t;
      if (t > tMax) tMax = t;
      if (Number.isFinite(v)) {
        if (v < vMin) vMin = v;
        if (v > vMax) vMax = v;
      }
    }
  }
  if (!Number.isFinite(tMin)) {
    tMin = 0;
    tMax = 1;
  }
  if (tMax === tMin) tMax = tMin + 1;
  const lo = Math.max(-Y_CLIP, Math.min(-0.25, Number.isFinite(vMin) ? vMin : -1));
  const hi = Math.min(Y_CLIP, Math.max(0.25, Number.isFinite(vMax) ? vMax : 1));
  const pw = W - M.left - M.right;
  const ph = H - M.top - M.bottom;
  const x = (t: number) => M.left + ((t - tMin) / (tMax - tMin)) * pw;
  const y = (v: number) => M.top + (1 - (Math.min(hi, Math.max(lo, v)) - lo) / (hi - lo)) * ph;
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" class="trace" id="${escapeHtml(id)}" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="robustness trace of ${escapeHtml(ep.episodeId)}">`,
  );
  parts.push(`<rect x="${M.left}" y="${M.top}" width="${pw}" height="${ph}" fill="#fff" stroke="#cbd2d9"/>`);
  if (y(0) < M.top + ph)
    parts.push(`<rect x="${M.left}" y="${f1(y(0))}" width="${pw}" height="${f1(M.top + ph - y(0))}" fill="#fdecec"/>`);
  const yt = niceTicks(lo, hi, 5);
  for (const v of yt.ticks) {
    parts.push(`<line x1="${M.left}" x2="${M.left + pw}" y1="${f1(y(v))}" y2="${f1(y(v))}" stroke="#eef1f4"/>`);
    parts.push(
      `<text x="${M.left - 6}" y="${f1(y(v) + 4)}" text-anchor="end" class="tick">${v.toFixed(yt.digits)}</text>`,
    );
  }
  const xt = niceTicks(tMin, tMax, 8);
  for (const t of xt.ticks) {
    parts.push(
      `<text x="${f1(x(t))}" y="${M.top + ph + 15}" text-anchor="middle" class="tick">${t.toFixed(xt.digits)}</text>`,
    );
  }
  parts.push(
    `<text x="${M.left + pw / 2}" y="${H - 3}" text-anchor="middle" class="axis">time since episode start (s)</text>`,
  );
  parts.push(
    `<text x="12" y="${M.top + ph / 2}" transform="rotate(-90 12 ${M.top + ph / 2})" text-anchor="middle" class="axis">ρ(t) / |τ| (clipped to ±${Y_CLIP})</text>`,
  );
  parts.push(
    `<line x1="${M.left}" x2="${M.left + pw}" y1="${f1(y(0))}" y2="${f1(y(0))}" stroke="#5f6b7a" stroke-dasharray="5 4"/>`,
  );
  for (const tr of traces) {
    const hl = tr.clauseId === ep.clauseId;
    let d = '';
    let pen = false;
    for (let i = 0; i < tr.t.length; i++) {
      const v = tr.value[i]!;
      if (Number.isNaN(v)) {
        pen = false;
        continue;
      }
      d += `${pen ? 'L' : 'M'}${f1(x(tr.t[i]! - ep.t0))} ${f1(y(v))}`;
      pen = true;
    }
    // A satisfied clause is drawn as satisfied (solid, its colour, never the violation highlight),
    // also when it sits exactly on ρ = 0; a violated one that is not the highlight is dashed.
    const cls = hl ? 'clause-violating' : tr.violated ? 'clause-violated' : 'clause-satisfied';
    parts.push(
      `<path d="${d}" fill="none" stroke="${clauseColour(tr.clauseId, clauseOrder)}" stroke-width="${hl ? 2.2 : 1.3}"${tr.violated && !hl ? ' stroke-dasharray="6 3"' : ''} class="${cls}" data-clause="${escapeHtml(tr.clauseId)}"/>`,
    );
  }
  if (Number.isFinite(ep.violationTime)) {
    const vx = x(ep.violationTime - ep.t0);
    parts.push(
      `<line x1="${f1(vx)}" x2="${f1(vx)}" y1="${M.top}" y2="${M.top + ph}" stroke="#d62728" stroke-dasharray="2 3" class="violation-step"/>`,
    );
    parts.push(
      `<text x="${f1(vx + (vx + 150 > M.left + pw ? -4 : 4))}" y="${M.top + ph - 6}" text-anchor="${vx + 150 > M.left + pw ? 'end' : 'start'}" class="mark">first violation: step ${ep.violationStep}, t = ${num(ep.violationTime - ep.t0, 2)} s</text>`,
    );
  }
  // Legend: the highlighted violation first, then the other violated clauses, then the satisfied ones.
  const legend = [...traces]
    .reverse()
    .sort(
      (a, b) =>
        Number(b.clauseId === ep.clauseId) - Number(a.clauseId === ep.clauseId) ||
        Number(b.violated) - Number(a.violated),
    );
  legend.forEach((tr, i) => {
    const ly = M.top + 10 + i * 15;
    if (ly > H - 10) return;
    const hl = tr.clauseId === ep.clauseId;
    const colour = clauseColour(tr.clauseId, clauseOrder);
    parts.push(
      `<line x1="${W - M.right + 12}" x2="${W - M.right + 30}" y1="${ly - 4}" y2="${ly - 4}" stroke="${colour}" stroke-width="${hl ? 2.2 : 1.3}"${tr.violated && !hl ? ' stroke-dasharray="6 3"' : ''}/>`,
    );
    parts.push(
      `<text x="${W - M.right + 35}" y="${ly}" class="legend${hl ? ' hl' : ''}">${escapeHtml(tr.clauseId)} ${tr.violated ? '✗ violated' : '✓ satisfied'}</text>`,
    );
  });
  parts.push('</svg>');
  return parts.join('');
}
