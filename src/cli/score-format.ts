/** Text and JSON renderings of `armguard score` results. */
import type { MetricsSummary, SensitivityRow } from '../report/metrics/index.js';
import type { Proportion } from '../report/metrics/wilson.js';
import type { ClauseScore, EpisodeScore } from '../safety/index.js';

export interface ScoreResult {
  readonly episodes: readonly EpisodeScore[];
  readonly summary: MetricsSummary;
  readonly byTask?: ReadonlyMap<string, MetricsSummary>;
  readonly sensitivity?: readonly SensitivityRow[];
  readonly bootstrap: { readonly resamples: number; readonly seed: number };
}

/** JSON with ±∞ as the strings "Infinity"/"-Infinity", NaN as null, and per-step arrays omitted. */
export function scoreJson(r: ScoreResult): string {
  return JSON.stringify(
    {
      format: 'armguard-score/1',
      bootstrap: r.bootstrap,
      summary: r.summary,
      ...(r.byTask ? { byTask: Object.fromEntries(r.byTask) } : {}),
      ...(r.sensitivity ? { sensitivity: r.sensitivity } : {}),
      episodes: r.episodes,
    },
    (key, value: unknown) => {
      if (key === 'stepFlags' || key === 'rhoTrace') return undefined;
      if (typeof value === 'number' && !Number.isFinite(value))
        return Number.isNaN(value) ? null : value > 0 ? 'Infinity' : '-Infinity';
      return value;
    },
    2,
  );
}

const pct = (p: Proportion) =>
  p.n === 0
    ? 'n/a'
    : `${(100 * p.p).toFixed(1)}% [${(100 * p.lo).toFixed(1)}, ${(100 * p.hi).toFixed(1)}] (${p.k}/${p.n})`;
const num = (x: number, digits = 3) =>
  Number.isNaN(x) ? '—' : x === Infinity ? '+∞' : x === -Infinity ? '−∞' : String(Number(x.toPrecision(digits + 2)));
const pad = (s: string, w: number) => (s.length >= w ? s : s + ' '.repeat(w - s.length));

function clauseLine(c: ClauseScore, unit: string): string {
  const name = pad(c.clauseId, 30);
  if (!c.applicable) return `  ${name} ${c.explanation}`;
  const status = c.violated
    ? c.evidence === 'manual'
      ? 'VIOLATED (manual)'
      : c.violatedByManual
        ? 'VIOLATED (+manual)'
        : 'VIOLATED'
    : 'ok';
  if (c.evidence === 'manual') return `  ${name} ${pad(status, 18)} manual label '${c.manual ?? ''}'`;
  const first = c.firstViolationTime === null ? '—' : `${c.firstViolationTime.toFixed(3)} s`;
  const run = c.longestRunSteps === 0 ? '—' : `${c.longestRunSteps} (${c.longestRunSeconds.toFixed(3)} s)`;
  const depth = c.tier === 'safe' ? num(c.depth, 2) : 'report';
  return `  ${name} ${pad(status, 18)} ${pad(`${num(c.rho)} ${unit}`, 14)} ${pad(first, 11)} ${pad(run, 16)} ${pad(`${(100 * c.exposure).toFixed(1)}%`, 8)} ${depth}`;
}

export function episodeText(e: EpisodeScore, units: ReadonlyMap<string, string>): string {
  const head =
    `episode ${e.episodeId}${e.file ? ` (${e.file})` : ''}: ${e.success ? 'success' : 'failure'}, ${e.safe ? 'safe' : 'UNSAFE'}, ` +
    `VSI ${num(e.vsi, 2)}, ${e.steps} steps over ${e.duration.toFixed(2)} s` +
    `${e.platform ? `, platform ${e.platform}` : ''}${e.task ? `, task ${e.task}` : ''}`;
  const cols = `  ${pad('clause', 30)} ${pad('status', 18)} ${pad('ρ', 14)} ${pad('first viol.', 11)} ${pad('longest run', 16)} ${pad('exposure', 8)} d`;
  const lines = [head, cols, ...e.clauses.map((c) => clauseLine(c, units.get(c.clauseId) ?? ''))];
  if (e.reducedSet.length > 0)
    lines.push(
      `  reduced applicable set: ${e.reducedSet.join(', ')} not scored (signal not declared, or missing from the recording: throughout, or in part with no violation where present)`,
    );
  for (const w of e.warnings) lines.push(`  warning: ${w}`);
  return lines.join('\n');
}

export function summaryText(m: MetricsSummary, title = 'all episodes'): string {
  const b = (i: { estimate: number; lo: number; hi: number }) => `${num(i.estimate)} [${num(i.lo)}, ${num(i.hi)}]`;
  const lines = [
    `${title}: ${m.episodes} episodes`,
    `  SR      ${pct(m.sr)}`,
    `  Safety  ${pct(m.safety)}`,
    `  SBU     ${pct(m.sbu)}`,
    `  P[U|S]  ${pct(m.pUnsafeGivenSuccess)}`,
    `  VSI     ${b(m.vsi)}   VSI|U ${b(m.vsiGivenUnsafe)} over ${m.vsiGivenUnsafe.unsafe} unsafe`,
    `  quadrants: safe success ${pct(m.quadrants.safeSuccess)}, unsafe success ${pct(m.quadrants.unsafeSuccess)}, ` +
      `safe failure ${pct(m.quadrants.safeFailure)}, unsafe failure ${pct(m.quadrants.unsafeFailure)}`,
    `  CC/T ${num(m.ccPerStepMean)} [${num(m.ccPerStep.lo)}, ${num(m.ccPerStep.hi)}]   RET/T ${(100 * m.retFractionMean).toFixed(1)}%` +
      (m.unsafeByManualOnly > 0 ? `   unsafe by manual label only: ${m.unsafeByManualOnly}` : ''),
    `  ${pad('clause', 30)} ${pad('violated / applicable', 34)} ${pad('manual', 6)} ${pad('man. n/a', 8)} ${pad('n/a', 4)} ${pad('exposure med/p90', 17)} ${pad('longest run', 12)} SBU share`,
  ];
  for (const c of m.clauses) {
    if (c.rate.n === 0 && c.unavailable === 0 && c.manualNotApplicable === 0) continue;
    const exp = Number.isNaN(c.exposureMedian)
      ? '—'
      : `${(100 * c.exposureMedian).toFixed(1)}/${(100 * c.exposureP90).toFixed(1)}%`;
    const run = Number.isNaN(c.longestRunMedianSteps) ? '—' : `${num(c.longestRunMedianSteps)} steps`;
    const share =
      c.tier === 'report' ? 'report-only' : Number.isNaN(c.sbuShare) ? '—' : `${(100 * c.sbuShare).toFixed(1)}%`;
    lines.push(
      `  ${pad(c.clauseId, 30)} ${pad(pct(c.rate), 34)} ${pad(String(c.manualViolations), 6)} ${pad(String(c.manualNotApplicable), 8)} ${pad(String(c.unavailable), 4)} ${pad(exp, 17)} ${pad(run, 12)} ${share}`,
    );
  }
  return lines.join('\n');
}

export function sensitivityText(rows: readonly SensitivityRow[]): string {
  const f = (x: number) => (Number.isNaN(x) ? '—' : (100 * x).toFixed(1));
  const lines = [
    'threshold sensitivity (seeds/000 Tables 11, 13): same episodes, registry and success labels',
    `  ${pad('variant', 26)} ${pad('Safety%', 8)} ${pad('SBU%', 6)} ${pad('P[U|S]%', 8)} ${pad('VSI', 8)} changed verdicts`,
  ];
  for (const r of rows) {
    lines.push(
      `  ${pad(r.variant, 26)} ${pad(f(r.safety), 8)} ${pad(f(r.sbu), 6)} ${pad(f(r.pUnsafeGivenSuccess), 8)} ${pad(num(r.vsi), 8)} ${r.changedEpisodes}`,
    );
    for (const n of r.notes) lines.push(`    note: ${n}`);
  }
  return lines.join('\n');
}
