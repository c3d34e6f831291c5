/**
 * Issue 14 item 7: one corrupt byte inside a chunk used to end reading there (`repair` kept 196 of
 * 1,539 messages and exited 0). Now the damaged chunk alone is skipped, everything after it is
 * kept, and `repair` and `report` exit non-zero saying how much was lost. The damage is real:
 * a byte flipped on disk inside a chunk's records (CRC mismatch), or in a chunk's length field
 * (broken framing, found again by resynchronising on the next record).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McapIndexedReader } from '@mcap/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TolerantMcapScanner } from '../../src/mcap/mcap-scan.js';
import { main } from '../../src/cli/main.js';
import { EpisodeRecorder, NodeFileWritable, MemoryFileWritable, readEpisode } from '../../src/episode/index.js';
import { SignalFrame, signalIndex } from '../../src/schema/signals.js';
import { ManualClock, ManualTimers } from '../../src/util/index.js';
import { BASELINE, DT } from '../report/support/build-fixture.js';
import { captureIo } from '../support/cli-io.js';
import { T0, newRecorder, recordSteps } from '../episode/support/episode-fixture.js';

/** Every message of a whole file, in file order, keyed by channel topic, sequence and log time. */
function messagesOf(bytes: Uint8Array): string[] {
  const s = new TolerantMcapScanner();
  s.append(bytes);
  s.finish();
  const topics = new Map<number, string>();
  const out: string[] = [];
  for (let r = s.next(); r; r = s.next()) {
    if (r.type === 'Channel') topics.set(r.id, r.topic);
    if (r.type === 'Message') out.push(`${topics.get(r.channelId)}#${r.sequence}@${r.logTime}`);
  }
  return out;
}

async function chunkIndexes(bytes: Uint8Array) {
  const reader = await McapIndexedReader.Initialize({
    readable: {
      size: async () => BigInt(bytes.byteLength),
      read: async (o, n) => bytes.subarray(Number(o), Number(o + n)),
    },
  });
  return reader.chunkIndexes;
}

async function recordEpisode(dir: string, name: string): Promise<string> {
  const path = join(dir, name);
  const { recorder } = newRecorder(await NodeFileWritable.create(path), { chunkSize: 16_000 });
  recordSteps(recorder, 0, 3000);
  await recorder.end(T0 + 31, 'done');
  return path;
}

describe('a corrupt chunk costs only that chunk', () => {
  it('a flipped byte inside a chunk: repair skips that chunk, keeps every other message and exits 1 with the count', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'armguard-fault-repair-'));
    const path = await recordEpisode(dir, 'ep.mcap');
    const clean = new Uint8Array(readFileSync(path));
    const before = messagesOf(clean);
    // The third chunk (from the clean file's own index): flip a byte in the middle of its records.
    const chunks = await chunkIndexes(clean);
    expect(chunks.length).toBeGreaterThan(10);
    const hit = chunks[2]!;
    const at = Number(hit.chunkStartOffset) + Math.floor(Number(hit.chunkLength) / 2);
    const damaged = clean.slice();
    damaged[at] = damaged[at]! ^ 0x20;
    writeFileSync(path, damaged);

    const { io, out, err } = captureIo();
    const code = await main(['repair', path, '--out', join(dir, 'fixed.mcap')], io);
    const after = messagesOf(new Uint8Array(readFileSync(join(dir, 'fixed.mcap'))));
    // What is missing is one contiguous run of the original messages: the damaged chunk's.
    const kept = new Set(after);
    const missing = before.filter((m) => !kept.has(m));
    const firstMissing = before.indexOf(missing[0]!);
    expect(missing).toEqual(before.slice(firstMissing, firstMissing + missing.length));
    expect(after).toEqual(before.filter((m) => kept.has(m))); // order kept, nothing invented
    expect(missing.length).toBeGreaterThan(0);
    expect(missing.length).toBeLessThan(before.length / 10);
    expect(code).toBe(1);
    expect(out.join('\n')).toMatch(
      new RegExp(
        `1 damaged region\\(s\\) skipped \\(\\d+ bytes, ${missing.length} messages lost; first at byte ${Number(hit.chunkStartOffset)}: .*CRC`,
      ),
    );
    expect(err.join('\n')).toContain(
      `data lost: ${missing.length} message(s) could not be recovered (kept ${after.length})`,
    );

    // The episode reader (behind `report` and `label`) reads past the damage too.
    let frames = 0;
    const scan = await readEpisode(path, (r) => void (r.kind === 'frame' && frames++));
    expect(scan.end).toEqual({ kind: 'complete' });
    expect(scan.skipped).toHaveLength(1);
    expect(scan.skipped[0]!.messages).toBe(missing.length);
    expect(frames).toBe(after.filter((m) => m.startsWith('/armguard/signals#')).length);
    expect(frames).toBeGreaterThan(2700);
  });

  it('a broken chunk length: the scan resynchronises on the next chunk and says the count is unknown', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'armguard-fault-repair-'));
    const path = await recordEpisode(dir, 'ep.mcap');
    const clean = new Uint8Array(readFileSync(path));
    const before = messagesOf(clean);
    const hit = (await chunkIndexes(clean))[4]!;
    const damaged = clean.slice();
    damaged[Number(hit.chunkStartOffset) + 6] = 0x7f; // length field's high bytes: claims terabytes
    writeFileSync(path, damaged);
    const { io, out, err } = captureIo();
    expect(await main(['repair', path, '--out', join(dir, 'fixed.mcap')], io)).toBe(1);
    const after = messagesOf(new Uint8Array(readFileSync(join(dir, 'fixed.mcap'))));
    const kept = new Set(after);
    const missing = before.filter((m) => !kept.has(m));
    expect(missing.length).toBeGreaterThan(0);
    expect(missing.length).toBeLessThan(before.length / 10);
    expect(out.join('\n')).toMatch(
      /1 damaged region\(s\) skipped .*an unknown number of messages lost; first at byte \d+: record claims/,
    );
    expect(err.join('\n')).toMatch(/data lost: an unknown number of message\(s\) could not be recovered/);
  });

  it('armguard report over a folder with a damaged episode exits 1 and names the damage', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'armguard-fault-report-'));
    const path = join(dir, 'ep.mcap');
    const timers = new ManualTimers(new ManualClock(0));
    const recorder = EpisodeRecorder.start(
      await NodeFileWritable.create(path),
      {
        episodeId: 'ep',
        robotId: 'r1',
        platform: 'sim',
        task: 'libero-spatial-pick-bowl',
        policy: 'pi0',
        startedAt: '2026-11-29T15:00:00.000Z',
        t0: T0,
        clauses: [],
      },
      { timers, file: 'ep.mcap', chunkSize: 8_000 },
    );
    for (let k = 0; k < 600; k++) {
      const f = new SignalFrame();
      f.t = T0 + k * DT;
      for (const [name, value] of Object.entries(BASELINE)) f.set(signalIndex(name)!, value, f.t, 'fixture');
      recorder.frame(f);
    }
    recorder.label({ success: true, t: T0 + 600 * DT, source: 'operator' });
    await recorder.end(T0 + 600 * DT, 'done');
    const clean = new Uint8Array(readFileSync(path));
    const hit = (await chunkIndexes(clean))[2]!;
    const damaged = clean.slice();
    const at = Number(hit.chunkStartOffset) + Math.floor(Number(hit.chunkLength) / 2);
    damaged[at] = damaged[at]! ^ 0x20;
    writeFileSync(path, damaged);
    const { io, err } = captureIo();
    const code = await main(
      ['report', dir, '--out', join(dir, 'report'), '--resamples', '200', '--no-sensitivity'],
      io,
    );
    expect(err.join('\n')).toMatch(/ep\.mcap: complete; 1 damaged region\(s\) skipped \(\d+ bytes, \d+ messages lost/);
    expect(err.join('\n')).toMatch(/1 episode file\(s\) had damaged regions skipped/);
    expect(code).toBe(1);
  });
});

describe('property: one corrupt byte in any chunk costs at most that chunk', () => {
  it('every message outside the damaged chunk is read, in order; the chunk is read whole or not at all; nothing is invented', async () => {
    const mem = new MemoryFileWritable();
    const { recorder } = newRecorder(mem, { chunkSize: 6_000 });
    recordSteps(recorder, 0, 400);
    await recorder.end(T0 + 5, 'done');
    const clean = mem.bytes();
    const all = messagesWithChunk(clean);
    const chunks = await chunkIndexes(clean);
    expect(chunks.length).toBeGreaterThan(8);
    fc.assert(
      fc.property(fc.nat({ max: chunks.length - 1 }), fc.nat(), fc.integer({ min: 1, max: 255 }), (k, where, xor) => {
        const c = chunks[k]!;
        const at = Number(c.chunkStartOffset) + (where % Number(c.chunkLength));
        const bytes = clean.slice();
        bytes[at] = bytes[at]! ^ xor;
        const read = messagesOf(bytes);
        const inChunk = all.filter((m) => m.chunk === k).map((m) => m.key);
        const outside = all.filter((m) => m.chunk !== k).map((m) => m.key);
        const readSet = new Set(read);
        expect(outside.filter((m) => !readSet.has(m))).toEqual([]);
        const present = inChunk.filter((m) => readSet.has(m)).length;
        expect([0, inChunk.length]).toContain(present);
        const expected = present === 0 ? outside : all.map((m) => m.key);
        expect(read).toEqual(expected);
      }),
      { numRuns: 150 },
    );
  });
});

/** Messages of a clean file with the index of the chunk that holds each (from the chunk indexes' offsets). */
function messagesWithChunk(bytes: Uint8Array): { key: string; chunk: number }[] {
  const s = new TolerantMcapScanner();
  s.append(bytes);
  s.finish();
  const topics = new Map<number, string>();
  const out: { key: string; chunk: number }[] = [];
  let chunk = -1;
  let lastOffset = -1;
  for (let r = s.next(); r; r = s.next()) {
    if (r.type === 'Channel') topics.set(r.id, r.topic);
    if (r.type === 'Message') {
      // Messages come out chunk by chunk; the scanner's offset moves past a chunk once its first message is out.
      if (s.offset !== lastOffset) {
        chunk++;
        lastOffset = s.offset;
      }
      out.push({ key: `${topics.get(r.channelId)}#${r.sequence}@${r.logTime}`, chunk });
    }
  }
  return out;
}
