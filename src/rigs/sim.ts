/**
 * The MuJoCo testbed's rig for the session (src/runtime/session.ts): what `armguard demo` hands the
 * same session `armguard run so101` and the Franka node use. The simulator runs its own 30 Hz tick
 * (drivers/sim's episode loop, or a demo's own loop); the rig adapts at this edge:
 * - signal source: the frame the simulator polled this tick (SimTickFrame), or the sim's own
 *   SignalSource when the demo's loop lets the pipeline poll it;
 * - command sink: the sim's actuators, or SimChunkCapture when the episode loop plays what the
 *   session forwarded (the chunk targets) and holds the arm when the session holds it;
 * - joint state: SimJointState;
 * - barrier model: the demo's (src/cli/demo: the scene arm's description, tracked obstacles fed
 *   by the sim tracking adapter through a SceneTracker, as motion capture is on hardware);
 * - clock: a ManualClock set to the simulated time of every step (SimSessionClock).
 */
import { SimJointState, type SimWorld } from '../../drivers/sim/index.js';
import type { CbfOutcome } from '../gate/cbf-filter.js';
import type { ChunkFilter } from '../gate/cbf-types.js';
import { newOutcome } from '../gate/filter-common.js';
import { ChunkScreen } from '../gate/chunk-screen.js';
import type { ExecutedChunk, GateChunk } from '../gate/chunk.js';
import { DEFAULT_GATE_CONFIG } from '../gate/gate.js';
import type { CommandSink, JointChunk, JointStateSource, SignalSource } from '../ports/index.js';
import type { BarrierModel, PlatformRig } from '../runtime/rig.js';
import type { MonitorBank } from '../runtime/monitor-bank.js';
import type { Session } from '../runtime/session.js';
import type { SignalFrame } from '../schema/signals.js';
import { ManualClock } from '../util/clock.js';
import { secondsToNs } from '../util/time.js';

/**
 * The frame the simulator polled for the present tick, as the pipeline's signal source. The
 * simulator reports a non-finite physics value as an invalid sample in the frame, which the gate
 * holds on; polling before any frame was presented throws (the pipeline's disconnect fault).
 */
export class SimTickFrame implements SignalSource {
  readonly name = 'sim';
  private current: SignalFrame | null = null;

  /** The simulator's frame for the step about to run (the sim reuses it; the poll copies it). */
  present(frame: SignalFrame): void {
    this.current = frame;
  }

  poll(frame: SignalFrame): void {
    if (this.current === null) throw new Error('no simulator frame presented yet');
    frame.copyFrom(this.current);
  }

  onFault(): void {
    // Faults reach the pipeline through the frame (invalid samples) and the poll (throws).
  }
}

/**
 * The command sink of an episode loop that plays the chunks itself (drivers/sim runEpisode's gate
 * hook): keeps the chunk the session forwarded and whether the session holds the arm.
 */
export class SimChunkCapture implements CommandSink {
  readonly name = 'sim.chunk-targets';
  /** The chunk the session forwarded since the last `take` (null when none). */
  private forwarded: JointChunk | null = null;
  /** The session commanded a hold and no chunk was forwarded since. */
  armHeld = false;

  execute(chunk: JointChunk): void {
    this.forwarded = chunk;
    this.armHeld = false;
  }
  hold(): void {
    this.forwarded = null;
    this.armHeld = true;
  }
  heartbeat(): void {}
  onFault(): void {}
  /** The chunk forwarded since the last call (null when none), for the episode loop to play. */
  take(): JointChunk | null {
    const c = this.forwarded;
    this.forwarded = null;
    return c;
  }
}

/** The first hold a sink was commanded (time and reason): whether, when and why the session held the arm. */
export interface FirstHold {
  readonly firstHoldT: number;
  readonly firstHoldReason: string;
}

/** `sink`, noting the first hold the session commands: whether, when and why an episode's arm was held. */
export function watchHolds(sink: CommandSink): CommandSink & FirstHold {
  const w = {
    name: sink.name,
    firstHoldT: NaN,
    firstHoldReason: '',
    execute: (c: JointChunk, now: number) => sink.execute(c, now),
    hold: (now: number, reason: string) => {
      if (w.firstHoldReason === '') {
        w.firstHoldReason = reason;
        w.firstHoldT = now;
      }
      sink.hold(now, reason);
    },
    heartbeat: (now: number) => sink.heartbeat(now),
    onFault: (l: Parameters<CommandSink['onFault']>[0]) => sink.onFault(l),
    ...(sink.openGripper ? { openGripper: (now: number) => sink.openGripper?.(now) } : {}),
  };
  return w;
}

/**
 * The filter of a chunk path without a barrier (noBarrier, the demos' `hold` mode): every chunk
 * unchanged, so it goes to the arm while the gate is armed (the executor still screens it and holds
 * it while the gate holds). It stops, it does not prevent: the comparison the chunk-level CBF is
 * measured against.
 */
export class GateStateOnlyFilter implements ChunkFilter {
  private readonly outcome: CbfOutcome = newOutcome();
  filter(nominal: Float64Array): CbfOutcome {
    this.outcome.targets = nominal;
    return this.outcome;
  }
}

/**
 * The screen of a scene's chunks: arm columns within the description's joint limits, the gripper
 * column within `gripper` (its command range), the shape, age and order checks of every platform.
 */
export function simChunkScreen(
  world: SimWorld,
  o: { gripper: readonly [number, number]; minDt: number; qmin?: readonly number[]; qmax?: readonly number[] },
): ChunkScreen {
  const chain = world.scene.robot.description.chain;
  const columns = world.nArm + 1;
  const arm = (j: number, side: 'lower' | 'upper'): number =>
    (side === 'lower' ? o.qmin : o.qmax)?.[j] ?? chain.joints[j]?.[side] ?? o.gripper[side === 'lower' ? 0 : 1];
  const qmin = Array.from({ length: columns }, (_, j) => (j < world.nArm ? arm(j, 'lower') : o.gripper[0]));
  const qmax = Array.from({ length: columns }, (_, j) => (j < world.nArm ? arm(j, 'upper') : o.gripper[1]));
  return new ChunkScreen({
    joints: columns,
    maxHorizon: 200,
    qmin,
    qmax,
    maxAge: 0.2,
    futureTolerance: 0.05,
    minDt: o.minDt,
    maxDt: 0.2,
    idMemory: 256,
  });
}

/** A barrier model with a chunk path (screen → filter → band → sink). */
export type ChunkBarrier = Extract<BarrierModel, { kind: 'cbf' }>;

/**
 * A chunk path without a barrier, for the demos' comparison modes (`off`, `hold`): the chunk passes
 * unchanged while the gate is armed (run gate-off, the baseline forwards it). Its screen checks
 * shape, finiteness, age and order but not the joint range: the demo's torque_limit policy drives
 * a joint past its range on purpose (the clause it violates is joint torque), and these modes let
 * it, as they always have; the joint range is the cbf mode's screen and filter's business.
 */
export function noBarrier(world: SimWorld): ChunkBarrier {
  return {
    kind: 'cbf',
    screen: simChunkScreen(world, {
      gripper: [-Infinity, Infinity],
      qmin: new Array<number>(world.nArm).fill(-Infinity),
      qmax: new Array<number>(world.nArm).fill(Infinity),
      minDt: 0.005,
    }),
    filter: new GateStateOnlyFilter(),
    maxStateAge: 0.1,
    // no barrier model: nothing to re-check a chunk against
    recheck: null,
  };
}

export interface SimRigOptions {
  readonly world: SimWorld;
  /** Platform id recorded in every episode ('sim-so101', 'sim'). */
  readonly platform: string;
  readonly monitors: MonitorBank;
  /** Default: SimTickFrame (the episode loop presents each tick's frame). */
  readonly source?: SignalSource;
  /** Default: SimChunkCapture (the episode loop plays the forwarded chunk). */
  readonly sink?: CommandSink;
  /** Default: SimJointState on the world. */
  readonly joints?: JointStateSource;
  readonly barrier: BarrierModel;
}

/** A rig on the simulated arm, and what the episode loop needs to drive the session with it. */
export interface SimRig {
  readonly rig: PlatformRig;
  readonly clock: ManualClock;
}

export function simRig(o: SimRigOptions): SimRig {
  const clock = new ManualClock(0);
  const rig: PlatformRig = {
    platform: o.platform,
    clock,
    source: o.source ?? new SimTickFrame(),
    sink: o.sink ?? new SimChunkCapture(),
    joints: o.joints ?? new SimJointState(o.world),
    monitors: o.monitors,
    limits: {
      gate: { ...DEFAULT_GATE_CONFIG, requiredSignals: o.monitors.requiredSignals },
      // The simulator stamps its signals at every 30 Hz tick: a quarter second is several lost ticks.
      watchdogTimeout: 0.25,
    },
    barrier: o.barrier,
  };
  return { rig, clock };
}

/**
 * Steps a session at simulated times: once per time (the sim's monitor hook, its per-tick frame
 * callback and a chunk decision may all ask for the same tick; times are compared in integer ns,
 * as the monitors and the gate compare them, so `(k − 1)·dt + dt` and `k·dt` are one tick), with
 * the rig clock set to it and, for a SimTickFrame source, the frame of that tick presented.
 */
export class SimSessionClock {
  private lastNs = NaN;
  constructor(
    private readonly session: Session,
    private readonly clock: ManualClock,
    private readonly frames?: SimTickFrame,
  ) {}

  step(t: number, frame?: SignalFrame): void {
    const ns = secondsToNs(t);
    if (ns === this.lastNs) return;
    this.lastNs = ns;
    this.clock.set(t);
    if (frame && this.frames) this.frames.present(frame);
    this.session.step(t);
  }

  submit(chunk: GateChunk, now: number): ExecutedChunk {
    this.clock.set(now);
    return this.session.submitChunk(chunk, now);
  }
}
