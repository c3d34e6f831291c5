/**
 * Fuzz of the tolerant reading path (design §12: MCAP files are untrusted input): truncated, corrupted
 * and arbitrarily split episode files and real rosbag2 bags never make the readers throw an
 * unpositioned error or loop; a truncated file yields exactly a prefix of the full file's records.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { TolerantMcapScanner } from '../../src/mcap/mcap-scan.js';
import { scanBag } from '../../src/mcap/reader.js';
import { MemoryFileWritable, readEpisode, type EpisodeRecord } from '../../src/episode/index.js';
import { InputError } from '../../src/util/index.js';
import { sharedDir } from '../support/paths.js';
import { T0, newRecorder, recordSteps } from './support/episode-fixture.js';
import { jointState } from '../mcap/support/franka-fixtures.js';

let full: Uint8Array;
let fullRecords: string[];

const describeRecord = (r: EpisodeRecord): string =>
  r.kind === 'ros' ? `ros ${r.topic} ${r.t}` : `${r.kind} ${JSON.stringify(r.value)}`;

async function readBytes(bytes: Uint8Array, pieces: Uint8Array[] = [bytes]) {
  const records: string[] = [];
  const scan = await readEpisode(
    pieces,
    (r) => {
      if (r.kind === 'ros') {
        try {
          r.decode();
        } catch (e) {
          expect(e).toBeInstanceOf(InputError);
          expect((e as InputError).where.file).toBe('fuzz.mcap');
          expect((e as InputError).where.field).toContain(r.topic);
        }
      }
      records.push(describeRecord(r));
    },
    { file: 'fuzz.mcap' },
  );
  return { records, scan };
}

/** Drive the scanner by hand with an iteration cap: it must stop consuming on its own. */
function scanCapped(bytes: Uint8Array): number {
  const s = new TolerantMcapScanner();
  s.append(bytes);
  let n = 0;
  while (s.next()) {
    n++;
    if (n > bytes.byteLength) throw new Error('scanner produced more records than bytes: looping');
  }
  const end = s.end();
  if (end.kind !== 'complete') expect(end.offset).toBeLessThanOrEqual(bytes.byteLength);
  return n;
}

beforeAll(async () => {
  const mem = new MemoryFileWritable();
  const { recorder } = newRecorder(mem, { chunkSize: 3000 });
  await recorder.addRosTopic({ topic: '/joint_states', type: 'sensor_msgs/msg/JointState' });
  recordSteps(recorder, 0, 40);
  for (let k = 0; k < 5; k++)
    recorder.rosMessage(
      '/joint_states',
      T0 + k * 0.1,
      jointState(BigInt(T0) * 1_000_000_000n + BigInt(k) * 100_000_000n, k),
    );
  recorder.label({ success: true, t: T0 + 1 });
  await recorder.end(T0 + 1, 'done');
  full = mem.bytes();
  const r = await readBytes(full);
  expect(r.scan.end).toEqual({ kind: 'complete' });
  fullRecords = r.records;
});

describe('tolerant episode reader under fuzz', () => {
  it('any truncation reads a prefix of the full record list and reports where it stopped', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 100_000 }), async (raw) => {
        const len = raw % (full.byteLength + 1);
        const { records, scan } = await readBytes(full.subarray(0, len));
        expect(records).toEqual(fullRecords.slice(0, records.length));
        if (len === full.byteLength) expect(scan.end.kind).toBe('complete');
        else {
          expect(scan.end.kind).toBe('truncated');
          expect(scan.end.kind === 'truncated' && scan.end.offset).toBeLessThanOrEqual(len);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('arbitrary piece boundaries give the same records as one piece', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 1, max: 4000 }), { minLength: 1, maxLength: 40 }), async (sizes) => {
        const pieces: Uint8Array[] = [];
        let o = 0;
        for (let i = 0; o < full.byteLength; i++) {
          const n = sizes[i % sizes.length]!;
          pieces.push(full.subarray(o, o + n));
          o += n;
        }
        const { records, scan } = await readBytes(full, pieces);
        expect(scan.end).toEqual({ kind: 'complete' });
        expect(records).toEqual(fullRecords);
      }),
      { numRuns: 60 },
    );
  });

  it('corrupted bytes never throw, never loop, and every content error is positioned', async () => {
    const corruption = fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 12 });
    await fc.assert(
      fc.asyncProperty(corruption, fc.boolean(), async (flips, cut) => {
        const bytes = full.slice();
        for (const [pos, value] of flips) bytes[pos % bytes.byteLength] = value;
        const input = cut ? bytes.subarray(0, (flips[0]![0] * 7) % bytes.byteLength) : bytes;
        scanCapped(input);
        const { scan } = await readBytes(input);
        for (const e of scan.errors) {
          expect(e).toBeInstanceOf(InputError);
          expect(e.where.file).toBe('fuzz.mcap');
          expect(e.where.field).toMatch(/@ \d+ ns$/);
        }
        if (scan.end.kind === 'corrupt') expect(scan.end.offset).toBeLessThanOrEqual(input.byteLength);
      }),
      { numRuns: 300 },
    );
  });

  it('random bytes are reported as corrupt at byte 0, not thrown', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 0, maxLength: 2000 }), async (junk) => {
        const { records, scan } = await readBytes(junk);
        expect(records).toEqual([]);
        expect(scan.start).toBeUndefined();
        expect(scan.end.kind === 'complete').toBe(false);
      }),
      { numRuns: 200 },
    );
  });

  it('real rosbag2 bags, truncated or corrupted (zstd chunks included), are scanned without throwing', async () => {
    const bags = [
      'rosbag2_py/test/resources/mcap/talker/talker.mcap',
      'rosbag2_cpp/test/rosbag2_cpp/bags/topics_and_services.mcap',
      'rosbag2_tests/resources/mcap/cdr_test/cdr_test_0.mcap',
    ].map((p) => new Uint8Array(readFileSync(resolve(sharedDir, 'data/rosbag2-test-bags', p))));
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: 2 }),
        fc.nat(),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 6 }),
        async (which, cutRaw, flips) => {
          const bag = bags[which]!.slice();
          for (const [pos, value] of flips) bag[pos % bag.byteLength] = value;
          const input = bag.subarray(0, cutRaw % (bag.byteLength + 1));
          scanCapped(input);
          const summary = await scanBag([input], (m) => {
            try {
              m.decode();
            } catch (e) {
              expect((e as Error).message).toContain(`topic '${m.topic}'`);
            }
          });
          expect(['complete', 'truncated', 'corrupt']).toContain(summary.end.kind);
        },
      ),
      { numRuns: 200 },
    );
  });
});
