/**
 * One MCAP episode file at a time (`armguard run`, the Franka ROS node): `<dir>/<id>.mcap` plus the folder index.
 * Record calls go to the current episode (none between episodes). Storage faults from the
 * recorder are passed on (the composition root holds the gate on them).
 */
import { startEpisodeInDir, type EpisodeInDir } from './episode-dir.js';
import type { EpisodeRecorder, EpisodeStartInput, RecorderOptions } from './recorder.js';
import type { EpisodeIndexEntry, EpisodeStart, LabelInput, LabelRecord } from './types.js';
import type { Fault } from '../ports/index.js';
import type { Timers } from '../util/clock.js';
import type { EpisodeCoverage } from '../schema/clause-coverage.js';

export interface EpisodeManagerOptions {
  dir: string;
  robotId: string;
  /** Platform written into each episode's start record (default 'so101'). */
  platform?: string;
  task: string;
  clauses: string[];
  timers: Timers;
  versions?: Record<string, string>;
  /** The thresholds the monitor uses, written into each episode's start record. */
  thresholds?: EpisodeStart['thresholds'];
  policy?: string;
  /** Gate mode recorded in each episode's start record ('off' marks a baseline run). */
  gateMode?: 'on' | 'off' | 'monitor';
  /** Wall-clock ISO time for ids and `startedAt` (injectable for tests). */
  wallClock?: () => Date;
  onFault: (fault: Fault) => void;
  /** Told after each successful write of the running episode (storage works again after a fault). */
  onWritten?: (t: number) => void;
  /** Told when an episode closes without a success label (with the command that labels it later). */
  log?: (line: string) => void;
  /** Where each clause was evaluated in the running episode (the monitor bank), read when it ends. */
  clauseCoverage?: () => EpisodeCoverage;
  /** The id of each new episode (the demo names its episodes); default `<robotId>-<UTC stamp>-<seq>`. */
  episodeId?: () => string;
  /** Opens an episode; default startEpisodeInDir (tests inject failing storage here). */
  open?: (dir: string, start: EpisodeStartInput, options: Omit<RecorderOptions, 'file'>) => Promise<EpisodeInDir>;
}

export class EpisodeManager {
  private current: EpisodeInDir | undefined;
  private seq = 0;
  /** Files of the episodes finished so far, in order. */
  readonly finished: EpisodeIndexEntry[] = [];
  readonly paths: string[] = [];
  /** Episodes that lost records to storage faults: how many, or undefined when unknown (the end failed). */
  readonly losses: { episodeId: string; path: string; records: number | undefined }[] = [];

  /** The task written into the next episode's start record (the Franka node's task topic changes it). */
  task: string;

  constructor(private readonly o: EpisodeManagerOptions) {
    this.task = o.task;
  }

  get recorder(): EpisodeRecorder | undefined {
    return this.current?.recorder;
  }
  get episodeId(): string | undefined {
    return this.current?.recorder.start.episodeId;
  }
  get path(): string | undefined {
    return this.current?.path;
  }
  /** The running episode's storage failed and is not writing (records are being dropped). */
  get storageFailed(): boolean {
    return this.current?.recorder.failed ?? false;
  }

  /**
   * Start a new episode at t (ends the running one first). Starts and ends run one at a time, in
   * call order, so keys pressed in quick succession never open two files at once; after `close`
   * no episode starts.
   */
  start(t: number): Promise<string> {
    return this.serially(() => this.open(t));
  }

  /** End the running episode (no-op when none). */
  end(t: number, reason: string): Promise<EpisodeIndexEntry | undefined> {
    return this.serially(() => this.finishCurrent(t, reason));
  }

  /** End the running episode and refuse further starts (shutdown). */
  close(t: number, reason: string): Promise<EpisodeIndexEntry | undefined> {
    this.closed = true;
    return this.end(t, reason);
  }

  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;

  private serially<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async open(t: number): Promise<string> {
    if (this.closed) throw new Error('episode recording is closed (shutting down)');
    if (this.current) await this.finishCurrent(t, 'new episode');
    const now = (this.o.wallClock ?? (() => new Date()))();
    const stamp = now
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d+Z$/, 'Z');
    const seq = String(++this.seq).padStart(3, '0');
    const episodeId = this.o.episodeId?.() ?? `${this.o.robotId}-${stamp}-${seq}`;
    const ep = await (this.o.open ?? startEpisodeInDir)(
      this.o.dir,
      {
        episodeId,
        robotId: this.o.robotId,
        platform: this.o.platform ?? 'so101',
        task: this.task,
        ...(this.o.policy ? { policy: this.o.policy } : {}),
        ...(this.o.gateMode ? { gateMode: this.o.gateMode } : {}),
        startedAt: now.toISOString(),
        t0: t,
        clauses: this.o.clauses,
        ...(this.o.versions ? { versions: this.o.versions } : {}),
        ...(this.o.thresholds ? { thresholds: this.o.thresholds } : {}),
      },
      { timers: this.o.timers },
    );
    ep.recorder.onFault((f) => this.o.onFault(f));
    const onWritten = this.o.onWritten;
    if (onWritten) ep.recorder.onWritten(onWritten);
    this.current = ep;
    this.paths.push(ep.path);
    return episodeId;
  }

  label(input: LabelInput): { ok: true; record: LabelRecord } | { ok: false; reason: string } {
    const r = this.current?.recorder;
    if (!r) return { ok: false, reason: 'no episode is recording' };
    return { ok: true, record: r.label(input) };
  }

  private async finishCurrent(t: number, reason: string): Promise<EpisodeIndexEntry | undefined> {
    const ep = this.current;
    if (!ep) return undefined;
    this.current = undefined;
    try {
      const entry = await ep.finish(t, reason, this.o.clauseCoverage?.());
      const s = ep.recorder.stats();
      const lost = s.lostToStorage + (entry.state === 'complete' ? 0 : s.messages - s.flushedMessages);
      if (lost > 0) this.losses.push({ episodeId: entry.episodeId, path: ep.path, records: lost });
      this.finished.push(entry);
      if (entry.success === undefined)
        this.o.log?.(
          `episode ${entry.episodeId} closed without a success label; label it with: armguard label ${ep.path} --success | --failure`,
        );
      return entry;
    } catch (e) {
      this.losses.push({ episodeId: ep.recorder.start.episodeId, path: ep.path, records: undefined });
      this.o.onFault({ kind: 'storage', source: ep.path, detail: `episode end failed: ${(e as Error).message}` });
      return undefined;
    }
  }
}
