/**
 * The episode recorder (design §8, §12): one MCAP file per episode, written incrementally. Record
 * calls are synchronous and never throw for storage problems (the gate calls them on its path);
 * bytes reach the file on `flush()`, which an injected timer runs at least every second. A write
 * or sync failure (e.g. ENOSPC) becomes a typed `Fault {kind:'storage'}` for the listeners, so the
 * gate can hold; records offered after that are counted as dropped and reported, never silently lost.
 * A failed recorder retries the write on every flush tick (the bytes that did not reach the file
 * stay pending); once a write succeeds it records again and tells its `onWritten` listeners.
 */
import type { Ros2TopicSpec } from '../mcap/topics.js';
import { Ros2Topics } from '../mcap/topics.js';
import type { Fault, FaultListener, JointChunk } from '../ports/index.js';
import { SIGNALS, type SignalFrame } from '../schema/signals.js';
import type { TimerHandle, Timers } from '../util/index.js';
import { packageVersion } from '../platform/package-files.js';
import { EPISODE_METADATA_NAME, JSON_CHANNELS, MCAP_PROFILE, type JsonKind } from './channels.js';
import { labelRecordFrom } from './labels.js';
import type { FileWritable } from '../mcap/file-writable.js';
import { StreamingMcapWriter } from '../mcap/streaming-writer.js';
import type {
  ClauseSummary,
  EpisodeIndexEntry,
  EpisodeStart,
  GateRecord,
  LabelInput,
  LabelRecord,
  SemanticRecord,
  Versions,
} from './types.js';
import { clauseSummary } from './episode-index.js';
import type { EpisodeCoverage } from '../schema/clause-coverage.js';
import { Listeners } from '../util/listeners.js';

/** Written into every episode (package.json's version). */
export const ARMGUARD_VERSION = packageVersion();
export const DEFAULT_FLUSH_INTERVAL_S = 0.5;

export interface RecorderOptions {
  /** Drives the periodic flush (ManualTimers in tests). */
  timers: Timers;
  /** Seconds between flushes; at most 1 (design §12). Default 0.5. */
  flushInterval?: number;
  chunkSize?: number;
  /** File name for messages and the rosbag2 metadata record. */
  file?: string;
  rosDistro?: string;
}

export type EpisodeStartInput = Omit<EpisodeStart, 'signals' | 'clauses' | 'versions' | 'armguardVersion'> & {
  signals?: string[];
  clauses?: string[];
  versions?: Versions;
};

export interface RecorderStats {
  state: 'recording' | 'failed' | 'ended';
  /** Messages accepted into the file (flushed or pending). */
  messages: number;
  /** Messages known to be on storage (accepted before the last successful flush). */
  flushedMessages: number;
  /** Records offered after a storage failure (not written). */
  dropped: number;
  /** Of `dropped`, those offered while storage was failing (the rest came after the end). */
  lostToStorage: number;
  bytesWritten: number;
}

const encoder = new TextEncoder();

function toNs(t: number): bigint {
  if (!(t > 0)) return 0n;
  const sec = Math.floor(t);
  return BigInt(sec) * 1_000_000_000n + BigInt(Math.min(999_999_999, Math.round((t - sec) * 1e9)));
}

/** JSON number or null (NaN/±∞ are not JSON). */
const jnum = (v: number): string => (Number.isFinite(v) ? String(v) : 'null');

export class EpisodeRecorder {
  private readonly writer: StreamingMcapWriter;
  private readonly ros: Ros2Topics;
  private readonly channelIds = new Map<JsonKind, number>();
  private readonly sequences = new Map<number, number>();
  private readonly listeners = new Listeners<Parameters<FaultListener>>();
  private readonly counts: Record<string, number> = {};
  private readonly minRho: number[];
  private readonly violatedSteps: number[];
  private readonly timer: TimerHandle;
  private state: RecorderStats['state'] = 'recording';
  /** Set once end() has written the end record: later record calls are counted as dropped, never throw. */
  private ending = false;
  private dropped = 0;
  private lostToStorage = 0;
  private flushedMessages = 0;
  private readonly writtenListeners = new Listeners<[t: number]>();
  /** Waiters for `durable()`: resolved once `flushedMessages` reaches `mark`, or false at the end. */
  private durableWaiters: { mark: number; resolve: (ok: boolean) => void }[] = [];
  private lastT: number;
  private lastSources: string[] | undefined;
  private lastSuccess: boolean | undefined;
  private lastTask: string | undefined;
  private lastPolicy: string | undefined;
  private flushing: Promise<boolean> | undefined;
  private scratch = new Uint8Array(64 * 1024);

  private constructor(
    private readonly out: FileWritable,
    readonly start: EpisodeStart,
    private readonly options: RecorderOptions,
  ) {
    this.writer = new StreamingMcapWriter(out, options.chunkSize);
    this.ros = new Ros2Topics(this.writer);
    this.lastT = start.t0;
    this.minRho = start.clauses.map(() => Infinity);
    this.violatedSteps = start.clauses.map(() => 0);
    this.lastTask = start.task;
    this.lastPolicy = start.policy;
    const interval = Math.min(1, options.flushInterval ?? DEFAULT_FLUSH_INTERVAL_S);
    this.timer = options.timers.setInterval(() => void this.flush(), interval);
  }

  /** Begin an episode on `out` (header, episode metadata, armguard's channels). */
  static start(out: FileWritable, start: EpisodeStartInput, options: RecorderOptions): EpisodeRecorder {
    const full: EpisodeStart = {
      ...start,
      signals: start.signals ?? SIGNALS.map((s) => s.name),
      clauses: start.clauses ?? [],
      versions: start.versions ?? {},
      armguardVersion: ARMGUARD_VERSION,
    };
    const r = new EpisodeRecorder(out, full, options);
    r.writer.start({ profile: MCAP_PROFILE, library: `armguard ${ARMGUARD_VERSION}` });
    r.writer.addMetadata({ name: EPISODE_METADATA_NAME, metadata: new Map([['episode', JSON.stringify(full)]]) });
    for (const [kind, c] of Object.entries(JSON_CHANNELS) as [JsonKind, (typeof JSON_CHANNELS)[JsonKind]][]) {
      const schemaId = r.writer.registerSchema({
        name: c.schemaName,
        encoding: 'jsonschema',
        data: encoder.encode(JSON.stringify(c.schema)),
      });
      r.channelIds.set(
        kind,
        r.writer.registerChannel({ schemaId, topic: c.topic, messageEncoding: 'json', metadata: new Map() }),
      );
    }
    return r;
  }

  onFault(listener: FaultListener): void {
    this.listeners.add(listener);
  }

  /** Told after every successful write + sync (storage works: a latched storage fault may clear). */
  onWritten(listener: (t: number) => void): void {
    this.writtenListeners.add(listener);
  }

  /** Storage failed and the last retry did too: records offered now are dropped. */
  get failed(): boolean {
    return this.state === 'failed';
  }

  /**
   * Resolves true once every record accepted so far is on storage (written and synced), false if
   * the episode ends without that. Starts a flush.
   */
  durable(): Promise<boolean> {
    const mark = this.writer.messageCount;
    if (this.flushedMessages >= mark) return Promise.resolve(true);
    if (this.state === 'ended') return Promise.resolve(false);
    const p = new Promise<boolean>((resolve) => this.durableWaiters.push({ mark, resolve }));
    void this.flush();
    return p;
  }

  stats(): RecorderStats {
    return {
      state: this.state,
      messages: this.writer.messageCount,
      flushedMessages: this.flushedMessages,
      dropped: this.dropped,
      lostToStorage: this.lostToStorage,
      bytesWritten: this.writer.bytesCommitted,
    };
  }

  frame(frame: SignalFrame): void {
    const n = this.start.signals.length;
    let values = '';
    let stamps = '';
    let validity = '';
    let sourcesChanged = this.lastSources === undefined;
    for (let i = 0; i < n; i++) {
      const sep = i === 0 ? '' : ',';
      values += sep + jnum(frame.values[i] ?? NaN);
      stamps += sep + jnum(frame.stamps[i] ?? NaN);
      validity += sep + String(frame.validity[i] ?? 0);
      if (!sourcesChanged && this.lastSources![i] !== frame.sources[i]) sourcesChanged = true;
    }
    let json = `{"t":${jnum(frame.t)},"values":[${values}],"stamps":[${stamps}],"validity":[${validity}]`;
    if (sourcesChanged) {
      this.lastSources = frame.sources.slice(0, n);
      json += `,"sources":${JSON.stringify(this.lastSources)}`;
    }
    this.put('frame', frame.t, `${json}}`);
  }

  /** Per-clause ρ at time t, in `start.clauses` order. */
  robustness(t: number, rho: ArrayLike<number>): void {
    let list = '';
    for (let i = 0; i < this.minRho.length; i++) {
      const v = rho[i] ?? NaN;
      list += (i === 0 ? '' : ',') + jnum(v);
      if (v < this.minRho[i]!) this.minRho[i] = v;
      if (v < 0) this.violatedSteps[i]!++;
    }
    this.put('robustness', t, `{"t":${jnum(t)},"rho":[${list}]}`);
  }

  gateTransition(t: number, from: string, to: string, reason: string): void {
    this.gate({ t, kind: 'transition', from, to, reason });
  }
  gateEvent(t: number, event: string, detail?: string): void {
    this.gate(detail === undefined ? { t, kind: 'event', event } : { t, kind: 'event', event, detail });
  }
  fault(t: number, fault: Fault): void {
    this.gate({ t, kind: 'fault', fault: { ...fault } });
  }
  private gate(record: GateRecord): void {
    this.put('gate', record.t, JSON.stringify(record));
  }

  proposedChunk(t: number, chunk: JointChunk): void {
    this.put('proposed-chunk', t, JSON.stringify({ t, ...chunkFields(chunk) }));
  }
  executedChunk(
    t: number,
    chunk: JointChunk,
    proposedId: string,
    verdict: 'executed' | 'filtered' | 'held',
    modification: number,
  ): void {
    this.put('executed-chunk', t, JSON.stringify({ t, ...chunkFields(chunk), proposedId, verdict, modification }));
  }

  /** A raw input that is not a ROS message (e.g. one servo read), as JSON. */
  raw(t: number, source: string, payload: unknown): void {
    this.put('raw', t, JSON.stringify({ t, source, payload }));
  }

  /** A semantic-gate record (issue 18): judge queries, verdicts, faults, decisions, stage events, frames. */
  semantic(record: SemanticRecord): void {
    this.put('semantic', record.t, JSON.stringify(record));
  }

  versions(t: number, versions: Versions): void {
    this.put('versions', t, JSON.stringify({ t, versions }));
  }

  /** Append a label record (relabeling appends; the effective label is the fold of all records). */
  label(input: LabelInput): LabelRecord {
    const record = labelRecordFrom(input, this.lastT);
    if (record.success !== undefined) this.lastSuccess = record.success;
    if (record.taskId !== undefined) this.lastTask = record.taskId;
    if (record.policy !== undefined) this.lastPolicy = record.policy;
    this.put('label', record.t, JSON.stringify(record));
    return record;
  }

  /** Register a ROS 2 topic recorded as CDR (rosbag2 layout). */
  async addRosTopic(spec: Ros2TopicSpec): Promise<void> {
    await this.ros.add(spec);
  }

  /** A raw ROS 2 input message on a registered topic (one it cannot encode is counted as dropped, with a fault). */
  rosMessage(topic: string, t: number, message: unknown): void {
    this.addRos(topic, t, () => this.ros.encode(topic, toNs(t), message));
  }

  /** A ROS 2 input already serialized as CDR (raw subscription): recorded without re-encoding. */
  rosSerialized(topic: string, t: number, data: Uint8Array): void {
    this.addRos(topic, t, () => this.ros.serialized(topic, toNs(t), data));
  }

  private addRos(topic: string, t: number, build: () => Parameters<StreamingMcapWriter['addMessage']>[0]): void {
    if (this.state !== 'recording' || this.ending) {
      this.drop();
      return;
    }
    let record;
    try {
      record = build();
    } catch (e) {
      this.dropped++;
      this.emit({
        kind: 'storage',
        source: this.source(),
        detail: `ROS message on ${topic} not recorded: ${(e as Error).message}`,
      });
      return;
    }
    this.writer.addMessage(record);
    this.lastT = t;
    this.counts['ros'] = (this.counts['ros'] ?? 0) + 1;
  }

  /**
   * Write everything pending and fsync. Resolves false (after reporting a fault) on failure. On a
   * failed recorder this is the retry: success puts it back to recording.
   */
  flush(): Promise<boolean> {
    if (this.state === 'ended') return Promise.resolve(true);
    if (this.flushing) return this.flushing.then(() => this.flush());
    const accepted = this.writer.messageCount;
    this.flushing = this.writer
      .flush()
      .then(
        () => {
          this.written(accepted);
          return true;
        },
        (e: unknown) => {
          this.fail(e);
          return false;
        },
      )
      .finally(() => {
        this.flushing = undefined;
      });
    return this.flushing;
  }

  private written(accepted: number): void {
    this.flushedMessages = accepted;
    if (this.state === 'failed' && !this.ending) this.state = 'recording';
    if (this.durableWaiters.length > 0) {
      const still = [];
      for (const w of this.durableWaiters) {
        if (w.mark <= accepted) w.resolve(true);
        else still.push(w);
      }
      this.durableWaiters = still;
    }
    this.writtenListeners.emit(this.lastT);
  }

  /**
   * Finish the episode: end record, rosbag2 metadata, summary, close. Returns the index entry
   * (state 'complete', or 'truncated' when storage failed and the file lacks its summary).
   */
  async end(t: number, reason: string, coverage?: EpisodeCoverage): Promise<EpisodeIndexEntry> {
    if (this.state === 'recording' && !this.ending)
      this.put('end', t, JSON.stringify(coverage ? { t, reason, coverage } : { t, reason }));
    this.ending = true;
    this.timer.cancel();
    if (this.flushing) await this.flushing;
    // Storage failed earlier: one more try, so a disk that has space again still gets a whole file.
    if (this.state === 'failed' && (await this.flush())) this.state = 'recording';
    if (this.state === 'recording') {
      if (this.ros.size > 0)
        this.writer.addMetadata(this.ros.rosbag2Metadata(this.options.file ?? 'episode.mcap', this.options.rosDistro));
      const accepted = this.writer.messageCount;
      try {
        await this.writer.end();
        this.flushedMessages = accepted;
        this.state = 'ended';
      } catch (e) {
        this.fail(e);
      }
    }
    const failed = this.state === 'failed';
    try {
      await this.out.close();
    } catch (e) {
      if (!failed) this.fail(e);
    }
    const unflushed = this.writer.messageCount - this.flushedMessages;
    if (failed && this.dropped + unflushed > 0) {
      this.emit({
        kind: 'storage',
        source: this.source(),
        detail: `${this.dropped + unflushed} record(s) not on storage: ${unflushed} accepted but not flushed before the failure, ${this.dropped} offered after it`,
      });
    }
    for (const w of this.durableWaiters) w.resolve(w.mark <= this.flushedMessages);
    this.durableWaiters = [];
    return this.indexEntry(t, this.state === 'ended' ? 'complete' : 'truncated', coverage);
  }

  private indexEntry(
    tEnd: number,
    state: EpisodeIndexEntry['state'],
    coverage: EpisodeCoverage | undefined,
  ): EpisodeIndexEntry {
    const clauses: Record<string, ClauseSummary> = {};
    this.start.clauses.forEach((id, i) => {
      clauses[id] = clauseSummary(this.minRho[i]!, this.violatedSteps[i]!, coverage, i);
    });
    const entry: EpisodeIndexEntry = {
      file: this.options.file ?? '',
      episodeId: this.start.episodeId,
      robotId: this.start.robotId,
      startedAt: this.start.startedAt,
      t0: this.start.t0,
      tEnd,
      counts: { ...this.counts },
      versions: this.start.versions,
      state,
    };
    if (this.start.platform !== undefined) entry.platform = this.start.platform;
    if (this.lastTask !== undefined) entry.task = this.lastTask;
    if (this.lastPolicy !== undefined) entry.policy = this.lastPolicy;
    if (this.lastSuccess !== undefined) entry.success = this.lastSuccess;
    if (this.start.clauses.length > 0) entry.clauses = clauses;
    return entry;
  }

  private drop(): void {
    this.dropped++;
    if (this.state === 'failed') this.lostToStorage++;
  }

  private put(kind: JsonKind, t: number, json: string): void {
    if (this.state !== 'recording' || this.ending) {
      this.drop();
      return;
    }
    const channelId = this.channelIds.get(kind)!;
    const sequence = this.sequences.get(channelId) ?? 0;
    this.sequences.set(channelId, sequence + 1);
    this.counts[kind] = (this.counts[kind] ?? 0) + 1;
    if (t > this.lastT) this.lastT = t;
    const ns = toNs(t);
    // Encode into a reused buffer: the chunk builder copies the bytes, so no per-record allocation.
    let { written } = encoder.encodeInto(json, this.scratch);
    if (written === this.scratch.byteLength || json.length * 3 > this.scratch.byteLength) {
      this.scratch = new Uint8Array(Math.max(this.scratch.byteLength * 2, json.length * 3));
      written = encoder.encodeInto(json, this.scratch).written;
    }
    this.writer.addMessage({
      channelId,
      sequence,
      logTime: ns,
      publishTime: ns,
      data: this.scratch.subarray(0, written),
    });
  }

  private source(): string {
    return `episode:${this.options.file ?? this.start.episodeId}`;
  }

  private fail(e: unknown): void {
    if (this.state === 'failed') return;
    this.state = 'failed';
    // The flush timer keeps running: each tick retries the write.
    const err = e as NodeJS.ErrnoException;
    const message = err?.message ?? String(e);
    const code = typeof err?.code === 'string' && !message.startsWith(err.code) ? `${err.code}: ` : '';
    this.emit({ kind: 'storage', source: this.source(), detail: `${code}${message}` });
  }

  private emit(fault: Fault): void {
    this.listeners.emit(fault, this.lastT);
  }
}

function chunkFields(chunk: JointChunk) {
  return {
    id: chunk.id,
    stamp: chunk.stamp,
    horizon: chunk.horizon,
    joints: chunk.joints,
    dt: chunk.dt,
    targets: Array.from(chunk.targets),
  };
}
