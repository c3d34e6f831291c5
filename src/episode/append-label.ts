/**
 * The labels API for transports (terminal prompt, MQTT, ROS 2 service, task predicate): append a
 * label to an open episode (its recorder) or to a finished episode file. On a file the label is a
 * new message on `/armguard/labels` appended after the existing data (@mcap/core's append mode
 * re-writes only the summary); recorded data is never rewritten.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { McapIndexedReader, McapWriter, type IReadable, type ISeekableWriter } from '@mcap/core';
import { InputError } from '../util/index.js';
import { JSON_CHANNELS } from './channels.js';
import { appendIndexEntry, indexKey, readIndex, updateEntryWithLabel } from './episode-index.js';
import { labelRecordFrom } from './labels.js';
import type { EpisodeRecorder } from './recorder.js';
import type { LabelInput, LabelRecord } from './types.js';

/** Random-access read + seekable write over one file handle (what McapWriter append mode needs). */
class FileReadWrite implements IReadable, ISeekableWriter {
  private cursor = 0n;
  constructor(private readonly handle: FileHandle) {}
  async size(): Promise<bigint> {
    return BigInt((await this.handle.stat()).size);
  }
  async read(offset: bigint, size: bigint): Promise<Uint8Array> {
    const buf = new Uint8Array(Number(size));
    let done = 0;
    while (done < buf.byteLength) {
      const { bytesRead } = await this.handle.read(buf, done, buf.byteLength - done, Number(offset) + done);
      if (bytesRead === 0) throw new Error(`read past end of file at byte ${Number(offset) + done}`);
      done += bytesRead;
    }
    return buf;
  }
  async write(buffer: Uint8Array): Promise<unknown> {
    let done = 0;
    while (done < buffer.byteLength) {
      const { bytesWritten } = await this.handle.write(
        buffer,
        done,
        buffer.byteLength - done,
        Number(this.cursor) + done,
      );
      done += bytesWritten;
    }
    this.cursor += BigInt(buffer.byteLength);
    return undefined;
  }
  position(): bigint {
    return this.cursor;
  }
  async seek(position: bigint): Promise<void> {
    this.cursor = position;
  }
  async truncate(): Promise<void> {
    await this.handle.truncate(Number(this.cursor));
  }
}

export interface AppendLabelOptions {
  /** Episode index (episodes.jsonl) to append an updated line to, when the file is listed there. */
  index?: string;
  /** Wall-clock time of the labelling, Unix seconds (default: now); kept as the record's `wallTime`. */
  now?: number;
}

/** Latest log time (ns) of any message in the file: the end of its data on the file's own clock. */
async function lastLogTime(reader: McapIndexedReader): Promise<bigint> {
  let end = reader.statistics?.messageEndTime ?? 0n;
  for (const c of reader.chunkIndexes) if (c.messageEndTime > end) end = c.messageEndTime;
  return end;
}

/**
 * Append a label to an open episode (recorder) or a finished episode file. Throws InputError for
 * an invalid label (naming the field) or a file that is not a finished armguard episode (an
 * unfinished one must be repaired first: `armguard repair <file>`).
 */
export async function appendLabel(
  target: string | EpisodeRecorder,
  input: LabelInput,
  options: AppendLabelOptions = {},
): Promise<LabelRecord> {
  if (typeof target !== 'string') return target.label(input);
  const file = target;
  // One time base per file: an episode's data runs on the monitor's clock (often monotonic from 0),
  // so the label is stamped at the end of the data on that clock, never at a Unix time (which
  // would open a decades-long gap in the file's timeline). The wall-clock time is kept as wallTime.
  const wallTime = options.now ?? Date.now() / 1000;
  let record: LabelRecord = labelRecordFrom({ ...input, wallTime }, 0, file);
  const handle = await open(file, 'r+');
  try {
    const rw = new FileReadWrite(handle);
    let channelId: number | undefined;
    let writer: McapWriter;
    let logTime: bigint;
    try {
      const reader = await McapIndexedReader.Initialize({ readable: rw });
      channelId = [...reader.channelsById.values()].find(
        (c) => c.topic === JSON_CHANNELS.label.topic && c.messageEncoding === 'json',
      )?.id;
      if (channelId === undefined)
        throw new InputError({ file }, `not an armguard episode file: no '${JSON_CHANNELS.label.topic}' channel`);
      const endNs = await lastLogTime(reader);
      if (input.t === undefined) record = { ...record, t: Number(endNs) / 1e9 };
      logTime = input.t === undefined ? endNs : fileTimeNs(input.t, endNs, file);
      writer = await McapWriter.InitializeForAppending(rw, {});
    } catch (e) {
      if (e instanceof InputError) throw e;
      throw new InputError(
        { file },
        `cannot append a label: not a finished, indexed MCAP file (${(e as Error).message}); run 'armguard repair ${file}' first`,
      );
    }
    await writer.addMessage({
      channelId,
      sequence: 0,
      logTime,
      publishTime: logTime,
      data: new TextEncoder().encode(JSON.stringify(record)),
    });
    await writer.end();
    await handle.sync();
  } finally {
    await handle.close();
  }
  if (options.index !== undefined) {
    const entries = await readIndex(options.index);
    const entry = entries.get(indexKey(options.index, file));
    if (entry) await appendIndexEntry(options.index, updateEntryWithLabel(entry, record));
  }
  return record;
}

/**
 * A label time given by the caller is on the file's clock (seconds); it may not lie before the
 * file's start or far beyond its data (a Unix time given for a monotonic-clock episode).
 */
function fileTimeNs(t: number, endNs: bigint, file: string): bigint {
  const ns = BigInt(Math.round(t * 1e6)) * 1000n;
  const endS = Number(endNs) / 1e9;
  if (t < 0 || ns > endNs + MAX_LABEL_AFTER_DATA_NS) {
    throw new InputError(
      { file, field: 't' },
      `label time ${t} s is not on this file's clock (its data ends at ${endS} s; a label may be at most ${Number(MAX_LABEL_AFTER_DATA_NS) / 1e9} s after it)`,
    );
  }
  return ns;
}

/** How far after the file's last data a caller-given label time may lie. */
const MAX_LABEL_AFTER_DATA_NS = 3_600_000_000_000n;
