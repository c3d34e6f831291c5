/**
 * `armguard repair`: rewrite an unfinished (killed) or damaged MCAP file as a complete, indexed one
 * with the same messages — schemas, channels, messages (byte-identical payloads, times and
 * sequence numbers), metadata and attachments, in file order — using @mcap/core's McapWriter.
 * Everything up to the last whole record is kept; what follows it cannot be recovered. ROS topics
 * get a `rosbag2` metadata record if the original never wrote one.
 */
import { access, open, rename, rm, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { McapWriter, type TypedMcapRecords } from '@mcap/core';
import { TolerantMcapScanner, describeScanEnd, type ScanEnd } from '../../drivers/ros2/bag/mcap-scan.js';
import { fileSource } from '../../drivers/ros2/bag/reader.js';
import { serializeRosbag2Metadata } from '../../drivers/ros2/bag/rosbag2-metadata.js';
import { FileWritable } from '../../drivers/ros2/bag/writer.js';
import { InputError } from '../util/index.js';

export interface RepairReport {
  input: string;
  output: string;
  /** How the input ended. */
  inputEnd: ScanEnd;
  messages: number;
  channels: number;
  metadata: number;
  attachments: number;
  /** Bytes of the input after the last whole record (lost). */
  discardedBytes: number;
}

export function describeRepair(r: RepairReport): string {
  return `${r.input}: ${describeScanEnd(r.inputEnd)}; wrote ${r.output} (indexed) with ${r.messages} messages on ${r.channels} channels, ${r.metadata} metadata and ${r.attachments} attachment records` +
    (r.discardedBytes > 0 ? `; ${r.discardedBytes} trailing bytes could not be recovered` : '');
}

export interface RepairOptions {
  /**
   * Keep only ROS 2 channels (`ros2msg`/`cdr`) and the `rosbag2` metadata: a plain rosbag2 file.
   * rosbag2's SequentialReader refuses files whose topics differ in serialization format, so an
   * episode (JSON + CDR channels) must be exported this way before `ros2 bag play`.
   */
  rosOnly?: boolean;
}

/**
 * Repair `input` into `output` (default: in place — the original is kept as `<input>.bak`).
 * Throws InputError when the input is not an MCAP file at all.
 */
export async function repairMcapFile(input: string, output?: string, options: RepairOptions = {}): Promise<RepairReport> {
  const rosOnly = options.rosOnly === true;
  const inPlace = output === undefined;
  const target = output ?? `${input}.repair-tmp`;
  if (inPlace && (await exists(`${input}.bak`))) {
    throw new InputError({ file: input }, `${input}.bak already exists (an earlier repair's original); move it away or use --out`);
  }
  const scanner = new TolerantMcapScanner();
  const handle = await open(target, 'w');
  const report: RepairReport = { input, output: output ?? input, inputEnd: { kind: 'truncated', offset: 0 }, messages: 0, channels: 0, metadata: 0, attachments: 0, discardedBytes: 0 };
  try {
    const writer = new McapWriter({ writable: new FileWritable(handle), chunkSize: 1024 * 1024 });
    const schemaIds = new Map<number, number>();
    const channelIds = new Map<number, number>();
    const channels = new Map<number, TypedMcapRecords['Channel']>();
    const schemas = new Map<number, TypedMcapRecords['Schema']>();
    const counts = new Map<number, number>();
    const times = { first: undefined as bigint | undefined, last: 0n };
    let started = false;
    let hasRosbag2 = false;
    let inSummary = false;
    const ensureStarted = async (profile = '', library = 'armguard repair'): Promise<void> => {
      if (!started) {
        started = true;
        await writer.start({ profile, library });
      }
    };
    const drain = async (): Promise<void> => {
      for (let r = scanner.next(); r; r = scanner.next()) {
        switch (r.type) {
          case 'Header':
            await ensureStarted(r.profile, r.library);
            break;
          case 'Schema':
            schemas.set(r.id, r);
            break;
          case 'Channel': {
            if (channelIds.has(r.id) || inSummary) break;
            const schema = schemas.get(r.schemaId);
            if (rosOnly && !(r.messageEncoding === 'cdr' && schema?.encoding === 'ros2msg')) break;
            await ensureStarted();
            let schemaId = 0;
            if (schema) {
              schemaId = schemaIds.get(r.schemaId) ?? (await writer.registerSchema({ name: schema.name, encoding: schema.encoding, data: schema.data }));
              schemaIds.set(r.schemaId, schemaId);
            }
            channels.set(r.id, r);
            channelIds.set(r.id, await writer.registerChannel({ topic: r.topic, messageEncoding: r.messageEncoding, metadata: r.metadata, schemaId }));
            report.channels++;
            break;
          }
          case 'Message': {
            const id = channelIds.get(r.channelId);
            if (id === undefined) break;
            await writer.addMessage({ channelId: id, sequence: r.sequence, logTime: r.logTime, publishTime: r.publishTime, data: r.data });
            report.messages++;
            counts.set(r.channelId, (counts.get(r.channelId) ?? 0) + 1);
            if (times.first === undefined || r.logTime < times.first) times.first = r.logTime;
            if (r.logTime > times.last) times.last = r.logTime;
            break;
          }
          case 'Metadata':
            if (rosOnly && r.name !== 'rosbag2') break;
            if (r.name === 'rosbag2') hasRosbag2 = true;
            await ensureStarted();
            await writer.addMetadata({ name: r.name, metadata: r.metadata });
            report.metadata++;
            break;
          case 'Attachment':
            if (rosOnly) break;
            await ensureStarted();
            await writer.addAttachment({ name: r.name, logTime: r.logTime, createTime: r.createTime, mediaType: r.mediaType, data: r.data });
            report.attachments++;
            break;
          case 'DataEnd':
            inSummary = true;
            break;
          default:
            break;
        }
      }
    };
    for await (const piece of fileSource(input)) {
      scanner.append(piece);
      await drain();
      if (scanner.failed) break;
    }
    await drain();
    report.inputEnd = scanner.end();
    // Reading stops at the first bad record, so the bytes not read count as lost too.
    report.discardedBytes = report.inputEnd.kind === 'complete' ? 0 : (await stat(input)).size - report.inputEnd.offset;
    if (!started) throw new InputError({ file: input }, `not an MCAP file: ${describeScanEnd(report.inputEnd)}`);
    const rosChannels = [...channels.values()].filter((c) => c.messageEncoding === 'cdr' && schemas.get(c.schemaId)?.encoding === 'ros2msg');
    if (!hasRosbag2 && rosChannels.length > 0) {
      const start = times.first ?? 0n;
      const yaml = serializeRosbag2Metadata({
        relativePath: basename(report.output),
        startNs: start,
        durationNs: times.last > start ? times.last - start : 0n,
        messageCount: rosChannels.reduce((n, c) => n + (counts.get(c.id) ?? 0), 0),
        topics: rosChannels.map((c) => ({
          name: c.topic,
          type: schemas.get(c.schemaId)!.name,
          serializationFormat: 'cdr',
          offeredQosProfiles: c.metadata.get('offered_qos_profiles') ?? '',
          typeDescriptionHash: c.metadata.get('topic_type_hash') ?? '',
          messageCount: counts.get(c.id) ?? 0,
        })),
      });
      await writer.addMetadata({ name: 'rosbag2', metadata: new Map([['serialized_metadata', yaml]]) });
      report.metadata++;
    }
    await writer.end();
    await handle.sync();
  } catch (e) {
    await handle.close();
    if (inPlace) await rm(target, { force: true });
    throw e;
  }
  await handle.close();
  if (inPlace) {
    await rename(input, `${input}.bak`);
    await rename(target, input);
  }
  return report;
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
