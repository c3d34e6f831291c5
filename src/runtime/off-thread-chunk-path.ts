/**
 * The chunk path with the filter off the control thread (issue 14 item 3). On the control thread a
 * proposed chunk gets only cheap work: the screen, the gate and monitor checks, and a snapshot
 * (present joint state and its sample time, tracked obstacles, the band's grip state) handed to a
 * ChunkFilterService. While it is filtered the arm goes on playing the previous chunk (or stays
 * held). When the answer comes back, nothing reaches the arm before it is checked again, on this
 * thread, against the state present then:
 *
 * - the gate is not holding and has not held since the snapshot (a chunk filtered before a hold and
 *   answered after the release is a plan from before the hold: rejected `stale-snapshot`);
 * - no newer chunk arrived meanwhile (rejected `superseded`: the policy wants the newer plan, which
 *   is filtered next — under such a flood at most once per FLOOD_FILTER_INTERVAL_S);
 * - the joint state is fresh and finite and no tracked obstacle is stale (else the gate holds, as in
 *   ChunkExecutor);
 * - the chunk as it would go to the arm passes the filter's own exact re-check (CommitRecheck, the
 *   one ChunkExecutor runs too: joint limits, the first row within the motion bound of the PRESENT
 *   joint state, every row within the bound of the previous one, h ≥ −δ at every row against the
 *   obstacles where they are now, and the held object's tilt faces on the rows the grip holds it,
 *   from the grasp reference committed on this thread — which each job carries to the filter, so a
 *   filter worker started again mid-hold keeps the grasp's reference). A
 *   chunk that fails it because the arm or an obstacle moved since the snapshot is filtered again
 *   from a fresh snapshot (at most `maxRefilters` times, then rejected `stale-snapshot`); one that
 *   fails it with nothing moved is unsafe and holds;
 * - the band's grip state, and the grip a grip-keyed filter read (the Franka's held state and the
 *   chunk's close row), are the snapshot's (else filtered again).
 *
 * Then ChunkExecutor's own commit sends it to the sink. The chunk's validity window is checked on
 * receipt by the screen, as on the synchronous path (whose commit also comes after the filter's
 * time); what makes a late answer safe to commit is the re-check against the present state, and no
 * answer comes later than the service's timeout. The service's faults (worker crash, timeout,
 * a message that cannot be read) are typed faults: the gate holds, and while the service reports
 * the fault (until its worker is running again) `step` raises it again every control step, so no
 * release is accepted before the cause is gone. Pure: the clock is injected, nothing here knows of
 * threads.
 */
import type { ExecutedChunk, GateChunk } from '../gate/chunk.js';
import {
  CommitRecheck,
  describeRecheckFailure,
  type ChunkRecheckConfig,
  type GraspHandover,
} from '../gate/chunk-recheck.js';
import type { BandState } from '../gate/warning-band.js';
import type { ObstacleSet } from '../kinematics/obstacles.js';
import type { Clock } from '../util/clock.js';
import { ChunkExecutor, type ChunkExecutorOptions, type ChunkPath } from './chunk-executor.js';
import {
  sameGrip,
  type ChunkFilterService,
  type FilterAnswer,
  type FilterJob,
  type FilterStage,
  type GripSnapshot,
} from './chunk-filter-service.js';

/** What the control thread re-checks a chunk with (declared beside the re-check, src/gate/chunk-recheck.ts). */
export type { ChunkRecheckConfig } from '../gate/chunk-recheck.js';

export interface OffThreadChunkPathOptions extends Omit<ChunkExecutorOptions, 'filter' | 'deadline'> {
  readonly service: ChunkFilterService;
  /** The runtime's clock: answers arrive between control steps. */
  readonly clock: Clock;
  readonly recheck: ChunkRecheckConfig;
  /** The obstacle groups the tracked bodies are refreshed into on this thread (copied into each snapshot). */
  readonly tracked?: readonly ObstacleSet[];
  /** Fresh snapshots a chunk may be filtered from after the arm or an obstacle moved (default 1). */
  readonly maxRefilters?: number;
  /**
   * Under a flood (a chunk superseding the one being filtered), filtering starts at most once per
   * this many seconds; default FLOOD_FILTER_INTERVAL_S. A chunk arriving while none is filtered
   * starts at once.
   */
  readonly floodFilterIntervalS?: number;
  /** The filter time (ms) the service measured for each answer (bench). */
  readonly onFilterTime?: (ms: number) => void;
  /**
   * The grip of a filter keyed on the gripper's state (the Franka), read on this thread into each
   * snapshot and again at commit: a chunk whose grip changed meanwhile is filtered again, as for the band's.
   */
  readonly grip?: (chunk: GateChunk, now: number) => GripSnapshot;
}

/**
 * Pacing of the filter under a flood (s): 0.02, at most 50 filters a second — above any policy's
 * chunk rate (a VLA at 30 Hz sends one every 33 ms, and starts at once when none is being
 * filtered), while a flood no longer keeps the filter's thread busy back to back (on the loaded
 * 2-core machine that thread took the control thread's CPU: bench/RESULTS.md).
 */
export const FLOOD_FILTER_INTERVAL_S = 0.02;

/** What the path did with the chunks it was given (since start). */
export interface OffThreadChunkStats {
  submitted: number;
  /** Sent to the arm. */
  committed: number;
  /** Filtered again from a fresh snapshot. */
  refiltered: number;
  /** Rejected because the snapshot went stale (gate held meanwhile, or the arm / an obstacle moved past the re-check). */
  stale: number;
  /** Rejected because a newer chunk arrived while it waited or was filtered. */
  superseded: number;
  /** Held (gate holding, filter refusal, re-check failure, service fault). */
  held: number;
  /** Rejected by the screen. */
  rejected: number;
  /** Answers that were a service fault. */
  faults: number;
}

type Done = (r: ExecutedChunk, t: number) => void;

interface InFlight {
  readonly job: FilterJob;
  readonly chunk: GateChunk;
  readonly done: Done;
  readonly refilters: number;
  readonly holdEpoch: number;
}

export class OffThreadChunkPath implements ChunkPath {
  private readonly steps: ChunkExecutor;
  private readonly q0: Float64Array;
  private readonly qNow: Float64Array;
  /** The re-check of each answer before it is committed, and the committed grasp reference. */
  private readonly commitCheck: CommitRecheck;
  private inflight: InFlight | undefined;
  private next: { chunk: GateChunk; done: Done } | undefined;
  private seq = 0;
  private lastCommitted = true;
  /** Transitions into or out of hold since start: a snapshot remembers it. */
  private holdEpoch = 0;
  /** When the last job was handed to the service (s), and the pacing interval under a flood. */
  private lastBegin = -Infinity;
  private readonly interval: number;
  /** Set while `begin` runs: an inline service answers at the submission's time. */
  private syncNow: number | undefined;
  readonly stats: OffThreadChunkStats = {
    submitted: 0,
    committed: 0,
    refiltered: 0,
    stale: 0,
    superseded: 0,
    held: 0,
    rejected: 0,
    faults: 0,
  };

  constructor(private readonly o: OffThreadChunkPathOptions) {
    const r = o.recheck;
    const n = o.joints.joints;
    // the barrier's joints are the leading columns (a gripper column it does not model may follow)
    this.commitCheck = new CommitRecheck(r, n);
    // The executor's checks and commit, with a filter that is never called (the service filters)
    // and no re-check of its own (this path's is made against the state present at the answer).
    this.steps = new ChunkExecutor({
      ...o,
      filter: {
        filter: () => {
          throw new Error('the off-thread chunk path filters through its service');
        },
      },
      recheck: null,
    });
    this.q0 = new Float64Array(n);
    this.qNow = new Float64Array(n);
    this.interval = o.floodFilterIntervalS ?? FLOOD_FILTER_INTERVAL_S;
    o.gate.onEvent((e) => {
      if (e.to === 'hold' || e.from === 'hold') this.holdEpoch++;
    });
  }

  setMaxStateAge(seconds: number): void {
    this.steps.setMaxStateAge(seconds);
  }

  /** Every control step: a service that cannot filter keeps the gate holding (its fault, again). */
  step(now: number): void {
    const f = this.o.service.fault;
    if (f) this.o.gate.fault(now, f);
    // A chunk that superseded one being filtered waits for the pacing interval (see settle).
    const waiting = this.next;
    if (!this.inflight && waiting && now - this.lastBegin >= this.interval) {
      this.next = undefined;
      this.begin(waiting.chunk, now, waiting.done, 0, true);
    }
  }

  /**
   * Compile the re-check before the first chunk (entry points, at start-up): `times` re-checks of a
   * standing chunk of `rows` rows at the present joint state (zeros before the first sample). A cold
   * first re-check cost its control step ≈ 28 ms on the loaded test machine (1.6 ms warm).
   */
  warmUp(times = 20, rows = 50): void {
    const n = this.qNow.length;
    try {
      this.o.joints.readPositions(this.qNow);
    } catch {
      // no state yet: zeros
    }
    for (let j = 0; j < n; j++) if (!Number.isFinite(this.qNow[j])) this.qNow[j] = 0;
    const standing = new Float64Array(rows * n);
    for (let k = 0; k < rows; k++) standing.set(this.qNow, k * n);
    // the check alone: nothing is committed, the grasp reference is not touched
    for (let i = 0; i < times; i++)
      this.commitCheck.check(standing, standing, standing, rows, 0.02, this.qNow, this.qNow);
  }

  /** A chunk is being filtered (diagnostics, tests). */
  get filtering(): boolean {
    return this.inflight !== undefined;
  }

  /**
   * Synchronous callers get an answer only from an inline service; with a worker the decision
   * arrives later, so such a caller is refused (`submitAsync` is the path's entry).
   */
  submit(chunk: GateChunk, now: number): ExecutedChunk {
    if (this.o.service.mode !== 'inline' || this.inflight)
      return {
        id: chunk.id,
        verdict: 'rejected',
        code: 'async-path',
        reason: 'the chunk filter runs off the control thread: this path answers through submitAsync',
      };
    let result: ExecutedChunk | undefined;
    this.submitAsync(chunk, now, (r) => (result = r));
    return (
      result ?? {
        id: chunk.id,
        verdict: 'rejected',
        code: 'async-path',
        reason: 'the inline filter did not answer synchronously',
      }
    );
  }

  /** A proposed chunk; `done` is called exactly once with the decision (inline: before this returns). */
  submitAsync(chunk: GateChunk, now: number, done: Done): void {
    this.stats.submitted++;
    if (this.inflight || this.next) {
      // One filter at a time: the newest waiting chunk goes next, an older waiting one is superseded.
      const older = this.next;
      this.next = { chunk, done };
      if (older) this.superseded(older.chunk, chunk.id, now, older.done);
      return;
    }
    this.begin(chunk, now, done, 0, true);
  }

  private begin(chunk: GateChunk, now: number, done: Done, refilters: number, first: boolean): void {
    // A refilter does not screen again (the id is already in the screen's memory).
    const refused = first
      ? this.steps.prepare(chunk, now, this.q0)
      : this.o.gate.holding
        ? this.steps.held(chunk.id)
        : this.steps.presentState(chunk.id, now, this.q0);
    if (refused) return this.finish(refused, now, done);
    let grasp: GraspHandover | null;
    try {
      grasp = this.commitCheck.handover();
    } catch (e) {
      // a measurement port that throws is a fault like any component's: hold, never throw past the gate
      this.o.gate.fault(now, {
        kind: 'disconnect',
        source: 'held object axis',
        detail: `threw: ${e instanceof Error ? e.message : String(e)}`,
      });
      return this.finish(this.steps.held(chunk.id), now, done);
    }
    const job: FilterJob = {
      seq: ++this.seq,
      targets: chunk.targets,
      horizon: chunk.horizon,
      joints: chunk.joints,
      dt: chunk.dt,
      q0: Float64Array.from(this.q0),
      stateTime: this.steps.stateTime,
      spheres: this.spheres(),
      band: this.bandState(now),
      previousCommitted: this.lastCommitted,
      grasp: grasp?.reference ?? null,
      heldAxis: grasp?.heldAxis ?? null,
      ...(this.o.grip ? { grip: this.o.grip(chunk, now) } : {}),
    };
    this.lastCommitted = false;
    this.lastBegin = now;
    this.inflight = { job, chunk, done, refilters, holdEpoch: this.holdEpoch };
    const before = this.syncNow;
    this.syncNow = now;
    try {
      this.o.service.filter(job, (a) => this.settle(a));
    } finally {
      this.syncNow = before;
    }
  }

  private settle(a: FilterAnswer): void {
    const f = this.inflight;
    if (!f || a.seq !== f.job.seq) return; // an answer to a job already given up
    this.inflight = undefined;
    const now = this.syncNow ?? this.o.clock.now();
    if (a.kind === 'filtered') this.o.onFilterTime?.(a.filterMs);
    if (a.kind === 'fault') {
      // The fault holds when it arrives, also with a newer chunk waiting (that one is decided at a
      // control step, where a service fault that lasts is raised again first).
      this.stats.faults++;
      this.o.gate.fault(now, a.fault);
      return this.finish(this.steps.held(f.chunk.id), now, f.done);
    }
    const newer = this.next;
    if (newer) {
      // Chunks arrive faster than they are filtered (a flood): this answer is superseded, and the
      // newest waiting chunk is filtered at once only if the last filter began at least the pacing
      // interval ago — else at the first control step after it (step) — so a flood keeps the
      // filter's thread busy at most a fraction of the time, not back to back.
      this.superseded(f.chunk, newer.chunk.id, now, f.done);
      if (now - this.lastBegin >= this.interval) {
        this.next = undefined;
        this.begin(newer.chunk, now, newer.done, 0, true);
      }
      return;
    }
    const r = this.decide(f, a.stage, now);
    if (r === 'refilter') {
      this.stats.refiltered++;
      this.begin(f.chunk, now, f.done, f.refilters + 1, false);
      return;
    }
    if (r.verdict === 'executed' || r.verdict === 'filtered') this.lastCommitted = true;
    this.finish(r, now, f.done);
  }

  private decide(f: InFlight, stage: FilterStage, now: number): ExecutedChunk | 'refilter' {
    const { gate } = this.o;
    const { chunk, job } = f;
    if (gate.holding) return this.steps.held(chunk.id);
    if (this.holdEpoch !== f.holdEpoch)
      return this.stale(
        chunk.id,
        'the gate held while it was filtered: it was filtered against the state before that hold',
      );
    // A refusal or a throw holds as it would have on this thread.
    if (stage.kind === 'threw' || (stage.cbf.status !== 'unchanged' && stage.cbf.status !== 'filtered'))
      return this.steps.commit(chunk, stage, now);
    const refused = this.steps.presentState(chunk.id, now, this.qNow);
    if (refused) return refused;
    const bandNow = this.bandState(now);
    const bandMoved =
      !sameBand(job.band, bandNow) || (this.o.grip !== undefined && !sameGrip(job.grip, this.o.grip(chunk, now)));
    const targets = stage.band ? stage.band.targets : stage.cbf.targets;
    const filtered = stage.cbf.status === 'filtered' ? stage.cbf.targets : chunk.targets;
    const failed = this.commitCheck.check(
      chunk.targets,
      filtered,
      targets,
      chunk.horizon,
      chunk.dt,
      this.qNow,
      job.q0,
      job.heldAxis ?? null,
    );
    if (failed === null && !bandMoved) {
      const r = this.steps.commit(chunk, stage, now);
      if (r.verdict === 'executed' || r.verdict === 'filtered') this.commitCheck.committed();
      return r;
    }
    const moved = this.moved(job);
    const why = bandMoved
      ? "the grip state changed (the band's prediction and a grip-keyed tilt bound start from it)"
      : `${failed!.check}: ${failed!.detail}`;
    if (bandMoved || moved !== '') {
      if (f.refilters < (this.o.maxRefilters ?? 1)) return 'refilter';
      return this.stale(
        chunk.id,
        `${moved !== '' ? `${moved} while it was filtered` : 'the grip state changed'}: the re-check failed (${why}) after ${f.refilters} refilter(s)`,
      );
    }
    // Nothing moved, and the chunk the filter passed fails the exact check: unsafe.
    gate.unsafeChunk(now, chunk.id, describeRecheckFailure(failed!));
    return this.steps.held(chunk.id);
  }

  /** What moved since the job's snapshot ('' when nothing did). */
  private moved(job: FilterJob): string {
    for (let j = 0; j < this.qNow.length; j++) if (this.qNow[j] !== job.q0[j]) return 'the arm moved';
    const t = this.o.tracked ?? [];
    for (let k = 0; k < t.length; k++)
      for (let i = 0; i < 4; i++) if (t[k]!.spheres[i] !== job.spheres[4 * k + i]) return 'a tracked obstacle moved';
    return '';
  }

  private spheres(): Float64Array {
    const t = this.o.tracked ?? [];
    const out = new Float64Array(4 * t.length);
    for (let k = 0; k < t.length; k++) out.set(t[k]!.spheres.subarray(0, 4), 4 * k);
    return out;
  }

  private bandState(now: number): BandState | null {
    return this.o.band ? this.o.band.state(now) : null;
  }

  private stale(id: string, why: string): ExecutedChunk {
    return { id, verdict: 'rejected', code: 'stale-snapshot', reason: `not executed: ${why}` };
  }

  private superseded(chunk: GateChunk, by: string, now: number, done: Done): void {
    this.finish(
      {
        id: chunk.id,
        verdict: 'rejected',
        code: 'superseded',
        reason: `superseded by chunk '${by}', which arrived while this one waited for the filter: not executed`,
      },
      now,
      done,
    );
  }

  private finish(r: ExecutedChunk, now: number, done: Done): void {
    const s = this.stats;
    if (r.verdict === 'executed' || r.verdict === 'filtered') s.committed++;
    else if (r.verdict === 'held') s.held++;
    else if (r.code === 'superseded') s.superseded++;
    else if (r.code === 'stale-snapshot') s.stale++;
    else s.rejected++;
    this.steps.report(r, now);
    done(r, now);
  }
}

function sameBand(a: BandState | null, b: BandState | null): boolean {
  if (a === null || b === null) return a === b;
  // heldHeight changes every sample; the prediction is re-made from it only when the grip itself changes
  return a.gripping === b.gripping && (a.supported ?? false) === (b.supported ?? false);
}
