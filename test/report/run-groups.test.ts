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
import { loadSpec } from '../safety/spec-fixture.js';
import { tempDir, writeEpisodes, type EpisodeSpec } from './build-fixture.js';

const task = 'libero-spatial-pick-bowl' as const;
const SPECS: EpisodeSpec[] = [
  // baseline: one unsafe success (force 300 N ≥ τ = 200 N), one safe success
  { id: 'off-1', policy: 'pi0', robot: 'r1', task, success: true, gateMode: 'off', force: { value: 300, from: 10, len: 5 } },
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
    r = await buildReportFromDir(dir, { scorer: new EpisodeScorer(loadSpec()), bootstrap: { resamples: 200, seed: 1 }, worst: 2, source: dir, generatedAt: 'test' });
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
    expect(r.unlabelled).toEqual([expect.objectContaining({ episodeId: 'on-3', robotId: 'r1', policy: 'pi0', task, gateMode: 'on', frames: 40, cut: false })]);
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
    expect(md.indexOf('## Per run (gate mode × policy)')).toBeLessThan(md.indexOf('## Headline: gate off (baseline) · policy pi0'));
    expect(md).toContain('## Headline: gate on · policy pi0');
    expect(md).toContain('## Unlabelled episodes (1)');
    expect(md).toMatch(/\| on-3 \|/);
    const csv = renderEpisodesCsv(r.rows).trim().split('\n');
    const col = csv[0]!.split(',').indexOf('gate_mode');
    expect(csv.slice(1).map((l) => l.split(',')[col]).sort()).toEqual(['off', 'off', 'on', 'on']);
  });
});
