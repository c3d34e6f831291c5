/**
 * An MCAP writer that can be flushed: messages are collected synchronously into the open chunk
 * (no await on the caller's path); `flush()` closes the chunk, hands every pending byte to the
 * writable in order and syncs it, so a process killed afterwards leaves a file whose complete
 * records the tolerant reader recovers. `end()` writes the summary (schemas, channels, statistics,
 * metadata and chunk indexes, summary offsets) so the finished file is indexed.
 *
 * @mcap/core's McapWriter cannot close a chunk on demand (it only closes one when it is full), so
 * the same records are assembled here with its McapRecordBuilder and McapChunkBuilder.
 */
import { crc32Final, crc32Init, crc32Update } from '@foxglove/crc';
import {
  McapChunkBuilder,
  McapRecordBuilder,
  Opcode,
  type Channel,
  type ChunkIndex,
  type Header,
  type Message,
  type Metadata,
  type MetadataIndex,
  type Schema,
  type Statistics,
  type SummaryOffset,
} from '@mcap/core';
import type { FileWritable } from './file-writable.js';

export class StreamingMcapWriter {
  private readonly records = new McapRecordBuilder();
  private readonly chunk = new McapChunkBuilder({ useMessageIndex: true });
  private readonly pending: Uint8Array[] = [];
  private pendingBytes = 0;
  /** Bytes handed to the writable successfully. */
  private committed = 0;
  private readonly schemas = new Map<number, Schema>();
  private readonly channels = new Map<number, Channel>();
  private readonly chunkIndexes: ChunkIndex[] = [];
  private readonly metadataIndexes: MetadataIndex[] = [];
  private readonly stats: Statistics = {
    messageCount: 0n,
    schemaCount: 0,
    channelCount: 0,
    attachmentCount: 0,
    metadataCount: 0,
    chunkCount: 0,
    messageStartTime: 0n,
    messageEndTime: 0n,
    channelMessageCounts: new Map(),
  };
  private nextSchemaId = 1;
  private nextChannelId = 1;
  private io: Promise<void> = Promise.resolve();
  /** Running CRC-32 of the open chunk's records, updated per message so closing a chunk is cheap. */
  private chunkCrc = crc32Init();
  private readonly messageHeader = new DataView(new ArrayBuffer(31));
  private ended = false;

  constructor(
    private readonly out: FileWritable,
    private readonly chunkSize = 256 * 1024,
  ) {}

  /** Bytes written to the writable so far (not counting what is pending). */
  get bytesCommitted(): number {
    return this.committed;
  }
  /** Messages accepted so far (flushed or not). */
  get messageCount(): number {
    return Number(this.stats.messageCount);
  }

  start(header: Header): void {
    this.records.writeMagic();
    this.records.writeHeader(header);
    this.takeRecords();
  }

  registerSchema(info: Omit<Schema, 'id'>): number {
    const schema = { ...info, id: this.nextSchemaId++ };
    this.schemas.set(schema.id, schema);
    this.stats.schemaCount++;
    this.records.writeSchema(schema);
    this.takeRecords();
    return schema.id;
  }

  registerChannel(info: Omit<Channel, 'id'>): number {
    const channel = { ...info, id: this.nextChannelId++ };
    this.channels.set(channel.id, channel);
    this.stats.channelCount++;
    this.records.writeChannel(channel);
    this.takeRecords();
    return channel.id;
  }

  /** Synchronous: the message joins the open chunk (closed when it passes `chunkSize`). */
  addMessage(message: Message): void {
    if (this.ended) throw new Error('MCAP writer has ended');
    if (!this.channels.has(message.channelId)) throw new Error(`no channel ${message.channelId}`);
    const s = this.stats;
    if (s.messageCount === 0n || message.logTime < s.messageStartTime) s.messageStartTime = message.logTime;
    if (s.messageCount === 0n || message.logTime > s.messageEndTime) s.messageEndTime = message.logTime;
    s.messageCount++;
    s.channelMessageCounts.set(message.channelId, (s.channelMessageCounts.get(message.channelId) ?? 0n) + 1n);
    this.chunk.addMessage(message);
    this.updateChunkCrc(message);
    if (this.chunk.byteLength >= this.chunkSize) this.closeChunk();
  }

  addMetadata(metadata: Metadata): void {
    this.closeChunk();
    const offset = this.offset();
    const length = this.records.writeMetadata(metadata);
    this.metadataIndexes.push({ name: metadata.name, offset: BigInt(offset), length });
    this.stats.metadataCount++;
    this.takeRecords();
  }

  /** Close the open chunk and write and sync everything pending. Rejects with the write error. */
  flush(): Promise<void> {
    this.closeChunk();
    return this.drain(true);
  }

  /** Finish the file: data end, summary, footer. */
  end(): Promise<void> {
    if (this.ended) return this.drain(true); // a retry after a failed end: write what is still pending
    this.closeChunk();
    this.ended = true;
    this.records.writeDataEnd({ dataSectionCrc: 0 });
    this.takeRecords();
    const summaryStart = this.offset();
    const offsets: SummaryOffset[] = [];
    const group = (opcode: Opcode, write: () => void): void => {
      const start = this.offset();
      write();
      this.takeRecords();
      const length = this.offset() - start;
      if (length > 0) offsets.push({ groupOpcode: opcode, groupStart: BigInt(start), groupLength: BigInt(length) });
    };
    group(Opcode.SCHEMA, () => this.schemas.forEach((s) => this.records.writeSchema(s)));
    group(Opcode.CHANNEL, () => this.channels.forEach((c) => this.records.writeChannel(c)));
    group(Opcode.STATISTICS, () => this.records.writeStatistics(this.stats));
    group(Opcode.METADATA_INDEX, () => this.metadataIndexes.forEach((m) => this.records.writeMetadataIndex(m)));
    group(Opcode.CHUNK_INDEX, () => this.chunkIndexes.forEach((c) => this.records.writeChunkIndex(c)));
    const summaryOffsetStart = this.offset();
    for (const o of offsets) this.records.writeSummaryOffset(o);
    this.records.writeFooter({
      summaryStart: BigInt(summaryStart),
      summaryOffsetStart: BigInt(summaryOffsetStart),
      summaryCrc: 0,
    });
    this.records.writeMagic();
    this.takeRecords();
    return this.drain(true);
  }

  /** CRC the message record exactly as the chunk builder lays it out (MCAP Message, opcode 0x05). */
  private updateChunkCrc(m: Message): void {
    const h = this.messageHeader;
    h.setUint8(0, Opcode.MESSAGE);
    h.setUint32(1, 2 + 4 + 8 + 8 + m.data.byteLength, true); // uint64 record length, low word
    h.setUint32(5, 0, true);
    h.setUint16(9, m.channelId, true);
    h.setUint32(11, m.sequence, true);
    h.setBigUint64(15, m.logTime, true);
    h.setBigUint64(23, m.publishTime, true);
    this.chunkCrc = crc32Update(crc32Update(this.chunkCrc, h), m.data);
  }

  private offset(): number {
    return this.committed + this.pendingBytes;
  }

  private takeRecords(): void {
    if (this.records.length === 0) return;
    this.pending.push(this.records.buffer as Uint8Array); // the getter returns a copy
    this.pendingBytes += this.records.length;
    this.records.reset();
  }

  private closeChunk(): void {
    if (this.chunk.numMessages === 0) return;
    const data = this.chunk.buffer;
    const chunkStart = this.offset();
    const chunkLength = this.records.writeChunk({
      messageStartTime: this.chunk.messageStartTime,
      messageEndTime: this.chunk.messageEndTime,
      uncompressedSize: BigInt(data.byteLength),
      uncompressedCrc: crc32Final(this.chunkCrc),
      compression: '',
      records: data,
    });
    this.takeRecords();
    const indexStart = this.offset();
    const messageIndexOffsets = new Map<number, bigint>();
    let indexLength = 0n;
    for (const index of this.chunk.indices) {
      if (index.records.length === 0) continue;
      messageIndexOffsets.set(index.channelId, BigInt(indexStart) + indexLength);
      indexLength += this.records.writeMessageIndex(index);
    }
    this.takeRecords();
    this.chunkIndexes.push({
      messageStartTime: this.chunk.messageStartTime,
      messageEndTime: this.chunk.messageEndTime,
      chunkStartOffset: BigInt(chunkStart),
      chunkLength,
      messageIndexOffsets,
      messageIndexLength: indexLength,
      compression: '',
      compressedSize: BigInt(data.byteLength),
      uncompressedSize: BigInt(data.byteLength),
    });
    this.stats.chunkCount++;
    this.chunk.reset();
    this.chunkCrc = crc32Init();
  }

  /**
   * Write pending buffers in order (one at a time), then sync. Drains queue behind each other. A
   * failed write rejects this drain and leaves the buffer it failed on (and those after it) pending,
   * so a later flush retries from exactly there: a full disk that gets space again loses nothing
   * that was accepted before it filled.
   */
  private drain(sync: boolean): Promise<void> {
    const run = async (): Promise<void> => {
      while (this.pending.length > 0) {
        const bytes = this.pending[0]!;
        await this.out.write(bytes);
        this.pending.shift();
        this.committed += bytes.byteLength;
        this.pendingBytes -= bytes.byteLength;
      }
      if (sync) await this.out.sync();
    };
    const done = this.io.then(run);
    this.io = done.catch(() => undefined);
    return done;
  }
}
