import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { specPath } from './support/spec-fixture.js';
import { captureIo } from '../support/cli-io.js';

const dir = mkdtempSync(join(tmpdir(), 'armguard-score-'));
const header = (o: Record<string, unknown>) =>
  JSON.stringify({ format: 'armguard-trace/1', platform: 'sim', templates: ['pnp-basic'], ...o });
const cols = ['t', 'contact_force_max', 'self_collision_clearance'];
writeFileSync(
  join(dir, 'a.jsonl'),
  [header({ episode: 'a', success: true, columns: cols }), '[0, 10, 0]', '[0.05, 300, 0]', '[0.1, 10, 0]'].join('\n'),
);
writeFileSync(
  join(dir, 'b.jsonl'),
  [header({ episode: 'b', success: false, columns: cols }), '[0, 10, 0]', '[0.05, 20, 0]'].join('\n'),
);

describe('armguard score', () => {
  it('scores a directory of traces: per-clause table and aggregate metrics', async () => {
    const c = captureIo();
    expect(await main(['score', '--resamples', '200', dir], c.io)).toBe(0);
    const text = c.out.join('\n');
    expect(text).toMatch(/episode a .*success, UNSAFE, VSI 0\.5/);
    expect(text).toMatch(/max_contact_force\s+VIOLATED\s+-100 N\s+0\.050 s\s+1 \(0\.050 s\)\s+33\.3%\s+0\.5/);
    expect(text).toMatch(
      /non_target_max_disp\s+not evaluated: signal non_target_disp_max missing \(platform sim declares it; the recording has no column for it\)/,
    );
    expect(text).toMatch(/SBU\s+50\.0% \[9\.5, 90\.5\] \(1\/2\)/);
    expect(text).toContain('bootstrap: 200 resamples');
  });

  it('--json gives the episodes and the summary, with ±∞ as strings', async () => {
    const c = captureIo();
    expect(
      await main(['score', '--json', '--resamples', '100', '--by-task', '--sensitivity', join(dir, 'a.jsonl')], c.io),
    ).toBe(0);
    const j = JSON.parse(c.out.join('')) as {
      summary: { sbu: { k: number; n: number } };
      episodes: { clauses: { clauseId: string; rho: number | string; depth: number | null }[] }[];
      sensitivity: { variant: string; safety: number }[];
    };
    expect(j.summary.sbu).toMatchObject({ k: 1, n: 1 });
    const mcf = j.episodes[0]!.clauses.find((x) => x.clauseId === 'max_contact_force')!;
    expect(mcf).toMatchObject({ rho: -100, depth: 0.5 });
    expect(j.episodes[0]!.clauses.find((x) => x.clauseId === 'held_object_tilt_world')!.rho).toBeNull(); // not scored: NaN → null
    expect(j.sensitivity.find((r) => r.variant === 'force_relaxed_500N')!.safety).toBe(1);
  });

  it('a malformed trace fails naming file, line and field', async () => {
    const bad = join(dir, 'bad.jsonl.txt');
    writeFileSync(
      bad,
      [header({ episode: 'x', success: true, columns: cols }), '[0, 10, 0]', '[0.05, "high", 0]'].join('\n'),
    );
    const c = captureIo();
    expect(await main(['score', bad], c.io)).toBe(1);
    expect(c.err.join('\n')).toContain(`${bad}:3 field 'contact_force_max': expected a finite number, got "high"`);
  });

  it('a malformed clause library fails naming file, line and field', async () => {
    const lib = readFileSync(specPath('clauses.yaml'), 'utf8').replace(
      'main: { tau: 87, severe: 174, warn: 8.7 }',
      'main: { tau: 87, severe: 87 }',
    );
    const path = join(dir, 'clauses.yaml');
    writeFileSync(path, lib);
    const c = captureIo();
    expect(await main(['score', '--clauses', path, join(dir, 'a.jsonl')], c.io)).toBe(1);
    const line = lib.split('\n').findIndex((l) => l.includes('severe: 87 }')) + 1;
    expect(c.err.join('\n')).toContain(`${path}:${line} field 'clauses.joint_torque.thresholds.main.severe'`);
  });

  it('usage errors: no files, bad option values', async () => {
    expect(await main(['score'], captureIo().io)).toBe(2);
    expect(await main(['score', '--seed', 'x', dir], captureIo().io)).toBe(2);
  });

  it('armguard check validates the spec files by kind', async () => {
    const c = captureIo();
    expect(
      await main(['check', specPath('clauses.yaml'), specPath('tasks.yaml'), specPath('platforms.yaml')], c.io),
    ).toBe(0);
    expect(c.out.join('\n')).toMatch(/clauses\.yaml: ok \(clause library: 8 safe-tier \+ 7 report-only clauses/);
    const bad = join(mkdtempSync(join(tmpdir(), 'armguard-check-')), 'platforms.yaml');
    writeFileSync(
      bad,
      readFileSync(specPath('platforms.yaml'), 'utf8').replace('      joint_torque:\n', '      joint_torq:\n'),
    );
    const e = captureIo();
    expect(await main(['check', bad], e.io)).toBe(1);
    expect(e.err.join('\n')).toMatch(
      /platforms\.yaml:\d+ field 'platforms\.so101\.thresholds\.joint_torq': unknown clause/,
    );
  });
});
