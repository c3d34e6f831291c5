/**
 * A tolerant, streaming MCAP record scanner: records come out in file order as bytes are appended;
 * a damaged record (a chunk whose CRC does not match, broken framing) is skipped and reading goes
 * on after it, and a truncated tail (a process killed mid-write) ends the scan with a positioned
 * status instead of an exception. It never throws and never loops without consuming input.
 */
import {
  McapRecordBuilder,
  McapStreamReader,
  type DecompressHandlers,
  type TypedMcapRecord,
  type TypedMcapRecords,
} from '@mcap/core';
import { decompress as zstdDecompress } from 'fzstd';

/**
 * Compressed chunks claiming more than this uncompressed are treated as corrupt rather than
 * allocated (rosbag2 writes 768 KiB chunks by default, 4 MiB with its zstd_small preset).
 */
export const MAX_CHUNK_BYTES = 64 * 1024 * 1024;

export type ScanEnd =
  /** Footer and trailing magic read: the file is complete (and, if written so, indexed). */
  | { kind: 'complete' }
  /** Input ended inside a record (or before the footer); `offset` is where the last whole record ended. */
  | { kind: 'truncated'; offset: number }
  /** A record could not be parsed; everything before `offset` was read. */
  | { kind: 'corrupt'; offset: number; reason: string };

export const defaultDecompressHandlers: DecompressHandlers = {
  zstd: (buffer, size) => {
    if (size > BigInt(MAX_CHUNK_BYTES))
      throw new Error(`zstd chunk of ${size} bytes exceeds the ${MAX_CHUNK_BYTES}-byte limit`);
    const out = zstdDecompress(buffer, new Uint8Array(Number(size)));
    if (out.byteLength !== Number(size))
      throw new Error(`zstd chunk decompressed to ${out.byteLength} bytes, header says ${size}`);
    return out;
  },
};

/** A damaged span of the input that was skipped; reading went on after it. */
export interface SkippedRegion {
  /** Byte offset where the damaged record (or span) starts. */
  offset: number;
  /** Bytes skipped. */
  length: number;
  /** Why the first record of the span was refused (bad CRC, unparseable, bad framing). */
  reason: string;
  /**
   * Messages known to be lost with it: counted from the skipped chunk's own message index
   * records when they follow it intact; undefined when the count is unknown.
   */
  messages: number | undefined;
}

const MAGIC = [0x89, 0x4d, 0x43, 0x41, 0x50, 0x30, 0x0d, 0x0a] as const;
const OP_FOOTER = 0x02;
const OP_SCHEMA = 0x03;
const OP_CHANNEL = 0x04;
const OP_CHUNK = 0x06;
const OP_MESSAGE_INDEX = 0x07;
const OP_ATTACHMENT = 0x09;
const OP_METADATA = 0x0c;
const OP_DATA_END = 0x0f;
/** Opcodes MCAP defines (0x01 Header … 0x0F DataEnd); anything else at a record start is damage. */
const isOpcode = (b: number): boolean => b >= 0x01 && b <= 0x0f;
/**
 * Records a resynchronisation may restart on: each is fully parsed (chunks CRC-checked) and must be
 * followed by another record start. Never a bare Message: inside a damaged chunk those would be
 * records the chunk's CRC no longer vouches for.
 */
const RESYNC_OPCODES = new Set([OP_FOOTER, OP_SCHEMA, OP_CHANNEL, OP_CHUNK, OP_ATTACHMENT, OP_METADATA, OP_DATA_END]);
/** A top-level record claiming more than this is damage (framing), not allocated. */
export const MAX_RECORD_BYTES = MAX_CHUNK_BYTES + 1024 * 1024;

/**
 * Frames the input into top-level records itself and hands each whole record to @mcap/core's
 * McapStreamReader, so a record the reader refuses (a chunk whose CRC does not match, bad framing)
 * costs only that record: the scanner skips it — exactly, by its length, or by resynchronising on
 * the next whole, valid record — notes the skipped span in `skipped`, and goes on. Records come
 * out only once their whole top-level record parsed, so a bad chunk yields nothing.
 */
export class TolerantMcapScanner {
  private reader: McapStreamReader;
  private readonly decompressHandlers: DecompressHandlers;
  private readonly validateCrcs: boolean;
  /** Unconsumed input: buf[pos, len) is input offset base + (pos … len). */
  private buf = new Uint8Array(64 * 1024);
  private pos = 0;
  private len = 0;
  private base = 0;
  private appended = 0;
  private lastGoodEnd = 0;
  private stage: 'magic' | 'records' | 'resync' | 'done' = 'magic';
  /** While resynchronising: the damaged span's first record and the next offset to try. */
  private damage: { offset: number; reason: string; messages: number | undefined } | undefined;
  private resyncAt = 0;
  private inputEnded = false;
  private failure: { offset: number; reason: string } | undefined;
  private sawFooter = false;
  private readonly out: TypedMcapRecord[] = [];
  private outHead = 0;
  private readonly channels = new Map<number, TypedMcapRecords['Channel']>();
  private readonly skips: SkippedRegion[] = [];
  /** Index of the last skipped region while its chunk's message index records follow it. */
  private countingSkip = -1;
  /**
   * Where the refused record said it ends (-1 when its framing was unreadable), and whether it was
   * a chunk: a message index record found exactly there counts the chunk's lost messages.
   */
  private claimedEnd = -1;
  private damagedChunk = false;

  constructor(options: { decompressHandlers?: DecompressHandlers; validateCrcs?: boolean } = {}) {
    this.decompressHandlers = options.decompressHandlers ?? defaultDecompressHandlers;
    this.validateCrcs = options.validateCrcs ?? true;
    this.reader = this.newReader(false);
  }

  /** Bytes appended so far. */
  get bytesAppended(): number {
    return this.appended;
  }
  /** Offset just past the last record returned (for records inside a chunk: past the chunk). */
  get offset(): number {
    return this.lastGoodEnd;
  }
  /** The input is not an MCAP file (bad magic): nothing more will be read. */
  get failed(): boolean {
    return this.failure !== undefined;
  }
  /** Damaged spans skipped so far (reading went on after each). */
  get skipped(): readonly SkippedRegion[] {
    return this.skips;
  }

  append(bytes: Uint8Array): void {
    this.appended += bytes.byteLength;
    if (this.stage === 'done' || bytes.byteLength === 0) return;
    if (this.len + bytes.byteLength > this.buf.byteLength) {
      const keep = this.len - this.pos;
      const next =
        keep + bytes.byteLength > this.buf.byteLength
          ? new Uint8Array(Math.max(this.buf.byteLength * 2, keep + bytes.byteLength))
          : this.buf;
      next.set(this.buf.subarray(this.pos, this.len), 0);
      this.resyncAt -= this.pos;
      this.base += this.pos;
      this.buf = next;
      this.len = keep;
      this.pos = 0;
    }
    this.buf.set(bytes, this.len);
    this.len += bytes.byteLength;
  }

  /**
   * No more input will come: a record left incomplete is either a truncated tail (a killed writer)
   * or damage whose claimed length runs past the end — the scanner then resynchronises inside it.
   * Call before the last `next()` loop and `end()`.
   */
  finish(): void {
    this.inputEnded = true;
  }

  /** The next complete record, or undefined when more bytes are needed or the input is used up. */
  next(): TypedMcapRecord | undefined {
    for (;;) {
      if (this.outHead < this.out.length) {
        const r = this.out[this.outHead++]!;
        if (this.outHead === this.out.length) {
          this.out.length = 0;
          this.outHead = 0;
        }
        return r;
      }
      if (!this.advance()) return undefined;
    }
  }

  /** Call after `finish()` and when `next()` returned undefined. */
  end(): ScanEnd {
    if (this.failure) return { kind: 'corrupt', ...this.failure };
    if (this.sawFooter) {
      if (this.lastGoodEnd < this.appended) {
        return {
          kind: 'corrupt',
          offset: this.lastGoodEnd,
          reason: `${this.appended - this.lastGoodEnd} bytes after the footer`,
        };
      }
      return { kind: 'complete' };
    }
    if (this.damage) return { kind: 'corrupt', offset: this.damage.offset, reason: this.damage.reason };
    return { kind: 'truncated', offset: this.lastGoodEnd };
  }

  // ---- framing ----

  /** One step of work; false when nothing more can be done until more input (or ever). */
  private advance(): boolean {
    switch (this.stage) {
      case 'done':
        return false;
      case 'magic':
        return this.readMagic();
      case 'records':
        return this.readRecord();
      case 'resync':
        return this.resync();
    }
  }

  private readMagic(): boolean {
    if (this.len - this.pos < MAGIC.length) {
      if (this.inputEnded) this.stage = 'done';
      return false;
    }
    for (let i = 0; i < MAGIC.length; i++) {
      if (this.buf[this.pos + i] !== MAGIC[i]) {
        this.failure = { offset: 0, reason: 'not an MCAP file (bad magic)' };
        this.stage = 'done';
        return false;
      }
    }
    this.reader.append(this.buf.subarray(this.pos, this.pos + MAGIC.length));
    this.pos += MAGIC.length;
    this.lastGoodEnd = this.base + this.pos;
    this.stage = 'records';
    return true;
  }

  /** Length of the whole top-level record at `at` (header + content [+ trailing magic]), or a problem. */
  private frameAt(at: number): { total: number } | { bad: string } | undefined {
    if (this.len - at < 9) return undefined;
    const op = this.buf[at]!;
    if (!isOpcode(op)) return { bad: `invalid record opcode 0x${op.toString(16).padStart(2, '0')}` };
    const view = new DataView(this.buf.buffer, this.buf.byteOffset + at + 1, 8);
    const length = Number(view.getBigUint64(0, true));
    if (length > MAX_RECORD_BYTES) return { bad: `record claims ${length} bytes (limit ${MAX_RECORD_BYTES})` };
    return { total: 9 + length + (op === OP_FOOTER ? MAGIC.length : 0) };
  }

  private readRecord(): boolean {
    const at = this.pos;
    const f = this.frameAt(at);
    if (f === undefined) {
      if (this.inputEnded) {
        if (this.len > at) return this.startDamage(at, 'input ends inside a record');
        this.stage = 'done';
      }
      return false;
    }
    if ('bad' in f) return this.startDamage(at, f.bad);
    if (this.len - at < f.total) {
      if (this.inputEnded) return this.startDamage(at, 'input ends inside a record');
      return false;
    }
    const op = this.buf[at]!;
    const problem = this.feed(at, f.total);
    // A refused record's own length may be the damage (a flipped length byte): it is not trusted.
    // Reading goes on at the next record that passes the resynchronisation checks.
    if (problem !== undefined) return this.startDamage(at, problem, at + f.total, op === OP_CHUNK);
    this.accepted(at, f.total, op);
    return true;
  }

  /** Bookkeeping after a whole record at `at` was read. */
  private accepted(at: number, total: number, op: number): void {
    if (op === OP_MESSAGE_INDEX && this.countingSkip >= 0) {
      const skip = this.skips[this.countingSkip]!;
      for (const r of this.out) if (r.type === 'MessageIndex') skip.messages = (skip.messages ?? 0) + r.records.length;
    } else this.countingSkip = -1;
    this.pos = at + total;
    this.lastGoodEnd = this.base + this.pos;
    if (op === OP_FOOTER) {
      this.sawFooter = true;
      this.stage = 'done';
    }
  }

  /**
   * Give the reader one whole top-level record. On success its records are queued; on failure the
   * reader (whose state is then unspecified) is replaced by one that knows the channels read so
   * far, nothing of the record is queued, and the reason is returned.
   */
  private feed(at: number, total: number): string | undefined {
    const inconsistent = this.checkLengths(at, total);
    if (inconsistent !== undefined) return inconsistent;
    const start = this.out.length;
    try {
      this.reader.append(this.buf.subarray(at, at + total));
      for (let r = this.reader.nextRecord(); r; r = this.reader.nextRecord()) this.out.push(r);
      if (this.reader.bytesRemaining() !== 0) throw new Error('record did not parse to its end');
    } catch (e) {
      this.out.length = start;
      this.reader = this.newReader(true);
      return (e as Error).message;
    }
    for (let i = start; i < this.out.length; i++) {
      const r = this.out[i]!;
      if (r.type === 'Channel' && !this.channels.has(r.id)) this.channels.set(r.id, r);
    }
    return undefined;
  }

  /**
   * A chunk's (and a message index's) record length must equal what its own fields add up to: the
   * MCAP reader skips any excess, so an inflated length (one flipped byte) would silently swallow
   * the records after it.
   */
  private checkLengths(at: number, total: number): string | undefined {
    const op = this.buf[at]!;
    const length = total - 9;
    const view = new DataView(this.buf.buffer, this.buf.byteOffset + at + 9, length);
    if (op === OP_CHUNK) {
      // start time, end time, uncompressed size (u64 each), uncompressed CRC (u32), compression (u32 + bytes), records (u64 + bytes)
      if (length < 40) return `chunk record of ${length} bytes is too short`;
      const compression = view.getUint32(28, true);
      if (32 + compression + 8 > length) return 'chunk compression field runs past its record';
      const records = view.getBigUint64(32 + compression, true);
      if (BigInt(40 + compression) + records !== BigInt(length))
        return `chunk record length ${length} does not match its fields (${40 + compression} + ${records} records bytes)`;
    } else if (op === OP_MESSAGE_INDEX) {
      if (length < 6) return `message index record of ${length} bytes is too short`;
      if (6 + view.getUint32(2, true) !== length)
        return `message index record length ${length} does not match its entries`;
    }
    return undefined;
  }

  private newReader(primed: boolean): McapStreamReader {
    const reader = new McapStreamReader({
      decompressHandlers: this.decompressHandlers,
      validateCrcs: this.validateCrcs,
      noMagicPrefix: primed,
    });
    if (primed && this.channels.size > 0) {
      // Messages of later chunks refer to channels defined before the damage.
      const b = new McapRecordBuilder();
      for (const c of this.channels.values()) b.writeChannel(c);
      reader.append(b.buffer);
      while (reader.nextRecord()) {
        // drained: these channels were passed on when first read
      }
    }
    return reader;
  }

  // ---- resynchronisation ----

  private startDamage(at: number, reason: string, claimedEnd = -1, chunk = false): boolean {
    this.damage = { offset: this.base + at, reason, messages: undefined };
    this.countingSkip = -1;
    this.claimedEnd = claimedEnd;
    this.damagedChunk = chunk;
    this.resyncAt = at + 1;
    this.stage = 'resync';
    return true;
  }

  /** Look for the next whole, valid record after the damage; true when reading can go on. */
  private resync(): boolean {
    for (let q = this.resyncAt; q + 9 <= this.len; q++) {
      const op = this.buf[q]!;
      // Where a refused chunk said it ends, its own message index may follow (and count its messages).
      if (!RESYNC_OPCODES.has(op) && !(q === this.claimedEnd && op === OP_MESSAGE_INDEX)) continue;
      const f = this.frameAt(q);
      if (f === undefined || 'bad' in f) continue;
      const endAt = q + f.total;
      if (endAt > this.len || (endAt === this.len && !this.inputEnded)) {
        if (this.inputEnded) continue;
        this.resyncAt = q; // wait for the rest of this candidate
        this.trim(q);
        return false;
      }
      if (endAt < this.len && !isOpcode(this.buf[endAt]!)) continue;
      if (this.feed(q, f.total) !== undefined) continue;
      const d = this.damage!;
      this.skips.push({ offset: d.offset, length: this.base + q - d.offset, reason: d.reason, messages: undefined });
      this.damage = undefined;
      this.stage = 'records';
      this.countingSkip = this.damagedChunk && q === this.claimedEnd ? this.skips.length - 1 : -1;
      this.accepted(q, f.total, op);
      return true;
    }
    if (this.inputEnded) {
      this.stage = 'done';
      // An incomplete last record with nothing valid after it is a truncated tail, not damage.
      const d = this.damage!;
      if (d.reason === 'input ends inside a record') this.damage = undefined;
      return false;
    }
    this.resyncAt = Math.max(this.pos, this.len - 8);
    this.trim(this.resyncAt);
    return false;
  }

  /** Drop buffered bytes before `q` (during a resync nothing before the candidate is needed). */
  private trim(q: number): void {
    if (q <= this.pos) return;
    this.pos = q;
  }
}

/** Describe a scan end for people: 'complete', or where and why it stopped. */
export function describeScanEnd(end: ScanEnd): string {
  switch (end.kind) {
    case 'complete':
      return 'complete';
    case 'truncated':
      return `truncated after byte ${end.offset} (unfinished recording)`;
    case 'corrupt':
      return `corrupt at byte ${end.offset}: ${end.reason}`;
  }
}

/** Messages known to be lost in skipped regions, and whether some region's count is unknown. */
export function lostInSkipped(regions: readonly SkippedRegion[]): {
  messages: number;
  unknown: boolean;
  bytes: number;
} {
  let messages = 0;
  let unknown = false;
  let bytes = 0;
  for (const r of regions) {
    bytes += r.length;
    if (r.messages === undefined) unknown = true;
    else messages += r.messages;
  }
  return { messages, unknown, bytes };
}

/** Describe skipped regions for people: '' when none. */
export function describeSkipped(regions: readonly SkippedRegion[]): string {
  if (regions.length === 0) return '';
  const { messages, unknown, bytes } = lostInSkipped(regions);
  const count = unknown
    ? messages > 0
      ? `at least ${messages} messages`
      : 'an unknown number of messages'
    : `${messages} messages`;
  const first = regions[0]!;
  return `${regions.length} damaged region(s) skipped (${bytes} bytes, ${count} lost; first at byte ${first.offset}: ${first.reason})`;
}
