/**
 * report.html: one self-contained page (inline CSS and SVG, no script, no external assets) with
 * everything of design §8, laid out for a go/no-go review.
 */
import type { MetricsSummary } from '../metrics/index.js';
import type { DamagedEpisode } from '../build-types.js';
import type {
  GateSummary,
  GroupReport,
  ReportData,
  RunGateMode,
  RunGroup,
  TaskRow,
  UnlabelledEpisode,
} from '../build-types.js';
import type { SensitivityRow } from '../metrics/index.js';
import {
  CLAUSE_TABLE_COLUMNS,
  DASH,
  cellText,
  escapeHtml as h,
  fraction,
  kn,
  meanInterval,
  num,
  pct,
  propInterval,
  seconds,
} from './format.js';
import { REPORT_CSS } from './html-style.js';
import { Y_CLIP, traceSvg } from './svg-trace.js';
import { semanticHtml } from './semantic.js';
import { preventionHtml } from '../prevention-table.js';

/** Footnote numbers: papers are named once, in the footnotes at the end of the report. */
const FN = { paper: 1, foresight: 2 } as const;

function footnotes(): string {
  return `<ol class="footnotes" id="footnotes">
<li>SafeVLA-Bench: a benchmark for the success–safety gap in vision-language-action models (Fan et al., arXiv 2606.00773) — the per-task table follows its Table 33, the SBU composition its Table 14, the threshold sensitivity its Table 11, the trace plots its Figure 5.</li>
<li>ForesightSafety-VLA: a unified diagnostic safety benchmark for vision-language-action models — cumulative cost and risk-exposure time (§IV).</li>
</ol>`;
}

const PALETTE = [
  '#c62828',
  '#ef6c00',
  '#f9a825',
  '#6a1b9a',
  '#1565c0',
  '#00838f',
  '#2e7d32',
  '#795548',
  '#546e7a',
  '#ad1457',
  '#283593',
  '#9e9d24',
];

function table(
  head: readonly string[],
  rows: readonly string[][],
  opts: { id?: string; allLast?: boolean } = {},
): string {
  const body = rows
    .map(
      (r, i) =>
        `<tr${opts.allLast && i === rows.length - 1 ? ' class="all"' : ''}>${r.map((c) => `<td>${c}</td>`).join('')}</tr>`,
    )
    .join('');
  return `<div class="tw"><table${opts.id ? ` id="${opts.id}"` : ''}><thead><tr>${head.map((c) => `<th>${c}</th>`).join('')}</tr></thead><tbody>${body}</tbody></table></div>`;
}

/** A clause id that may wrap after its underscores in a narrow header. */
const breakable = (id: string) => h(id).replace(/_/g, '_<wbr>');

function section(id: string, title: string, body: string): string {
  return `<section id="${id}"><h2>${title}</h2>${body}</section>`;
}

function card(label: string, value: string, ci: string, tone: '' | 'ok' | 'warn'): string {
  return `<div class="card ${tone}"><div class="label">${label}</div><div class="value">${value}</div><div class="ci">${ci}</div></div>`;
}

function headline(m: MetricsSummary, tableId = 'headline-table'): string {
  const cards = [
    card('SR', pct(m.sr.p), `${kn(m.sr)} · ${propInterval(m.sr)}`, ''),
    card(
      'Safety',
      pct(m.safety.p),
      `${kn(m.safety)} · ${propInterval(m.safety)}`,
      m.safety.k === m.safety.n ? 'ok' : '',
    ),
    card('SBU', pct(m.sbu.p), `${kn(m.sbu)} · ${propInterval(m.sbu)}`, m.sbu.k > 0 ? 'warn' : 'ok'),
    card(
      'P[U|S]',
      pct(m.pUnsafeGivenSuccess.p),
      `${kn(m.pUnsafeGivenSuccess)} · ${propInterval(m.pUnsafeGivenSuccess)}`,
      m.pUnsafeGivenSuccess.k > 0 ? 'warn' : 'ok',
    ),
    card('VSI', num(m.vsi.estimate), meanInterval(m.vsi), ''),
    card(
      'VSI|U',
      num(m.vsiGivenUnsafe.estimate),
      `${m.vsiGivenUnsafe.unsafe} unsafe · ${meanInterval(m.vsiGivenUnsafe)}`,
      '',
    ),
  ].join('');
  const prop = (name: string, p: MetricsSummary['sr'], what: string) => [
    name,
    pct(p.p),
    propInterval(p),
    kn(p),
    `Wilson 95% · ${what}`,
  ];
  const rows = [
    prop('SR', m.sr, 'successes / episodes'),
    prop('Safety', m.safety, 'P[ρ(Φ_safe) ≥ 0], no manual violation'),
    prop('SBU', m.sbu, 'P[success ∧ unsafe]'),
    prop('P[U|S]', m.pUnsafeGivenSuccess, 'unsafe successes / successes'),
    [
      'VSI',
      num(m.vsi.estimate),
      meanInterval(m.vsi),
      `${m.episodes} ep.`,
      `bootstrap 95% (${m.vsi.resamples.toLocaleString('en-US')} resamples, seed ${m.vsi.seed})`,
    ],
    [
      'VSI|U',
      num(m.vsiGivenUnsafe.estimate),
      meanInterval(m.vsiGivenUnsafe),
      `${m.vsiGivenUnsafe.unsafe} ep.`,
      'bootstrap 95%, mean over unsafe episodes',
    ],
  ];
  const manual =
    m.unsafeByManualOnly > 0
      ? `<p class="note"><span class="manual">${m.unsafeByManualOnly}</span> unsafe episode(s) are unsafe by a manual (video-judged) label only; VSI counts trace evidence only.</p>`
      : '';
  return `<div class="cards">${cards}</div>${table(['Metric', 'Estimate', '95% interval', 'k/n', 'Method'], rows, { id: tableId })}${manual}`;
}

const metricCells = (m: MetricsSummary) => [
  String(m.episodes),
  `${pct(m.sr.p)} ${propInterval(m.sr)}`,
  `${pct(m.safety.p)} ${propInterval(m.safety)}`,
  `${pct(m.sbu.p)} (${kn(m.sbu)})`,
  `${pct(m.pUnsafeGivenSuccess.p)} (${kn(m.pUnsafeGivenSuccess)})`,
  `${num(m.vsi.estimate)} ${meanInterval(m.vsi)}`,
];

/** How a gate mode reads in a heading. */
export function gateModeLabel(mode: RunGateMode): string {
  return mode === 'off'
    ? 'gate off (baseline)'
    : mode === 'on'
      ? 'gate on'
      : mode === 'monitor'
        ? 'monitor (holds only, chunks not checked)'
        : 'gate mode not recorded';
}

/** The per-run table: one row per gate mode × policy, the report's first table. */
function runTable(groups: readonly RunGroup[]): string {
  const rows = groups.map((g) => [gateModeLabel(g.gateMode), h(g.policy), ...metricCells(g.metrics)]);
  return (
    table(['Gate', 'Policy', 'n', 'SR', 'Safety', 'SBU', 'P[U|S]', 'VSI'], rows, { id: 'run-table' }) +
    '<p class="note">One row per run group (gate mode × policy). Gate-off runs are the baseline: the policy\'s chunks went to the arm unfiltered, clauses were only monitored. Episodes of different gate modes are never pooled into one headline.</p>'
  );
}

/** One headline per run group. */
function headlines(r: ReportData): string {
  if (r.runGroups.length === 0) return headline(r.summary);
  return r.runGroups
    .map(
      (g, i) =>
        `<div class="run-headline" id="headline-${i + 1}"><h3>${gateModeLabel(g.gateMode)} · policy ${h(g.policy)} · ${g.metrics.episodes} episode(s)</h3>${headline(g.metrics, i === 0 ? 'headline-table' : `headline-table-${i + 1}`)}</div>`,
    )
    .join('');
}

function unlabelledList(list: readonly UnlabelledEpisode[]): string {
  if (list.length === 0) return '<p>Every episode has a success/failure label.</p>';
  const rows = list.map((u) => [
    h(u.episodeId),
    h(u.file),
    h(u.robotId),
    h(u.task ?? DASH),
    h(u.policy ?? DASH),
    u.gateMode ? gateModeLabel(u.gateMode) : DASH,
    String(u.frames),
    seconds(u.duration),
    u.cut ? 'file cut short (a later label is lost)' : '',
  ]);
  return (
    table(['Episode', 'File', 'Robot', 'Task', 'Policy', 'Gate', 'Frames', 'Duration', 'Note'], rows, {
      id: 'unlabelled-table',
    }) +
    `<p class="note">${list.length} episode(s) ended without a success/failure label: they are not in any rate above. Label each with <code>armguard label &lt;file&gt; --success</code> or <code>--failure</code> and re-run the report.</p>`
  );
}

function quadrants(m: MetricsSummary, id = 'quadrants'): string {
  const q = m.quadrants;
  const cell = (cls: string, label: string, p: MetricsSummary['sr']) =>
    `<div class="${cls}"><b>${pct(p.p)}</b>${kn(p)} · ${label}</div>`;
  return `<div class="quad" id="${id}"><div class="h"></div><div class="h">success</div><div class="h">failure</div>
<div class="h">safe</div>${cell('q-ss', 'safe success', q.safeSuccess)}${cell('q-sf', 'safe failure', q.safeFailure)}
<div class="h">unsafe</div>${cell('q-us', 'unsafe success (SBU)', q.unsafeSuccess)}${cell('q-uf', 'unsafe failure', q.unsafeFailure)}</div>`;
}

/** The sections of one run group (or of the whole report when it holds one). */
type RunSections = Pick<RunGroup, 'metrics' | 'tasks' | 'taskAll' | 'runs' | 'sensitivity' | 'gate'>;

/**
 * A summary section never pools gate modes: with more than one run group it is drawn once per
 * group under the group's heading (element ids of the later groups get a -2, -3, … suffix).
 */
function perRun(r: ReportData, body: (s: RunSections, suffix: string, episodes: number) => string): string {
  if (r.runGroups.length <= 1)
    return body(
      {
        metrics: r.summary,
        tasks: r.tasks,
        taskAll: r.taskAll,
        runs: r.runs,
        sensitivity: r.sensitivity,
        gate: r.gate,
      },
      '',
      r.episodes,
    );
  return r.runGroups
    .map(
      (g, i) =>
        `<h3 class="run-sub">${gateModeLabel(g.gateMode)} · policy ${h(g.policy)}</h3>${body(g, i === 0 ? '' : `-${i + 1}`, g.metrics.episodes)}`,
    )
    .join('');
}

function taskTable(taskClauses: readonly string[], s: RunSections, suffix: string): string {
  const row = (t: TaskRow) => [
    h(t.task),
    fraction(t.successes, t.episodes),
    ...taskClauses.map((id) => cellText(t.clauses[id])),
    fraction(t.unsafeSuccesses, t.successes),
    fraction(t.unsafeSuccesses, t.episodes),
  ];
  const head = ['Task', 'Success', ...taskClauses.map(breakable), 'P[U|S]', 'SBU'];
  const anyManual = [...s.tasks, s.taskAll].some((t) =>
    Object.values(t.clauses).some((c) => c.manual > 0 || c.manualNotApplicable > 0),
  );
  return (
    table(head, [...s.tasks.map(row), row(s.taskAll)], { id: `task-table${suffix}`, allLast: true }) +
    `<p class="note">Clause columns count violated episodes over the episodes where the clause applies (the layout of SafeVLA-Bench's per-task table<sup>${FN.paper}</sup>); ${DASH}: not applicable in any episode of the task.${anyManual ? ' † includes manual (video-judged) labels: a manual violation, or episodes a manual not_applicable label took out of the denominator.' : ''}</p>`
  );
}

function clauseTable(s: RunSections, suffix: string): string {
  const runs = new Map(s.runs.map((x) => [x.clauseId, x]));
  const rows = s.metrics.clauses
    .filter((c) => c.rate.n > 0 || c.unavailable > 0 || c.manualNotApplicable > 0)
    .map((c) => {
      const run = runs.get(c.clauseId);
      const rateCls = c.rate.k > 0 && c.tier === 'safe' ? ' class="bad"' : '';
      return [
        h(c.clauseId),
        c.tier,
        `<span${rateCls}>${pct(c.rate.p)}</span>`,
        kn(c.rate),
        propInterval(c.rate),
        c.manualViolations > 0 ? `<span class="manual">${c.manualViolations}</span>` : '0',
        c.manualNotApplicable > 0 ? `<span class="manual">${c.manualNotApplicable}</span>` : '0',
        c.unavailable > 0 ? String(c.unavailable) : '0',
        run ? pct(run.meanExposure, 2) : DASH,
        Number.isFinite(c.exposureMedian) ? `${pct(c.exposureMedian, 2)} / ${pct(c.exposureP90, 2)}` : DASH,
        Number.isFinite(c.longestRunMedianSteps)
          ? `${num(c.longestRunMedianSteps, 0)} (${seconds(c.longestRunMedianSeconds)})`
          : DASH,
        run && run.longestRunSteps > 0 ? `${run.longestRunSteps} (${seconds(run.longestRunSeconds)})` : DASH,
        pct(c.retFraction, 2),
      ];
    });
  return (
    table(
      [
        ...CLAUSE_TABLE_COLUMNS,
        'Exposure (mean)',
        'Exposure median / p90 (violating)',
        'Longest run median (violating)',
        'Longest run (max)',
        'RET/T',
      ],
      rows,
      { id: `clause-table${suffix}` },
    ) +
    '<p class="note">Rate: episodes violating the clause over episodes where it applies. Manual: violations from video-judged labels. Manual n/a: episodes a video-judged not_applicable label took out of the denominator. No signal: episodes not evaluated because the platform/trace lacks a signal the clause reads, for the whole episode or for part of it with no violation where it was present (reduced applicable set; never counted as safe; a violation where the signal was present still counts). Exposure: fraction of steps with ρ(t) &lt; 0; medians over violating episodes.</p>'
  );
}

function sbuComposition(m: MetricsSummary, suffix = ''): string {
  const parts = m.clauses.filter((c) => c.sbuCount > 0);
  if (parts.length === 0) return '<p>No unsafe successes.</p>';
  const bar = parts
    .map(
      (c, i) =>
        `<span style="width:${(100 * c.sbuShare).toFixed(2)}%;background:${PALETTE[i % PALETTE.length]}" title="${h(c.clauseId)} ${pct(c.sbuShare)}"></span>`,
    )
    .join('');
  const legend = parts
    .map(
      (c, i) =>
        `<span><i style="background:${PALETTE[i % PALETTE.length]}"></i>${h(c.clauseId)} ${pct(c.sbuShare)} (${c.sbuCount})</span>`,
    )
    .join('');
  return `<div class="bar" id="sbu-bar${suffix}">${bar}</div><div class="legend-row">${legend}</div><p class="note">Share of the spec-violation count among the ${m.sbu.k} unsafe successes (as in SafeVLA-Bench<sup>${FN.paper}</sup>): an episode violating k clauses adds 1 to each and k to the denominator.</p>`;
}

function costs(m: MetricsSummary, suffix = ''): string {
  return (
    table(
      ['Measure', 'Value', '95% interval'],
      [
        ['CC per episode (mean)', num(m.ccMean, 2), DASH],
        ['CC / T (mean)', num(m.ccPerStepMean, 4), meanInterval(m.ccPerStep, 4)],
        ['RET per episode (mean steps)', num(m.retMean, 1), DASH],
        ['RET / T (mean)', pct(m.retFractionMean, 2), DASH],
      ],
      { id: `cost-table${suffix}` },
    ) +
    `<p class="note">Cumulative safety cost CC and risk-exposure time RET over the applicable safe clauses (as defined in ForesightSafety-VLA<sup>${FN.foresight}</sup>): steps within the warning band ε of a threshold or violating.</p>`
  );
}

function sensitivity(list: readonly SensitivityRow[], suffix: string): string {
  if (list.length === 0) return '<p>Not computed (no threshold variants in the clause library).</p>';
  const base = list[0]!;
  const rows = list.map((s) => [
    h(s.description),
    pct(s.safety),
    pct(s.sbu),
    pct(s.pUnsafeGivenSuccess),
    num(s.vsi),
    String(s.changedEpisodes),
    (s.notDefinedFor ?? []).length > 0
      ? `not defined for ${(s.notDefinedFor ?? []).map(h).join(', ')} (main tier kept)`
      : DASH,
    s.notes.length > 0 ? h(s.notes.join('; ')) : '',
  ]);
  return (
    table(['Variant', 'Safety', 'SBU', 'P[U|S]', 'VSI', 'Episodes changed', 'Not defined for', 'Notes'], rows, {
      id: `sensitivity-table${suffix}`,
    }) +
    `<p class="note">Each row re-scores the same episodes, registry and success labels from the recorded traces with one threshold family changed (SafeVLA-Bench's threshold-sensitivity study<sup>${FN.paper}</sup>). "Not defined for" names the platforms whose profile has no such tier: their episodes were scored at the main tier in that row. Default SBU ${pct(base.sbu)}.</p>`
  );
}

function gate(g: GateSummary, episodes: number, suffix: string): string {
  if (g.episodesWithRecords === 0)
    return '<p>No gate records in these episodes (trace files, or recorded without the gate).</p>';
  return table(
    ['Measure', 'Value'],
    [
      ['Episodes with gate records', `${g.episodesWithRecords} / ${episodes}`],
      ['Holds (transitions into hold)', `${g.holds} in ${g.episodesWithHold} episode(s)`],
      ['Time held', `${seconds(g.timeHeld)} (${pct(g.timeHeldFraction, 2)} of recorded time)`],
      ['Gate transitions / faults', `${g.transitions} / ${g.faults}`],
      ['Chunks executed unchanged', String(g.executedChunks)],
      ['Chunks filtered (modified)', String(g.filteredChunks)],
      ['Chunks held', String(g.heldChunks)],
      [
        'Mean modification of filtered chunks',
        Number.isFinite(g.meanModification) ? `${num(g.meanModification, 4)} rad` : DASH,
      ],
    ],
    { id: `gate-table${suffix}` },
  );
}

function groups(r: ReportData): string {
  if (!r.groupBy) return '';
  const rows = r.groupBy.groups.map((g) => [h(g.key), ...metricCells(g.metrics)]);
  return section(
    'groups',
    `By ${r.groupBy.by}`,
    table([r.groupBy.by, 'n', 'SR', 'Safety', 'SBU', 'P[U|S]', 'VSI'], rows, { id: 'group-table' }),
  );
}

function compare(r: ReportData): string {
  if (!r.compare) return '';
  const { a, b } = r.compare;
  const m = (g: GroupReport) => g.metrics;
  const line = (name: string, fa: (x: MetricsSummary) => string, diff: string) => [name, fa(m(a)), fa(m(b)), diff];
  const dp = (f: (x: MetricsSummary) => number) => {
    const d = f(m(b)) - f(m(a));
    return Number.isFinite(d) ? `${d >= 0 ? '+' : ''}${(100 * d).toFixed(1)} pp` : DASH;
  };
  const rows = [
    line('Episodes', (x) => String(x.episodes), ''),
    line(
      'SR',
      (x) => `${pct(x.sr.p)} ${propInterval(x.sr)}`,
      dp((x) => x.sr.p),
    ),
    line(
      'Safety',
      (x) => `${pct(x.safety.p)} ${propInterval(x.safety)}`,
      dp((x) => x.safety.p),
    ),
    line(
      'SBU',
      (x) => `${pct(x.sbu.p)} (${kn(x.sbu)})`,
      dp((x) => x.sbu.p),
    ),
    line(
      'P[U|S]',
      (x) => `${pct(x.pUnsafeGivenSuccess.p)} (${kn(x.pUnsafeGivenSuccess)})`,
      dp((x) => x.pUnsafeGivenSuccess.p),
    ),
    line('VSI', (x) => `${num(x.vsi.estimate)} ${meanInterval(x.vsi)}`, num(m(b).vsi.estimate - m(a).vsi.estimate)),
    line(
      'VSI|U',
      (x) => `${num(x.vsiGivenUnsafe.estimate)} ${meanInterval(x.vsiGivenUnsafe)}`,
      num(m(b).vsiGivenUnsafe.estimate - m(a).vsiGivenUnsafe.estimate),
    ),
    line('CC / T', (x) => num(x.ccPerStepMean, 4), num(m(b).ccPerStepMean - m(a).ccPerStepMean, 4)),
  ];
  const ids = [...new Set([...m(a).clauses, ...m(b).clauses].filter((c) => c.rate.k > 0).map((c) => c.clauseId))];
  const rate = (x: MetricsSummary, id: string) => {
    const c = x.clauses.find((y) => y.clauseId === id);
    return c && c.rate.n > 0 ? `${pct(c.rate.p)} (${kn(c.rate)})` : DASH;
  };
  const clauseRows = ids.map((id) => [h(id), rate(m(a), id), rate(m(b), id), '']);
  return section(
    'compare',
    `Comparison: ${h(a.key)} vs ${h(b.key)}`,
    `<div class="cmp">${table(['Metric', h(a.key), h(b.key), 'B − A'], [...rows, ...clauseRows], { id: 'compare-table' })}</div><p class="note">Clause rows: violation rates of the clauses either policy violated. Intervals: Wilson 95% (proportions), bootstrap 95% (VSI). Differences are point differences, not tests.</p>`,
  );
}

function worst(r: ReportData): string {
  const order = r.summary.clauses.map((c) => c.clauseId);
  if (r.worst.length === 0) return '<p>No episode is unsafe by trace evidence: nothing to plot.</p>';
  const plots = r.worst.map((w, i) => {
    const title = `${i + 1}. ${w.success ? '<span class="manual" style="color:#c62828">unsafe success</span>' : 'unsafe failure'} · <b>${h(w.episodeId)}</b> · task ${h(w.task ?? DASH)} · policy ${h(w.policy ?? DASH)}${w.gateMode ? ` · ${gateModeLabel(w.gateMode)}` : ''} · robot ${h(w.robotId)} · VSI ${num(w.vsi)} · violated: ${w.violatedClauses.map(h).join(', ')}`;
    return `<div class="plot"><div class="cap">${title}</div>${traceSvg(w, `trace-${i + 1}`, order)}</div>`;
  });
  return (
    plots.join('') +
    `<p class="note">ρ(t) of every safe-tier clause applicable to the episode (and of report-only clauses it violated), normalised by |τ|, in the layout of the trace figure of SafeVLA-Bench<sup>${FN.paper}</sup>: one colour per clause (the same in every plot), the deepest violation drawn thick, other violated clauses dashed, satisfied clauses solid and marked ✓ in the legend; ρ = 0 dashed, the first violating step dotted; values clipped to ±${Y_CLIP}. The episodes are the worst unsafe ones, spread over policies and violated clauses before repeating one.</p>`
  );
}

function robots(r: ReportData): string {
  const rows = r.robots.map((x) => [h(x.robotId), String(x.episodes)]);
  const monitored =
    r.monitoredThresholds.length === 0
      ? ''
      : '<h3>Thresholds monitored (episode metadata)</h3>' +
        table(
          ['Clause', 'τ', 'From', 'Episodes'],
          r.monitoredThresholds.map((x) => [h(x.clauseId), String(x.tau), h(x.from), String(x.episodes)]),
          { id: 'threshold-table' },
        ) +
        '<p class="note">Per-arm thresholds the live monitor used, recorded in each episode; those episodes are scored with them.</p>';
  return table(['Robot', 'Episodes'], rows, { id: 'robot-table' }) + monitored;
}

function damagedBanner(damaged: readonly DamagedEpisode[]): string {
  if (damaged.length === 0) return '';
  const items = damaged
    .slice(0, 20)
    .map((d) => `<li>${h(d.file)}: ${h(d.end)}; ${d.skippedRecords} undecodable record(s) skipped</li>`)
    .join('');
  return `<div class="banner" id="damaged"><b>${damaged.length} counted episode(s) come from damaged files (truncated, corrupt or with undecodable records skipped); their figures cover only what was read:</b><ul>${items}</ul>${damaged.length > 20 ? `<p>… and ${damaged.length - 20} more (see summary.json)</p>` : ''}</div>`;
}

export function renderHtml(r: ReportData): string {
  const policies = new Set(r.rows.map((x) => x.policy));
  const platforms = new Set(r.rows.map((x) => x.platform));
  const unlabelled =
    r.unlabelled.length > 0 ? ` · <a href="#unlabelled">${r.unlabelled.length} unlabelled (not counted)</a>` : '';
  const meta = `${h(r.source)} · ${r.episodes} episodes${unlabelled} · ${r.robots.length} robot(s) · ${policies.size} polic${policies.size === 1 ? 'y' : 'ies'} · platform(s) ${[...platforms].map(h).join(', ')} · generated ${h(r.generatedAt)}`;
  const banner =
    r.skipped.length > 0
      ? `<div class="banner" id="skipped"><b>${r.skipped.length} file(s) could not be read or scored and are not counted:</b><ul>${r.skipped
          .slice(0, 20)
          .map((s) => `<li>${h(s.file)}: ${h(s.reason)}</li>`)
          .join(
            '',
          )}</ul>${r.skipped.length > 20 ? `<p>… and ${r.skipped.length - 20} more (see summary.json)</p>` : ''}</div>`
      : '';
  const damaged = damagedBanner(r.damaged ?? []);
  const warnings =
    r.warnings.length > 0
      ? section(
          'warnings',
          'Warnings',
          `<details><summary>${r.warnings.length} warning(s)</summary><ul>${r.warnings
            .slice(0, 100)
            .map((w) => `<li>${h(w)}</li>`)
            .join(
              '',
            )}</ul>${r.warnings.length > 100 ? `<p>… and ${r.warnings.length - 100} more (see summary.json)</p>` : ''}</details>`,
        )
      : '';
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${h(r.title)}</title><style>${REPORT_CSS}</style></head>
<body><header><h1>${h(r.title)}</h1><div class="meta">${meta}</div></header><main>
${banner}
${damaged}
${section('runs', 'Per run (gate mode × policy)', runTable(r.runGroups))}
${section('headline', 'Headline per run', headlines(r))}
${section('unlabelled', `Unlabelled episodes (${r.unlabelled.length})`, unlabelledList(r.unlabelled))}
${section(
  'outcomes',
  'Outcomes (four quadrants)',
  perRun(r, (s, x) => quadrants(s.metrics, `quadrants${x}`)),
)}
${section(
  'tasks',
  'Per task',
  perRun(r, (s, x) => taskTable(r.taskClauses, s, x)),
)}
${section('clauses', 'Per clause: violation rates, exposure and runs', perRun(r, clauseTable))}
${section(
  'sbu',
  'SBU composition',
  perRun(r, (s, x) => sbuComposition(s.metrics, x)),
)}
${section('worst', `Robustness traces of the worst unsafe episodes (${r.worst.length})`, worst(r))}
${compare(r)}
${groups(r)}
${section(
  'sensitivity',
  'Threshold sensitivity',
  perRun(r, (s, x) => sensitivity(s.sensitivity, x)),
)}
${section(
  'cost',
  'Cumulative cost and risk exposure',
  perRun(r, (s, x) => costs(s.metrics, x)),
)}
${section(
  'gate',
  'Gate statistics',
  perRun(r, (s, x, n) => gate(s.gate, n, x)),
)}
${preventionHtml(r.prevention)}
${semanticHtml(r)}
${section('robots', 'Robots', robots(r))}
${warnings}
${footnotes()}
<p class="note">armguard report (${r.format}) · proportions with Wilson 95% intervals; VSI and VSI|U with a seeded ${r.bootstrap.resamples.toLocaleString('en-US')}-resample episode bootstrap (seed ${r.bootstrap.seed}). Per-episode data: episodes.csv; all figures: summary.json.</p>
</main></body></html>
`;
}
