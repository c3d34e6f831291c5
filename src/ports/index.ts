/**
 * The small interfaces drivers implement (design §13). The core never imports a driver; the CLI wires
 * a concrete driver to these ports. All times are seconds on the monotonic clock passed in by the
 * composition root.
 */
import type { SignalFrame } from '../schema/signals.js';
import type { Fault } from '../schema/fault.js';
import type { JointChunk } from '../schema/chunk.js';
export type { ChunkMotionModel, MotionTrace } from '../gate/warning-band.js';

/** The one fault type of the core (src/schema/fault.ts): drivers report these, never throw. */
export type { Fault } from '../schema/fault.js';

export interface FaultListener {
  (fault: Fault, t: number): void;
}

/** Raw samples in, mapped into a signal frame by the platform mapping. */
export interface SignalSource {
  readonly name: string;
  /** Fill `frame` with the newest samples at or before `now`; faults are reported, never thrown. */
  poll(frame: SignalFrame, now: number): void;
  /**
   * The source's own time of the newest sample the last poll delivered (the ROS header stamp, the
   * servo read's stamp), integer ns on the run's time base (the origin of the steps' seconds); NaN
   * before any. A source that has it is monitored at its samples' own times, each sample once (an
   * idle step brings no new sample); one without it is monitored at the step time on every step.
   */
  sampleNs?(): number;
  onFault(listener: FaultListener): void;
}

/** Joint-space targets for one chunk: H rows of n joint positions (rad), row-major (src/schema/chunk.ts). */
export type { JointChunk } from '../schema/chunk.js';

/** What the gate commands the arm through. Implemented by the SO-101 bus and the ROS 2 controller path. */
export interface CommandSink {
  readonly name: string;
  /** Execute a chunk the gate has checked. Never called with an unchecked chunk. */
  execute(chunk: JointChunk, now: number): void;
  /** Controlled stop with drives powered (stop category 2): command the present position. */
  hold(now: number, reason: string): void;
  /** Gate heartbeat; the arm-side driver holds by itself when heartbeats stop. */
  heartbeat(now: number): void;
  /** Optional part of the hold action (design §6, off by default): open the gripper. */
  openGripper?(now: number): void;
  onFault(listener: FaultListener): void;
}

/** Present joint state for the gate's filter (rad, rad/s). */
export interface JointStateSource {
  readonly joints: number;
  /** Copy the latest positions into `out`; returns the sample time, or NaN if none yet. */
  readPositions(out: Float64Array): number;
}
