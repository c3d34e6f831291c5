import { appendFileSync, copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McapIndexedReader } from '@mcap/core';
import { describe, expect, it } from 'vitest';
import {
  NodeFileWritable,
  INDEX_FILE_NAME,
  appendIndexEntry,
  appendLabel,
  effectiveLabel,
  indexKey,
  labelRecordFrom,
  readEpisode,
  readIndex,
  readLabels,
  rebuildIndex,
  startEpisodeInDir,
  type LabelRecord,
} from '../../src/episode/index.js';
import { ManualClock, ManualTimers } from '../../src/util/index.js';
import { InputError } from '../../src/util/index.js';
import { T0, newRecorder, recordSteps } from './support/episode-fixture.js';

async function recordTo(path: string, steps = 30) {
  const { recorder } = newRecorder(await NodeFileWritable.create(path));
  recordSteps(recorder, 0, steps);
  recorder.label({ success: false, taskId: 'pick-cube', source: 'operator', t: T0 + 1 });
  return recorder.end(T0 + 1, 'done');
}

async function frameBytes(path: string): Promise<string[]> {
  const out: string[] = [];
  await readEpisode(path, (r) => {
    if (r.kind !== 'label') out.push(JSON.stringify(r.kind === 'ros' ? r.topic : r.value));
  });
  return out;
}

describe('labels', () => {
  it('the effective label folds the history field by field; later records win', () => {
    const h: LabelRecord[] = [
      {
        t: 1,
        source: 'operator',
        success: true,
        taskId: 'pick',
        objectTags: ['mug'],
        manual: { a: 'violated', b: 'satisfied' },
      },
      { t: 2, source: 'mqtt', note: 'spilled' },
      { t: 3, source: 'ros2', success: false, objectTags: ['mug', 'fragile'], manual: { b: 'violated' } },
    ];
    expect(effectiveLabel(h)).toEqual({
      success: false,
      taskId: 'pick',
      taskTags: [],
      objectTags: ['mug', 'fragile'],
      manual: { a: 'violated', b: 'violated' },
      note: 'spilled',
      labeledAt: 3,
    });
    expect(effectiveLabel([])).toEqual({ taskTags: [], objectTags: [], manual: {} });
  });

  it('validates labels from untrusted transports, naming the field', () => {
    const bad = (input: Record<string, unknown>) => {
      try {
        labelRecordFrom(input, 0, 'mqtt:armguard/label');
      } catch (e) {
        expect(e).toBeInstanceOf(InputError);
        return (e as InputError).message;
      }
      throw new Error('accepted');
    };
    expect(bad({ success: 'yes' })).toBe("mqtt:armguard/label field 'success': expected true or false");
    expect(bad({ manual: { grasp: 'maybe' } })).toMatch(
      /field 'manual.grasp': expected one of violated, satisfied, not_applicable/,
    );
    expect(bad({ objectTags: ['ok', 3] })).toMatch(/field 'objectTags'/);
    expect(bad({ sucess: true })).toMatch(/field 'sucess': unknown label field/);
    expect(bad({ source: 'email' })).toMatch(/field 'source'/);
    expect(labelRecordFrom({ success: true }, 42)).toEqual({ t: 42, source: 'api', success: true });
  });

  it('relabeling a finished file appends; recorded data is untouched and the history is readable', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'armguard-labels-'));
    const path = join(dir, 'ep-001.mcap');
    const index = join(dir, INDEX_FILE_NAME);
    const entry = await recordTo(path);
    await appendIndexEntry(index, { ...entry, file: indexKey(index, path) });
    const before = readFileSync(path);
    const dataBefore = await frameBytes(path);

    await appendLabel(
      path,
      { success: true, source: 'mqtt', by: 'pilot-2', manual: { stable_grasp_maintained: 'violated' }, t: T0 + 100 },
      { index },
    );
    await appendLabel(path, { note: 'video reviewed', source: 'operator', t: T0 + 200 }, { index });

    const after = readFileSync(path);
    // the data section of the original (everything before its DataEnd record) is byte-identical
    const original = await McapIndexedReader.Initialize({
      readable: {
        size: async () => BigInt(before.length),
        read: async (o, n) => before.subarray(Number(o), Number(o + n)),
      },
    });
    const dataEnd = Number(original.dataEndOffset);
    expect(dataEnd).toBeGreaterThan(1000);
    expect(after.subarray(0, dataEnd).equals(before.subarray(0, dataEnd))).toBe(true);
    expect(after.length).toBeGreaterThan(before.length);
    expect(await frameBytes(path)).toEqual(dataBefore);
    const { history, effective } = await readLabels(path);
    expect(history.map((h) => [h.source, h.success, h.note])).toEqual([
      ['operator', false, undefined],
      ['mqtt', true, undefined],
      ['operator', undefined, 'video reviewed'],
    ]);
    expect(effective).toMatchObject({
      success: true,
      taskId: 'pick-cube',
      note: 'video reviewed',
      manual: { stable_grasp_maintained: 'violated' },
    });
    // index: appended lines, last one wins
    expect(readFileSync(index, 'utf8').trim().split('\n')).toHaveLength(3);
    expect((await readIndex(index)).get('ep-001.mcap')).toMatchObject({
      success: true,
      task: 'pick-cube',
      episodeId: 'ep-001',
    });
  });

  it('an unfinished file must be repaired before labels are appended to it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'armguard-labels-'));
    const path = join(dir, 'ep.mcap');
    await recordTo(path);
    const cut = join(dir, 'cut.mcap');
    copyFileSync(path, cut);
    const bytes = readFileSync(path);
    writeFileSync(cut, bytes.subarray(0, bytes.length - 500));
    await expect(appendLabel(cut, { success: true })).rejects.toThrow(/run 'armguard repair .*cut\.mcap' first/);
    await expect(appendLabel(path, { success: 'no' } as never)).rejects.toThrow(/field 'success'/);
  });

  it('the index streams back last-line-wins and is rebuilt from the files', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'armguard-index-'));
    await recordTo(join(dir, 'a.mcap'), 10);
    await recordTo(join(dir, 'b.mcap'), 20);
    const result = await rebuildIndex(dir);
    expect(result).toEqual({ indexed: 2, skipped: [] });
    const entries = await readIndex(join(dir, INDEX_FILE_NAME));
    expect([...entries.keys()]).toEqual(['a.mcap', 'b.mcap']);
    expect(entries.get('b.mcap')).toMatchObject({
      episodeId: 'ep-001',
      robotId: 'fr3-lab-a',
      success: false,
      state: 'complete',
      counts: { frame: 20, robustness: 20 },
    });
    expect(entries.get('b.mcap')!.clauses!['joint_torque']).toEqual({ minRho: 87 - 39, violatedSteps: 0 });
    appendFileSync(join(dir, INDEX_FILE_NAME), '{not json\n');
    await expect(readIndex(join(dir, INDEX_FILE_NAME))).rejects.toThrow(/episodes\.jsonl:3: invalid JSON/);
  });
});

describe('episodes in a folder', () => {
  it('records <id>.mcap, appends the index line at the end, refuses duplicate and unsafe ids', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'armguard-dir-')), 'pilot-1');
    const timers = new ManualTimers(new ManualClock(0));
    const start = { episodeId: 'ep-0001', robotId: 'so101-a', startedAt: '2026-11-29T15:00:00Z', t0: T0 };
    const ep = await startEpisodeInDir(dir, start, { timers });
    recordSteps(ep.recorder, 0, 5);
    ep.recorder.label({ success: true });
    const entry = await ep.finish(T0 + 1, 'done');
    expect(ep.path).toBe(join(dir, 'ep-0001.mcap'));
    expect((await readIndex(join(dir, INDEX_FILE_NAME))).get('ep-0001.mcap')).toEqual(entry);
    await expect(startEpisodeInDir(dir, start, { timers })).rejects.toThrow(
      /ep-0001\.mcap field 'episodeId': an episode with this id is already recorded here/,
    );
    await expect(startEpisodeInDir(dir, { ...start, episodeId: '../escape' }, { timers })).rejects.toThrow(
      /field 'episodeId'/,
    );
  });
});
