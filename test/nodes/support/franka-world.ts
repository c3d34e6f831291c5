/**
 * The rest of the ROS graph around a Franka node under test, as one node named `world`: publishers
 * of the robot state, the gripper's joint states and a policy's proposed trajectories, and what the
 * node sends the trajectory controller and publishes as chunk results, collected; with the FR3's
 * ready pose, states published millisecond by millisecond and straight-line trajectories.
 */
import type { FrankaRobotState } from '../../../drivers/franka/messages.js';
import {
  QOS_RELIABLE,
  QOS_SENSOR_DATA,
  type RosContext,
  type RosNode,
  type RosPublisher,
} from '../../../drivers/ros2/interface.js';
import { toStamp, type JointState, type JointTrajectory } from '../../../src/mcap/messages.js';
import type { FrankaNodeConfig } from '../../../src/nodes/franka-node-config.js';
import type { StringMsg } from '../../../src/nodes/ros-monitor-node.js';
import type { ManualTimers } from '../../../src/util/clock.js';
import { gripperState, robotState } from '../../drivers/franka/support/franka-messages.js';
import type { PolicyTrajectory } from './policy.js';

/** The FR3's ready pose (rad), where the tests' arm stands. */
export const FR3_READY: readonly number[] = [0, -0.785, 0, -2.356, 0, 1.571, 0.785];
export const FR3_JOINTS: readonly string[] = [
  'fr3_joint1',
  'fr3_joint2',
  'fr3_joint3',
  'fr3_joint4',
  'fr3_joint5',
  'fr3_joint6',
  'fr3_joint7',
];
/** Joint torques (N·m) far inside every clause. */
const LIGHT_TAU: readonly number[] = [5, 5, 5, 5, 1, 1, 1];
/** The gripper's opening (m) with nothing grasped. */
export const GRIPPER_OPEN = 0.08;

/** A message of /armguard/chunk_result (further fields, such as the warning band's, by name). */
export interface ChunkResultMsg {
  verdict: string;
  code: string;
  reason: string;
  readonly [field: string]: unknown;
}

export interface FrankaWorld {
  readonly node: RosNode;
  readonly state: RosPublisher<FrankaRobotState>;
  readonly gripper: RosPublisher<JointState>;
  readonly proposer: RosPublisher<PolicyTrajectory>;
  /** Trajectories sent to the controller topic, in order. */
  readonly toController: JointTrajectory[];
  /** Chunk results, in order. */
  readonly results: ChunkResultMsg[];
}

export function frankaWorld(graph: RosContext, config: FrankaNodeConfig): FrankaWorld {
  const node = graph.createNode('world');
  const state = node.createPublisher<FrankaRobotState>(
    'franka_msgs/msg/FrankaRobotState',
    config.robotStateTopic,
    QOS_RELIABLE,
  );
  const gripper = node.createPublisher<JointState>('sensor_msgs/msg/JointState', config.gripperTopic, QOS_SENSOR_DATA);
  const proposer = node.createPublisher<PolicyTrajectory>(
    'trajectory_msgs/msg/JointTrajectory',
    '/armguard/proposed_trajectory',
    QOS_RELIABLE,
  );
  const toController: JointTrajectory[] = [];
  const results: ChunkResultMsg[] = [];
  node.createSubscription<JointTrajectory>(
    'trajectory_msgs/msg/JointTrajectory',
    config.controllerTopic,
    QOS_RELIABLE,
    (m) => toController.push(m),
  );
  node.createSubscription<StringMsg>('std_msgs/msg/String', '/armguard/chunk_result', QOS_RELIABLE, (m) =>
    results.push(JSON.parse(m.data) as ChunkResultMsg),
  );
  return { node, state, gripper, proposer, toController, results };
}

/** A node named `controller` collecting what the Franka node sends the trajectory controller, in order. */
export function controllerCollector(graph: RosContext, config: FrankaNodeConfig): JointTrajectory[] {
  const toController: JointTrajectory[] = [];
  graph
    .createNode('controller')
    .createSubscription<JointTrajectory>(
      'trajectory_msgs/msg/JointTrajectory',
      config.controllerTopic,
      QOS_RELIABLE,
      (m) => toController.push(m),
    );
  return toController;
}

/**
 * Advance `timers` 1 ms at a time for `ms` ms, publishing at each step the gripper's joint state
 * (`width` m between the fingers) and then a robot state (joints `q`, torques `tau`), stamped now.
 */
export function publishStates(
  world: FrankaWorld,
  timers: ManualTimers,
  ms: number,
  {
    q = FR3_READY,
    tau = LIGHT_TAU,
    width = GRIPPER_OPEN,
  }: { q?: readonly number[]; tau?: readonly number[]; width?: number } = {},
): void {
  for (let i = 0; i < ms; i++) {
    timers.advance(0.001);
    const t = timers.clock.now();
    world.gripper.publish(gripperState(t, width));
    world.state.publish(robotState(t, { q: [...q], tau: [...tau] }));
  }
}

/**
 * A trajectory as a policy proposes it: `steps` points `dt` s apart on the straight line in joint
 * space from `from` (excluded) to `to` (the last point), frame_id `id`, stamped `stamp`.
 */
export function linearTrajectory(
  id: string,
  stamp: number,
  from: readonly number[],
  to: readonly number[],
  { steps, dt, joints = FR3_JOINTS }: { steps: number; dt: number; joints?: readonly string[] },
): PolicyTrajectory {
  const points = Array.from({ length: steps }, (_, k) => ({
    positions: from.map((q0, j) => q0 + ((k + 1) / steps) * (to[j]! - q0)),
    velocities: [],
    accelerations: [],
    effort: [],
    time_from_start: toStamp((k + 1) * dt),
  }));
  return { header: { stamp: toStamp(stamp), frame_id: id }, joint_names: [...joints], points };
}
