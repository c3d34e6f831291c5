/**
 * The ROS 2 side of an MCAP file as rosbag2 lays it out: one `ros2msg` schema per type (full text
 * with dependency blocks), one `cdr` channel per topic with `offered_qos_profiles` (integer enums)
 * and `topic_type_hash` metadata, CDR payloads, and a `rosbag2` metadata record at the end.
 * Shared by the standalone bag writer and the episode recorder (both are MCAP sinks).
 */
import type { Channel, Message, Metadata, Schema } from '@mcap/core';
import { createRos2Codec, type Ros2Codec } from './codec.js';
import { canonicalTypeName, fullDefinition } from './msg-definitions.js';
import { offeredQos, serializeQosProfiles, type QosProfile } from './qos.js';
import { serializeRosbag2Metadata } from './rosbag2-metadata.js';

/** What both @mcap/core's McapWriter and armguard's streaming episode writer offer. */
export interface McapSink {
  registerSchema(info: Omit<Schema, 'id'>): number | Promise<number>;
  registerChannel(info: Omit<Channel, 'id'>): number | Promise<number>;
  addMessage(message: Message): void | Promise<void>;
  addMetadata(metadata: Metadata): void | Promise<void>;
}

export interface Ros2TopicSpec {
  topic: string;
  /** `pkg/msg/Type` (or `pkg/Type`). */
  type: string;
  /** Offered QoS; default one reliable, volatile profile. */
  qos?: readonly QosProfile[];
  /** Full definition text; default: armguard's own definition of `type` with its dependencies. */
  definition?: string;
  /** RIHS01 type hash when known; rosbag2 writes an empty string when it is not. */
  typeHash?: string;
}

interface TopicState {
  channelId: number;
  type: string;
  codec: Ros2Codec;
  qosText: string;
  typeHash: string;
  count: number;
  sequence: number;
}

const encoder = new TextEncoder();

export class Ros2Topics {
  private readonly topics = new Map<string, TopicState>();
  private readonly schemaIds = new Map<string, number>();
  private firstNs: bigint | undefined;
  private lastNs: bigint | undefined;
  private total = 0;

  constructor(private readonly sink: McapSink) {}

  /** Number of registered topics. */
  get size(): number {
    return this.topics.size;
  }

  has(topic: string): boolean {
    return this.topics.has(topic);
  }

  /** Register a topic (idempotent for the same topic and type). */
  async add(spec: Ros2TopicSpec): Promise<void> {
    const type = canonicalTypeName(spec.type);
    const existing = this.topics.get(spec.topic);
    if (existing) {
      if (existing.type !== type)
        throw new Error(`topic '${spec.topic}' already registered as ${existing.type}, not ${type}`);
      return;
    }
    const definition = spec.definition ?? fullDefinition(type);
    const codec = createRos2Codec(type, definition);
    let schemaId = this.schemaIds.get(type);
    if (schemaId === undefined) {
      schemaId = await this.sink.registerSchema({ name: type, encoding: 'ros2msg', data: encoder.encode(definition) });
      this.schemaIds.set(type, schemaId);
    }
    const qosText = serializeQosProfiles(spec.qos ?? [offeredQos('reliable')]);
    const typeHash = spec.typeHash ?? '';
    const channelId = await this.sink.registerChannel({
      schemaId,
      topic: spec.topic,
      messageEncoding: 'cdr',
      metadata: new Map([
        ['offered_qos_profiles', qosText],
        ['topic_type_hash', typeHash],
      ]),
    });
    this.topics.set(spec.topic, { channelId, type, codec, qosText, typeHash, count: 0, sequence: 0 });
  }

  /** Build the MCAP message for `message` on `topic` (CDR-encoded); throws for an unknown topic. */
  encode(topic: string, logTimeNs: bigint, message: unknown, publishTimeNs: bigint = logTimeNs): Message {
    const t = this.topics.get(topic);
    if (!t) throw new Error(`topic '${topic}' is not registered`);
    return this.serialized(topic, logTimeNs, t.codec.encode(message), publishTimeNs);
  }

  /**
   * Build the MCAP message for an already CDR-serialized payload (as a ROS 2 subscription in raw
   * mode delivers it, and as rosbag2 records): no encoding cost. Throws for an unknown topic.
   */
  serialized(topic: string, logTimeNs: bigint, data: Uint8Array, publishTimeNs: bigint = logTimeNs): Message {
    const t = this.topics.get(topic);
    if (!t) throw new Error(`topic '${topic}' is not registered`);
    t.count++;
    this.total++;
    if (this.firstNs === undefined || logTimeNs < this.firstNs) this.firstNs = logTimeNs;
    if (this.lastNs === undefined || logTimeNs > this.lastNs) this.lastNs = logTimeNs;
    return { channelId: t.channelId, sequence: t.sequence++, logTime: logTimeNs, publishTime: publishTimeNs, data };
  }

  async write(topic: string, logTimeNs: bigint, message: unknown, publishTimeNs?: bigint): Promise<void> {
    await this.sink.addMessage(this.encode(topic, logTimeNs, message, publishTimeNs));
  }

  async writeSerialized(topic: string, logTimeNs: bigint, data: Uint8Array, publishTimeNs?: bigint): Promise<void> {
    await this.sink.addMessage(this.serialized(topic, logTimeNs, data, publishTimeNs));
  }

  /** The `rosbag2` metadata record summarising the ROS topics written so far. */
  rosbag2Metadata(relativePath: string, rosDistro?: string): Metadata {
    const start = this.firstNs ?? 0n;
    const yaml = serializeRosbag2Metadata({
      relativePath,
      startNs: start,
      durationNs: (this.lastNs ?? start) - start,
      messageCount: this.total,
      rosDistro,
      topics: [...this.topics].map(([name, t]) => ({
        name,
        type: t.type,
        serializationFormat: 'cdr',
        offeredQosProfiles: t.qosText,
        typeDescriptionHash: t.typeHash,
        messageCount: t.count,
      })),
    });
    return { name: 'rosbag2', metadata: new Map([['serialized_metadata', yaml]]) };
  }
}
