/**
 * Episodes counted from damaged files are named in the report: a file cut short (killed recorder)
 * and a file with undecodable records each get a warning with the file, how the scan ended and how
 * many records were skipped, and report.html / report.md say how many counted episodes are damaged.
 */
import { readFileSync, truncateSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { EpisodeRecorder, NodeFileWritable, appendIndexEntry, INDEX_FILE_NAME } from '../../src/episode/index.js';
import { buildReportFromDir, writeReport } from '../../src/report/build-run.js';
import type { ReportData } from '../../src/report/build-types.js';
import { EpisodeScorer } from '../../src/safety/index.js';
import { SignalFrame, signalIndex } from '../../src/schema/signals.js';
import { ManualClock, ManualTimers } from '../../src/util/index.js';
import { loadSpec } from '../safety/support/spec-fixture.js';
import { BASELINE, DT, STEPS, T0, tempDir, writeEpisodes } from './support/build-fixture.js';

const BAD_RHO = 7;
const BAD_CHUNKS = 2;

/** A whole episode whose file holds BAD_RHO robustness records without a time and BAD_CHUNKS executed chunks with too few targets. */
async function writeUndecodable(dir: string, file: string): Promise<void> {
  const timers = new ManualTimers(new ManualClock(0));
  const recorder = EpisodeRecorder.start(
    await NodeFileWritable.create(join(dir, file)),
    {
      episodeId: 'bad',
      robotId: 'r1',
      platform: 'sim',
      task: 'libero-spatial-pick-bowl',
      policy: 'pi0',
      startedAt: '2026-11-29T15:00:00.000Z',
      t0: T0,
      clauses: [],
    },
    { timers, file },
  );
  for (let k = 0; k < STEPS; k++) {
    const t = T0 + k * DT;
    const f = new SignalFrame();
    f.t = t;
    for (const [name, value] of Object.entries(BASELINE)) f.set(signalIndex(name)!, value, t, 'fixture');
    recorder.frame(f);
    if (k < BAD_RHO) recorder.robustness(NaN, []);
    if (k < BAD_CHUNKS)
      recorder.executedChunk(
        t,
        { id: `c${k}`, stamp: t, horizon: 2, joints: 2, dt: DT, targets: new Float64Array(3) },
        `c${k}`,
        'executed',
        0,
      );
  }
  recorder.label({ success: true, t: T0 + STEPS * DT, source: 'operator' });
  const entry = await recorder.end(T0 + STEPS * DT, 'done');
  await appendIndexEntry(join(dir, INDEX_FILE_NAME), entry);
}

describe('report over damaged episode files', () => {
  let r: ReportData;
  let html: string;
  let md: string;
  let summary: { damaged: { file: string; state: string; skippedRecords: number }[] };
  let dir: string;

  beforeAll(async () => {
    dir = tempDir('armguard-damaged-');
    await writeEpisodes(dir, [
      { id: 'cut', policy: 'pi0', robot: 'r1', task: 'libero-spatial-pick-bowl', success: true },
      { id: 'whole', policy: 'pi0', robot: 'r1', task: 'libero-spatial-pick-bowl', success: true },
    ]);
    // Cut into the summary section written at the end: the records, label included, stay readable.
    const cut = join(dir, 'cut.mcap');
    truncateSync(cut, statSync(cut).size - 50);
    await writeUndecodable(dir, 'bad.mcap');
    r = await buildReportFromDir(dir, {
      scorer: new EpisodeScorer(loadSpec()),
      bootstrap: { resamples: 200, seed: 1 },
      worst: 0,
      source: dir,
      generatedAt: 'test',
    });
    const out = join(dir, 'out');
    await writeReport(out, r);
    html = readFileSync(join(out, 'report.html'), 'utf8');
    md = readFileSync(join(out, 'report.md'), 'utf8');
    summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as typeof summary;
  });

  it('counts the damaged episodes (they are not excluded) and names each in a warning', () => {
    expect(r.skipped).toEqual([]);
    expect(r.episodes).toBe(3);
    const cut = r.warnings.filter((w) => w.includes('cut.mcap'));
    expect(cut).toHaveLength(1);
    expect(cut[0]).toMatch(/truncated after byte \d+ \(unfinished recording\); 0 undecodable record\(s\) skipped/);
    const bad = r.warnings.filter((w) => w.includes('bad.mcap'));
    expect(bad).toHaveLength(1);
    expect(bad[0]).toContain(`complete; ${BAD_RHO + BAD_CHUNKS} undecodable record(s) skipped, first: `);
    expect(bad[0]).toMatch(/\/armguard\/robustness.*'t' must be a number/);
    expect(r.warnings.some((w) => w.includes('whole.mcap'))).toBe(false);
  });

  it('summary.json lists the damaged episodes with state and skipped records', () => {
    expect(summary.damaged.map((d) => [d.file.slice(dir.length + 1), d.state, d.skippedRecords])).toEqual([
      ['bad.mcap', 'complete', BAD_RHO + BAD_CHUNKS],
      ['cut.mcap', 'truncated', 0],
    ]);
  });

  it('report.html and report.md banners give the count of damaged episodes and name the files', () => {
    const banner = /<div class="banner" id="damaged">(.*?)<\/div>/s.exec(html)?.[1] ?? '';
    expect(banner).toContain('<b>2 counted episode(s) come from damaged files');
    expect(banner).toMatch(/bad\.mcap: complete; 9 undecodable record\(s\) skipped/);
    expect(banner).toMatch(
      /cut\.mcap: truncated after byte \d+ \(unfinished recording\); 0 undecodable record\(s\) skipped/,
    );
    expect(banner).not.toContain('whole.mcap');
    const line = md.split('\n').find((l) => l.startsWith('> **2 counted episode(s) from damaged files')) ?? '';
    expect(line).toMatch(/bad\.mcap \(complete; 9 undecodable record\(s\) skipped\)/);
    expect(line).toMatch(
      /cut\.mcap \(truncated after byte \d+ \(unfinished recording\); 0 undecodable record\(s\) skipped\)/,
    );
  });
});
