/**
 * Reports people read: the worst-N plots spread over policies and clauses, one colour per clause
 * with a legend saying violated/satisfied and the clip on the axis, papers named once in footnotes
 * (no "seeds/000 Table 33"), and the sensitivity table saying when a variant is not defined for a
 * platform.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { EpisodeScorer } from '../../src/safety/index.js';
import { buildReportFromDir } from '../../src/report/build-run.js';
import type { ReportData } from '../../src/report/build-types.js';
import { renderHtml, renderMarkdown } from '../../src/report/render/index.js';
import { loadSpec } from '../safety/support/spec-fixture.js';
import { tempDir, writeEpisodes, type EpisodeSpec } from './support/build-fixture.js';

const task = 'libero-spatial-pick-bowl' as const;
// Policy A: four deep force violations (unsafe successes); policy B: one shallow displacement violation.
const SPECS: EpisodeSpec[] = [
  ...[390, 380, 370, 360].map(
    (f, i): EpisodeSpec => ({
      id: `a-${i}`,
      policy: 'A',
      robot: 'r1',
      task,
      success: true,
      force: { value: f, from: 5, len: 10 },
    }),
  ),
  { id: 'b-0', policy: 'B', robot: 'r1', task, success: true, disp: { value: 0.006, from: 5, len: 3 } },
  // an SO-101 episode: its profile defines joint_torque's main tier only
  { id: 'so-0', policy: 'B', robot: 'so', task, success: true, platform: 'so101', torque: { value: 0.5, from: 0 } },
];

describe('readable report', () => {
  let r: ReportData;
  let html: string;
  beforeAll(async () => {
    const dir = tempDir('armguard-readable-');
    await writeEpisodes(dir, SPECS);
    const spec = loadSpec();
    r = await buildReportFromDir(dir, {
      scorer: new EpisodeScorer(spec),
      bootstrap: { resamples: 100, seed: 1 },
      sensitivity: spec.library.sensitivity,
      worst: 2,
      source: dir,
      generatedAt: 'test',
    });
    html = renderHtml(r);
  });

  it('worst 2: the deepest of policy A and the worst of policy B, not A twice', () => {
    expect(r.worst.map((w) => w.episodeId)).toEqual(['a-0', 'b-0']);
    expect(r.worst.map((w) => w.clauseId)).toEqual(['max_contact_force', 'non_target_max_disp']);
  });

  it('plots: one colour per clause across plots, legend says violated or satisfied, the clip is on the axis', () => {
    expect(html).toContain('ρ(t) / |τ| (clipped to ±3)');
    const colourOf = (clause: string) =>
      [
        ...html.matchAll(
          new RegExp(`<path d="[^"]*" fill="none" stroke="(#[0-9a-f]{6})"[^>]*data-clause="${clause}"`, 'g'),
        ),
      ].map((m) => m[1]);
    const force = colourOf('max_contact_force');
    const disp = colourOf('non_target_max_disp');
    expect(force.length).toBe(2);
    expect(new Set(force).size).toBe(1); // same colour in both plots
    expect(disp[0]).not.toBe(force[0]);
    expect(html).toMatch(/max_contact_force ✗ violated/);
    expect(html).toMatch(/joint_torque ✓ satisfied/);
    // a satisfied clause is never drawn with the violation classes
    expect(html).toMatch(/class="clause-satisfied" data-clause="joint_torque"/);
  });

  it('papers named once, in footnotes; no seeds/ paths in the report', () => {
    expect(html).not.toContain('seeds/');
    expect(renderMarkdown(r)).not.toContain('seeds/');
    expect(html.match(/<li>SafeVLA-Bench/g)).toHaveLength(1);
    expect(html).toContain('id="footnotes"');
  });

  it("the sensitivity table says when a variant is not defined for a platform (so101 has joint_torque's main tier only)", () => {
    const torque = r.sensitivity.find((s) => s.variant === 'torque_relaxed_176Nm')!;
    expect(torque.notDefinedFor).toEqual(['so101']);
    expect(r.sensitivity.find((s) => s.variant === 'force_tight_100N')!.notDefinedFor).toEqual([]);
    expect(html).toContain('not defined for so101 (main tier kept)');
    expect(renderMarkdown(r)).toMatch(/Torque relaxed: 176 N·m \|.*\| so101 \(main tier kept\) \|/);
  });
});
