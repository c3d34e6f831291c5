import type { FrankaRobotState } from '../../../../drivers/franka/messages.js';
import type { JointState, Quaternion } from '../../../../src/mcap/messages.js';
import { toStamp } from '../../../../src/mcap/messages.js';

const f64 = (v: readonly number[] = []): Float64Array => Float64Array.from(v);
const zeroJs = (t: number): JointState => ({
  header: { stamp: toStamp(t), frame_id: '' },
  name: [],
  position: f64(),
  velocity: f64(),
  effort: f64(),
});
const v3 = (x = 0, y = 0, z = 0) => ({ x, y, z });

/** A FrankaRobotState with the given fields; everything else zero. */
export function robotState(
  t: number,
  o: {
    tau?: number[];
    q?: number[];
    dq?: number[];
    force?: [number, number, number];
    pos?: [number, number, number];
    quat?: Quaternion;
    mode?: number;
    errors?: Record<string, boolean>;
  } = {},
): FrankaRobotState {
  const [fx, fy, fz] = o.force ?? [0, 0, 0];
  const [px, py, pz] = o.pos ?? [0.3, 0, 0.4];
  return {
    header: { stamp: toStamp(t), frame_id: 'fr3_link0' },
    collision_indicators: {
      is_cartesian_linear_collision: v3(),
      is_cartesian_angular_collision: v3(),
      is_cartesian_linear_contact: v3(),
      is_cartesian_angular_contact: v3(),
      is_joint_collision: new Float64Array(7),
      is_joint_contact: new Float64Array(7),
    },
    measured_joint_state: {
      ...zeroJs(t),
      position: f64(o.q ?? [0, 0, 0, -1.5, 0, 1.5, 0.8]),
      velocity: f64(o.dq ?? []),
      effort: f64(o.tau ?? [0, 0, 0, 0, 0, 0, 0]),
    },
    tau_ext_hat_filtered: zeroJs(t),
    o_f_ext_hat_k: {
      header: { stamp: toStamp(t), frame_id: 'fr3_link0' },
      wrench: { force: v3(fx, fy, fz), torque: v3() },
    },
    o_t_ee: {
      header: { stamp: toStamp(t), frame_id: 'fr3_link0' },
      pose: { position: v3(px, py, pz), orientation: o.quat ?? { x: 0, y: 0, z: 0, w: 1 } },
    },
    robot_mode: o.mode ?? 2,
    current_errors: o.errors ?? {},
  };
}

export function gripperState(t: number, width: number): JointState {
  return {
    ...zeroJs(t),
    name: ['fr3_finger_joint1', 'fr3_finger_joint2'],
    position: f64([width / 2, width / 2]),
    velocity: f64([0, 0]),
    effort: f64([0, 0]),
  };
}
