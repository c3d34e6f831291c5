/**
 * rosbag2 MCAP reading: topics, types, QoS and CDR-decoded messages, streamed in file order from any
 * byte source (a file stream from src/platform/file-source.ts, or bytes in memory). Tolerates
 * unfinished files like the scanner below it. Definitions come from the file's own `ros2msg` schemas.
 */
import type { TypedMcapRecords } from '@mcap/core';
import { parse as parseYaml } from 'yaml';
import { Ros2CodecCache } from './codec.js';
import { TolerantMcapScanner, type ScanEnd, type SkippedRegion } from './mcap-scan.js';
import { parseQosProfiles, type QosProfile } from './qos.js';

export type ByteSource = AsyncIterable<Uint8Array> | Iterable<Uint8Array>;

export interface BagTopic {
  channelId: number;
  topic: string;
  /** Schema name, e.g. `std_msgs/msg/String`. */
  type: string;
  schemaEncoding: string;
  messageEncoding: string;
  /** Parsed `offered_qos_profiles` (empty when absent or empty). */
  qos: QosProfile[];
  /** Raw channel metadata. */
  metadata: ReadonlyMap<string, string>;
  /** Messages actually read on this topic. */
  messageCount: number;
}

export interface BagMessage {
  topic: string;
  type: string;
  channelId: number;
  sequence: number;
  /** Nanoseconds since the epoch (receive time). */
  logTime: bigint;
  publishTime: bigint;
  data: Uint8Array;
  /** CDR-decode with the topic's schema; throws an Error naming topic, type and log time. */
  decode(): Record<string, unknown>;
}

export interface BagSummary {
  profile: string;
  library: string;
  topics: BagTopic[];
  messageCount: number;
  /** Earliest and latest log time read (ns); undefined without messages. */
  startTime: bigint | undefined;
  endTime: bigint | undefined;
  /** The Statistics record, when the file has one (indexed files). */
  statistics: TypedMcapRecords['Statistics'] | undefined;
  /** The last `rosbag2` metadata record's `serialized_metadata`, parsed with integers as bigint (rosbag2 ≥ Iron writes it). */
  rosbag2Metadata: unknown;
  /** How the file ended: complete, truncated (killed recorder) or corrupt (with the byte offset). */
  end: ScanEnd;
  /** Damaged spans skipped (reading went on after each); their messages are not in the counts. */
  skipped: readonly SkippedRegion[];
}

/**
 * Scan a bag, calling `onMessage` for each message in file order. Never throws for bad bytes: the
 * summary's `end` says where reading stopped and why. Errors thrown by `onMessage` propagate.
 */
export async function scanBag(
  source: ByteSource,
  onMessage: (message: BagMessage) => void = () => {},
  options: { codecs?: Ros2CodecCache } = {},
): Promise<BagSummary> {
  const scanner = new TolerantMcapScanner();
  const codecs = options.codecs ?? new Ros2CodecCache();
  const schemas = new Map<number, TypedMcapRecords['Schema']>();
  const topics = new Map<number, BagTopic>();
  const schemaIdOf = new Map<number, number>();
  const summary: BagSummary = {
    profile: '',
    library: '',
    topics: [],
    messageCount: 0,
    startTime: undefined,
    endTime: undefined,
    statistics: undefined,
    rosbag2Metadata: undefined,
    end: { kind: 'truncated', offset: 0 },
    skipped: [],
  };
  const text = new TextDecoder();

  const drain = (): void => {
    for (let record = scanner.next(); record; record = scanner.next()) {
      switch (record.type) {
        case 'Header':
          summary.profile = record.profile;
          summary.library = record.library;
          break;
        case 'Schema':
          schemas.set(record.id, record);
          break;
        case 'Channel': {
          if (topics.has(record.id)) break;
          const schema = schemas.get(record.schemaId);
          let qos: QosProfile[] = [];
          try {
            qos = parseQosProfiles(record.metadata.get('offered_qos_profiles') ?? '');
          } catch {
            qos = [];
          }
          schemaIdOf.set(record.id, record.schemaId);
          topics.set(record.id, {
            channelId: record.id,
            topic: record.topic,
            type: schema?.name ?? '',
            schemaEncoding: schema?.encoding ?? '',
            messageEncoding: record.messageEncoding,
            qos,
            metadata: record.metadata,
            messageCount: 0,
          });
          break;
        }
        case 'Message': {
          const topic = topics.get(record.channelId);
          if (!topic) break;
          topic.messageCount++;
          summary.messageCount++;
          if (summary.startTime === undefined || record.logTime < summary.startTime) summary.startTime = record.logTime;
          if (summary.endTime === undefined || record.logTime > summary.endTime) summary.endTime = record.logTime;
          const schema = schemas.get(schemaIdOf.get(record.channelId) ?? 0);
          const data = record.data;
          onMessage({
            topic: topic.topic,
            type: topic.type,
            channelId: record.channelId,
            sequence: record.sequence,
            logTime: record.logTime,
            publishTime: record.publishTime,
            data,
            decode: () => {
              const where = `topic '${topic.topic}' (${topic.type}) message at log time ${record.logTime}`;
              if (topic.messageEncoding !== 'cdr' || !schema || schema.encoding !== 'ros2msg') {
                throw new Error(
                  `${where}: not a ros2msg/cdr channel (schema encoding '${schema?.encoding ?? ''}', message encoding '${topic.messageEncoding}')`,
                );
              }
              try {
                return codecs.get(schema.name, text.decode(schema.data)).decode(data);
              } catch (e) {
                throw new Error(`${where}: ${(e as Error).message}`);
              }
            },
          });
          break;
        }
        case 'Statistics':
          summary.statistics = record;
          break;
        case 'Metadata':
          if (record.name === 'rosbag2') {
            try {
              summary.rosbag2Metadata = parseYaml(record.metadata.get('serialized_metadata') ?? '', {
                intAsBigInt: true,
              });
            } catch {
              summary.rosbag2Metadata = undefined;
            }
          }
          break;
        default:
          break;
      }
    }
  };

  for await (const piece of source) {
    scanner.append(piece);
    drain();
    if (scanner.failed) break;
  }
  scanner.finish();
  drain();
  summary.end = scanner.end();
  summary.skipped = scanner.skipped;
  summary.topics = [...topics.values()];
  return summary;
}
