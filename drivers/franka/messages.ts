/**
 * franka_msgs structures (franka_ros2 humble/jazzy, hardware-facts §A1), the fields armguard reads.
 */
import type { Header, JointState, PoseStamped, Vector3, WrenchStamped } from '../../src/mcap/messages.js';

export const ROBOT_MODE = {
  OTHER: 0,
  IDLE: 1,
  MOVE: 2,
  GUIDING: 3,
  REFLEX: 4,
  USER_STOPPED: 5,
  AUTOMATIC_ERROR_RECOVERY: 6,
} as const;
export const ROBOT_MODE_NAMES = [
  'OTHER',
  'IDLE',
  'MOVE',
  'GUIDING',
  'REFLEX',
  'USER_STOPPED',
  'AUTOMATIC_ERROR_RECOVERY',
] as const;

/** franka_msgs/Errors: 36 bools; the safety-relevant ones are named, the rest are read generically. */
export type FrankaErrors = Readonly<Record<string, boolean>>;

export interface CollisionIndicators {
  is_cartesian_linear_collision: Vector3;
  is_cartesian_angular_collision: Vector3;
  is_cartesian_linear_contact: Vector3;
  is_cartesian_angular_contact: Vector3;
  is_joint_collision: Float64Array;
  is_joint_contact: Float64Array;
}

export interface FrankaRobotState {
  header: Header;
  collision_indicators: CollisionIndicators;
  measured_joint_state: JointState;
  tau_ext_hat_filtered: JointState;
  o_f_ext_hat_k: WrenchStamped;
  o_t_ee: PoseStamped;
  robot_mode: number;
  current_errors: FrankaErrors;
}

/** Closest two robot-state samples are expected (s): the broadcaster runs at 1 kHz, jitter halves it. */
export const FRANKA_STATE_MIN_INTERVAL_S = 0.0005;

export const FRANKA_TOPICS = {
  robotState: '/franka_robot_state_broadcaster/robot_state',
  gripperJointStates: '/franka_gripper/joint_states',
  controllerTrajectory: '/fr3_arm_controller/joint_trajectory',
} as const;

export const FRANKA_TYPES = {
  robotState: 'franka_msgs/msg/FrankaRobotState',
  jointState: 'sensor_msgs/msg/JointState',
} as const;
