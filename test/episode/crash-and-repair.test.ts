/**
 * design §12: an episode file survives its recorder being killed. A real child process records with
 * real timers and is SIGKILLed after it reports a flush; the file reads back with every sample up
 * to the last reported flush, and `repair` (library and CLI) turns it into an indexed file with
 * the same messages.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McapIndexedReader } from '@mcap/core';
import { describe, expect, it } from 'vitest';
import { TolerantMcapScanner } from '../../src/mcap/mcap-scan.js';
import { scanBag } from '../../src/mcap/reader.js';
import { fileSource } from '../../src/platform/file-source.js';
import {
  NodeFileWritable,
  readEpisode,
  repairMcapFile,
  indexEpisodeFile,
  type EpisodeRecord,
} from '../../src/episode/index.js';
import { main } from '../../src/cli/main.js';
import { repoRoot } from '../support/paths.js';
import { T0, frameAt, newRecorder, recordSteps } from './support/episode-fixture.js';

function recordUntilKilled(path: string, minFrames: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(repoRoot, 'test/episode/support/record-until-killed.ts'), path],
      { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let lastFlushed = 0;
    let buffer = '';
    let stderr = '';
    const timeout = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`child did not report ${minFrames} flushed frames in time; stderr: ${stderr}`));
    }, 25_000);
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      buffer += d.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop()!;
      for (const line of lines) {
        const m = /^flushed (\d+)$/.exec(line);
        if (m) lastFlushed = Number(m[1]);
        if (lastFlushed >= minFrames && !child.killed) child.kill('SIGKILL');
      }
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timeout);
      if (signal === 'SIGKILL' && lastFlushed >= minFrames) resolve(lastFlushed);
      else
        reject(
          new Error(`child exited (code ${code}, signal ${signal}) after ${lastFlushed} frames; stderr: ${stderr}`),
        );
    });
  });
}

async function messagesOf(path: string) {
  const all: { topic: string; logTime: bigint; data: string }[] = [];
  const scanner = new TolerantMcapScanner();
  scanner.append(readFileSync(path));
  const topics = new Map<number, string>();
  for (let r = scanner.next(); r; r = scanner.next()) {
    if (r.type === 'Channel') topics.set(r.id, r.topic);
    if (r.type === 'Message')
      all.push({ topic: topics.get(r.channelId)!, logTime: r.logTime, data: Buffer.from(r.data).toString('base64') });
  }
  return all;
}

describe('a recorder killed mid-episode', () => {
  const dir = mkdtempSync(join(tmpdir(), 'armguard-crash-'));
  const path = join(dir, 'crash.mcap');
  let flushed = 0;

  it('leaves a file with every sample up to the last flush', async () => {
    flushed = await recordUntilKilled(path, 300);
    const frames: Extract<EpisodeRecord, { kind: 'frame' }>[] = [];
    let ros = 0;
    const scan = await readEpisode(path, (r) => {
      if (r.kind === 'frame') frames.push(r);
      if (r.kind === 'ros') {
        expect(r.decode()).toMatchObject({ name: expect.arrayContaining(['fr3_joint1']) });
        ros++;
      }
    });
    expect(scan.end.kind).toBe('truncated');
    expect(scan.errors).toEqual([]);
    expect(scan.start?.episodeId).toBe('crash-1');
    expect(frames.length).toBeGreaterThanOrEqual(flushed);
    // contiguous from the first sample, values as recorded
    frames.forEach((f, k) => {
      const expected = frameAt(k);
      expect(f.t).toBe(expected.t);
      expect(f.value.values[2]).toBe(expected.values[2]);
    });
    expect(ros).toBe(Math.ceil(frames.length / 10));
  }, 40_000);

  it('repair writes an indexed file with the same messages', async () => {
    const out = join(dir, 'crash-repaired.mcap');
    const report = await repairMcapFile(path, out);
    expect(report.inputEnd.kind).toBe('truncated');
    const before = await messagesOf(path);
    expect(report.messages).toBe(before.length);
    const bytes = new Uint8Array(readFileSync(out));
    const reader = await McapIndexedReader.Initialize({
      readable: {
        size: async () => BigInt(bytes.byteLength),
        read: async (o, n) => bytes.subarray(Number(o), Number(o + n)),
      },
    });
    expect(reader.statistics!.messageCount).toBe(BigInt(before.length));
    expect(reader.metadataIndexes.map((m) => m.name).sort()).toEqual(['armguard.episode', 'rosbag2']);
    const after: { topic: string; logTime: bigint; data: string }[] = [];
    for await (const m of reader.readMessages())
      after.push({
        topic: reader.channelsById.get(m.channelId)!.topic,
        logTime: m.logTime,
        data: Buffer.from(m.data).toString('base64'),
      });
    const key = (m: { topic: string; logTime: bigint; data: string }) => `${m.logTime}|${m.topic}|${m.data}`;
    expect(after.map(key).sort()).toEqual(before.map(key).sort());
    expect(await messagesOf(out)).toEqual(before); // file order kept too
    const entry = await indexEpisodeFile(out);
    expect(entry).toMatchObject({ episodeId: 'crash-1', state: 'complete' });
    expect(entry.counts['frame']).toBeGreaterThanOrEqual(flushed);
  });

  it('a corrupt byte early in a large file: repair skips the damaged chunk and keeps the rest (issue 14 item 7)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'armguard-corrupt-'));
    const path = join(dir, 'big.mcap');
    const { recorder } = newRecorder(await NodeFileWritable.create(path), { chunkSize: 16_000 });
    recordSteps(recorder, 0, 3000);
    await recorder.end(T0 + 31, 'done');
    const bytes = readFileSync(path);
    const total = (await messagesOf(path)).length;
    bytes[20_000] = bytes[20_000]! ^ 0xff;
    writeFileSync(path, bytes);
    const report = await repairMcapFile(path, join(dir, 'fixed.mcap'));
    expect(report.inputEnd).toEqual({ kind: 'complete' });
    expect(report.discardedBytes).toBe(0);
    expect(report.skipped).toHaveLength(1);
    expect(report.skipped[0]!.offset).toBeLessThanOrEqual(20_000);
    expect(report.skipped[0]!.offset + report.skipped[0]!.length).toBeGreaterThan(20_000);
    expect(report.messages + report.skipped[0]!.messages!).toBe(total);
    expect(report.messages).toBeGreaterThan(total * 0.9);
  });

  it('armguard repair <file> repairs in place and keeps the original as .bak', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(['repair', path], { out: (t) => out.push(t), err: (t) => err.push(t) });
    // Killed mid-write, the file may end inside a record: those bytes are lost, and repair says so (exit 1).
    const partial = /(\d+) trailing bytes could not be recovered/.exec(out.join('\n'));
    expect(err).toEqual(
      partial ? [expect.stringMatching(/data lost: an unknown number of message\(s\) could not be recovered/)] : [],
    );
    expect(code).toBe(partial ? 1 : 0);
    expect(out.join('\n')).toMatch(/truncated after byte \d+.*wrote .*crash\.mcap \(indexed\)/s);
    expect(existsSync(`${path}.bak`)).toBe(true);
    expect(await messagesOf(path)).toEqual(await messagesOf(`${path}.bak`));
    const refused: string[] = [];
    expect(await main(['repair', path], { out: () => {}, err: (t) => refused.push(t) })).toBe(1);
    expect(refused.join('\n')).toMatch(/crash\.mcap\.bak already exists/);
    const again: string[] = [];
    expect(
      await main(['repair', path, '--out', join(dir, 'again.mcap')], { out: (t) => again.push(t), err: () => {} }),
    ).toBe(0);
    expect(again.join('\n')).toContain(': complete;');
  });

  it('--ros-only exports a plain rosbag2 file (one serialization format, as SequentialReader requires)', async () => {
    const out = join(dir, 'ros-only.mcap');
    expect(await main(['repair', path, '--out', out, '--ros-only'], { out: () => {}, err: () => {} })).toBe(0);
    const summary = await scanBag(fileSource(out));
    expect(summary.end).toEqual({ kind: 'complete' });
    expect(summary.topics.map((t) => [t.topic, t.type, t.messageEncoding, t.schemaEncoding])).toEqual([
      ['/joint_states', 'sensor_msgs/msg/JointState', 'cdr', 'ros2msg'],
    ]);
    expect(summary.messageCount).toBe(summary.topics[0]!.messageCount);
    const info = summary.rosbag2Metadata as { message_count: bigint };
    expect(info.message_count).toBe(BigInt(summary.messageCount));
  });
});
