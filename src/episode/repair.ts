/**
 * `armguard repair`: rewrite an unfinished (killed) or damaged MCAP file as a complete, indexed one
 * with the same messages — schemas, channels, messages (byte-identical payloads, times and
 * sequence numbers), metadata and attachments, in file order — using @mcap/core's McapWriter.
 * Everything up to the last whole record is kept; what follows it cannot be recovered. ROS topics
 * get a `rosbag2` metadata record if the original never wrote one.
 */
import { randomBytes } from 'node:crypto';
import { link, lstat, realpath, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { McapWriter, type TypedMcapRecords } from '@mcap/core';
import {
  TolerantMcapScanner,
  describeScanEnd,
  describeSkipped,
  lostInSkipped,
  type ScanEnd,
  type SkippedRegion,
} from '../mcap/mcap-scan.js';
import { serializeRosbag2Metadata } from '../mcap/rosbag2-metadata.js';
import { mcapWritable } from '../mcap/file-writable.js';
import { NodeFileWritable } from '../platform/file-writable.js';
import { fileSource } from '../platform/file-source.js';
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
  /** Damaged spans inside the input that were skipped (reading went on after each). */
  skipped: readonly SkippedRegion[];
}

/** Whether the repair lost anything (a damaged region or unrecoverable trailing bytes). */
export function repairLostData(r: RepairReport): boolean {
  return r.skipped.length > 0 || r.discardedBytes > 0;
}

export function describeRepair(r: RepairReport): string {
  const skipped = describeSkipped(r.skipped);
  return (
    `${r.input}: ${describeScanEnd(r.inputEnd)}; wrote ${r.output} (indexed) with ${r.messages} messages on ${r.channels} channels, ${r.metadata} metadata and ${r.attachments} attachment records` +
    (skipped ? `; ${skipped}` : '') +
    (r.discardedBytes > 0 ? `; ${r.discardedBytes} trailing bytes could not be recovered` : '')
  );
}

/** Messages lost (known count) and whether some loss is of unknown size. */
export function repairLoss(r: RepairReport): { messages: number; unknown: boolean } {
  const s = lostInSkipped(r.skipped);
  return { messages: s.messages, unknown: s.unknown || r.discardedBytes > 0 };
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
 * Throws InputError when the input is not an MCAP file at all, or when `output` exists or is the
 * input (under any name). A damaged chunk is skipped and the rest kept (`skipped`).
 */
export async function repairMcapFile(
  input: string,
  output?: string,
  options: RepairOptions = {},
): Promise<RepairReport> {
  const rosOnly = options.rosOnly === true;
  const inPlace = output === undefined;
  const finalPath = output ?? input;
  await checkRepairPaths(input, output);
  // Never open an existing file for writing: the repaired bytes go to a new temporary file beside
  // the target, which is linked into place only once complete (no-clobber for --out).
  const target = join(
    dirname(resolve(finalPath)),
    `.${basename(finalPath)}.repair-${process.pid}-${randomBytes(4).toString('hex')}.tmp`,
  );
  const scanner = new TolerantMcapScanner();
  const out = await NodeFileWritable.create(target);
  const report: RepairReport = {
    input,
    output: finalPath,
    inputEnd: { kind: 'truncated', offset: 0 },
    messages: 0,
    channels: 0,
    metadata: 0,
    attachments: 0,
    discardedBytes: 0,
    skipped: [],
  };
  try {
    const writer = new McapWriter({ writable: mcapWritable(out), chunkSize: 1024 * 1024 });
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
              schemaId =
                schemaIds.get(r.schemaId) ??
                (await writer.registerSchema({ name: schema.name, encoding: schema.encoding, data: schema.data }));
              schemaIds.set(r.schemaId, schemaId);
            }
            channels.set(r.id, r);
            channelIds.set(
              r.id,
              await writer.registerChannel({
                topic: r.topic,
                messageEncoding: r.messageEncoding,
                metadata: r.metadata,
                schemaId,
              }),
            );
            report.channels++;
            break;
          }
          case 'Message': {
            const id = channelIds.get(r.channelId);
            if (id === undefined) break;
            await writer.addMessage({
              channelId: id,
              sequence: r.sequence,
              logTime: r.logTime,
              publishTime: r.publishTime,
              data: r.data,
            });
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
            await writer.addAttachment({
              name: r.name,
              logTime: r.logTime,
              createTime: r.createTime,
              mediaType: r.mediaType,
              data: r.data,
            });
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
    scanner.finish();
    await drain();
    report.inputEnd = scanner.end();
    report.skipped = scanner.skipped;
    // Reading stops at the first bad record, so the bytes not read count as lost too.
    report.discardedBytes = report.inputEnd.kind === 'complete' ? 0 : (await stat(input)).size - report.inputEnd.offset;
    if (!started) throw new InputError({ file: input }, `not an MCAP file: ${describeScanEnd(report.inputEnd)}`);
    const rosChannels = [...channels.values()].filter(
      (c) => c.messageEncoding === 'cdr' && schemas.get(c.schemaId)?.encoding === 'ros2msg',
    );
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
    await out.sync();
  } catch (e) {
    await out.close();
    await rm(target, { force: true });
    throw e;
  }
  await out.close();
  try {
    if (inPlace) {
      // The original keeps its bytes under .bak (a second name, made without overwriting anything),
      // then the repaired file replaces the input name in one rename.
      await link(input, `${input}.bak`);
      await rename(target, input);
    } else {
      await link(target, finalPath); // fails with EEXIST rather than replace a file made meanwhile
      await rm(target);
    }
  } catch (e) {
    await rm(target, { force: true });
    if ((e as NodeJS.ErrnoException).code === 'EEXIST')
      throw new InputError(
        { file: inPlace ? `${input}.bak` : finalPath },
        'appeared while repairing; nothing was overwritten',
      );
    throw e;
  }
  return report;
}

/** Refuse an output that exists or names the input, and an in-place repair whose .bak exists. */
async function checkRepairPaths(input: string, output: string | undefined): Promise<void> {
  const inputReal = await realpath(input).catch(() => resolve(input));
  if (output === undefined) {
    if (await exists(`${input}.bak`)) {
      throw new InputError(
        { file: input },
        `${input}.bak already exists (an earlier repair's original); move it away or use --out`,
      );
    }
    return;
  }
  const outputReal = await realpath(dirname(resolve(output))).then(
    (d) => join(d, basename(output)),
    () => resolve(output),
  );
  if (outputReal === inputReal) {
    throw new InputError(
      { file: output, field: '--out' },
      `is the input file itself; repair never overwrites a recording (omit --out to repair in place, keeping the original as .bak)`,
    );
  }
  if (await exists(output)) {
    const [a, b] = await Promise.all([stat(output).catch(() => undefined), stat(input).catch(() => undefined)]);
    const same = a && b && a.ino === b.ino && a.dev === b.dev;
    throw new InputError(
      { file: output, field: '--out' },
      same
        ? 'is the input file itself (another name for it); repair never overwrites a recording'
        : 'already exists; repair never overwrites a file: choose a new --out path',
    );
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}
