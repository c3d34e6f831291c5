/**
 * Episode recording for the Franka ROS node (SPEC §8): one armguard MCAP episode at a time in
 * `episodes_dir` — every pipeline step's signal frame and per-clause ρ, gate transitions, executed
 * and held chunks — labelled through ~/label_success, which closes the episode and opens the next.
 * A storage fault holds the gate, as in `armguard run`.
 */
import { describeCause, type GateEvent } from '../gate/index.js';
import type { ExecutedChunk, GateChunk } from '../gate/chunk.js';
import type { MonitorBank } from '../runtime/monitor-bank.js';
import type { Pipeline } from '../runtime/pipeline.js';
import type { Gate } from '../gate/gate.js';
import type { Timers } from '../util/clock.js';
import { EpisodeManager } from '../episode/episode-manager.js';
import type { SemanticRecord } from '../episode/types.js';

export interface FrankaEpisodeOptions {
  dir: string;
  robotId: string;
  platform: string;
  task: string;
  timers: Timers;
  /** The node's clock (s), for faults reported by the recorder between steps. */
  now: () => number;
  log: (line: string) => void;
  /** Wall-clock time for episode ids (injectable for tests). */
  wallClock?: () => Date;
  /** 'off': the node monitors only and the policy drives the controller itself (a baseline run). */
  gateMode?: 'on' | 'off' | 'monitor';
  /** Spec file paths and hashes (and anything else the monitor ran with), recorded in each episode. */
  versions?: Readonly<Record<string, string>>;
  /** Told after each episode opened and before each closes (the semantic gate's task start and end). */
  onEpisodeStart?: (t: number) => void;
  onEpisodeEnd?: (t: number) => void;
}

export class FrankaEpisodes {
  readonly manager: EpisodeManager;
  private readonly rho: Float64Array;
  /** Episode open/close in flight, so labels and shutdown run in order. */
  private pending: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly pipeline: Pipeline,
    private readonly bank: MonitorBank,
    private readonly gate: Gate,
    private readonly o: FrankaEpisodeOptions,
  ) {
    this.rho = new Float64Array(bank.count);
    this.manager = new EpisodeManager({
      dir: o.dir,
      robotId: o.robotId,
      platform: o.platform,
      task: o.task,
      clauses: Array.from({ length: bank.count }, (_, i) => bank.name(i)),
      timers: o.timers,
      ...(o.gateMode ? { gateMode: o.gateMode } : {}),
      versions: { ...o.versions, platform: o.platform },
      ...(o.wallClock ? { wallClock: o.wallClock } : {}),
      log: o.log,
      clauseCoverage: () => bank.episodeCoverage(),
      onFault: (f) => gate.fault(o.now(), f),
    });
    gate.onEvent((e) => this.onGateEvent(e));
  }

  /** The node's clock (s). */
  now(): number {
    return this.o.now();
  }

  /** Opens the first episode. */
  async start(t: number): Promise<string> {
    const id = await this.manager.start(t);
    this.bank.reset();
    this.o.log(`episode ${id} → ${this.manager.path}`);
    this.o.onEpisodeStart?.(t);
    return id;
  }

  /** A new task (the node's task topic): the running episode ends unlabelled and the next one records `task`. */
  newTask(t: number, task: string): Promise<void> {
    const run = this.pending.then(async () => {
      this.o.onEpisodeEnd?.(t);
      await this.manager.end(t, `new task '${task}' on the task topic`);
      this.manager.task = task;
      await this.start(t);
    });
    this.pending = run.catch((e: unknown) => this.gate.fault(this.o.now(), { kind: 'storage', source: this.o.dir, detail: `next episode: ${(e as Error).message}` }));
    return run;
  }

  /** After every pipeline step. */
  /** A semantic-gate record (issue 18) into the current episode, if one is open. */
  semantic(record: SemanticRecord): void {
    this.manager.recorder?.semantic(record);
  }

  onStep(now: number): void {
    const r = this.manager.recorder;
    if (!r) return;
    for (let i = 0; i < this.rho.length; i++) this.rho[i] = this.bank.margin(i);
    r.frame(this.pipeline.frame);
    r.robustness(now, this.rho);
  }

  /** A proposed chunk and what the gate did with it. */
  onChunk(chunk: GateChunk, result: ExecutedChunk, now: number): void {
    const r = this.manager.recorder;
    if (!r) return;
    r.proposedChunk(now, chunk);
    if (result.targets && (result.verdict === 'executed' || result.verdict === 'filtered')) {
      r.executedChunk(now, { ...chunk, targets: result.targets }, chunk.id, result.verdict, result.modification ?? 0);
    } else {
      r.gateEvent(now, `chunk-${result.verdict}`, `${result.id}: ${result.code}: ${result.reason}`);
    }
  }

  /** ~/label_success: label the running episode, then close it and open the next. */
  label(success: boolean, t: number): { ok: true } | { ok: false; reason: string } {
    const l = this.manager.label({ source: 'operator', by: 'ros2 ~/label_success', success });
    if (!l.ok) return l;
    const id = this.manager.episodeId;
    this.pending = this.pending
      .then(() => {
        this.o.onEpisodeEnd?.(t);
        return this.manager.end(t, `labelled ${success ? 'success' : 'failure'}`);
      })
      .then(() => this.start(t))
      .then(() => this.o.log(`episode ${id} labelled ${success ? 'success' : 'failure'} and closed`))
      .catch((e: unknown) => this.gate.fault(this.o.now(), { kind: 'storage', source: this.o.dir, detail: `next episode: ${(e as Error).message}` }));
    return { ok: true };
  }

  /** Closes the running episode (shutdown). */
  async close(t: number, reason: string): Promise<void> {
    await this.pending;
    this.o.onEpisodeEnd?.(t);
    await this.manager.close(t, reason);
  }

  /** Waits for label-triggered episode switches in flight (tests, shutdown). */
  settled(): Promise<unknown> {
    return this.pending;
  }

  private onGateEvent(e: GateEvent): void {
    this.manager.recorder?.gateTransition(e.t, e.from, e.to, describeCause(e.cause));
  }
}
