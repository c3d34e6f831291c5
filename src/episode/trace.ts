/**
 * An episode file as the scorer consumes it: frame times, one column per recorded signal, per-clause
 * robustness, the episode metadata and its effective label with history. Streams the file once.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { ByteSource } from '../mcap/reader.js';
import { describeScanEnd } from '../mcap/mcap-scan.js';
import { InputError } from '../util/index.js';
import { EPISODE_METADATA_NAME } from './channels.js';
import { effectiveLabel } from './labels.js';
import { readEpisode } from './reader.js';
import type { EffectiveLabel, EpisodeTraceFromFile, FrameRecord, LabelRecord, RobustnessRecord } from './types.js';

/** A Float64Array that grows by doubling; `view()` is the filled part. */
class Column {
  private data = new Float64Array(256);
  length = 0;
  push(v: number): void {
    if (this.length === this.data.length) {
      const next = new Float64Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }
  view(): Float64Array {
    return this.data.slice(0, this.length);
  }
}

/** What is known of an episode that ended without a success/failure label (listed by reports, not scored). */
export interface UnlabelledEpisode {
  readonly file: string;
  readonly episodeId: string;
  readonly robotId: string;
  readonly task?: string;
  readonly policy?: string;
  readonly gateMode?: 'on' | 'off' | 'monitor';
  readonly startedAt: string;
  readonly frames: number;
  /** Seconds from the first to the last frame (0 with fewer than two frames). */
  readonly duration: number;
  /** The file was cut short: a label recorded after the cut is lost. */
  readonly cut: boolean;
}

/** The episode has no success label: it cannot be scored, and must be listed, not dropped. */
export class UnlabelledEpisodeError extends InputError {
  constructor(
    readonly episode: UnlabelledEpisode,
    reason: string,
  ) {
    super({ file: episode.file, field: 'labels.success' }, reason);
  }
}

/** How many decode error messages a trace carries (the count covers all). */
const MAX_ERROR_MESSAGES = 10;

export interface TraceOptions {
  /** Success to assume for an episode without a success label; without it such a file is an error. */
  defaultSuccess?: boolean;
  file?: string;
}

export async function readEpisodeTrace(
  source: string | ByteSource,
  options: TraceOptions = {},
): Promise<EpisodeTraceFromFile> {
  const times = new Column();
  const rhoTimes = new Column();
  let signalColumns: Column[] = [];
  let clauseColumns: Column[] = [];
  const history: LabelRecord[] = [];
  let lastFrameT = -Infinity;
  let outOfOrder: InputError | undefined;
  let seen: boolean[] = [];
  const scanFile = (): string => (typeof source === 'string' ? source : (options.file ?? '(bytes)'));
  const scan = await readEpisode(
    source,
    (r) => {
      if (r.kind === 'frame') addFrame(r.value);
      else if (r.kind === 'robustness') addRho(r.value);
      else if (r.kind === 'label') history.push(r.value);
    },
    {
      kinds: ['frame', 'robustness', 'label'],
      onStart: (start) => {
        signalColumns = start.signals.map(() => new Column());
        seen = start.signals.map(() => false);
        clauseColumns = start.clauses.map(() => new Column());
      },
      ...(options.file === undefined ? {} : { file: options.file }),
    },
  );
  function addFrame(f: FrameRecord): void {
    if (times.length > 0 && !(f.t > lastFrameT) && outOfOrder === undefined) {
      outOfOrder = new InputError(
        { file: scanFile(), field: `frame ${times.length}` },
        `frame time ${f.t} is not after the previous frame's ${lastFrameT} (EpisodeTrace times must increase strictly)`,
      );
    }
    lastFrameT = f.t;
    times.push(f.t);
    signalColumns.forEach((c, i) => {
      const v = f.values[i];
      const validity = f.validity[i];
      if (validity !== undefined && validity !== 0) seen[i] = true;
      // Missing or invalid samples are NaN: the scorer counts an undefined margin as a violation.
      c.push(v === null || v === undefined || validity !== 1 ? NaN : v);
    });
  }
  function addRho(r: RobustnessRecord): void {
    rhoTimes.push(r.t);
    clauseColumns.forEach((c, i) => c.push(r.rho[i] ?? NaN));
  }
  const file = scan.file;
  if (outOfOrder) throw outOfOrder;
  if (!scan.start)
    throw new InputError(
      { file },
      `not an armguard episode file (no '${EPISODE_METADATA_NAME}' metadata record; ${describeScanEnd(scan.end)})`,
    );
  const labels: EffectiveLabel = effectiveLabel(history);
  const success = labels.success ?? options.defaultSuccess;
  if (success === undefined) {
    // A label recorded after where a cut-short file stops is lost; say so rather than blame the labeling.
    const cut =
      scan.end.kind === 'complete'
        ? ''
        : `; the file is ${describeScanEnd(scan.end)}: any label recorded after that point is lost`;
    const t = times.view();
    const s = scan.start;
    throw new UnlabelledEpisodeError(
      {
        file,
        episodeId: s.episodeId,
        robotId: s.robotId,
        startedAt: s.startedAt,
        frames: t.length,
        duration: t.length > 1 ? t[t.length - 1]! - t[0]! : 0,
        cut: scan.end.kind !== 'complete',
        ...((labels.taskId ?? s.task) === undefined ? {} : { task: labels.taskId ?? s.task }),
        ...((labels.policy ?? s.policy) === undefined ? {} : { policy: labels.policy ?? s.policy }),
        ...(s.gateMode === undefined ? {} : { gateMode: s.gateMode }),
      },
      `episode has no success label (label it with: armguard label <file> --success | --failure)${cut}`,
    );
  }
  const start = scan.start;
  const meta = {
    episodeId: start.episodeId,
    success,
    templates: labels.taskTags,
    objects: labels.objectTags,
    manual: new Map(Object.entries(labels.manual)),
    ...(start.platform === undefined ? {} : { platform: start.platform }),
    ...((labels.taskId ?? start.task) === undefined ? {} : { task: labels.taskId ?? start.task }),
    ...((labels.policy ?? start.policy) === undefined ? {} : { policy: labels.policy ?? start.policy }),
    ...(labels.note === undefined ? {} : { note: labels.note }),
    ...(start.thresholds === undefined
      ? {}
      : { thresholds: new Map(Object.entries(start.thresholds).map(([id, t]) => [id, { tau: t.tau, from: t.from }])) }),
  };
  return {
    meta,
    times: times.view(),
    // Only signals that arrived at least once are columns: the scorer decides clause applicability
    // from the columns present, and a signal this platform never measured must not look measured.
    columns: new Map(start.signals.flatMap((name, i) => (seen[i] ? [[name, signalColumns[i]!.view()] as const] : []))),
    file,
    start,
    robustnessTimes: rhoTimes.view(),
    robustness: new Map(start.clauses.map((id, i) => [id, clauseColumns[i]!.view()])),
    labels: { effective: labels, history },
    end: scan.end.kind,
    scanEnd: scan.end,
    skippedRegions: scan.skipped,
    decodeErrorCount: scan.errorCount,
    decodeErrors: scan.errors.slice(0, MAX_ERROR_MESSAGES).map((e) => e.message),
  };
}

/** The label history and effective label of an episode file. */
export async function readLabels(
  source: string | ByteSource,
): Promise<{ history: LabelRecord[]; effective: EffectiveLabel }> {
  const history: LabelRecord[] = [];
  await readEpisode(
    source,
    (r) => {
      if (r.kind === 'label') history.push(r.value);
    },
    { kinds: ['label'] },
  );
  return { history, effective: effectiveLabel(history) };
}

/**
 * The traces of every episode file (`*.mcap`) in `dir`, one at a time in file-name order, so a
 * report never holds more than one episode. A file that cannot be scored goes to `onError` (default:
 * the error is thrown).
 */
export async function* episodeTraces(
  dir: string,
  options: TraceOptions & { onError?: (file: string, error: Error) => void } = {},
): AsyncGenerator<EpisodeTraceFromFile> {
  const names = (await readdir(dir)).filter((n) => n.endsWith('.mcap')).sort();
  for (const name of names) {
    const path = join(dir, name);
    let trace: EpisodeTraceFromFile;
    try {
      trace = await readEpisodeTrace(path, { ...options, file: path });
    } catch (e) {
      if (!options.onError) throw e;
      options.onError(path, e as Error);
      continue;
    }
    yield trace;
  }
}
