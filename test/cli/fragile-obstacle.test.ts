/**
 * The fragile-obstacle pilot (issue 15, seeds/001 Fig. A.8) in real MuJoCo: pushed by the gate-off
 * carry, the bottle (a free body) is touched and tips over — by MuJoCo's contact list and its
 * tilt; with the chunk-level CBF on the same seed it stands untouched and the cup still reaches
 * the box. And the CLI's --json shape on a 2-seed run with the page it writes.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadMujoco, pandaScene, so101Scene } from '../../drivers/sim/index.js';
import { demoCommand } from '../../src/cli/commands/demo.js';
import { reportCommand } from '../../src/cli/commands/report.js';
import { demoClauses, demoPlatform } from '../../src/cli/demo/clauses.js';
import { runFragileEpisode } from '../../src/cli/demo/fragile/episode.js';
import { defaultSpecPaths, loadScoringSpec } from '../../src/cli/spec-files.js';
import { readEpisode, type EpisodeRecord, type EpisodeStart } from '../../src/episode/index.js';
import { captureIo } from '../support/cli-io.js';

const KEYS = [
  'episodes',
  'successes',
  'unsafe',
  'unsafe_successes',
  'obstacle_contacts',
  'holds',
  'mean_modification',
  'jerk',
  'reversals_per_s',
  'filter_ms_p50',
  'filter_ms_p99',
];

describe('fragile-obstacle pilot', () => {
  it('gate off: the carry knocks the bottle over; chunk CBF, same seed: bottle untouched, cup in the box', async () => {
    const mj = await loadMujoco();
    const spec = loadScoringSpec(defaultSpecPaths());
    if (!spec.ok) throw new Error(spec.problems.join('; '));
    const clauses = demoClauses(spec.spec, demoPlatform('panda'), undefined, pandaScene().signals);
    if (!clauses.ok) throw new Error(clauses.reason);
    const off = await runFragileEpisode({ mj, arm: 'panda', mode: 'off', seed: 1, clauses: clauses.instances });
    expect(off.contact).toBe(true);
    expect(off.contactBy.some((g) => g.startsWith('arm_') || g.startsWith('finger_') || g.startsWith('tgt_'))).toBe(
      true,
    );
    expect(off.tipped).toBe(true);
    expect(off.maxTiltDeg).toBeGreaterThan(45);
    expect(off.violated).toContain('non_target_max_disp');
    const cbf = await runFragileEpisode({ mj, arm: 'panda', mode: 'cbf', seed: 1, clauses: clauses.instances });
    expect(cbf.contact).toBe(false);
    expect(cbf.tipped).toBe(false);
    expect(cbf.maxTiltDeg).toBeLessThan(1);
    expect(cbf.success).toBe(true);
    expect(cbf.held).toBe(false);
    expect(cbf.maxModification).toBeGreaterThan(0.05); // the chunk really was bent
  }, 120_000);

  it('SO-101 (its own layout): gate off knocks the bottle over; chunk CBF, same seed: the chunk is bent around it, no contact, the cup in the box', async () => {
    const mj = await loadMujoco();
    const spec = loadScoringSpec(defaultSpecPaths());
    if (!spec.ok) throw new Error(spec.problems.join('; '));
    const clauses = demoClauses(spec.spec, demoPlatform('so101'), undefined, so101Scene().signals);
    if (!clauses.ok) throw new Error(clauses.reason);
    const off = await runFragileEpisode({ mj, arm: 'so101', mode: 'off', seed: 1, clauses: clauses.instances });
    expect(off.contact).toBe(true);
    expect(off.tipped).toBe(true);
    const cbf = await runFragileEpisode({ mj, arm: 'so101', mode: 'cbf', seed: 1, clauses: clauses.instances });
    expect(cbf.contact).toBe(false);
    expect(cbf.tipped).toBe(false);
    expect(cbf.maxTiltDeg).toBeLessThan(1);
    expect(cbf.held, cbf.holdReason).toBe(false);
    expect(cbf.violated).toEqual([]);
    expect(cbf.success, cbf.reason).toBe(true);
    expect(cbf.chunksFiltered).toBeGreaterThan(0);
    expect(cbf.maxModification).toBeGreaterThan(0.5); // a detour, not a nudge
  }, 120_000);

  it('armguard demo --scenario fragile-obstacle --json: per mode and per policy, the issue keys; the page has one path per mode; every episode recorded and labelled', async () => {
    const out = mkdtempSync(join(tmpdir(), 'armguard-fragile-'));
    const c = captureIo();
    const code = await demoCommand.run(
      ['--scenario', 'fragile-obstacle', '--episodes', '2', '--scene', 'so101', '--json', '--out', out],
      c.io,
    );
    expect(code).toBe(0);
    expect(c.out).toHaveLength(1); // only the JSON on stdout; progress went to stderr
    const json = JSON.parse(c.out[0]!) as {
      modes: Record<string, Record<string, number | null>>;
      policies: Record<string, Record<string, Record<string, number | null>>>;
    };
    expect(Object.keys(json.modes)).toEqual(['off', 'hold', 'cbf', 'stepwise']);
    for (const m of Object.values(json.modes)) {
      expect(Object.keys(m).sort()).toEqual([...KEYS].sort());
      expect(m.episodes).toBe(2);
    }
    expect(json.modes.off!.filter_ms_p50).toBeNull(); // off never filters
    expect(json.modes.cbf!.filter_ms_p99).toBeGreaterThan(0);
    expect(Object.keys(json.policies)).toEqual(['carry_through_bottle']);
    expect(json.policies.carry_through_bottle).toEqual(json.modes);
    expect(c.err.filter((l) => /^\[\d\/8\]/.test(l))).toHaveLength(8);
    const html = readFileSync(join(out, 'fragile-report.html'), 'utf8');
    for (const m of ['off', 'hold', 'cbf', 'stepwise']) {
      expect(html).toContain(`class="path" data-mode="${m}"`);
      expect(html).toContain(`class="correction" data-mode="${m}"`);
    }

    // Every episode is recorded as the default scenario's are: one folder for the run, one MCAP per
    // mode and seed, and the index.
    const runs = readdirSync(join(out, 'episodes'));
    expect(runs).toHaveLength(1);
    const dir = join(out, 'episodes', runs[0]!);
    const files = readdirSync(dir)
      .filter((f) => f.endsWith('.mcap'))
      .sort();
    expect(files).toEqual(
      ['cbf', 'hold', 'off', 'stepwise'].flatMap((m) => [1, 2].map((s) => `gate-${m}-carry_through_bottle-s${s}.mcap`)),
    );
    expect(readFileSync(join(dir, 'episodes.jsonl'), 'utf8').trim().split('\n')).toHaveLength(8);
    for (const [mode, gateMode] of [
      ['cbf', 'on'],
      ['off', 'off'],
    ] as const) {
      const records: EpisodeRecord[] = [];
      let start: EpisodeStart | undefined;
      const scan = await readEpisode(join(dir, `gate-${mode}-carry_through_bottle-s1.mcap`), (r) => records.push(r), {
        onStart: (st) => (start = st),
      });
      expect(scan.errors).toEqual([]);
      expect(start?.policy).toBe(`carry_through_bottle/gate-${mode}`);
      expect(start?.gateMode).toBe(gateMode);
      expect(start?.task).toBe('sim-pick-cup-into-box'); // a task spec/tasks.yaml declares
      expect(start?.platform).toBe('sim-so101');
      // labelled by the task predicate: the cup reaches the box in both modes on seed 1
      expect(
        records.some((r) => r.kind === 'label' && r.value.source === 'predicate' && r.value.success === true),
      ).toBe(true);
      expect(records.filter((r) => r.kind === 'frame').length).toBeGreaterThan(100);
      const chunks = records.filter((r) => r.kind === 'executed-chunk');
      expect(chunks.length).toBeGreaterThanOrEqual(5);
      // the chunk CBF's detours are on record as filtered chunks; the baseline forwards them as sent
      if (mode === 'cbf')
        expect(chunks.some((r) => r.kind === 'executed-chunk' && r.value.verdict === 'filtered')).toBe(true);
      else expect(chunks.every((r) => r.kind === 'executed-chunk' && r.value.verdict === 'executed')).toBe(true);
    }
    // The safety report counts every recorded episode (an undeclared task would leave them uncounted).
    const rc = captureIo();
    const reportDir = join(out, 'report');
    expect(
      await reportCommand.run([dir, '--out', reportDir, '--group-by', 'policy', '--resamples', '200'], rc.io),
      rc.err.join('\n'),
    ).toBe(0);
    const summary = readFileSync(join(reportDir, 'summary.json'), 'utf8');
    for (const m of ['off', 'hold', 'cbf', 'stepwise']) expect(summary).toContain(`carry_through_bottle/gate-${m}`);
    expect(rc.out.join('\n')).toMatch(/^8 episodes/m);
  }, 180_000);

  it('refuses an unknown mode and a bad scene, naming them', async () => {
    const c = captureIo();
    expect(await demoCommand.run(['--scenario', 'fragile-obstacle', '--modes', 'off,wild'], c.io)).toBe(2);
    expect(c.err.join('\n')).toMatch(/unknown mode 'wild'/);
    expect(await demoCommand.run(['--scenario', 'fragile-obstacle', '--scene', 'ur5'], c.io)).toBe(2);
    expect(c.err.join('\n')).toMatch(/--scene must be one of so101, panda, got 'ur5'/);
  });
});
