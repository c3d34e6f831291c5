import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';

const dir = mkdtempSync(join(tmpdir(), 'armguard-stl-'));
const csv = join(dir, 'ep.csv');
writeFileSync(csv, 'time,force,grip,height\n0,150,0,0\n0.4,210,1,0.1\n1.0,120,1,-0.05\n2.5,90,0,0\n');
const csvWords = join(dir, 'words.csv');
writeFileSync(
  csvWords,
  'time,force,grip,height\n0,150,false,0\n0.4,210,true,0.1\n1.0,120,true,-0.05\n2.5,90,false,0\n',
);
const spec = join(dir, 'clauses.stl');
writeFileSync(
  spec,
  'real force, height\nbool grip\nmax_force := always (force < 200)\nslip := always (grip -> height > -0.02)\n',
);

async function run(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(args, { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}

describe('armguard stl', () => {
  it('prints ρ at the first sample, the series and online statistics as JSON', async () => {
    const r = await run('stl', '--spec', 'always (force < 200)', '--trace', csv, '--series', '--online');
    expect(r.code).toBe(0);
    const json = JSON.parse(r.out);
    expect(json.samples).toBe(4);
    expect(json.results[0]).toMatchObject({
      robustness: -10,
      satisfied: false,
      online: {
        final: -10,
        firstViolationTime: 0.4,
        longestViolation: { seconds: 0.6, samples: 1 },
        decidedSamples: 4,
      },
      series: [
        [0, -10],
        [0.4, -10],
        [1, 80],
        [2.5, 110],
      ],
    });
  });

  it('boolean columns via --bool; ±∞ printed as strings', async () => {
    const r = await run('stl', '--spec', 'grip -> height > -0.02', '--bool', 'grip', '--trace', csvWords, '--series');
    expect(r.code).toBe(0);
    const series = JSON.parse(r.out).results[0].series.map((p: [number, unknown]) => p[1]);
    expect(series[0]).toBe('Infinity');
    expect(series[2]).toBeCloseTo(-0.03, 12);
  });

  it('evaluates every formula of a spec file', async () => {
    const r = await run('stl', '--spec', `@${spec}`, '--trace', csv);
    expect(r.code).toBe(0);
    const results = JSON.parse(r.out).results;
    expect(results.map((x: { name: string }) => x.name)).toEqual(['max_force', 'slip']);
    expect(results[1].robustness).toBeCloseTo(-0.03, 12);
  });

  it('formula errors point at the column with a suggestion', async () => {
    const r = await run('stl', '--spec', 'always (forse < 200)', '--trace', csv);
    expect(r.code).toBe(1);
    expect(r.err).toContain("--spec:1:9: unknown signal 'forse' — did you mean 'force'?");
  });

  it('CSV errors name file, line and column', async () => {
    const bad = join(dir, 'bad.csv');
    writeFileSync(bad, 'time,force\n0,1\n0.5,abc\n');
    const r = await run('stl', '--spec', 'always (force < 200)', '--trace', bad);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`${bad}:3: column 'force': 'abc' is not a finite number`);
    const back = join(dir, 'back.csv');
    writeFileSync(back, 'time,force\n0,1\n0,1\n');
    expect((await run('stl', '--spec', 'force < 1', '--trace', back)).err).toContain('strictly increasing');
  });

  it('usage errors', async () => {
    expect((await run('stl', '--trace', csv)).code).toBe(2);
    expect((await run('stl', '--spec', 'force < 1', '--trace', csv, '--bool', 'nope')).err).toContain(
      "'nope', which is not a column",
    );
  });

  it('armguard check validates .stl spec files', async () => {
    expect((await run('check', spec)).out).toContain('ok (STL spec: 3 signals, 2 formulas)');
    const bad = join(dir, 'bad.stl');
    writeFileSync(bad, 'real force\nalways (forse < 1)\n');
    const r = await run('check', bad);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`${bad}:2:9: unknown signal 'forse' — did you mean 'force'?`);
  });
});
