/** report.md: the report's tables in GitHub Markdown (plots are in report.html). */
import type { MetricsSummary } from '../metrics/index.js';
import type { ReportData, RunGroup, TaskRow } from '../build-types.js';

type RunSections = Pick<RunGroup, 'metrics' | 'tasks' | 'taskAll' | 'runs' | 'sensitivity' | 'gate'>;
import { semanticMarkdown } from './semantic.js';
import { preventionMarkdown } from '../prevention-table.js';

import { gateModeLabel as modeLabel } from './html.js';
import {
  CLAUSE_TABLE_COLUMNS,
  DASH,
  cellText,
  fraction,
  kn,
  mdCell as c,
  meanInterval,
  num,
  pct,
  propInterval,
  seconds,
} from './format.js';

function table(head: readonly string[], rows: readonly string[][]): string {
  return [
    `| ${head.map(c).join(' | ')} |`,
    `| ${head.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${r.map(c).join(' | ')} |`),
  ].join('\n');
}

function metricRows(m: MetricsSummary): string[][] {
  return [
    ['SR', pct(m.sr.p), propInterval(m.sr), kn(m.sr)],
    ['Safety', pct(m.safety.p), propInterval(m.safety), kn(m.safety)],
    ['SBU', pct(m.sbu.p), propInterval(m.sbu), kn(m.sbu)],
    ['P[U|S]', pct(m.pUnsafeGivenSuccess.p), propInterval(m.pUnsafeGivenSuccess), kn(m.pUnsafeGivenSuccess)],
    ['VSI', num(m.vsi.estimate), meanInterval(m.vsi), `${m.episodes} ep.`],
    ['VSI|U', num(m.vsiGivenUnsafe.estimate), meanInterval(m.vsiGivenUnsafe), `${m.vsiGivenUnsafe.unsafe} ep.`],
  ];
}

export function renderMarkdown(r: ReportData): string {
  const m = r.summary;
  const out: string[] = [];
  out.push(
    `# ${r.title}`,
    '',
    `${r.source} · ${r.episodes} episodes · ${r.robots.length} robot(s) · generated ${r.generatedAt}`,
    '',
  );
  if (r.skipped.length > 0)
    out.push(
      `> **${r.skipped.length} file(s) not counted:** ${r.skipped
        .slice(0, 10)
        .map((s) => `${s.file} (${s.reason})`)
        .join('; ')}${r.skipped.length > 10 ? `; … and ${r.skipped.length - 10} more (see summary.json)` : ''}`,
      '',
    );
  const damaged = r.damaged ?? [];
  if (damaged.length > 0) {
    out.push(
      `> **${damaged.length} counted episode(s) from damaged files (figures cover only what was read):** ${damaged
        .slice(0, 10)
        .map((d) => `${d.file} (${d.end}; ${d.skippedRecords} undecodable record(s) skipped)`)
        .join('; ')}${damaged.length > 10 ? `; … and ${damaged.length - 10} more (see summary.json)` : ''}`,
      '',
    );
  }
  if (r.unlabelled.length > 0)
    out.push(`> **${r.unlabelled.length} unlabelled episode(s) not counted** (see "Unlabelled episodes").`, '');
  out.push(
    '## Per run (gate mode × policy)',
    '',
    table(
      ['Gate', 'Policy', 'n', 'SR', 'Safety', 'SBU', 'P[U|S]', 'VSI'],
      r.runGroups.map((g) => [
        modeLabel(g.gateMode),
        g.policy,
        String(g.metrics.episodes),
        `${pct(g.metrics.sr.p)} ${propInterval(g.metrics.sr)}`,
        `${pct(g.metrics.safety.p)} ${propInterval(g.metrics.safety)}`,
        `${pct(g.metrics.sbu.p)} (${kn(g.metrics.sbu)})`,
        `${pct(g.metrics.pUnsafeGivenSuccess.p)} (${kn(g.metrics.pUnsafeGivenSuccess)})`,
        num(g.metrics.vsi.estimate),
      ]),
    ),
    '',
    'Gate-off runs are the baseline (chunks unfiltered, clauses only monitored); gate modes are never pooled into one headline.',
    '',
  );
  const heads =
    r.runGroups.length > 0
      ? r.runGroups.map((g) => ({ title: `${modeLabel(g.gateMode)} · policy ${g.policy}`, m: g.metrics }))
      : [{ title: 'all episodes', m }];
  for (const hd of heads) {
    out.push(
      `## Headline: ${hd.title}`,
      '',
      table(['Metric', 'Estimate', '95% interval', 'k/n'], metricRows(hd.m)),
      '',
      `Wilson 95% for proportions; VSI bootstrap ${r.bootstrap.resamples} resamples, seed ${r.bootstrap.seed}.${hd.m.unsafeByManualOnly > 0 ? ` ${hd.m.unsafeByManualOnly} unsafe episode(s) by manual (video-judged) label only.` : ''}`,
      '',
    );
  }
  out.push(
    `## Unlabelled episodes (${r.unlabelled.length})`,
    '',
    r.unlabelled.length === 0
      ? 'Every episode has a success/failure label.'
      : table(
          ['Episode', 'File', 'Robot', 'Task', 'Policy', 'Gate', 'Frames', 'Duration'],
          r.unlabelled.map((u) => [
            u.episodeId,
            u.file,
            u.robotId,
            u.task ?? DASH,
            u.policy ?? DASH,
            u.gateMode ? modeLabel(u.gateMode) : DASH,
            String(u.frames),
            seconds(u.duration),
          ]),
        ),
    '',
  );
  if (r.unlabelled.length > 0)
    out.push(
      'Not in any rate: label each with `armguard label <file> --success` or `--failure` and re-run the report.',
      '',
    );
  // Every summary section is drawn per run group when there are several: gate modes are never pooled.
  const sections = (title: string, body: (g: RunSections) => string[]): void => {
    out.push(`## ${title}`, '');
    if (r.runGroups.length <= 1) {
      out.push(
        ...body({
          metrics: m,
          tasks: r.tasks,
          taskAll: r.taskAll,
          runs: r.runs,
          sensitivity: r.sensitivity,
          gate: r.gate,
        }),
      );
      return;
    }
    for (const g of r.runGroups) out.push(`### ${modeLabel(g.gateMode)} · policy ${g.policy}`, '', ...body(g));
  };
  sections('Outcomes', (g) => {
    const q = g.metrics.quadrants;
    return [
      table(
        ['', 'success', 'failure'],
        [
          ['safe', `${pct(q.safeSuccess.p)} (${kn(q.safeSuccess)})`, `${pct(q.safeFailure.p)} (${kn(q.safeFailure)})`],
          [
            'unsafe',
            `${pct(q.unsafeSuccess.p)} (${kn(q.unsafeSuccess)})`,
            `${pct(q.unsafeFailure.p)} (${kn(q.unsafeFailure)})`,
          ],
        ],
      ),
      '',
    ];
  });
  const taskRow = (t: TaskRow) => [
    t.task,
    fraction(t.successes, t.episodes),
    ...r.taskClauses.map((id) => cellText(t.clauses[id])),
    fraction(t.unsafeSuccesses, t.successes),
  ];
  sections('Per task', (g) => [
    table(['Task', 'Success', ...r.taskClauses, 'P[U|S]'], [...g.tasks.map(taskRow), taskRow(g.taskAll)]),
    '',
    `Clause columns: violated / applicable episodes. † includes manual (video-judged) labels: a manual violation, or episodes a manual not_applicable label took out of the denominator. SBU = ${fraction(g.taskAll.unsafeSuccesses, g.taskAll.episodes)}.`,
    '',
  ]);
  sections('Per clause', (g) => {
    const runs = new Map(g.runs.map((x) => [x.clauseId, x]));
    return [
      table(
        [...CLAUSE_TABLE_COLUMNS, 'Exposure median', 'Longest run (max)', 'SBU share'],
        g.metrics.clauses
          .filter((x) => x.rate.n > 0 || x.unavailable > 0 || x.manualNotApplicable > 0)
          .map((x) => {
            const run = runs.get(x.clauseId);
            return [
              x.clauseId,
              x.tier,
              pct(x.rate.p),
              kn(x.rate),
              propInterval(x.rate),
              String(x.manualViolations),
              String(x.manualNotApplicable),
              String(x.unavailable),
              pct(x.exposureMedian, 2),
              run && run.longestRunSteps > 0
                ? `${run.longestRunSteps} steps (${seconds(run.longestRunSeconds)})`
                : DASH,
              x.sbuCount > 0 ? `${pct(x.sbuShare)} (${x.sbuCount})` : DASH,
            ];
          }),
      ),
      '',
    ];
  });
  sections('Cumulative cost and risk exposure', (g) => [
    table(
      ['Measure', 'Value'],
      [
        ['CC per episode (mean)', num(g.metrics.ccMean, 2)],
        ['CC / T', `${num(g.metrics.ccPerStepMean, 4)} ${meanInterval(g.metrics.ccPerStep, 4)}`],
        ['RET per episode (mean steps)', num(g.metrics.retMean, 1)],
        ['RET / T', pct(g.metrics.retFractionMean, 2)],
      ],
    ),
    '',
  ]);
  if (r.sensitivity.length > 0) {
    sections('Threshold sensitivity', (g) => [
      table(
        ['Variant', 'Safety', 'SBU', 'P[U|S]', 'VSI', 'Changed', 'Not defined for'],
        g.sensitivity.map((x) => [
          x.description,
          pct(x.safety),
          pct(x.sbu),
          pct(x.pUnsafeGivenSuccess),
          num(x.vsi),
          String(x.changedEpisodes),
          (x.notDefinedFor ?? []).length > 0 ? `${(x.notDefinedFor ?? []).join(', ')} (main tier kept)` : DASH,
        ]),
      ),
      '',
    ]);
  }
  sections('Gate statistics', ({ gate: g }) => [
    g.episodesWithRecords === 0
      ? 'No gate records in these episodes.'
      : table(
          ['Measure', 'Value'],
          [
            ['Episodes with gate records', String(g.episodesWithRecords)],
            ['Holds', `${g.holds} (${g.episodesWithHold} episodes)`],
            ['Time held', `${seconds(g.timeHeld)} (${pct(g.timeHeldFraction, 2)})`],
            ['Filtered chunks', String(g.filteredChunks)],
            ['Held chunks', String(g.heldChunks)],
            ['Executed chunks', String(g.executedChunks)],
            [
              'Mean modification (filtered)',
              Number.isFinite(g.meanModification) ? `${num(g.meanModification, 4)} rad` : DASH,
            ],
          ],
        ),
    '',
  ]);
  out.push(...preventionMarkdown(r.prevention));
  out.push(...semanticMarkdown(r));
  if (r.groupBy) {
    out.push(
      `## By ${r.groupBy.by}`,
      '',
      table(
        [r.groupBy.by, 'n', 'SR', 'Safety', 'SBU', 'P[U|S]', 'VSI'],
        r.groupBy.groups.map((x) => [
          x.key,
          String(x.metrics.episodes),
          pct(x.metrics.sr.p),
          pct(x.metrics.safety.p),
          `${pct(x.metrics.sbu.p)} (${kn(x.metrics.sbu)})`,
          `${pct(x.metrics.pUnsafeGivenSuccess.p)} (${kn(x.metrics.pUnsafeGivenSuccess)})`,
          num(x.metrics.vsi.estimate),
        ]),
      ),
      '',
    );
  }
  if (r.compare) {
    const { a, b } = r.compare;
    const rows = metricRows(a.metrics).map((ra, i) => {
      const rb = metricRows(b.metrics)[i]!;
      return [ra[0]!, `${ra[1]} ${ra[2]} (${ra[3]})`, `${rb[1]} ${rb[2]} (${rb[3]})`];
    });
    out.push(`## Comparison: ${a.key} vs ${b.key}`, '', table(['Metric', a.key, b.key], rows), '');
  }
  out.push(
    '## Worst unsafe episodes',
    '',
    r.worst.length === 0
      ? 'None unsafe by trace evidence.'
      : table(
          ['#', 'Episode', 'Outcome', 'Task', 'Policy', 'Gate', 'Robot', 'VSI', 'Clause', 'First violation'],
          r.worst.map((w, i) => [
            String(i + 1),
            w.episodeId,
            w.success ? 'unsafe success' : 'unsafe failure',
            w.task ?? DASH,
            w.policy ?? DASH,
            w.gateMode ? modeLabel(w.gateMode) : DASH,
            w.robotId,
            num(w.vsi),
            w.clauseId,
            `step ${w.violationStep} (t = ${num(w.violationTime - w.t0, 2)} s)`,
          ]),
        ),
    '',
    'Robustness-trace plots: report.html.',
    '',
  );
  out.push(
    '## Robots',
    '',
    table(
      ['Robot', 'Episodes'],
      r.robots.map((x) => [x.robotId, String(x.episodes)]),
    ),
    '',
  );
  if (r.monitoredThresholds.length > 0) {
    out.push(
      '## Thresholds monitored (episode metadata)',
      '',
      table(
        ['Clause', 'τ', 'From', 'Episodes'],
        r.monitoredThresholds.map((x) => [x.clauseId, String(x.tau), x.from, String(x.episodes)]),
      ),
      '',
      'Per-arm thresholds the live monitor used, recorded in each episode; those episodes are scored with them.',
      '',
    );
  }
  return out.join('\n');
}
