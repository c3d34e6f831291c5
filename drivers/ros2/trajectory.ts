/**
 * JointChunk ↔ trajectory_msgs/JointTrajectory (design §7). A chunk of H steps becomes H points at
 * time_from_start = (k+1)·dt; an incoming trajectory is validated (joint names, sizes, finite
 * values, uniform strictly increasing times) and converted, or rejected with a reason.
 */
import type { JointChunk } from '../../src/ports/index.js';
import { RosTimeBase, toStamp, type JointTrajectory, type Time } from '../../src/mcap/messages.js';

/** Shared empty field: messages built here are published and never changed. */
const EMPTY = new Float64Array(0);

/**
 * A float64[] field as it may arrive: a typed array from rclnodejs or the CDR reader, or a plain
 * array from a JSON-ish producer. Anything else (a string, an object) is not a sequence.
 */
function isNumberSequence(v: unknown): v is ArrayLike<unknown> {
  return Array.isArray(v) || v instanceof Float64Array || v instanceof Float32Array;
}

/** `time`: the node's time base, on which `chunk.stamp` is (src/mcap/messages.ts). */
export function chunkToTrajectory(
  chunk: JointChunk,
  jointNames: readonly string[],
  frameId = '',
  time: RosTimeBase = RosTimeBase.EPOCH,
): JointTrajectory {
  const points = [];
  for (let k = 0; k < chunk.horizon; k++) {
    points.push({
      positions: chunk.targets.slice(k * chunk.joints, (k + 1) * chunk.joints),
      velocities: EMPTY,
      accelerations: EMPTY,
      effort: EMPTY,
      time_from_start: toStamp((k + 1) * chunk.dt),
    });
  }
  return { header: { stamp: time.stamp(chunk.stamp), frame_id: frameId }, joint_names: [...jointNames], points };
}

/** The trajectory that makes a JointTrajectoryController hold its current position (empty points). */
export function holdTrajectory(jointNames: readonly string[], stamp: Time): JointTrajectory {
  return { header: { stamp, frame_id: '' }, joint_names: [...jointNames], points: [] };
}

export type TrajectoryParse = { ok: true; chunk: JointChunk } | { ok: false; reason: string };

/**
 * Convert a proposed trajectory into a chunk in `jointNames` order. `id` is taken from
 * header.frame_id when it is not empty (the policy's chunk id), else from the stamp. The chunk's
 * stamp is read on the node's time base `time`. `fingerJoints`: gripper finger joints the
 * trajectory may carry beside the arm's (e.g. fr3_finger_joint1/2, each at half the width between
 * the fingers, as the gripper's joint states report them): their positions become the chunk's
 * `gripperWidth` (the sum of those given; twice one alone), not chunk columns.
 */
export function trajectoryToChunk(
  msg: JointTrajectory,
  jointNames: readonly string[],
  time: RosTimeBase = RosTimeBase.EPOCH,
  fingerJoints: readonly string[] = [],
): TrajectoryParse {
  const n = jointNames.length;
  if (!Array.isArray(msg.joint_names) || !Array.isArray(msg.points))
    return { ok: false, reason: 'joint_names and points must be arrays' };
  if (msg.points.length === 0) return { ok: false, reason: 'trajectory has no points' };
  const order: number[] = [];
  for (const name of jointNames) {
    const i = msg.joint_names.indexOf(name);
    if (i < 0) return { ok: false, reason: `joint '${name}' missing from joint_names [${msg.joint_names.join(', ')}]` };
    order.push(i);
  }
  const fingers = fingerJoints.map((name) => msg.joint_names.indexOf(name)).filter((i) => i >= 0);
  const expected = n + fingers.length;
  if (msg.joint_names.length !== expected)
    return {
      ok: false,
      reason: `expected ${n} joints${fingerJoints.length > 0 ? ` (and optionally ${fingerJoints.join(', ')})` : ''}, got ${msg.joint_names.length}`,
    };
  const H = msg.points.length;
  const targets = new Float64Array(H * n);
  const gripperWidth = fingers.length > 0 ? new Float64Array(H) : undefined;
  let prevT = 0;
  let dt = NaN;
  for (let k = 0; k < H; k++) {
    const p = msg.points[k];
    if (!p || !isNumberSequence(p.positions) || p.positions.length !== expected) {
      return { ok: false, reason: `points[${k}].positions must have ${expected} values` };
    }
    const t = (p.time_from_start?.sec ?? NaN) + (p.time_from_start?.nanosec ?? NaN) * 1e-9;
    if (!(t > prevT))
      return { ok: false, reason: `points[${k}].time_from_start must increase (got ${t} after ${prevT})` };
    const step = t - prevT;
    if (k === 0) dt = step;
    else if (Math.abs(step - dt) > 1e-6)
      return { ok: false, reason: `points[${k}] breaks the uniform step ${dt} s (step ${step} s)` };
    prevT = t;
    // every value, arm and finger joints alike, finite (one check, naming the joint)
    const bad = p.positions.findIndex((v) => !Number.isFinite(v));
    if (bad >= 0)
      return { ok: false, reason: `points[${k}].positions has a non-finite value for '${msg.joint_names[bad]}'` };
    for (let j = 0; j < n; j++) targets[k * n + j] = p.positions[order[j]!]!;
    if (gripperWidth) {
      let w = 0;
      for (const i of fingers) w += p.positions[i]!;
      gripperWidth[k] = fingers.length === 1 ? 2 * w : w;
    }
  }
  const stamp = time.seconds({ sec: msg.header?.stamp?.sec ?? NaN, nanosec: msg.header?.stamp?.nanosec ?? NaN });
  if (!Number.isFinite(stamp)) return { ok: false, reason: 'header.stamp is missing or not finite' };
  const id =
    msg.header.frame_id !== '' ? msg.header.frame_id : `traj-${msg.header.stamp.sec}.${msg.header.stamp.nanosec}`;
  return {
    ok: true,
    chunk: { id, stamp, horizon: H, joints: n, dt, targets, ...(gripperWidth ? { gripperWidth } : {}) },
  };
}
