import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McapIndexedReader } from '@mcap/core';
import { describe, expect, it } from 'vitest';
import {
  EpisodeRecorder,
  NodeFileWritable,
  MemoryFileWritable,
  readEpisode,
  readEpisodeTrace,
  type EpisodeRecord,
  type FileWritable,
} from '../../src/episode/index.js';
import type { Fault } from '../../src/ports/index.js';
import { ManualClock, ManualTimers } from '../../src/util/index.js';
import { CLAUSES, T0, chunkAt, frameAt, newRecorder, recordSteps, rhoAt } from './support/episode-fixture.js';
import { jointState, plain } from '../mcap/support/franka-fixtures.js';
import { scanBag } from '../../src/mcap/reader.js';

async function records(bytes: Uint8Array) {
  const out: EpisodeRecord[] = [];
  const scan = await readEpisode([bytes], (r) => out.push(r));
  return {
    out,
    scan,
    of: <K extends EpisodeRecord['kind']>(k: K) =>
      out.filter((r): r is Extract<EpisodeRecord, { kind: K }> => r.kind === k),
  };
}

function bytesReadable(bytes: Uint8Array) {
  return {
    size: async () => BigInt(bytes.byteLength),
    read: async (o: bigint, n: bigint) => bytes.subarray(Number(o), Number(o + n)),
  };
}

describe('episode recorder', () => {
  it('records every kind and reads each back as typed values, in order', async () => {
    const mem = new MemoryFileWritable();
    const { recorder } = newRecorder(mem);
    await recorder.addRosTopic({ topic: '/joint_states', type: 'sensor_msgs/msg/JointState' });
    recordSteps(recorder, 0, 60);
    for (let k = 0; k < 3; k++)
      recorder.rosMessage('/joint_states', T0 + k * 0.033, jointState(BigInt(T0 + k) * 1_000_000_000n, k));
    recorder.versions(T0 + 0.3, { calibration: 'sha256:dddd' });
    recorder.label({ success: true, taskId: 'pick-cube', source: 'operator', by: 'ana', t: T0 + 1 });
    const entry = await recorder.end(T0 + 1, 'operator stop');

    const { out, scan, of } = await records(mem.bytes());
    expect(scan.end).toEqual({ kind: 'complete' });
    expect(scan.errors).toEqual([]);
    expect(scan.start).toMatchObject({
      episodeId: 'ep-001',
      robotId: 'fr3-lab-a',
      clauses: CLAUSES,
      versions: { spec: 'sha256:aaaa' },
      t0: T0,
    });
    const frames = of('frame');
    expect(frames).toHaveLength(60);
    const ti = scan.start!.signals.indexOf('max_joint_torque');
    const ci = scan.start!.signals.indexOf('contact_force_max');
    expect(frames[10]!.value.values[ci]).toBe(1);
    expect(frames[3]!.value.values[ti]).toBeNull(); // NaN recorded as null …
    expect(frames[3]!.value.validity[ti]).toBe(2); // … flagged invalid
    expect(frames[4]!.value.values[ti]).toBe(24);
    // sources only when they change: first frame, and when the torque source switches at k = 50
    expect(frames.filter((f) => f.value.sources !== undefined).map((f) => Math.round((f.t - T0) * 100))).toEqual([
      0, 50,
    ]);
    expect(of('robustness').map((r) => r.value.rho)).toEqual(
      Array.from({ length: 60 }, (_, k) => rhoAt(k).map((v) => (Number.isNaN(v) ? null : v))),
    );
    expect(of('proposed-chunk').map((c) => c.value.id)).toEqual(['c0', 'c10', 'c20', 'c30', 'c40', 'c50']);
    expect(of('executed-chunk')[0]!.value).toMatchObject({
      proposedId: 'c0',
      verdict: 'filtered',
      modification: 0.125,
      targets: Array.from(chunkAt(0).targets),
    });
    expect(of('gate').map((g) => g.value.kind)).toEqual(['transition', 'fault']);
    expect(of('gate')[1]!.value).toMatchObject({
      fault: { kind: 'stale-signal', signal: 'non_target_disp_max', age: 0.3 },
    });
    expect(of('raw')).toHaveLength(12);
    expect(of('versions')[0]!.value.versions).toEqual({ calibration: 'sha256:dddd' });
    expect(of('label')[0]!.value).toEqual({
      t: T0 + 1,
      source: 'operator',
      by: 'ana',
      success: true,
      taskId: 'pick-cube',
    });
    expect(of('end')[0]!.value).toEqual({ t: T0 + 1, reason: 'operator stop' });
    const ros = of('ros');
    expect(ros).toHaveLength(3);
    expect(plain(ros[2]!.decode())).toEqual(jointState(BigInt(T0 + 2) * 1_000_000_000n, 2));
    // file order: the end record is the last message
    expect(out[out.length - 1]!.kind).toBe('end');
    // the ROS side carries rosbag2's metadata record, counting only the ROS topics
    const bag = await scanBag([mem.bytes()]);
    const info = bag.rosbag2Metadata as {
      message_count: bigint;
      relative_file_paths: string[];
      topics_with_message_count: { topic_metadata: { name: string }; message_count: bigint }[];
    };
    expect(info.message_count).toBe(3n);
    expect(info.relative_file_paths).toEqual(['ep-001.mcap']);
    expect(info.topics_with_message_count.map((t) => [t.topic_metadata.name, t.message_count])).toEqual([
      ['/joint_states', 3n],
    ]);

    expect(entry).toMatchObject({
      episodeId: 'ep-001',
      file: 'ep-001.mcap',
      success: true,
      task: 'pick-cube',
      state: 'complete',
      counts: { frame: 60, robustness: 60, ros: 3 },
    });
    // per-clause min ρ: contact 30 − 5.9, torque 87 − 79, bystander 0.05 − 0.059 (NaN at k = 40 ignored)
    expect(entry.clauses!['contact_force']!.minRho).toBeCloseTo(24.1, 12);
    expect(entry.clauses!['joint_torque']).toEqual({ minRho: 8, violatedSteps: 0 });
    expect(entry.clauses!['bystander_disp']!.violatedSteps).toBe(
      Array.from({ length: 60 }, (_, k) => k).filter((k) => k !== 40 && 0.05 - k * 0.001 < 0).length,
    );
  });

  it('the finished file is indexed: McapIndexedReader reads its summary, statistics and messages', async () => {
    const mem = new MemoryFileWritable();
    const { recorder } = newRecorder(mem, { chunkSize: 4096 });
    recordSteps(recorder, 0, 200);
    await recorder.end(T0 + 2, 'done');
    const reader = await McapIndexedReader.Initialize({ readable: bytesReadable(mem.bytes()) });
    expect(reader.header.profile).toBe('ros2');
    expect(reader.chunkIndexes.length).toBeGreaterThan(3);
    const topics = [...reader.channelsById.values()].map((c) => [
      c.topic,
      c.messageEncoding,
      reader.schemasById.get(c.schemaId)!.encoding,
    ]);
    expect(topics).toContainEqual(['/armguard/signals', 'json', 'jsonschema']);
    const schema = JSON.parse(
      new TextDecoder().decode([...reader.schemasById.values()].find((s) => s.name === 'armguard.SignalFrame')!.data),
    );
    expect(schema.required).toEqual(['t', 'values', 'stamps', 'validity']);
    expect(reader.metadataIndexes.map((m) => m.name)).toContain('armguard.episode');
    // the metadata index points at the record (offsets computed by the streaming writer)
    const meta = [];
    for await (const m of reader.readMetadata({ name: 'armguard.episode' }))
      meta.push(JSON.parse(m.metadata.get('episode')!));
    expect(meta).toEqual([expect.objectContaining({ episodeId: 'ep-001', clauses: CLAUSES })]);
    let n = 0;
    for await (const _ of reader.readMessages({ topics: ['/armguard/signals'] })) n++;
    expect(n).toBe(200);
    expect(reader.statistics!.messageCount).toBe(BigInt((await records(mem.bytes())).out.length));
  });

  it('flushes on the injected timer at least every second; the flushed prefix reads back without the summary', async () => {
    const mem = new MemoryFileWritable();
    const { recorder, timers } = newRecorder(mem, { flushInterval: 5 }); // clamped to 1 s
    recordSteps(recorder, 0, 30);
    expect(mem.size).toBe(0); // nothing written between flushes: the record path does no I/O
    timers.advance(0.999);
    await Promise.resolve();
    expect(mem.size).toBe(0);
    timers.advance(0.001);
    await recorder.flush(); // waits for the timer's flush in flight
    expect(mem.syncs).toBeGreaterThanOrEqual(1);
    const partial = await records(mem.bytes());
    expect(partial.scan.end.kind).toBe('truncated'); // no footer yet
    expect(partial.of('frame')).toHaveLength(30);
    expect(recorder.stats()).toMatchObject({
      state: 'recording',
      flushedMessages: recorder.stats().messages,
      dropped: 0,
    });
    recordSteps(recorder, 30, 10);
    timers.advance(1);
    await recorder.flush();
    expect((await records(mem.bytes())).of('frame')).toHaveLength(40);
    await recorder.end(T0 + 1, 'done');
  });

  it('a full disk (ENOSPC) becomes a storage Fault, later records are counted as dropped and reported', async () => {
    class FullDisk implements FileWritable {
      readonly inner = new MemoryFileWritable();
      constructor(private capacity: number) {}
      async write(bytes: Uint8Array): Promise<void> {
        if (this.inner.size + bytes.byteLength > this.capacity) {
          throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
        }
        await this.inner.write(bytes);
      }
      sync = () => this.inner.sync();
      close = () => this.inner.close();
    }
    const disk = new FullDisk(16_000);
    const faults: [Fault, number][] = [];
    const { recorder, timers } = newRecorder(disk, { chunkSize: 2000 });
    recorder.onFault((f, t) => faults.push([f, t]));
    recordSteps(recorder, 0, 5);
    timers.advance(0.5);
    expect(await recorder.flush()).toBe(true);
    expect(faults).toEqual([]);
    recordSteps(recorder, 5, 200);
    timers.advance(0.5);
    expect(await recorder.flush()).toBe(false);
    expect(faults).toHaveLength(1);
    expect(faults[0]![0]).toEqual({
      kind: 'storage',
      source: 'episode:ep-001.mcap',
      detail: 'ENOSPC: no space left on device, write',
    });
    expect(recorder.stats().state).toBe('failed');
    recordSteps(recorder, 205, 3); // offered after the failure
    const entry = await recorder.end(T0 + 3, 'stop');
    expect(entry.state).toBe('truncated');
    expect(recorder.stats().dropped).toBeGreaterThan(0);
    expect(faults).toHaveLength(2);
    expect(faults[1]![0].kind).toBe('storage');
    // everything accepted after the last successful flush is lost too, not only what came after the failure
    const st = recorder.stats();
    const unflushed = st.messages - st.flushedMessages;
    expect(unflushed).toBeGreaterThan(100); // ~200 steps recorded between the good flush and the failed one
    expect((faults[1]![0] as { detail: string }).detail).toBe(
      `${st.dropped + unflushed} record(s) not on storage: ${unflushed} accepted but not flushed before the failure, ${st.dropped} offered after it`,
    );
    // What reached the disk is still readable: the first flushed steps at least.
    const back = await records(disk.inner.bytes());
    expect(back.of('frame').length).toBeGreaterThanOrEqual(5);
    expect(disk.inner.closed).toBe(true);
  });

  it('record calls while end() is finishing the file are counted as dropped, never thrown, and the file is complete', async () => {
    const out = new MemoryFileWritable();
    const { recorder } = newRecorder(out);
    recordSteps(recorder, 0, 10);
    const ending = recorder.end(T0 + 1, 'stop'); // not awaited: the control loop keeps calling in
    expect(() => {
      recorder.frame(frameAt(11));
      recorder.robustness(T0 + 1.01, rhoAt(11));
      recorder.gateEvent(T0 + 1.01, 'late');
    }).not.toThrow();
    const entry = await ending;
    expect(entry.state).toBe('complete');
    expect(recorder.stats().dropped).toBe(3);
    const back = await records(out.bytes());
    expect(back.of('frame')).toHaveLength(10);
  });

  it('a ROS message that cannot be encoded is counted as dropped with a fault, not thrown into the caller', async () => {
    const { recorder } = newRecorder(new MemoryFileWritable());
    const faults: Fault[] = [];
    recorder.onFault((f) => faults.push(f));
    const before = recorder.stats().messages;
    expect(() => recorder.rosMessage('/not/registered', T0, {})).not.toThrow();
    expect(recorder.stats()).toMatchObject({ dropped: 1, messages: before });
    expect(faults).toEqual([
      expect.objectContaining({
        kind: 'storage',
        detail: expect.stringMatching(/ROS message on \/not\/registered not recorded/) as string,
      }),
    ]);
    await recorder.end(T0 + 1, 'stop');
  });

  it('a failing sync (fsync error) is a storage fault too', async () => {
    const mem = new MemoryFileWritable();
    const failing: FileWritable = {
      write: (b) => mem.write(b),
      sync: async () => {
        throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
      },
      close: () => mem.close(),
    };
    const faults: Fault[] = [];
    const { recorder } = newRecorder(failing);
    recorder.onFault((f) => faults.push(f));
    recordSteps(recorder, 0, 3);
    expect(await recorder.flush()).toBe(false);
    expect(faults[0]).toMatchObject({ kind: 'storage', detail: expect.stringContaining('EIO') });
  });

  it('readEpisodeTrace gives frame times, signal columns (NaN where invalid), robustness and labels', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'armguard-ep-'));
    const path = join(dir, 'ep.mcap');
    const clock = new ManualClock(0);
    const recorder = EpisodeRecorder.start(
      await NodeFileWritable.create(path),
      {
        episodeId: 'ep-9',
        robotId: 'so101-a',
        task: 'pick',
        startedAt: '2026-11-29T15:00:00Z',
        t0: T0,
        clauses: CLAUSES,
      },
      { timers: new ManualTimers(clock), file: 'ep.mcap' },
    );
    recordSteps(recorder, 0, 20);
    recorder.label({
      success: false,
      taskTags: ['lift'],
      objectTags: ['fragile'],
      manual: { stable_grasp_maintained: 'violated' },
      t: T0 + 1,
    });
    recorder.label({ success: true, note: 'operator corrected', t: T0 + 2 });
    await recorder.end(T0 + 2, 'done');
    await expect(NodeFileWritable.create(path)).rejects.toThrow(/EEXIST/); // never overwrites an episode

    const trace = await readEpisodeTrace(path);
    expect(trace.end).toBe('complete');
    expect(Array.from(trace.times)).toEqual(Array.from({ length: 20 }, (_, k) => frameAt(k).t));
    expect(Array.from(trace.columns.get('contact_force_max')!)).toEqual(Array.from({ length: 20 }, (_, k) => k / 10));
    const torque = Array.from(trace.columns.get('max_joint_torque')!);
    expect(torque[3]).toBeNaN();
    expect(torque[4]).toBe(24);
    expect([...trace.columns.keys()].sort()).toEqual(['contact_force_max', 'gripper_contact', 'max_joint_torque']); // only signals that arrived
    expect(Array.from(trace.robustness.get('joint_torque')!)).toEqual(
      Array.from({ length: 20 }, (_, k) => 87 - (20 + k)),
    );
    expect(trace.meta).toMatchObject({
      episodeId: 'ep-9',
      success: true,
      task: 'pick',
      templates: ['lift'],
      objects: ['fragile'],
      note: 'operator corrected',
    });
    expect(trace.meta.manual.get('stable_grasp_maintained')).toBe('violated');
    expect(trace.labels.history).toHaveLength(2);
    expect(readFileSync(path).subarray(0, 8)).toEqual(Buffer.from([0x89, 0x4d, 0x43, 0x41, 0x50, 0x30, 0x0d, 0x0a]));
  });
});
