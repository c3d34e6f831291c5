/**
 * Where the expensive part of a chunk's path runs (issue 14 item 3): the chunk-level CBF filter and
 * the warning band. The control thread takes a snapshot (present joint state and its sample time,
 * the tracked obstacles' spheres, the band's grip state) and hands it to a ChunkFilterService; the
 * answer comes back to the control thread, which re-checks it against the state present then before
 * anything reaches the arm (src/runtime/off-thread-chunk-path.ts).
 *
 * Two implementations of the one port: {@link InlineChunkFilterService} runs the filter on the
 * calling thread and answers before `filter` returns (tests; a rig without a worker); the worker
 * thread implementation (src/rigs/filter-worker/) is wired by the entry points only. Both run
 * {@link ChunkFilterRunner}, so they give the same chunks (test/runtime/chunk-filter-service.test.ts
 * runs one contract suite against both). Pure: no thread, clock or timer here.
 */
import type { CbfOutcome } from '../gate/cbf-filter.js';
import type { ChunkFilter } from '../gate/cbf-types.js';
import type { GraspReference } from '../gate/held-tilt.js';
import type { BandOutcome, BandState, WarningBand } from '../gate/warning-band.js';
import type { ObstacleSet } from '../kinematics/obstacles.js';
import type { Fault } from '../schema/fault.js';

/** One chunk and the control thread's snapshot it is filtered against. Structured-cloneable. */
export interface FilterJob {
  /** Increasing per service; the answer carries it back. */
  readonly seq: number;
  readonly targets: Float64Array;
  readonly horizon: number;
  readonly joints: number;
  readonly dt: number;
  /** Present joint positions at submission (one per chunk column). */
  readonly q0: Float64Array;
  /** Their sample time (gate clock, s). */
  readonly stateTime: number;
  /** The tracked obstacles' spheres (x, y, z, r per body, robot base frame), in the rig's order. */
  readonly spheres: Float64Array;
  /** The warning band's starting state (null: the rig has no band). */
  readonly band: BandState | null;
  /**
   * Whether the result of the previous job went to the arm. A filter that keeps state from the
   * chunks the arm plays (HeldTiltFilter's grasp reference) rolls back the previous job otherwise.
   */
  readonly previousCommitted: boolean;
  /**
   * The grasp reference the control thread committed (GraspTrack): a filter that keeps one
   * (HeldTiltFilter) continues from it, so one started again mid-hold keeps the grasp's reference
   * rather than taking the pose it restarted at. Absent or null: the filter keeps its own.
   */
  readonly grasp?: GraspReference | null;
  /**
   * The held object's axis the control thread sampled for this chunk (base frame) while the
   * grasp's reference waits for a measurement (CommitRecheck.handover): the filter takes its
   * reference from it as the re-check does. Absent or null: none.
   */
  readonly heldAxis?: Float64Array | null;
  /**
   * The grip read on the control thread, for a filter keyed on the gripper's state rather than a
   * chunk column (the Franka); absent for the others.
   */
  readonly grip?: GripSnapshot;
}

/**
 * The grip as plain data (a filter thread cannot call back into the control thread's mapping):
 * whether the gripper state says an object is held, and where the chunk commands the hand to close.
 */
export interface GripSnapshot {
  /** The gripper state says held (or cannot rule it out) at submission. */
  readonly held: boolean;
  /** The first row at which the chunk commands the hand to close (−1: none, or no gripper command). */
  readonly closeRow: number;
}

export function sameGrip(a: GripSnapshot | undefined, b: GripSnapshot | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.held === b.held && a.closeRow === b.closeRow;
}

/** What the filter and band made of a job. The outcomes are the filter's own objects inline, copies from a worker. */
export type FilterStage =
  | { readonly kind: 'threw'; readonly stage: 'filter' | 'band'; readonly detail: string }
  | { readonly kind: 'done'; readonly cbf: CbfOutcome; readonly band: BandOutcome | undefined };

/** A service's answer to one job: what the filter made of it, or the fault that kept it from answering. */
export type FilterAnswer =
  | { readonly kind: 'filtered'; readonly seq: number; readonly stage: FilterStage; readonly filterMs: number }
  | { readonly kind: 'fault'; readonly seq: number; readonly fault: Fault };

export interface ChunkFilterService {
  /** 'inline' answers before `filter` returns; 'worker' answers later, on the event loop. */
  readonly mode: 'inline' | 'worker';
  /**
   * Filter one job; `done` is called exactly once (also when the service faults or is closed).
   * One job at a time: a second call before the first answered is answered with a fault.
   */
  filter(job: FilterJob, done: (answer: FilterAnswer) => void): void;
  /**
   * Non-null while the service cannot filter (its worker crashed, timed out or is being started
   * again): the fault the chunk path re-raises on every control step until it clears.
   */
  readonly fault: Fault | null;
  close(): Promise<void>;
}

/** A chunk filter that keeps state from the chunks the arm plays, and can take back the last one. */
export interface CheckpointedFilter extends ChunkFilter {
  /** Remember the state before the next chunk. */
  checkpoint(): void;
  /** Back to the state remembered by the last checkpoint (its chunk did not go to the arm). */
  rollback(): void;
}

function checkpointed(f: ChunkFilter): f is CheckpointedFilter {
  return typeof (f as Partial<CheckpointedFilter>).checkpoint === 'function';
}

/** A chunk filter that keeps a grasp reference and can be set to one (HeldTiltFilter). */
interface GraspKeepingFilter extends ChunkFilter {
  restoreGrasp(r: GraspReference, heldAxis: ArrayLike<number> | null): void;
}

function keepsGrasp(f: ChunkFilter): f is GraspKeepingFilter {
  return typeof (f as Partial<GraspKeepingFilter>).restoreGrasp === 'function';
}

/**
 * The CBF filter and then the warning band on one chunk from `q0` (the one copy of this sequence:
 * the synchronous ChunkExecutor and ChunkFilterRunner both call it). A throw from either is
 * returned as `threw`, naming the stage.
 */
export function runFilterStage(
  filter: ChunkFilter,
  band: WarningBand | undefined,
  chunk: { readonly targets: Float64Array; readonly horizon: number; readonly joints: number; readonly dt: number },
  q0: Float64Array,
  bandState: BandState | null,
  deadline: (() => boolean) | undefined,
): FilterStage {
  let cbf: CbfOutcome;
  try {
    cbf = filter.filter(chunk.targets, chunk.horizon, q0, chunk.dt, deadline);
  } catch (e) {
    return { kind: 'threw', stage: 'filter', detail: message(e) };
  }
  if (!band || bandState === null || (cbf.status !== 'unchanged' && cbf.status !== 'filtered'))
    return { kind: 'done', cbf, band: undefined };
  let b: BandOutcome;
  try {
    b = band.filter(cbf.targets, chunk.horizon, chunk.joints, chunk.dt, q0, bandState);
  } catch (e) {
    return { kind: 'threw', stage: 'band', detail: message(e) };
  }
  return { kind: 'done', cbf, band: b.status === 'unchanged' ? undefined : b };
}

export interface ChunkFilterRunnerOptions {
  readonly filter: ChunkFilter;
  readonly band?: WarningBand;
  /** The obstacle groups the tracked spheres are written into (one sphere each), in the job's order. */
  readonly tracked?: readonly ObstacleSet[];
  /** Told each job's grip before it is filtered (a filter keyed on the gripper's state reads it). */
  readonly grip?: (grip: GripSnapshot | undefined) => void;
}

/**
 * Runs jobs on whichever thread holds it: writes the snapshot's tracked spheres into the barrier,
 * rolls a stateful filter back when the previous chunk did not go to the arm, hands a grip-keyed
 * filter the snapshot's grip, then {@link runFilterStage}.
 */
export class ChunkFilterRunner {
  private ran = false;

  constructor(private readonly o: ChunkFilterRunnerOptions) {}

  run(job: FilterJob): FilterStage {
    const tracked = this.o.tracked ?? [];
    if (job.spheres.length !== 4 * tracked.length)
      return {
        kind: 'threw',
        stage: 'filter',
        detail: `snapshot has ${job.spheres.length / 4} tracked spheres, the barrier ${tracked.length}`,
      };
    for (let k = 0; k < tracked.length; k++) tracked[k]!.spheres.set(job.spheres.subarray(4 * k, 4 * k + 4));
    const f = this.o.filter;
    if (checkpointed(f)) {
      if (this.ran && !job.previousCommitted) f.rollback();
      f.checkpoint();
    }
    // the control thread's committed reference wins over whatever this filter kept
    if (job.grasp && keepsGrasp(f)) f.restoreGrasp(job.grasp, job.heldAxis ?? null);
    this.ran = true;
    this.o.grip?.(job.grip);
    return runFilterStage(f, this.o.band, job, job.q0, job.band, undefined);
  }
}

/** The filter on the calling thread: answers before `filter` returns. */
export class InlineChunkFilterService implements ChunkFilterService {
  readonly mode = 'inline';
  readonly fault = null;

  constructor(
    private readonly runner: ChunkFilterRunner,
    /** A clock for the filter time reported (ms); default none (0 reported). */
    private readonly nowMs?: () => number,
  ) {}

  filter(job: FilterJob, done: (answer: FilterAnswer) => void): void {
    const t0 = this.nowMs?.() ?? 0;
    const stage = this.runner.run(job);
    done({ kind: 'filtered', seq: job.seq, stage, filterMs: (this.nowMs?.() ?? 0) - t0 });
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
