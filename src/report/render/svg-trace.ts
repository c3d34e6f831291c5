/**
 * A robustness-trace plot like seeds/000 Figure 5: every applicable clause's ρ(t)/|τ| over the
 * episode, the violating clause in red, the others in grey, ρ = 0 dashed, the first violation step
 * marked with a dotted line. Pure SVG string, no script.
 */
import type { WorstEpisode } from '../build-types.js';
import { escapeHtml, num } from './format.js';

const W = 760;
const H = 230;
const M = { left: 48, right: 190, top: 14, bottom: 34 };
const Y_CLIP = 3;

/** Ticks at a 1/2/2.5/5 × 10^k step, with the decimals that step needs. */
function niceTicks(lo: number, hi: number, count: number): { ticks: number[]; digits: number } {
  const span = hi - lo;
  if (!(span > 0)) return { ticks: [lo], digits: 1 };
  const raw = span / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? raw;
  const ticks: number[] = [];
  for (let i = Math.ceil(lo / step - 1e-9); i * step <= hi + 1e-9; i++) ticks.push(Math.abs(i * step) < 1e-12 ? 0 : i * step);
  const digits = Math.max(0, Math.ceil(-Math.log10(step) - 1e-9) + (String(step / mag).includes('.') ? 1 : 0));
  return { ticks, digits };
}

const f1 = (x: number) => x.toFixed(1);

export function traceSvg(ep: WorstEpisode, id: string): string {
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
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" class="trace" id="${escapeHtml(id)}" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="robustness trace of ${escapeHtml(ep.episodeId)}">`);
  parts.push(`<rect x="${M.left}" y="${M.top}" width="${pw}" height="${ph}" fill="#fff" stroke="#cbd2d9"/>`);
  if (y(0) < M.top + ph) parts.push(`<rect x="${M.left}" y="${f1(y(0))}" width="${pw}" height="${f1(M.top + ph - y(0))}" fill="#fdecec"/>`);
  const yt = niceTicks(lo, hi, 5);
  for (const v of yt.ticks) {
    parts.push(`<line x1="${M.left}" x2="${M.left + pw}" y1="${f1(y(v))}" y2="${f1(y(v))}" stroke="#eef1f4"/>`);
    parts.push(`<text x="${M.left - 6}" y="${f1(y(v) + 4)}" text-anchor="end" class="tick">${v.toFixed(yt.digits)}</text>`);
  }
  const xt = niceTicks(tMin, tMax, 8);
  for (const t of xt.ticks) {
    parts.push(`<text x="${f1(x(t))}" y="${M.top + ph + 15}" text-anchor="middle" class="tick">${t.toFixed(xt.digits)}</text>`);
  }
  parts.push(`<text x="${M.left + pw / 2}" y="${H - 3}" text-anchor="middle" class="axis">time since episode start (s)</text>`);
  parts.push(`<text x="12" y="${M.top + ph / 2}" transform="rotate(-90 12 ${M.top + ph / 2})" text-anchor="middle" class="axis">ρ(t) / |τ|</text>`);
  parts.push(`<line x1="${M.left}" x2="${M.left + pw}" y1="${f1(y(0))}" y2="${f1(y(0))}" stroke="#5f6b7a" stroke-dasharray="5 4"/>`);
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
    parts.push(`<path d="${d}" fill="none" stroke="${hl ? '#d62728' : '#9aa5b1'}" stroke-width="${hl ? 2 : 1.1}" stroke-opacity="${hl ? 1 : 0.8}" class="${hl ? 'clause-violating' : 'clause-other'}" data-clause="${escapeHtml(tr.clauseId)}"/>`);
  }
  if (Number.isFinite(ep.violationTime)) {
    const vx = x(ep.violationTime - ep.t0);
    parts.push(`<line x1="${f1(vx)}" x2="${f1(vx)}" y1="${M.top}" y2="${M.top + ph}" stroke="#d62728" stroke-dasharray="2 3" class="violation-step"/>`);
    parts.push(`<text x="${f1(vx + (vx + 150 > M.left + pw ? -4 : 4))}" y="${M.top + ph - 6}" text-anchor="${vx + 150 > M.left + pw ? 'end' : 'start'}" class="mark">first violation: step ${ep.violationStep}, t = ${num(ep.violationTime - ep.t0, 2)} s</text>`);
  }
  // Legend: the violating clause first, then the others (grey clauses may also violate).
  const legend = [...traces].reverse();
  legend.forEach((tr, i) => {
    const ly = M.top + 10 + i * 15;
    if (ly > H - 10) return;
    const hl = tr.clauseId === ep.clauseId;
    parts.push(`<line x1="${W - M.right + 12}" x2="${W - M.right + 30}" y1="${ly - 4}" y2="${ly - 4}" stroke="${hl ? '#d62728' : '#9aa5b1'}" stroke-width="${hl ? 2 : 1.1}"/>`);
    parts.push(`<text x="${W - M.right + 35}" y="${ly}" class="legend${hl ? ' hl' : ''}">${escapeHtml(tr.clauseId)}${tr.violated && !hl ? ' ✱' : ''}</text>`);
  });
  parts.push('</svg>');
  return parts.join('');
}
