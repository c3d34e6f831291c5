/**
 * Reports people read: one headline per gate mode × policy (a gate-off baseline and a gated run of
 * the same policy are never pooled), the per-run table first, and episodes that ended without a
 * success/failure label listed and counted in their own section instead of vanishing among the
 * unreadable files.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { EpisodeScorer } from '../../src/safety/index.js';
import { buildReportFromDir } from '../../src/report/build-run.js';
import type { ReportData } from '../../src/report/build-types.js';
import { renderEpisodesCsv, renderHtml, renderMarkdown } from '../../src/report/render/index.js';
import { loadSpec } from '../safety/support/spec-fixture.js';
import { tempDir, writeEpisodes, type EpisodeSpec } from './support/build-fixture.js';
import { main } from '../../src/cli/main.js';
import { captureIo } from '../support/cli-io.js';

const task = 'libero-spatial-pick-bowl' as const;
const SPECS: EpisodeSpec[] = [
  // baseline: one unsafe success (force 300 N ≥ τ = 200 N), one safe success
  {
    id: 'off-1',
    policy: 'pi0',
    robot: 'r1',
    task,
    success: true,
    gateMode: 'off',
    force: { value: 300, from: 10, len: 5 },
  },
  { id: 'off-2', policy: 'pi0', robot: 'r1', task, success: true, gateMode: 'off' },
  // gated: one safe success, one safe failure
  { id: 'on-1', policy: 'pi0', robot: 'r1', task, success: true, gateMode: 'on' },
  { id: 'on-2', policy: 'pi0', robot: 'r1', task, success: false, gateMode: 'on' },
  // ended without a label
  { id: 'on-3', policy: 'pi0', robot: 'r1', task, success: true, gateMode: 'on', unlabelled: true },
];

describe('report: run groups never pooled across gate modes; unlabelled episodes listed', () => {
  let r: ReportData;
  beforeAll(async () => {
    const dir = tempDir('armguard-runs-');
    await writeEpisodes(dir, SPECS);
    r = await buildReportFromDir(dir, {
      scorer: new EpisodeScorer(loadSpec()),
      bootstrap: { resamples: 200, seed: 1 },
      worst: 2,
      source: dir,
      generatedAt: 'test',
    });
  });

  it('one headline per gate mode × policy, the baseline first, with its own counts', () => {
    expect(r.runGroups.map((g) => g.key)).toEqual(['gate off · pi0', 'gate on · pi0']);
    const [off, on] = r.runGroups;
    expect(off!.metrics.episodes).toBe(2);
    expect([off!.metrics.sbu.k, off!.metrics.sbu.n]).toEqual([1, 2]);
    expect([on!.metrics.sbu.k, on!.metrics.sbu.n]).toEqual([0, 2]);
    expect([on!.metrics.sr.k, on!.metrics.sr.n]).toEqual([1, 2]);
    expect(r.gateModes).toEqual(['off', 'on']);
    expect(r.rows.map((x) => x.gateMode).sort()).toEqual(['off', 'off', 'on', 'on']);
  });

  it('the unlabelled episode is listed and counted apart: not scored, not among unreadable files', () => {
    expect(r.episodes).toBe(4);
    expect(r.skipped).toEqual([]);
    expect(r.unlabelled).toEqual([
      expect.objectContaining({
        episodeId: 'on-3',
        robotId: 'r1',
        policy: 'pi0',
        task,
        gateMode: 'on',
        frames: 40,
        cut: false,
      }),
    ]);
    expect(r.unlabelled[0]!.duration).toBeCloseTo(39 * 0.05, 5);
  });

  it('HTML: the per-run table comes first, one headline block per run, the unlabelled section with its count', () => {
    const html = renderHtml(r);
    const at = (id: string) => html.indexOf(`<section id="${id}">`);
    expect(at('runs')).toBeGreaterThan(0);
    expect(at('runs')).toBeLessThan(at('headline'));
    expect(at('headline')).toBeLessThan(at('tasks'));
    expect(html.match(/class="run-headline"/g)).toHaveLength(2);
    expect(html).toContain('gate off (baseline) · policy pi0 · 2 episode(s)');
    expect(html).toContain('Unlabelled episodes (1)');
    expect(html).toMatch(/<td>on-3<\/td>/);
    expect(html).toContain('1 unlabelled (not counted)');
  });

  it('Markdown and CSV say the same', () => {
    const md = renderMarkdown(r);
    expect(md.indexOf('## Per run (gate mode × policy)')).toBeLessThan(
      md.indexOf('## Headline: gate off (baseline) · policy pi0'),
    );
    expect(md).toContain('## Headline: gate on · policy pi0');
    expect(md).toContain('## Unlabelled episodes (1)');
    expect(md).toMatch(/\| on-3 \|/);
    const csv = renderEpisodesCsv(r.rows).trim().split('\n');
    const col = csv[0]!.split(',').indexOf('gate_mode');
    expect(
      csv
        .slice(1)
        .map((l) => l.split(',')[col])
        .sort(),
    ).toEqual(['off', 'off', 'on', 'on']);
  });
});

describe('report: every summary section is per run group when gate modes are mixed (never pooled)', () => {
  let dir: string;
  let r: ReportData;
  const spec = loadSpec();
  const build = (extra: { groupBy?: 'policy'; compare?: [string, string] } = {}) =>
    buildReportFromDir(dir, {
      scorer: new EpisodeScorer(spec),
      bootstrap: { resamples: 200, seed: 1 },
      sensitivity: spec.library.sensitivity,
      worst: 2,
      source: dir,
      generatedAt: 'test',
      ...extra,
    });
  beforeAll(async () => {
    dir = tempDir('armguard-runs-sections-');
    await writeEpisodes(dir, SPECS);
    r = await build();
  });

  it('each run group carries its own per-task, per-clause, SBU composition, sensitivity and gate figures', () => {
    const [off, on] = r.runGroups;
    // the baseline's one unsafe success, by hand: 1 of 2 off episodes, 0 of 2 gated
    expect([off!.taskAll.episodes, off!.taskAll.unsafeSuccesses]).toEqual([2, 1]);
    expect([on!.taskAll.episodes, on!.taskAll.unsafeSuccesses]).toEqual([2, 0]);
    const violated = off!.metrics.clauses.filter((c) => c.rate.k > 0).map((c) => c.clauseId);
    expect(violated.length).toBeGreaterThan(0);
    for (const id of violated) {
      const offRate = off!.metrics.clauses.find((c) => c.clauseId === id)!.rate;
      const onRate = on!.metrics.clauses.find((c) => c.clauseId === id)!.rate;
      expect([offRate.k, offRate.n]).toEqual([1, 2]);
      expect([onRate.k, onRate.n]).toEqual([0, 2]);
      expect(off!.metrics.clauses.find((c) => c.clauseId === id)!.sbuCount).toBe(1);
    }
    expect(on!.metrics.clauses.every((c) => c.sbuCount === 0)).toBe(true);
    expect(off!.sensitivity[0]).toMatchObject({ variant: 'default', sbu: 0.5 });
    expect(on!.sensitivity[0]).toMatchObject({ variant: 'default', sbu: 0 });
  });

  it('HTML: the per-task, per-clause, SBU, outcome, cost, sensitivity and gate sections have one block per run, never the pooled 1/4', () => {
    const html = renderHtml(r);
    const part = (id: string) =>
      html.slice(
        html.indexOf(`<section id="${id}">`),
        html.indexOf('</section>', html.indexOf(`<section id="${id}">`)),
      );
    for (const id of ['outcomes', 'tasks', 'clauses', 'sbu', 'sensitivity', 'cost', 'gate']) {
      const p = part(id);
      expect(p.match(/<h3 class="run-sub">/g), id).toHaveLength(2);
      expect(p.indexOf('gate off (baseline) · policy pi0'), id).toBeLessThan(p.indexOf('gate on · policy pi0'));
    }
    const clauses = part('clauses');
    expect(clauses).toContain('id="clause-table"');
    expect(clauses).toContain('id="clause-table-2"');
    expect(clauses).toContain('<td>1/2</td>');
    expect(clauses).not.toContain('<td>1/4</td>');
    // the worst-episode plot of the baseline's unsafe success says which run it is from
    expect(r.worst[0]).toMatchObject({ episodeId: 'off-1', gateMode: 'off' });
    expect(part('worst')).toMatch(/off-1<\/b> · task [^·]+ · policy pi0 · gate off \(baseline\) · robot r1/);
    const sbu = part('sbu');
    expect(sbu).toContain('id="sbu-bar"');
    expect(sbu.slice(sbu.indexOf('gate on · policy pi0'))).toContain('No unsafe successes.');
  });

  it('Markdown: the same sections per run under their headings', () => {
    const md = renderMarkdown(r);
    for (const title of [
      'Outcomes',
      'Per task',
      'Per clause',
      'Cumulative cost and risk exposure',
      'Gate statistics',
    ]) {
      const from = md.indexOf(`## ${title}\n`);
      expect(from, title).toBeGreaterThan(0);
      const next = md.indexOf('\n## ', from + 3);
      const block = md.slice(from, next < 0 ? undefined : next);
      expect(block.match(/^### /gm), title).toHaveLength(2);
    }
    const clauses = md.slice(md.indexOf('## Per clause\n'), md.indexOf('\n## ', md.indexOf('## Per clause\n') + 3));
    expect(clauses).not.toMatch(/\| 1\/4 \|/);
  });

  it('armguard report prints one summary line per run group, never one pooled over the gate modes', async () => {
    const c = captureIo();
    expect(
      await main(
        ['report', dir, '--out', tempDir('armguard-runs-out-'), '--no-sensitivity', '--resamples', '100'],
        c.io,
      ),
    ).toBe(0);
    const out = c.out.join('\n');
    expect(out).toContain('4 episodes (1 robot(s)) in 2 run groups:');
    expect(out).toContain('  gate off (baseline) · policy pi0: 2 episodes, SR 2/2, SBU 1/2, P[U|S] 1/2');
    expect(out).toContain('  gate on · policy pi0: 2 episodes, SR 1/2, SBU 0/2, P[U|S] 0/1');
    expect(out).not.toMatch(/SBU 1\/4/);
  });

  it('--group-by and --compare never pool gate modes: groups by mode too; a policy run in two modes must name the mode', async () => {
    const grouped = await build({ groupBy: 'policy' });
    expect(grouped.groupBy!.groups.map((g) => [g.key, g.metrics.episodes])).toEqual([
      ['pi0@off', 2],
      ['pi0@on', 2],
    ]);
    const pooled = await build({ compare: ['pi0', 'pi0@on'] });
    expect(pooled.compare).toBeUndefined();
    expect(pooled.warnings).toContain(
      "--compare: policy 'pi0' has episodes in gate modes off, on: name one (e.g. pi0@off); not compared",
    );
    const named = await build({ compare: ['pi0@off', 'pi0@on'] });
    expect([
      named.compare!.a.metrics.sbu.k,
      named.compare!.a.metrics.episodes,
      named.compare!.b.metrics.sbu.k,
      named.compare!.b.metrics.episodes,
    ]).toEqual([1, 2, 0, 2]);
  });
});
