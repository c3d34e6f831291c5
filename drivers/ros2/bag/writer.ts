/**
 * A standalone rosbag2-compatible MCAP writer (one file, indexed, via @mcap/core's McapWriter):
 * header profile `ros2`, `ros2msg` schemas with full dependency texts, `cdr` channels with integer
 * QoS metadata, chunk/message indexes, a Statistics record and the `rosbag2` metadata record.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { basename } from 'node:path';
import { McapWriter, type IWritable } from '@mcap/core';
import { Ros2Topics, type Ros2TopicSpec } from './topics.js';
import { packageVersion } from '../../../src/platform/package-files.js';

export const ARMGUARD_MCAP_LIBRARY = `armguard ${packageVersion()} (@mcap/core)`;

export class Rosbag2Writer {
  private readonly mcap: McapWriter;
  private readonly topics: Ros2Topics;
  private closed = false;

  private constructor(
    writable: IWritable,
    private readonly relativePath: string,
    private readonly rosDistro: string | undefined,
    chunkSize: number,
  ) {
    this.mcap = new McapWriter({ writable, chunkSize });
    this.topics = new Ros2Topics(this.mcap);
  }

  static async create(
    writable: IWritable,
    options: { relativePath?: string; rosDistro?: string; chunkSize?: number } = {},
  ): Promise<Rosbag2Writer> {
    const w = new Rosbag2Writer(writable, options.relativePath ?? 'bag_0.mcap', options.rosDistro, options.chunkSize ?? 1024 * 1024);
    await w.mcap.start({ profile: 'ros2', library: ARMGUARD_MCAP_LIBRARY });
    return w;
  }

  addTopic(spec: Ros2TopicSpec): Promise<void> {
    return this.topics.add(spec);
  }

  /** Write one message; `logTimeNs` is the receive time in ns since the epoch. */
  write(topic: string, logTimeNs: bigint, message: unknown, publishTimeNs?: bigint): Promise<void> {
    if (this.closed) throw new Error('bag writer is closed');
    return this.topics.write(topic, logTimeNs, message, publishTimeNs);
  }

  /**
   * Write one already CDR-serialized payload as it arrived (a raw subscription's bytes): not
   * re-encoded, and not checked — what a recorder received is recorded as is.
   */
  writeSerialized(topic: string, logTimeNs: bigint, data: Uint8Array, publishTimeNs?: bigint): Promise<void> {
    if (this.closed) throw new Error('bag writer is closed');
    return this.topics.writeSerialized(topic, logTimeNs, data, publishTimeNs);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.mcap.addMetadata(this.topics.rosbag2Metadata(this.relativePath, this.rosDistro));
    await this.mcap.end();
  }
}

/** An IWritable over a file handle (sequential writes). */
export class FileWritable implements IWritable {
  private offset = 0n;
  constructor(private readonly handle: FileHandle) {}
  async write(buffer: Uint8Array): Promise<unknown> {
    let done = 0;
    while (done < buffer.byteLength) {
      const { bytesWritten } = await this.handle.write(buffer, done, buffer.byteLength - done);
      done += bytesWritten;
    }
    this.offset += BigInt(buffer.byteLength);
    return undefined;
  }
  position(): bigint {
    return this.offset;
  }
}

/** Write a bag file at `path` with `fill`, closing the file whatever happens. */
export async function writeBagFile(
  path: string,
  fill: (writer: Rosbag2Writer) => Promise<void>,
  options: { rosDistro?: string; chunkSize?: number } = {},
): Promise<void> {
  const handle = await open(path, 'w');
  try {
    const writer = await Rosbag2Writer.create(new FileWritable(handle), { ...options, relativePath: basename(path) });
    await fill(writer);
    await writer.close();
    await handle.sync();
  } finally {
    await handle.close();
  }
}
