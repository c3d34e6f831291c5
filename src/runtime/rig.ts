/**
 * What a platform hands the session (src/runtime/session.ts): its I/O behind the ports (signal
 * source, command sink, joint state), the clause monitors for its task, its limits and clock, and
 * its barrier model for proposed chunks. A platform's entry point builds the concrete parts (serial
 * bus, ROS node, bag player, MuJoCo world); `composePipeline` turns a rig into the one runtime every platform
 * runs: source → monitors → gate → sink, and screen → CBF filter → warning band → sink for chunks.
 */
import { bandStateOf, type ChunkBandStage } from '../gate/band-stage.js';
import type { ChunkFilter } from '../gate/cbf-types.js';
import type { ChunkScreen } from '../gate/chunk-screen.js';
import { Gate, type GateConfig } from '../gate/gate.js';
import type { StaleObstacle } from '../gate/tracked-obstacles.js';
import type { CommandSink, JointStateSource, SignalSource } from '../ports/index.js';
import { SignalFrame } from '../schema/signals.js';
import type { Clock } from '../util/clock.js';
import { ChunkExecutor, type ChunkPath } from './chunk-executor.js';
import type { ChunkFilterService, GripSnapshot } from './chunk-filter-service.js';
import type { GateChunk } from '../gate/chunk.js';
import { OffThreadChunkPath } from './off-thread-chunk-path.js';
import type { ChunkRecheckConfig } from '../gate/chunk-recheck.js';
import type { ObstacleSet } from '../kinematics/obstacles.js';
import type { GateEventSink } from './events.js';
import { GateOffBaseline } from './gate-off-baseline.js';
import type { MonitorBank } from './monitor-bank.js';
import { Pipeline } from './pipeline.js';

/** How proposed chunks are checked on this platform. */
export type BarrierModel =
  /** Monitor only (a replay): the session has no chunk path and rejects proposed chunks. */
  | { readonly kind: 'none' }
  /**
   * Screen (shape, finite, joint limits, age, order) → chunk CBF filter on the arm's volumes →
   * sink. With the gate off (a baseline run) only the screen applies (GateOffBaseline).
   */
  | {
      readonly kind: 'cbf';
      readonly screen: ChunkScreen;
      /** The chunk-level CBF on hardware; any ChunkFilter (the demo's comparison modes). */
      readonly filter: ChunkFilter;
      /** The present joint state may be at most this old (s) when a chunk is filtered. */
      readonly maxStateAge: number;
      /**
       * The filter's barrier, limits and held-tilt faces, which the chunk as it would go to the arm
       * (after the filter and the band) is re-checked against on the control thread (CommitRecheck)
       * on either chunk path; a chunk that fails holds. null only for a chunk path without a
       * barrier model (the demos' comparison modes: noBarrier, the fragile pilot's baselines).
       */
      readonly recheck: ChunkRecheckConfig | null;
      /** Tracked obstacles moved into the barrier before each chunk (a stale one holds). */
      readonly obstacles?: { refresh(now: number): StaleObstacle | null };
      /**
       * The chunk warning band after the CBF, before the sink (issue 15): predicts the force,
       * torque and grasp clauses along the chunk the CBF passed, from the grip state of the latest
       * mapped frame, and slows, bends or holds it inside ε. Gate on only (a baseline runs without it).
       */
      readonly band?: ChunkBandStage;
      /**
       * Filter off the control thread (issue 14 item 3): `filter` and `band` then run only in the
       * service (a worker built from the same recipe, or inline), and this thread re-checks each
       * answer against the present state with `recheck` (required here) before it reaches the arm
       * (OffThreadChunkPath). Absent: the synchronous ChunkExecutor (the demos).
       */
      readonly offThread?: {
        readonly service: ChunkFilterService;
        /** The obstacle groups `obstacles` refreshes, copied into each snapshot. */
        readonly tracked?: readonly ObstacleSet[];
        readonly maxRefilters?: number;
        readonly onFilterTime?: (ms: number) => void;
        /** The grip a grip-keyed filter reads (the Franka), into each snapshot (OffThreadChunkPathOptions.grip). */
        readonly grip?: (chunk: GateChunk, now: number) => GripSnapshot;
      };
    };

export interface RigLimits {
  /** The gate's configuration: required signals, max ages, step gap, fault quiet period, start-up. */
  readonly gate: GateConfig;
  /** No fresh sample for this long (s) trips the source watchdog. */
  readonly watchdogTimeout: number;
}

export interface PlatformRig {
  /** Platform id recorded in every episode ('so101', 'fr3', 'panda'). */
  readonly platform: string;
  /** The platform's time (s): records made between steps (labels, storage faults, chunk requests). */
  readonly clock: Clock;
  readonly source: SignalSource;
  /** Platform mapping applied after each poll (e.g. tracking → signals). */
  readonly mapping?: (frame: SignalFrame, now: number) => void;
  /** The arm's commands: hold, heartbeat and checked chunks. */
  readonly sink: CommandSink;
  /** Present joint positions for the chunk filter. */
  readonly joints: JointStateSource;
  /** The applicable clause monitors, in margin order. */
  readonly monitors: MonitorBank;
  readonly limits: RigLimits;
  readonly barrier: BarrierModel;
}

/** No signal seen: not gripping, held height unknown. */
const EMPTY_FRAME = new SignalFrame();

export interface ComposedRuntime {
  readonly gate: Gate;
  readonly pipeline: Pipeline;
  /** The chunk path (gated executor, off-thread path or gate-off baseline), when the rig has a barrier model. */
  readonly chunks: ChunkPath | undefined;
  /** The screen of proposed chunks, when the rig has a barrier model (its policy-clock estimate is recorded). */
  readonly screen: ChunkScreen | undefined;
}

/**
 * The pipeline of a rig. `gating: false` is a baseline run: screened chunks go to the arm
 * unfiltered and clause holds are not commanded (e-stop, watchdog and driver faults still hold).
 */
export function composePipeline(rig: PlatformRig, gating: boolean, events: GateEventSink): ComposedRuntime {
  const gate = new Gate(rig.limits.gate);
  const b = rig.barrier;
  const onResult = (r: Parameters<GateEventSink['chunkResult']>[0], t: number): void => events.chunkResult(r, t);
  let chunks: ChunkPath | undefined;
  let sink = rig.sink;
  // The band reads the grip state from the pipeline's mapped frame, which exists once the pipeline does.
  const mapped: { frame: SignalFrame | null } = { frame: null };
  if (b.kind === 'cbf' && gating) {
    const band = b.band;
    const common = {
      gate,
      screen: b.screen,
      sink: rig.sink,
      joints: rig.joints,
      maxStateAge: b.maxStateAge,
      onResult,
      ...(b.obstacles ? { obstacles: b.obstacles } : {}),
      ...(band
        ? {
            band: {
              band: band.band,
              state: () => bandStateOf(mapped.frame ?? EMPTY_FRAME, band.supportForce),
            },
          }
        : {}),
    };
    const off = b.offThread;
    if (off && b.recheck === null)
      throw new RangeError(`${rig.platform}: a chunk path filtered off the control thread needs the rig's re-check`);
    chunks = off
      ? new OffThreadChunkPath({
          ...common,
          service: off.service,
          clock: rig.clock,
          recheck: b.recheck!,
          ...(off.tracked ? { tracked: off.tracked } : {}),
          ...(off.maxRefilters !== undefined ? { maxRefilters: off.maxRefilters } : {}),
          ...(off.onFilterTime ? { onFilterTime: off.onFilterTime } : {}),
          ...(off.grip ? { grip: off.grip } : {}),
        })
      : new ChunkExecutor({ ...common, filter: b.filter, recheck: b.recheck });
  } else if (b.kind === 'cbf') {
    const baseline = new GateOffBaseline({ gate, screen: b.screen, arm: rig.sink, onResult });
    chunks = baseline;
    sink = baseline.sink;
  }
  const pipeline = new Pipeline({
    source: rig.source,
    monitors: rig.monitors,
    gate,
    sink,
    events,
    watchdogTimeout: rig.limits.watchdogTimeout,
    ...(rig.mapping ? { mapping: rig.mapping } : {}),
    ...(chunks ? { chunks } : {}),
  });
  mapped.frame = pipeline.frame;
  return { gate, pipeline, chunks, screen: b.kind === 'cbf' ? b.screen : undefined };
}
