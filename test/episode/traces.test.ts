import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NodeFileWritable, MemoryFileWritable, episodeTraces, readEpisodeTrace } from '../../src/episode/index.js';
import type { EpisodeTrace } from '../../src/schema/trace.js';
import { InputError } from '../../src/util/index.js';
import { T0, frameAt, newRecorder, recordSteps } from './support/episode-fixture.js';

async function episode(path: string, steps: number, success: boolean | undefined) {
  const { recorder } = newRecorder(await NodeFileWritable.create(path));
  recordSteps(recorder, 0, steps);
  if (success !== undefined) recorder.label({ success, t: T0 + 1 });
  await recorder.end(T0 + 1, 'done');
}

describe('episode traces for scoring', () => {
  it('streams the traces of a folder one at a time, in file order; unscorable files go to onError', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'armguard-traces-'));
    await episode(join(dir, 'ep-1.mcap'), 12, true);
    await episode(join(dir, 'ep-2.mcap'), 7, false);
    await episode(join(dir, 'ep-3.mcap'), 5, undefined); // never labeled
    writeFileSync(join(dir, 'notes.txt'), 'not an episode');
    writeFileSync(join(dir, 'junk.mcap'), 'not an mcap file');
    const seen: [string, number, boolean][] = [];
    const errors: [string, string][] = [];
    for await (const trace of episodeTraces(dir, {
      onError: (file, e) => errors.push([file.split('/').pop()!, e.message]),
    })) {
      const scorable: EpisodeTrace = trace; // the scorer's type, unchanged
      seen.push([scorable.file!.split('/').pop()!, scorable.times.length, scorable.meta.success]);
    }
    expect(seen).toEqual([
      ['ep-1.mcap', 12, true],
      ['ep-2.mcap', 7, false],
    ]);
    expect(errors.map(([f]) => f)).toEqual(['ep-3.mcap', 'junk.mcap']);
    expect(errors[0]![1]).toMatch(/ep-3\.mcap field 'labels\.success': episode has no success label/);
    expect(errors[1]![1]).toMatch(/junk\.mcap: not an armguard episode file .*corrupt at byte 0/);
    const assumed = await readEpisodeTrace(join(dir, 'ep-3.mcap'), { defaultSuccess: false });
    expect(assumed.meta.success).toBe(false);
  });

  it('frames whose time does not increase are refused with their position', async () => {
    const mem = new MemoryFileWritable();
    const { recorder } = newRecorder(mem);
    recorder.frame(frameAt(0));
    recorder.frame(frameAt(1));
    recorder.frame(frameAt(1));
    recorder.label({ success: true });
    await recorder.end(T0 + 1, 'done');
    const err = await readEpisodeTrace([mem.bytes()], { file: 'dup.mcap' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).message).toMatch(/^dup\.mcap field 'frame 2': frame time .* is not after/);
  });
});
