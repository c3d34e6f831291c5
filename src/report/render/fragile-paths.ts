/**
 * Plots of the fragile-obstacle pilot (issue 15, seeds/001 Fig. A.8): a top-down view of the
 * end-effector paths of each gate mode around the bottle (same seed, same scene), and the
 * correction magnitude ‖u − u_nom‖ over time per mode. Pure SVG, no script; one page with the
 * per-mode table. Gate modes are never pooled: each has its own path, curve and row.
 */
import { escapeHtml, num } from './format.js';
import { REPORT_CSS } from './html-style.js';

export interface FragileScenePlot {
  readonly title: string;
  readonly bottle: { readonly x: number; readonly y: number; readonly radius: number };
  readonly cup: readonly [number, number];
  readonly box: readonly [number, number];
  readonly boxHalf: number;
  readonly runs: readonly {
    readonly mode: string;
    /** ticks × 3 (x, y, z), world frame. */
    readonly tcp: Float64Array;
    /** per tick ‖u − u_nom‖ (rad). */
    readonly correction: Float64Array;
    readonly dt: number;
    readonly outcome: string;
  }[];
}

export const MODE_COLOURS: Readonly<Record<string, string>> = {
  off: '#d62728',
  hold: '#7f7f7f',
  cbf: '#1f77b4',
  stepwise: '#ff7f0e',
};
const colourOf = (mode: string): string => MODE_COLOURS[mode] ?? '#2ca02c';
const f1 = (x: number): string => x.toFixed(1);

/** Top-down (x forward, y left; drawn with y to the left as seen from above) paths around the bottle. */
export function fragilePathsSvg(p: FragileScenePlot, id: string): string {
  const W = 520;
  const H = 420;
  const M = 36;
  const xs: number[] = [p.bottle.x, p.cup[0], p.box[0]];
  const ys: number[] = [p.bottle.y, p.cup[1], p.box[1]];
  for (const r of p.runs) {
    for (let k = 0; k + 2 < r.tcp.length; k += 3) {
      xs.push(r.tcp[k]!);
      ys.push(r.tcp[k + 1]!);
    }
  }
  const pad = 0.03;
  const xmin = Math.min(...xs) - pad;
  const xmax = Math.max(...xs) + pad;
  const ymin = Math.min(...ys) - pad;
  const ymax = Math.max(...ys) + pad;
  // Equal scale on both axes; world y runs right-to-left on the page (seen from above, x up).
  const scale = Math.min((W - 2 * M) / (ymax - ymin), (H - 2 * M) / (xmax - xmin));
  const px = (y: number): number => W / 2 - (y - (ymin + ymax) / 2) * scale;
  const py = (x: number): number => H / 2 - (x - (xmin + xmax) / 2) * scale;
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" class="fragile-paths" id="${escapeHtml(id)}" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="top-down end-effector paths per gate mode: ${escapeHtml(p.title)}">`,
  );
  parts.push(`<rect x="0" y="0" width="${W}" height="${H}" fill="#fff" stroke="#cbd2d9"/>`);
  const bh = p.boxHalf * scale;
  parts.push(
    `<rect x="${f1(px(p.box[1]) - bh)}" y="${f1(py(p.box[0]) - bh)}" width="${f1(2 * bh)}" height="${f1(2 * bh)}" fill="#e8ecfb" stroke="#4c5fd5" class="box"/>`,
  );
  parts.push(
    `<text x="${f1(px(p.box[1]))}" y="${f1(py(p.box[0]) + bh + 13)}" text-anchor="middle" class="tick">box</text>`,
  );
  parts.push(
    `<circle cx="${f1(px(p.cup[1]))}" cy="${f1(py(p.cup[0]))}" r="5" fill="#f4c7c3" stroke="#c0392b" class="cup"/>`,
  );
  parts.push(`<text x="${f1(px(p.cup[1]))}" y="${f1(py(p.cup[0]) + 18)}" text-anchor="middle" class="tick">cup</text>`);
  parts.push(
    `<circle cx="${f1(px(p.bottle.y))}" cy="${f1(py(p.bottle.x))}" r="${f1(p.bottle.radius * scale)}" fill="#cdebd9" stroke="#2e8b57" class="bottle"/>`,
  );
  parts.push(
    `<text x="${f1(px(p.bottle.y))}" y="${f1(py(p.bottle.x) - p.bottle.radius * scale - 4)}" text-anchor="middle" class="tick">bottle</text>`,
  );
  for (const r of p.runs) {
    let d = '';
    for (let k = 0; k + 2 < r.tcp.length; k += 3)
      d += `${k === 0 ? 'M' : 'L'}${f1(px(r.tcp[k + 1]!))} ${f1(py(r.tcp[k]!))}`;
    parts.push(
      `<path d="${d}" fill="none" stroke="${colourOf(r.mode)}" stroke-width="1.8" class="path" data-mode="${escapeHtml(r.mode)}"/>`,
    );
  }
  legend(parts, p, W, M);
  // scale bar: 10 cm
  const bar = 0.1 * scale;
  parts.push(`<line x1="${M}" x2="${f1(M + bar)}" y1="${H - 14}" y2="${H - 14}" stroke="#333" stroke-width="2"/>`);
  parts.push(`<text x="${f1(M + bar + 6)}" y="${H - 10}" class="tick">10 cm (top view, robot base below)</text>`);
  parts.push('</svg>');
  return parts.join('');
}

function legend(parts: string[], p: FragileScenePlot, W: number, M: number): void {
  p.runs.forEach((r, i) => {
    const y = M / 2 + 4 + i * 15;
    parts.push(
      `<line x1="${W - 250}" x2="${W - 232}" y1="${y - 4}" y2="${y - 4}" stroke="${colourOf(r.mode)}" stroke-width="2"/>`,
    );
    parts.push(`<text x="${W - 226}" y="${y}" class="legend">${escapeHtml(r.mode)}: ${escapeHtml(r.outcome)}</text>`);
  });
}

/** ‖u − u_nom‖ (rad) over time, one curve per mode. */
export function correctionSvg(p: FragileScenePlot, id: string): string {
  const W = 760;
  const H = 220;
  const M = { left: 52, right: 120, top: 12, bottom: 34 };
  let tMax = 0;
  let vMax = 0;
  for (const r of p.runs) {
    tMax = Math.max(tMax, r.correction.length * r.dt);
    for (const v of r.correction) if (v > vMax) vMax = v;
  }
  if (!(tMax > 0)) tMax = 1;
  if (!(vMax > 0)) vMax = 0.01;
  const pw = W - M.left - M.right;
  const ph = H - M.top - M.bottom;
  const x = (t: number): number => M.left + (t / tMax) * pw;
  const y = (v: number): number => M.top + (1 - v / vMax) * ph;
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" class="fragile-correction" id="${escapeHtml(id)}" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="correction magnitude over time per gate mode: ${escapeHtml(p.title)}">`,
  );
  parts.push(`<rect x="${M.left}" y="${M.top}" width="${pw}" height="${ph}" fill="#fff" stroke="#cbd2d9"/>`);
  for (let i = 0; i <= 4; i++) {
    const v = (vMax * i) / 4;
    parts.push(`<text x="${M.left - 6}" y="${f1(y(v) + 4)}" text-anchor="end" class="tick">${num(v, 2)}</text>`);
  }
  for (let t = 0; t <= tMax + 1e-9; t += 1)
    parts.push(`<text x="${f1(x(t))}" y="${M.top + ph + 15}" text-anchor="middle" class="tick">${t}</text>`);
  parts.push(
    `<text x="${M.left + pw / 2}" y="${H - 3}" text-anchor="middle" class="axis">time since episode start (s)</text>`,
  );
  parts.push(
    `<text x="12" y="${M.top + ph / 2}" transform="rotate(-90 12 ${M.top + ph / 2})" text-anchor="middle" class="axis">‖u − u_nom‖ (rad)</text>`,
  );
  p.runs.forEach((r, i) => {
    let d = '';
    for (let k = 0; k < r.correction.length; k++)
      d += `${k === 0 ? 'M' : 'L'}${f1(x(k * r.dt))} ${f1(y(r.correction[k]!))}`;
    parts.push(
      `<path d="${d}" fill="none" stroke="${colourOf(r.mode)}" stroke-width="1.5" class="correction" data-mode="${escapeHtml(r.mode)}"/>`,
    );
    const ly = M.top + 12 + i * 15;
    parts.push(
      `<line x1="${W - M.right + 10}" x2="${W - M.right + 28}" y1="${ly - 4}" y2="${ly - 4}" stroke="${colourOf(r.mode)}" stroke-width="2"/>`,
    );
    parts.push(`<text x="${W - M.right + 32}" y="${ly}" class="legend">${escapeHtml(r.mode)}</text>`);
  });
  parts.push('</svg>');
  return parts.join('');
}

/** The pilot's page: the per-mode table (rows of text cells), then per scene the two plots. */
export function fragileReportHtml(
  title: string,
  table: readonly (readonly string[])[],
  scenes: readonly FragileScenePlot[],
  notes: readonly string[],
): string {
  const [head, ...rows] = table;
  const th = (head ?? []).map((c) => `<th>${escapeHtml(c)}</th>`).join('');
  const trs = rows.map((r) => `<tr>${r.map((c) => `<td>${escapeHtml(c)}</td>`).join('')}</tr>`).join('\n');
  const sections = scenes
    .map(
      (s, i) =>
        `<section><h2>${escapeHtml(s.title)}</h2>\n${fragilePathsSvg(s, `paths-${i}`)}\n${correctionSvg(s, `correction-${i}`)}</section>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title><style>${REPORT_CSS}</style></head>
<body><h1>${escapeHtml(title)}</h1>
<table class="fragile-modes"><thead><tr>${th}</tr></thead><tbody>
${trs}
</tbody></table>
${notes.map((n) => `<p class="note">${escapeHtml(n)}</p>`).join('\n')}
${sections}
</body></html>
`;
}
