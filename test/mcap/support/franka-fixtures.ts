/** Constructed Franka/ROS messages with every field set, for round trips. */
const stamp = (ns: bigint) => ({ sec: Number(ns / 1_000_000_000n), nanosec: Number(ns % 1_000_000_000n) });
const header = (ns: bigint, frame: string) => ({ stamp: stamp(ns), frame_id: frame });
const v3 = (x: number, y: number, z: number) => ({ x, y, z });
const seq = <T>(n: number, f: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => f(i));
const names = seq(7, (i) => `fr3_joint${i + 1}`);

export function jointState(ns: bigint, k: number) {
  return {
    header: header(ns, ''),
    name: names,
    position: seq(7, (i) => 0.1 * i + k * 1e-3),
    velocity: seq(7, (i) => -0.01 * i),
    effort: seq(7, (i) => (i < 4 ? 20 + i : 3 + i * 0.25) + k * 0.5),
  };
}

export function poseStamped(ns: bigint, k: number) {
  return {
    header: header(ns, 'world'),
    pose: {
      position: { x: 0.3 + k * 0.001, y: -0.2, z: 0.45 },
      orientation: { x: 0, y: 0.7071067811865476, z: 0, w: 0.7071067811865476 },
    },
  };
}

const ERROR_FIELDS = [
  'joint_position_limits_violation',
  'cartesian_position_limits_violation',
  'self_collision_avoidance_violation',
  'joint_velocity_violation',
  'cartesian_velocity_violation',
  'force_control_safety_violation',
  'joint_reflex',
  'cartesian_reflex',
  'max_goal_pose_deviation_violation',
  'max_path_pose_deviation_violation',
  'cartesian_velocity_profile_safety_violation',
  'joint_position_motion_generator_start_pose_invalid',
  'joint_motion_generator_position_limits_violation',
  'joint_motion_generator_velocity_limits_violation',
  'joint_motion_generator_velocity_discontinuity',
  'joint_motion_generator_acceleration_discontinuity',
  'cartesian_position_motion_generator_start_pose_invalid',
  'cartesian_motion_generator_elbow_limit_violation',
  'cartesian_motion_generator_velocity_limits_violation',
  'cartesian_motion_generator_velocity_discontinuity',
  'cartesian_motion_generator_acceleration_discontinuity',
  'cartesian_motion_generator_elbow_sign_inconsistent',
  'cartesian_motion_generator_start_elbow_invalid',
  'cartesian_motion_generator_joint_position_limits_violation',
  'cartesian_motion_generator_joint_velocity_limits_violation',
  'cartesian_motion_generator_joint_velocity_discontinuity',
  'cartesian_motion_generator_joint_acceleration_discontinuity',
  'cartesian_position_motion_generator_invalid_frame',
  'force_controller_desired_force_tolerance_violation',
  'controller_torque_discontinuity',
  'start_elbow_sign_inconsistent',
  'communication_constraints_violation',
  'power_limit_violation',
  'joint_p2p_insufficient_torque_for_planning',
  'tau_j_range_violation',
  'instability_detected',
];
export const FRANKA_ERROR_FIELD_COUNT = ERROR_FIELDS.length;

const errors = (reflex: boolean) =>
  Object.fromEntries(ERROR_FIELDS.map((f) => [f, reflex && (f === 'joint_reflex' || f === 'cartesian_reflex')]));
const wrench = (ns: bigint, k: number) => ({
  header: header(ns, 'fr3_link0'),
  wrench: { force: v3(1 + k, -2, 3.5), torque: v3(0.1, 0.2, -0.3) },
});
const inertia = (ns: bigint, m: number) => ({
  header: header(ns, 'fr3_link8'),
  inertia: { m, com: v3(0, 0, 0.05), ixx: 0.01, ixy: 0, ixz: 0, iyy: 0.01, iyz: 0, izz: 0.02 },
});
const twist = (ns: bigint) => ({
  header: header(ns, 'fr3_link0'),
  twist: { linear: v3(0.01, 0, 0), angular: v3(0, 0, 0.02) },
});

export function frankaRobotState(ns: bigint, k: number, reflex = false) {
  const js = jointState(ns, k);
  return {
    header: header(ns, 'fr3_link0'),
    collision_indicators: {
      is_cartesian_linear_collision: v3(0, 0, reflex ? 1 : 0),
      is_cartesian_angular_collision: v3(0, 0, 0),
      is_cartesian_linear_contact: v3(1, 0, 0),
      is_cartesian_angular_contact: v3(0, 0, 0),
      is_joint_collision: seq(7, (i) => (reflex && i === 3 ? 1 : 0)),
      is_joint_contact: seq(7, (i) => (i === 1 ? 1 : 0)),
    },
    measured_joint_state: js,
    desired_joint_state: jointState(ns, k + 1),
    measured_joint_motor_state: { ...jointState(ns, k), effort: [] },
    ddq_d: seq(7, (i) => i * 0.5),
    dtau_j: seq(7, (i) => -i * 0.25),
    tau_ext_hat_filtered: {
      header: header(ns, ''),
      name: names,
      position: [],
      velocity: [],
      effort: seq(7, (i) => 0.5 * i - 1),
    },
    elbow: {
      position: [0.1, -1],
      desired_position: [0.1, -1],
      commanded_position: [0.1, -1],
      commanded_velocity: [0, 0],
      commanded_acceleration: [0, 0],
    },
    k_f_ext_hat_k: wrench(ns, k),
    o_f_ext_hat_k: wrench(ns, k + 1),
    inertia_ee: inertia(ns, 0.73),
    inertia_load: inertia(ns, 0),
    inertia_total: inertia(ns, 0.73),
    o_t_ee: poseStamped(ns, k),
    o_t_ee_d: poseStamped(ns, k),
    o_t_ee_c: poseStamped(ns, k),
    f_t_ee: poseStamped(ns, 0),
    ee_t_k: poseStamped(ns, 0),
    o_dp_ee_d: twist(ns),
    o_dp_ee_c: twist(ns),
    o_ddp_ee_c: { header: header(ns, 'fr3_link0'), accel: { linear: v3(0, 0, 0), angular: v3(0, 0, 0) } },
    time: 12.5 + k * 0.001,
    control_command_success_rate: 1,
    robot_mode: reflex ? 4 : 2,
    current_errors: errors(reflex),
    last_motion_errors: errors(false),
  };
}

/** Typed arrays → plain arrays, so decoded messages compare with constructed ones. */
export function plain(value: unknown): unknown {
  if (ArrayBuffer.isView(value) && !(value instanceof DataView))
    return Array.from(value as unknown as ArrayLike<number>);
  if (Array.isArray(value)) return value.map(plain);
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  return value;
}
