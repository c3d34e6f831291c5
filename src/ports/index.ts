/**
 * The small interfaces drivers implement (SPEC §13). The core never imports a driver; the CLI wires
 * a concrete driver to these ports. All times are seconds on the monotonic clock passed in by the
 * composition root.
 */
import type { SignalFrame } from '../schema/signals.js';
import type { GateChunk } from '../gate/chunk.js';

/** A typed fault: everything that goes wrong below the gate becomes one of these, never a throw. */
export type Fault =
  | { kind: 'disconnect'; source: string; detail: string }
  | { kind: 'timeout'; source: string; detail: string; servoIds?: readonly number[] }
  | { kind: 'checksum-budget'; source: string; detail: string }
  | { kind: 'servo-error'; source: string; servoId: number; bits: readonly string[]; detail?: string }
  /** Bytes arrived but no valid reply (noise, a wrong baud rate, two masters): not a silent bus. */
  | { kind: 'framing'; source: string; detail: string; servoIds?: readonly number[] }
  | { kind: 'robot-mode'; source: string; mode: string }
  | { kind: 'stale-signal'; source: string; signal: string; age: number }
  | { kind: 'invalid-sample'; source: string; signal: string; value: number }
  | { kind: 'clock-jump'; source: string; dt: number }
  | { kind: 'solver'; source: string; status: string }
  | { kind: 'storage'; source: string; detail: string }
  | { kind: 'remote-heartbeat'; source: string; detail: string }
  /** A semantic judge gave no verdict (issue 18): timeout, HTTP status, network, malformed answer, … */
  | { kind: 'judge'; source: string; cause: string; detail: string };

export interface FaultListener {
  (fault: Fault, t: number): void;
}

/** Raw samples in, mapped into a signal frame by the platform mapping. */
export interface SignalSource {
  readonly name: string;
  /** Fill `frame` with the newest samples at or before `now`; faults are reported, never thrown. */
  poll(frame: SignalFrame, now: number): void;
  onFault(listener: FaultListener): void;
}

/** Joint-space targets for one chunk: H rows of n joint positions (rad), row-major; the gate's chunk type (src/gate/chunk.ts). */
export type JointChunk = GateChunk;

/** What the gate commands the arm through. Implemented by the SO-101 bus and the ROS 2 controller path. */
export interface CommandSink {
  readonly name: string;
  /** Execute a chunk the gate has checked. Never called with an unchecked chunk. */
  execute(chunk: JointChunk, now: number): void;
  /** Controlled stop with drives powered (stop category 2): command the present position. */
  hold(now: number, reason: string): void;
  /** Gate heartbeat; the arm-side driver holds by itself when heartbeats stop. */
  heartbeat(now: number): void;
  /** Optional part of the hold action (SPEC §6, off by default): open the gripper. */
  openGripper?(now: number): void;
  onFault(listener: FaultListener): void;
}

/** Present joint state for the gate's filter (rad, rad/s). */
export interface JointStateSource {
  readonly joints: number;
  /** Copy the latest positions into `out`; returns the sample time, or NaN if none yet. */
  readPositions(out: Float64Array): number;
}
