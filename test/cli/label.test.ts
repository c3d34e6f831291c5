import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import {
  NodeFileWritable,
  effectiveLabel,
  readEpisode,
  readEpisodeTrace,
  readLabels,
  startEpisodeInDir,
} from '../../src/episode/index.js';
import { ManualClock, ManualTimers } from '../../src/util/index.js';
import { newRecorder, recordSteps, T0 } from '../episode/support/episode-fixture.js';
import { captureIo } from '../support/cli-io.js';
import { SignalFrame } from '../../src/schema/signals.js';
import { scanBag } from '../../src/mcap/index.js';
import { fileSource } from '../../src/platform/file-source.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
async function unlabelledEpisode(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'armguard-label-'));
  dirs.push(dir);
  const path = join(dir, 'ep.mcap');
  const { recorder } = newRecorder(await NodeFileWritable.create(path));
  recordSteps(recorder, 0, 20);
  await recorder.end(T0 + 1, 'done');
  return path;
}

describe('armguard label <episode.mcap>', () => {
  it('appends success, task, manual verdicts and a note; recorded data is untouched; a later label corrects an earlier one', async () => {
    const path = await unlabelledEpisode();
    const before: string[] = [];
    await readEpisode(
      path,
      (r) => r.kind !== 'label' && before.push(JSON.stringify(r.kind === 'ros' ? r.topic : r.value)),
    );
    await expect(readEpisodeTrace(path)).rejects.toThrow(
      /no success label \(label it with: armguard label <file> --success \| --failure\)/,
    );

    const io = captureIo();
    const code = await main(
      [
        'label',
        path,
        '--failure',
        '--task',
        'sim-pick-cup-into-box',
        '--manual',
        'non_target_max_disp=violated,joint_torque=satisfied',
        '--note',
        'cup knocked over',
        '--by',
        'ana',
      ],
      io.io,
    );
    expect(io.err).toEqual([]);
    expect(code).toBe(0);
    expect(io.out[0]).toMatch(/label appended/);
    expect(await main(['label', path, '--success'], captureIo().io)).toBe(0);

    const { history: labels, effective } = await readLabels(path);
    expect(labels).toHaveLength(2);
    expect(labels[0]).toMatchObject({
      source: 'operator',
      by: 'ana',
      success: false,
      taskId: 'sim-pick-cup-into-box',
      manual: { non_target_max_disp: 'violated', joint_torque: 'satisfied' },
      note: 'cup knocked over',
    });
    expect(effective).toEqual(effectiveLabel(labels));
    expect(effective).toMatchObject({
      success: true,
      taskId: 'sim-pick-cup-into-box',
      manual: { non_target_max_disp: 'violated' },
    });
    const after: string[] = [];
    await readEpisode(
      path,
      (r) => r.kind !== 'label' && after.push(JSON.stringify(r.kind === 'ros' ? r.topic : r.value)),
    );
    expect(after).toEqual(before);
    expect((await readEpisodeTrace(path)).labels.effective.success).toBe(true);
  });

  it('updates the episode index beside the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'armguard-label-idx-'));
    dirs.push(dir);
    const clock = new ManualClock(T0);
    const ep = await startEpisodeInDir(
      dir,
      {
        episodeId: 'e1',
        robotId: 'r',
        task: 't',
        startedAt: '2026-11-29T00:00:00Z',
        t0: T0,
        clauses: ['joint_torque'],
      },
      { timers: new ManualTimers(clock) },
    );
    await ep.finish(T0 + 1, 'done');
    expect(await main(['label', ep.path, '--success'], captureIo().io)).toBe(0);
    const lines = readFileSync(join(dir, 'episodes.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { success?: boolean });
    expect(lines.at(-1)!.success).toBe(true);
  });

  it('one time base per file: a label appended to an episode on a monotonic clock is stamped at the end of its data, not at Unix time', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'armguard-label-mono-'));
    dirs.push(dir);
    const clock = new ManualClock(5); // a monotonic clock: 5 s since boot
    const ep = await startEpisodeInDir(
      dir,
      { episodeId: 'e1', robotId: 'r', task: 't', startedAt: '2026-11-29T00:00:00Z', t0: 5, clauses: ['joint_torque'] },
      { timers: new ManualTimers(clock) },
    );
    for (let k = 0; k < 20; k++) {
      const f = new SignalFrame();
      f.t = 5 + k * 0.01;
      ep.recorder.frame(f);
    }
    await ep.finish(6, 'done');
    const wallBefore = Date.now() / 1000;
    expect(await main(['label', ep.path, '--success'], captureIo().io)).toBe(0);
    const logTimes: { topic: string; ns: bigint }[] = [];
    await scanBag(fileSource(ep.path), (m) => logTimes.push({ topic: m.topic, ns: m.logTime }));
    const dataEnd = logTimes.filter((m) => m.topic !== '/armguard/labels').reduce((a, m) => (m.ns > a ? m.ns : a), 0n);
    const label = logTimes.find((m) => m.topic === '/armguard/labels')!;
    expect(dataEnd).toBe(6_000_000_000n);
    expect(label.ns).toBe(dataEnd);
    const { history } = await readLabels(ep.path);
    expect(history[0]!.t).toBe(6);
    expect(history[0]!.wallTime).toBeGreaterThanOrEqual(wallBefore);
  });

  it('refuses bad requests with the reason, and writes nothing', async () => {
    const path = await unlabelledEpisode();
    const cases: [string[], RegExp][] = [
      [['label', path], /nothing to label/],
      [['label', path, '--success', '--failure'], /contradict/],
      [
        ['label', path, '--manual', 'non_target_max_dsp=violated'],
        /unknown clause 'non_target_max_dsp' \(did you mean 'non_target_max_disp'\?\)/,
      ],
      [
        ['label', path, '--manual', 'joint_torque=maybe'],
        /must be one of violated, satisfied, not_applicable, got 'maybe'/,
      ],
      [
        ['label', path, '--task', 'sim-pick-cup-into-bx'],
        /unknown task 'sim-pick-cup-into-bx' \(did you mean 'sim-pick-cup-into-box'\?\)/,
      ],
      [['label'], /give exactly one episode file/],
    ];
    for (const [args, message] of cases) {
      const io = captureIo();
      expect(await main(args, io.io)).toBe(2);
      expect(io.err.join('\n')).toMatch(message);
    }
    expect((await readLabels(path)).history).toEqual([]);
    const io = captureIo();
    expect(await main(['label', join(tmpdir(), 'no-such-episode.mcap'), '--success'], io.io)).toBe(1);
    expect(io.err.join('\n')).toMatch(/no-such-episode\.mcap/);
  });
});
