/**
 * Streaming episode reader: an episode file's records in file order as typed values, from a
 * complete, truncated (killed recorder) or corrupt file. Never holds more than one file piece and
 * the records the caller keeps. A damaged chunk is skipped (listed in `skipped`) and reading goes
 * on; a truncated tail ends the scan with a positioned status; a message whose
 * JSON does not match its kind is reported as an InputError naming file, topic and log time.
 */
import type { TypedMcapRecords } from '@mcap/core';
import { Ros2CodecCache } from '../mcap/codec.js';
import { TolerantMcapScanner, type ScanEnd, type SkippedRegion } from '../mcap/mcap-scan.js';
import type { ByteSource } from '../mcap/reader.js';
import { fileSource } from '../platform/file-source.js';
import { InputError } from '../util/index.js';
import { EPISODE_METADATA_NAME, KIND_BY_TOPIC, type JsonKind } from './channels.js';
import { labelRecordFrom } from './labels.js';
import type { EpisodeRecord, EpisodeRecordKind, EpisodeStart } from './types.js';

export interface EpisodeScan {
  file: string;
  start: EpisodeStart | undefined;
  end: ScanEnd;
  /** Damaged spans skipped (reading went on after each): their records are missing. */
  skipped: readonly SkippedRegion[];
  /** Messages whose content did not decode (each positioned; the first MAX_ERRORS kept); reading went on past them. */
  errors: InputError[];
  /** How many messages did not decode, including those past the `errors` cap. */
  errorCount: number;
  /** Messages read per kind (all kinds, even those not asked for). */
  counts: Record<string, number>;
}

export interface ReadOptions {
  /** Only these kinds are decoded and passed on (default: all). */
  kinds?: readonly EpisodeRecordKind[];
  /** Name used in messages when reading from bytes. */
  file?: string;
  /** Called with the episode metadata when it is read (before any message of a well-formed file). */
  onStart?: (start: EpisodeStart) => void;
}

const MAX_ERRORS = 100;
const text = new TextDecoder();

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
const isNumArray = (v: unknown): boolean => Array.isArray(v) && v.every((x) => x === null || typeof x === 'number');

/** Structural check of a decoded JSON record; returns what is wrong or undefined. */
function checkRecord(kind: JsonKind, v: Record<string, unknown>): string | undefined {
  if (typeof v['t'] !== 'number') return "field 't' must be a number";
  switch (kind) {
    case 'frame':
      if (!isNumArray(v['values']) || !isNumArray(v['stamps']) || !isNumArray(v['validity']))
        return "fields 'values', 'stamps', 'validity' must be number arrays";
      return undefined;
    case 'robustness':
      return isNumArray(v['rho']) ? undefined : "field 'rho' must be a number array";
    case 'gate':
      return ['transition', 'event', 'fault'].includes(v['kind'] as string)
        ? undefined
        : "field 'kind' must be transition, event or fault";
    case 'proposed-chunk':
    case 'executed-chunk':
      if (typeof v['id'] !== 'string' || !isNumArray(v['targets']))
        return "fields 'id' (string) and 'targets' (numbers) are required";
      if ((v['targets'] as unknown[]).length !== Number(v['horizon']) * Number(v['joints']))
        return "'targets' length must be horizon × joints";
      return undefined;
    case 'raw':
      return typeof v['source'] === 'string' ? undefined : "field 'source' must be a string";
    case 'versions':
      return isObject(v['versions']) ? undefined : "field 'versions' must be an object";
    case 'end':
      return typeof v['reason'] === 'string' ? undefined : "field 'reason' must be a string";
    case 'label':
      return undefined; // validated fully by labelRecordFrom
    case 'semantic':
      return typeof v['kind'] === 'string' ? undefined : "field 'kind' must be a string";
  }
}

function parseStart(json: string | undefined): EpisodeStart | undefined {
  if (json === undefined) return undefined;
  try {
    const v: unknown = JSON.parse(json);
    if (
      !isObject(v) ||
      typeof v['episodeId'] !== 'string' ||
      !Array.isArray(v['signals']) ||
      !Array.isArray(v['clauses'])
    )
      return undefined;
    return v as unknown as EpisodeStart;
  } catch {
    return undefined;
  }
}

/**
 * Read an episode file (path or bytes), calling `onRecord` for each record of the asked kinds, in
 * file order. Errors thrown by `onRecord` propagate; nothing else throws for bad input.
 */
export async function readEpisode(
  source: string | ByteSource,
  onRecord: (record: EpisodeRecord) => void,
  options: ReadOptions = {},
): Promise<EpisodeScan> {
  const file = typeof source === 'string' ? source : (options.file ?? '(bytes)');
  const want = options.kinds ? new Set<EpisodeRecordKind>(options.kinds) : undefined;
  const scanner = new TolerantMcapScanner();
  const codecs = new Ros2CodecCache();
  const schemas = new Map<number, TypedMcapRecords['Schema']>();
  const channels = new Map<
    number,
    {
      topic: string;
      kind: JsonKind | 'ros' | 'other';
      schema: TypedMcapRecords['Schema'] | undefined;
      encoding: string;
    }
  >();
  const scan: EpisodeScan = {
    file,
    start: undefined,
    end: { kind: 'truncated', offset: 0 },
    skipped: [],
    errors: [],
    errorCount: 0,
    counts: {},
  };
  const bad = (topic: string, logTime: bigint, reason: string): void => {
    scan.errorCount++;
    if (scan.errors.length < MAX_ERRORS)
      scan.errors.push(new InputError({ file, field: `${topic} @ ${logTime} ns` }, reason));
  };

  const handle = (record: TypedMcapRecords['Message']): void => {
    const ch = channels.get(record.channelId);
    if (!ch) return;
    scan.counts[ch.kind] = (scan.counts[ch.kind] ?? 0) + 1;
    if (ch.kind === 'other' || (want && !want.has(ch.kind))) return;
    if (ch.kind === 'ros') {
      const schema = ch.schema;
      const t = Number(record.logTime) / 1e9;
      onRecord({
        kind: 'ros',
        t,
        topic: ch.topic,
        type: schema?.name ?? '',
        decode: () => {
          if (!schema || schema.encoding !== 'ros2msg' || ch.encoding !== 'cdr')
            throw new InputError({ file, field: ch.topic }, 'not a ros2msg/cdr channel');
          try {
            return codecs.get(schema.name, text.decode(schema.data)).decode(record.data);
          } catch (e) {
            throw new InputError({ file, field: `${ch.topic} @ ${record.logTime} ns` }, (e as Error).message);
          }
        },
      });
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(text.decode(record.data));
    } catch (e) {
      bad(ch.topic, record.logTime, `invalid JSON: ${(e as Error).message}`);
      return;
    }
    if (!isObject(value)) return bad(ch.topic, record.logTime, 'expected a JSON object');
    const problem = checkRecord(ch.kind, value);
    if (problem) return bad(ch.topic, record.logTime, problem);
    const t = value['t'] as number;
    if (ch.kind === 'label') {
      try {
        onRecord({ kind: 'label', t, value: labelRecordFrom(value, t, file) });
      } catch (e) {
        if (!(e instanceof InputError)) throw e;
        bad(ch.topic, record.logTime, e.message);
      }
      return;
    }
    onRecord({ kind: ch.kind, t, value } as EpisodeRecord);
  };

  const drain = (): void => {
    for (let r = scanner.next(); r; r = scanner.next()) {
      if (r.type === 'Schema') schemas.set(r.id, r);
      else if (r.type === 'Channel') {
        if (channels.has(r.id)) continue;
        const jsonKind = r.messageEncoding === 'json' ? KIND_BY_TOPIC.get(r.topic) : undefined;
        // Channels that are neither armguard's JSON kinds nor CDR are counted as 'other' and skipped.
        const kind = jsonKind ?? (r.messageEncoding === 'cdr' ? 'ros' : 'other');
        channels.set(r.id, { topic: r.topic, kind, schema: schemas.get(r.schemaId), encoding: r.messageEncoding });
      } else if (r.type === 'Message') handle(r);
      else if (r.type === 'Metadata' && r.name === EPISODE_METADATA_NAME && scan.start === undefined) {
        scan.start = parseStart(r.metadata.get('episode'));
        if (scan.start) options.onStart?.(scan.start);
      }
    }
  };

  const pieces = typeof source === 'string' ? fileSource(source) : source;
  for await (const piece of pieces) {
    scanner.append(piece);
    drain();
    if (scanner.failed) break;
  }
  scanner.finish();
  drain();
  scan.end = scanner.end();
  scan.skipped = scanner.skipped;
  return scan;
}
