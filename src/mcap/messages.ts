/**
 * Typed structures of the standard ROS 2 messages armguard reads and writes, field names exactly as
 * in their .msg definitions.
 *
 * One representation at the ROS boundary: a `float64[]` field is a Float64Array, in both directions.
 * That is what rclnodejs delivers (subscriptions are created with `enableTypedArray: true`, its
 * default, stated explicitly in rclnodejs-adapter.ts) and what the CDR reader of bags delivers; the
 * FAKE graph delivers the same (rclnodejs-wire.ts). Code reads these fields as array-likes
 * (length, index, for-of), never with Array.isArray. int64/uint64 fields would be BigInt (none of
 * the types below has one).
 */
import { NS_PER_S, secondsToNs } from '../util/time.js';

const NS_PER_S_BIG = BigInt(NS_PER_S);
export interface Time {
  sec: number;
  nanosec: number;
}
export interface Header {
  stamp: Time;
  frame_id: string;
}
export interface Vector3 {
  x: number;
  y: number;
  z: number;
}
export type Point = Vector3;
export interface Quaternion {
  x: number;
  y: number;
  z: number;
  w: number;
}
export interface Pose {
  position: Point;
  orientation: Quaternion;
}
export interface PoseStamped {
  header: Header;
  pose: Pose;
}
export interface Wrench {
  force: Vector3;
  torque: Vector3;
}
export interface WrenchStamped {
  header: Header;
  wrench: Wrench;
}
export interface JointState {
  header: Header;
  name: string[];
  position: Float64Array;
  velocity: Float64Array;
  effort: Float64Array;
}
export interface Transform {
  translation: Vector3;
  rotation: Quaternion;
}
export interface TransformStamped {
  header: Header;
  child_frame_id: string;
  transform: Transform;
}
export interface TFMessage {
  transforms: TransformStamped[];
}
export interface Duration {
  sec: number;
  nanosec: number;
}
export interface JointTrajectoryPoint {
  positions: Float64Array;
  velocities: Float64Array;
  accelerations: Float64Array;
  effort: Float64Array;
  time_from_start: Duration;
}
export interface JointTrajectory {
  header: Header;
  joint_names: string[];
  points: JointTrajectoryPoint[];
}
export interface KeyValue {
  key: string;
  value: string;
}
export interface DiagnosticStatus {
  level: number;
  name: string;
  message: string;
  hardware_id: string;
  values: KeyValue[];
}
export interface DiagnosticArray {
  header: Header;
  status: DiagnosticStatus[];
}
/** diagnostic_msgs/DiagnosticStatus levels. */
export const DIAGNOSTIC_LEVEL = { OK: 0, WARN: 1, ERROR: 2, STALE: 3 } as const;

export interface TriggerResponse {
  success: boolean;
  message: string;
}
export interface SetBoolRequest {
  data: boolean;
}

export function stampSeconds(t: Time): number {
  return t.sec + t.nanosec * 1e-9;
}

/** A stamp as integer Unix-epoch ns; undefined unless sec is a safe integer and 0 ≤ nanosec < 1e9 is an integer. */
export function stampNs(t: Time): bigint | undefined {
  const { sec, nanosec } = t;
  if (!Number.isSafeInteger(sec) || !Number.isInteger(nanosec) || nanosec < 0 || nanosec >= NS_PER_S) return undefined;
  return BigInt(sec) * NS_PER_S_BIG + BigInt(nanosec);
}

/**
 * A node's time base. ROS 2 stamps are Unix-epoch ns (≈ 1.7e18, beyond 2^53): as float seconds two
 * stamps exactly 5 ms apart differ by 5 ms ± 0.2 µs, and an STL window edge or a max-age edge would
 * be decided by that rounding (issue 13). So a node runs on seconds since `originNs`, subtracted in
 * BigInt here at the boundary: such run seconds hold exact ns (`secondsToNs` recovers them, below
 * 2^51 ns ≈ 26 days; src/util/time.ts), and the pipeline, gate and monitors compare them in ns.
 * Outgoing stamps add the origin back. `EPOCH` (origin 0) is plain Unix seconds, the old behaviour,
 * for a graph a test drives on Unix-time seconds.
 */
export class RosTimeBase {
  static readonly EPOCH = new RosTimeBase(0n);
  constructor(readonly originNs: bigint) {}

  /** A stamp as run seconds (exact ns); NaN for a stamp that is not a valid time. */
  seconds(t: Time): number {
    if (this.originNs === 0n) return stampSeconds(t);
    const ns = stampNs(t);
    return ns === undefined ? NaN : Number(ns - this.originNs) / NS_PER_S;
  }

  /**
   * A stamp as integer ns since the origin, subtracted in BigInt: exact below 2^53 ns (104 days)
   * from the origin, which the live node and the replay set at their start. NaN for a stamp that is
   * not a valid time. This is a sample's own time for the monitors (issue 13: not its arrival).
   */
  ns(t: Time): number {
    const ns = stampNs(t);
    return ns === undefined ? NaN : Number(ns - this.originNs);
  }

  /** Run seconds as an absolute stamp (for messages other nodes read). */
  stamp(seconds: number): Time {
    if (this.originNs === 0n || !Number.isFinite(seconds)) return toStamp(seconds);
    const abs = this.originNs + BigInt(secondsToNs(seconds));
    const sec = abs / NS_PER_S_BIG - (abs % NS_PER_S_BIG < 0n ? 1n : 0n);
    return { sec: Number(sec), nanosec: Number(abs - sec * NS_PER_S_BIG) };
  }

  /** Run seconds as absolute Unix seconds (display, JSON for other processes). */
  unixSeconds(seconds: number): number {
    return Number(this.originNs) / NS_PER_S + seconds;
  }
}
export function toStamp(seconds: number): Time {
  const sec = Math.floor(seconds);
  return { sec, nanosec: Math.min(999_999_999, Math.round((seconds - sec) * 1e9)) };
}
