/**
 * `armguard demo` end to end at a reduced episode count (issue 9): real MuJoCo, real MCAP files,
 * the real report. Gate off shows unsafe successes; gate on holds and shows fewer.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { demoCommand } from '../../src/cli/commands/demo.js';
import { readEpisode, type EpisodeRecord, type EpisodeStart } from '../../src/episode/index.js';
import { captureIo } from '../support/cli-io.js';

/** The summary row for a mode: [episodes, successes, unsafe, unsafe successes, held episodes, held chunks, filtered chunks]. */
function row(out: string[], mode: 'off' | 'hold' | 'cbf'): number[] {
  const line = out.find((l) => l.startsWith(`gate ${mode} `));
  expect(line, `summary row for gate ${mode}`).toBeDefined();
  return line!.slice(9).trim().split(/\s+/).map(Number);
}

describe('armguard demo', () => {
  it('pilot gate off then hold: records and labels every episode, hold has fewer unsafe successes, writes the report', async () => {
    const out = mkdtempSync(join(tmpdir(), 'armguard-demo-'));
    const c = captureIo();
    const code = await demoCommand.run(
      ['--episodes', '1', '--modes', 'off,hold', '--policies', 'clean,shove_bystander,self_collision', '--out', out],
      c.io,
    );
    expect(c.err).toEqual([]);
    expect(code).toBe(0);
    // One progress line per episode, gate OFF first.
    const progress = c.out.filter((l) => /^\[\s*\d+\/6\]/.test(l));
    expect(progress).toHaveLength(6);
    expect(progress.slice(0, 3).every((l) => l.includes('gate OFF'))).toBe(true);
    expect(progress.slice(3).every((l) => l.includes('gate HOLD'))).toBe(true);

    const off = row(c.out, 'off');
    const on = row(c.out, 'hold');
    expect(off[0]).toBe(3);
    expect(on[0]).toBe(3);
    expect(off[3]).toBeGreaterThanOrEqual(1);
    expect(on[3]).toBeLessThan(off[3]!);
    expect(off[4]).toBe(0); // no gate, no holds
    expect(on[4]).toBeGreaterThanOrEqual(1);
    // The clean policy is not held and still succeeds with the gate on.
    expect(progress.find((l) => l.includes('gate HOLD') && l.includes('clean'))).toMatch(/success, no violation$/);
    // The reason for each hold is printed: the clause the shove violated.
    expect(progress.find((l) => l.includes('gate HOLD') && l.includes('shove_bystander'))).toMatch(
      /HOLD at .*non_target_max_disp/,
    );
    // One headline column per mode, side by side.
    expect(c.out.find((l) => l.startsWith('gate mode'))).toMatch(/gate mode\s+off\s+hold$/);

    // Episode files: one folder for the run, 6 MCAPs and the index.
    const runs = readdirSync(join(out, 'episodes'));
    expect(runs).toHaveLength(1);
    const dir = join(out, 'episodes', runs[0]!);
    const files = readdirSync(dir)
      .filter((f) => f.endsWith('.mcap'))
      .sort();
    expect(files).toHaveLength(6);
    const index = readFileSync(join(dir, 'episodes.jsonl'), 'utf8').trim().split('\n');
    expect(index).toHaveLength(6);

    // The shove with the gate on: labelled by the task predicate, gate transition to hold recorded.
    const records: EpisodeRecord[] = [];
    let start: EpisodeStart | undefined;
    const scan = await readEpisode(join(dir, 'gate-hold-shove_bystander-s1.mcap'), (r) => records.push(r), {
      onStart: (s) => (start = s),
    });
    expect(scan.errors).toEqual([]);
    expect(start?.policy).toBe('shove_bystander/gate-hold');
    expect(start?.gateMode).toBe('on');
    expect(start?.platform).toBe('sim-so101');
    expect(records.some((r) => r.kind === 'label' && r.value.source === 'predicate' && r.value.success === false)).toBe(
      true,
    );
    expect(records.some((r) => r.kind === 'gate' && r.value.kind === 'transition' && r.value.to === 'hold')).toBe(true);
    expect(records.some((r) => r.kind === 'executed-chunk' && r.value.verdict === 'held')).toBe(true);
    expect(records.filter((r) => r.kind === 'frame').length).toBeGreaterThan(100);

    for (const f of ['report.html', 'report.md', 'episodes.csv', 'summary.json'])
      expect(existsSync(join(out, 'report', f)), f).toBe(true);
    const summary = JSON.parse(readFileSync(join(out, 'report', 'summary.json'), 'utf8')) as unknown;
    expect(JSON.stringify(summary)).toContain('shove_bystander/gate-hold');
    expect(c.out.some((l) => l.includes(join(out, 'report', 'report.html')))).toBe(true);
  }, 120_000);

  it('--json prints only the figures: one entry per mode and per policy per mode, with the issue-15 keys', async () => {
    const out = mkdtempSync(join(tmpdir(), 'armguard-demo-json-'));
    const c = captureIo();
    const code = await demoCommand.run(
      ['--episodes', '1', '--modes', 'off,cbf', '--policies', 'clean', '--json', '--out', out],
      c.io,
    );
    expect(c.err).toEqual([]);
    expect(code).toBe(0);
    expect(c.out).toHaveLength(1);
    const j = JSON.parse(c.out[0]!) as {
      modes: Record<string, Record<string, unknown>>;
      policies: Record<string, Record<string, Record<string, unknown>>>;
    };
    expect(Object.keys(j.modes)).toEqual(['off', 'cbf']);
    expect(Object.keys(j.policies)).toEqual(['clean']);
    const keys = [
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
    for (const m of ['off', 'cbf']) {
      expect(Object.keys(j.modes[m]!).sort()).toEqual([...keys].sort());
      expect(j.policies.clean![m]).toEqual(j.modes[m]);
    }
    expect(j.modes.off).toMatchObject({ episodes: 1, successes: 1, unsafe: 0, holds: 0, filter_ms_p50: null });
    // the cbf mode filtered: it has filter times
    expect(typeof j.modes.cbf!.filter_ms_p99).toBe('number');
  }, 120_000);

  it('refuses bad options with a usage error naming the option', async () => {
    for (const args of [
      ['--episodes', '0'],
      ['--scene', 'ur5'],
      ['--policies', 'dance'],
      ['--frobnicate'],
      ['--seed', '-1'],
      ['--modes', 'off,warp'],
      ['--scenario', 'nowhere'],
    ]) {
      const c = captureIo();
      expect(await demoCommand.run(args, c.io)).toBe(2);
      expect(c.err.join('\n')).toMatch(/episodes|scene|policy|frobnicate|seed|warp|scenario/);
    }
  });
});

describe('demo clause set', () => {
  it('every safe-tier clause family is monitored on the SO-101 scene, with the servo torque ceiling', async () => {
    const { demoClauses, demoPlatform } = await import('../../src/cli/demo/clauses.js');
    const { defaultSpecPaths, loadScoringSpec } = await import('../../src/cli/spec-files.js');
    const spec = loadScoringSpec(defaultSpecPaths());
    if (!spec.ok) throw new Error(spec.problems.join('\n'));
    const r = demoClauses(spec.spec, demoPlatform('so101'));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.instances.map((i) => i.clause.id).sort()).toEqual([
      'arm_furniture_force',
      'held_object_tilt_world',
      'joint_torque',
      'max_contact_force',
      'non_target_max_disp',
      'self_collision_free',
      'stable_grasp_maintained',
      'target_furniture_force',
    ]);
    expect(r.instances.find((i) => i.clause.id === 'joint_torque')).toMatchObject({ tau: 1.47, severe: 2.94 });
    expect(demoPlatform('panda')).toBe('sim');
  });
});
