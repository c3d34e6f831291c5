/**
 * A standalone rosbag2-compatible MCAP writer (one file, indexed, via @mcap/core's McapWriter):
 * header profile `ros2`, `ros2msg` schemas with full dependency texts, `cdr` channels with integer
 * QoS metadata, chunk/message indexes, a Statistics record and the `rosbag2` metadata record.
 * src/platform/bag-writer.ts writes one to a file.
 */
import { McapWriter } from '@mcap/core';
import { mcapWritable, type FileWritable } from './file-writable.js';
import { Ros2Topics, type Ros2TopicSpec } from './topics.js';

export interface Rosbag2WriterOptions {
  /** The MCAP header's `library` (armguard writes its name and version). */
  library: string;
  /** The file's name inside the bag, for the `rosbag2` metadata record. */
  relativePath?: string;
  rosDistro?: string;
  chunkSize?: number;
}

export class Rosbag2Writer {
  private readonly mcap: McapWriter;
  private readonly topics: Ros2Topics;
  private closed = false;

  private constructor(
    writable: FileWritable,
    private readonly relativePath: string,
    private readonly rosDistro: string | undefined,
    chunkSize: number,
  ) {
    this.mcap = new McapWriter({ writable: mcapWritable(writable), chunkSize });
    this.topics = new Ros2Topics(this.mcap);
  }

  static async create(writable: FileWritable, options: Rosbag2WriterOptions): Promise<Rosbag2Writer> {
    const w = new Rosbag2Writer(
      writable,
      options.relativePath ?? 'bag_0.mcap',
      options.rosDistro,
      options.chunkSize ?? 1024 * 1024,
    );
    await w.mcap.start({ profile: 'ros2', library: options.library });
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

  /** Write the `rosbag2` metadata record and the summary; the writable stays open. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.mcap.addMetadata(this.topics.rosbag2Metadata(this.relativePath, this.rosDistro));
    await this.mcap.end();
  }
}
