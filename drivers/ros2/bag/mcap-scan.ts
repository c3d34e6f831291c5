/**
 * A tolerant, streaming MCAP record scanner: records come out in file order as bytes are appended;
 * a truncated tail (a process killed mid-write) or a corrupt record ends the scan with a positioned
 * status instead of an exception. It never throws and never loops without consuming input.
 */
import { McapStreamReader, type DecompressHandlers, type TypedMcapRecord } from '@mcap/core';
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
    if (size > BigInt(MAX_CHUNK_BYTES)) throw new Error(`zstd chunk of ${size} bytes exceeds the ${MAX_CHUNK_BYTES}-byte limit`);
    const out = zstdDecompress(buffer, new Uint8Array(Number(size)));
    if (out.byteLength !== Number(size)) throw new Error(`zstd chunk decompressed to ${out.byteLength} bytes, header says ${size}`);
    return out;
  },
};

export class TolerantMcapScanner {
  private readonly reader: McapStreamReader;
  private appended = 0;
  private lastGoodEnd = 0;
  private failure: { offset: number; reason: string } | undefined;
  private sawFooter = false;

  constructor(options: { decompressHandlers?: DecompressHandlers; validateCrcs?: boolean } = {}) {
    this.reader = new McapStreamReader({
      decompressHandlers: options.decompressHandlers ?? defaultDecompressHandlers,
      validateCrcs: options.validateCrcs ?? true,
    });
  }

  /** Bytes appended so far. */
  get bytesAppended(): number {
    return this.appended;
  }
  /** Offset just past the last record returned (for records inside a chunk: past the chunk). */
  get offset(): number {
    return this.lastGoodEnd;
  }
  get failed(): boolean {
    return this.failure !== undefined;
  }

  append(bytes: Uint8Array): void {
    if (this.failure || this.sawFooter || bytes.byteLength === 0) {
      this.appended += bytes.byteLength;
      return;
    }
    try {
      this.reader.append(bytes);
    } catch (e) {
      this.failure = { offset: this.lastGoodEnd, reason: (e as Error).message };
    }
    this.appended += bytes.byteLength;
  }

  /** The next complete record, or undefined when more bytes are needed, the file ended, or it failed. */
  next(): TypedMcapRecord | undefined {
    if (this.failure || this.sawFooter) return undefined;
    try {
      const record = this.reader.nextRecord();
      if (record) {
        this.lastGoodEnd = this.appended - this.reader.bytesRemaining();
        if (record.type === 'Footer') this.sawFooter = true;
      } else if (this.reader.done()) {
        this.sawFooter = true;
        this.lastGoodEnd = this.appended - this.reader.bytesRemaining();
      }
      return record;
    } catch (e) {
      this.failure = { offset: this.lastGoodEnd, reason: (e as Error).message };
      return undefined;
    }
  }

  /** Call after all input is appended and `next()` returned undefined. */
  end(): ScanEnd {
    if (this.failure) return { kind: 'corrupt', ...this.failure };
    if (this.sawFooter) {
      if (this.lastGoodEnd < this.appended) {
        return { kind: 'corrupt', offset: this.lastGoodEnd, reason: `${this.appended - this.lastGoodEnd} bytes after the footer` };
      }
      return { kind: 'complete' };
    }
    return { kind: 'truncated', offset: this.lastGoodEnd };
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
