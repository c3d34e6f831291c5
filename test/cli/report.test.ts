import { beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { reportCommand } from '../../src/cli/commands/report.js';
import { ProgressBar } from '../../src/report/build-run.js';
import { tempDir, writeEpisodes } from '../report/support/build-fixture.js';
import { SPECS } from '../report/support/build-specs.js';

async function run(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await reportCommand.run(args, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('armguard report (CLI)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = tempDir('armguard-report-cli-');
    await writeEpisodes(dir, SPECS.slice(0, 6));
  });

  it('writes the four files to <dir>/report by default and prints the headline', async () => {
    const r = await run([dir, '--resamples', '200', '--no-sensitivity']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    for (const f of ['report.html', 'report.md', 'episodes.csv', 'summary.json'])
      expect(existsSync(join(dir, 'report', f))).toBe(true);
    const successes = SPECS.slice(0, 6).filter((s) => s.success).length;
    // two policies: one line per run group (gate mode × policy), as the report's headlines
    expect(r.out).toContain('6 episodes (2 robot(s)) in 2 run groups:');
    const groups = [...r.out.matchAll(/^ {2}.* · policy .*: (\d+) episodes, SR (\d+)\/(\d+),/gm)];
    expect(groups).toHaveLength(2);
    expect(groups.reduce((a, g) => a + Number(g[2]), 0)).toBe(successes);
    expect(groups.reduce((a, g) => a + Number(g[3]), 0)).toBe(6);
    const json = JSON.parse(readFileSync(join(dir, 'report', 'summary.json'), 'utf8'));
    expect(json.bootstrap).toEqual({ resamples: 200, seed: 20260529 });
    expect(json.sensitivity).toEqual([]);
  });

  it('--out, --group-by, --compare, --worst and --seed reach the report', async () => {
    const out = join(dir, 'review');
    const r = await run([
      dir,
      '--out',
      out,
      '--group-by',
      'policy',
      '--compare',
      'pi0,smolvla',
      '--worst',
      '1',
      '--seed',
      '5',
      '--resamples',
      '100',
      '--title',
      'Pilot review',
    ]);
    expect(r.code).toBe(0);
    const json = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    expect(json.groupBy.groups.map((g: { key: string }) => g.key)).toEqual(['pi0', 'smolvla']);
    expect([json.compare.a.key, json.compare.b.key]).toEqual(['pi0', 'smolvla']);
    expect(json.worst).toHaveLength(1);
    expect(json.summary.vsi.seed).toBe(5);
    expect(json.sensitivity.length).toBeGreaterThan(1);
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html).toContain('<title>Pilot review</title>');
    expect(html).toContain('Comparison: pi0 vs smolvla');
  });

  it('a report written into the episode folder is not read back as an episode', async () => {
    const here = tempDir('armguard-report-inplace-');
    await writeEpisodes(here, SPECS.slice(0, 2));
    expect((await run([here, '--out', here, '--resamples', '20', '--no-sensitivity'])).code).toBe(0);
    const again = await run([here, '--out', here, '--resamples', '20', '--no-sensitivity']);
    expect(again.err).toBe('');
    expect(again.code).toBe(0);
    expect(again.out).toContain('2 episodes');
  });

  it('a file that cannot be read is listed, not counted, and the exit status is 1', async () => {
    const bad = tempDir('armguard-report-bad-');
    await writeEpisodes(bad, SPECS.slice(0, 2));
    writeFileSync(join(bad, 'zz-garbage.mcap'), 'not an mcap file');
    writeFileSync(join(bad, 'zz-broken.jsonl'), '{"format":"armguard-trace/1"\n');
    const r = await run([bad, '--resamples', '50', '--no-sensitivity']);
    expect(r.code).toBe(1);
    expect(r.err).toContain('zz-garbage.mcap');
    expect(r.err).toContain('zz-broken.jsonl');
    expect(r.err).toContain('2 file(s) not counted');
    const json = JSON.parse(readFileSync(join(bad, 'report', 'summary.json'), 'utf8'));
    expect(json.episodes).toBe(2);
    expect(json.skipped.map((s: { file: string }) => s.file.split('/').pop())).toEqual([
      'zz-broken.jsonl',
      'zz-garbage.mcap',
    ]);
    expect(readFileSync(join(bad, 'report', 'report.html'), 'utf8')).toContain('could not be read or scored');
  });

  it('usage errors name the option and what was expected', async () => {
    expect((await run([])).code).toBe(2);
    const g = await run([dir, '--group-by', 'colour']);
    expect(g.code).toBe(2);
    expect(g.err).toContain('--group-by expects one of policy, task, platform, robot');
    const c = await run([dir, '--compare', 'pi0']);
    expect(c.err).toContain("--compare expects two policy names 'A,B'");
    const w = await run([dir, '--worst', '-1']);
    expect(w.err).toContain('--worst expects an integer >= 0');
    const missing = await run([join(dir, 'nope')]);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('cannot read');
    const empty = await run([tempDir('armguard-report-empty-')]);
    expect(empty.code).toBe(1);
    expect(empty.err).toContain('no episode files');
  });

  it('progress bar redraws one line per percent and ends with a newline', () => {
    const chunks: string[] = [];
    const bar = new ProgressBar((s) => chunks.push(s), 10);
    for (let i = 1; i <= 400; i++) bar.update(i, 400);
    expect(chunks.filter((c) => c.startsWith('\r'))).toHaveLength(101); // 0% … 100%
    expect(chunks.at(-2)).toBe('\r[##########] 400/400 episodes (100%)');
    expect(chunks.at(-1)).toBe('\n');
  });
});
