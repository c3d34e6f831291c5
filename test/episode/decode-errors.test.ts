/**
 * Undecodable records are counted, not just sampled: the reader keeps the first 100 errors but counts
 * every one, and an episode trace carries the count, the first messages and how the scan ended.
 */
import { describe, expect, it } from 'vitest';
import { MemoryFileWritable, readEpisode, readEpisodeTrace } from '../../src/episode/index.js';
import { T0, frameAt, newRecorder } from './support/episode-fixture.js';

const BAD = 130;

/** Three good frames and BAD robustness records whose time is not a number (written as null). */
async function episodeWithBadRecords(): Promise<Uint8Array> {
  const mem = new MemoryFileWritable();
  const { recorder } = newRecorder(mem);
  for (let k = 0; k < 3; k++) recorder.frame(frameAt(k));
  for (let k = 0; k < BAD; k++) recorder.robustness(NaN, [0, 0, 0]);
  recorder.label({ success: true, t: T0 + 1 });
  await recorder.end(T0 + 1, 'done');
  return mem.bytes();
}

describe('decode errors of an episode file', () => {
  it('are counted past the cap of kept errors', async () => {
    const scan = await readEpisode([await episodeWithBadRecords()], () => {}, { file: 'bad.mcap' });
    expect(scan.end).toEqual({ kind: 'complete' });
    expect(scan.errors).toHaveLength(100);
    expect(scan.errorCount).toBe(BAD);
  });

  it('reach the trace with the first messages, and the trace keeps the good records', async () => {
    const trace = await readEpisodeTrace([await episodeWithBadRecords()], { file: 'bad.mcap' });
    expect(trace.decodeErrorCount).toBe(BAD);
    expect(trace.decodeErrors).toHaveLength(10);
    expect(trace.decodeErrors[0]).toMatch(/bad\.mcap.*\/armguard\/robustness.*'t' must be a number/);
    expect(trace.scanEnd).toEqual({ kind: 'complete' });
    expect(trace.times).toHaveLength(3);
    expect(trace.robustnessTimes).toHaveLength(0);
  });

  it('a truncated file says where it stopped', async () => {
    const bytes = await episodeWithBadRecords();
    const trace = await readEpisodeTrace([bytes.subarray(0, bytes.byteLength - 40)], { file: 'cut.mcap' });
    expect(trace.end).toBe('truncated');
    expect(trace.scanEnd.kind).toBe('truncated');
    expect(trace.scanEnd.kind === 'truncated' && trace.scanEnd.offset).toBeLessThanOrEqual(bytes.byteLength - 40);
  });
});

describe('an episode file cut before its label', () => {
  it('is refused with how the file ended, not only for the missing label', async () => {
    const bytes = await episodeWithBadRecords();
    const half = bytes.subarray(0, Math.floor(bytes.byteLength / 2));
    await expect(readEpisodeTrace([half], { file: 'half.mcap' })).rejects.toThrow(
      /half\.mcap.*no success label.*the file is truncated after byte \d+ \(unfinished recording\): any label recorded after that point is lost/,
    );
  });
});
