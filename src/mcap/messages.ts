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
export function toStamp(seconds: number): Time {
  const sec = Math.floor(seconds);
  return { sec, nanosec: Math.min(999_999_999, Math.round((seconds - sec) * 1e9)) };
}
