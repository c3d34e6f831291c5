/**
 * The recording glue, once for every platform: what a step, a chunk decision and a gate transition
 * become in an episode file. The session (every platform's, the MuJoCo demo's included) hands it the
 * recorder of the running episode; the runtime never opens files — the entry point supplies the
 * episode store (src/episode's EpisodeManager) behind these ports.
 */
import { describeBand } from '../gate/band-stage.js';
import type { ExecutedChunk, GateChunk } from '../gate/chunk.js';
import { describeCause, type GateEvent } from '../gate/events.js';
import type { ClauseMargins } from '../gate/margins.js';
import type { Fault } from '../ports/index.js';
import type { SignalFrame } from '../schema/signals.js';
import type { EpisodeIndexEntry, LabelInput, LabelRecord, SemanticRecord } from '../episode/types.js';

/** The running episode's recorder (src/episode's EpisodeRecorder). */
export interface EpisodeRecordSink {
  frame(frame: SignalFrame): void;
  robustness(t: number, rho: ArrayLike<number>): void;
  proposedChunk(t: number, chunk: GateChunk): void;
  executedChunk(
    t: number,
    chunk: GateChunk,
    proposedId: string,
    verdict: 'executed' | 'filtered' | 'held',
    modification: number,
  ): void;
  gateTransition(t: number, from: string, to: string, reason: string): void;
  gateEvent(t: number, event: string, detail?: string): void;
  fault(t: number, fault: Fault): void;
  semantic(record: SemanticRecord): void;
  /** Resolves true once everything recorded so far is on storage. */
  durable(): Promise<boolean>;
  stats(): { lostToStorage: number };
}

/** One episode file at a time (src/episode's EpisodeManager, built by the entry point). */
export interface EpisodeStore {
  /** The task written into the next episode's start record. */
  task: string;
  readonly recorder: EpisodeRecordSink | undefined;
  readonly episodeId: string | undefined;
  readonly path: string | undefined;
  /** The running episode's storage failed and is not writing. */
  readonly storageFailed: boolean;
  start(t: number): Promise<string>;
  end(t: number, reason: string): Promise<EpisodeIndexEntry | undefined>;
  /** End the running episode and refuse further starts (shutdown). */
  close(t: number, reason: string): Promise<EpisodeIndexEntry | undefined>;
  label(input: LabelInput): { ok: true; record: LabelRecord } | { ok: false; reason: string };
}

/** What the session tells the store's owner: storage failed, or a write succeeded. */
export interface EpisodeStoreHooks {
  onFault(fault: Fault): void;
  onWritten(): void;
}

export class EpisodeTap {
  private readonly rho: Float64Array;

  constructor(
    private readonly margins: ClauseMargins,
    private readonly recorder: () => EpisodeRecordSink | undefined,
  ) {
    this.rho = new Float64Array(margins.count);
  }

  /** After a monitor step at `now`: the frame and every clause's ρ. */
  step(now: number, frame: SignalFrame): void {
    const r = this.recorder();
    if (!r) return;
    for (let i = 0; i < this.rho.length; i++) this.rho[i] = this.margins.margin(i);
    r.frame(frame);
    r.robustness(now, this.rho);
  }

  gateTransition(e: GateEvent): void {
    this.recorder()?.gateTransition(e.t, e.from, e.to, describeCause(e.cause));
  }

  proposed(now: number, chunk: GateChunk): void {
    this.recorder()?.proposedChunk(now, chunk);
  }

  /** A chunk the gate let through: what was forwarded (the filter's output) and how much it changed. */
  forwarded(now: number, chunk: GateChunk, r: ExecutedChunk): void {
    if (!r.targets || (r.verdict !== 'executed' && r.verdict !== 'filtered')) return;
    this.recorder()?.executedChunk(now, { ...chunk, targets: r.targets }, chunk.id, r.verdict, r.modification ?? 0);
  }

  /** A chunk not forwarded (the semantic gate; with recordHeldChunks, the chunk path): recorded as a held chunk. */
  held(now: number, chunk: GateChunk): void {
    this.recorder()?.executedChunk(now, chunk, chunk.id, 'held', 0);
  }

  /**
   * The chunk path's decision: held and rejected chunks become gate events naming why, and so does
   * a chunk the warning band slowed, bent or held ('warning-band', naming the action and clause).
   */
  chunkResult(r: ExecutedChunk, t: number): void {
    if (r.verdict === 'held' || r.verdict === 'rejected')
      this.event(t, `chunk-${r.verdict}`, `${r.id}: ${r.code}: ${r.reason}`);
    else if (r.band) this.event(t, 'warning-band', `${r.id}: ${describeBand(r.band)}`);
  }

  event(t: number, event: string, detail?: string): void {
    this.recorder()?.gateEvent(t, event, detail);
  }

  fault(t: number, f: Fault): void {
    this.recorder()?.fault(t, f);
  }

  semantic(record: SemanticRecord): void {
    this.recorder()?.semantic(record);
  }
}
