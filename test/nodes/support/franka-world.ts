/**
 * The rest of the ROS graph around a Franka node under test, as one node named `world`: publishers
 * of the robot state, the gripper's joint states and a policy's proposed trajectories, and what the
 * node sends the trajectory controller and publishes as chunk results, collected.
 */
import type { FrankaRobotState } from '../../../drivers/franka/messages.js';
import {
  QOS_RELIABLE,
  QOS_SENSOR_DATA,
  type RosContext,
  type RosNode,
  type RosPublisher,
} from '../../../drivers/ros2/interface.js';
import type { JointState, JointTrajectory } from '../../../src/mcap/messages.js';
import type { FrankaNodeConfig } from '../../../src/nodes/franka-node-config.js';
import type { StringMsg } from '../../../src/nodes/ros-monitor-node.js';
import type { PolicyTrajectory } from './policy.js';

/** A message of /armguard/chunk_result. */
export interface ChunkResultMsg {
  verdict: string;
  code: string;
  reason: string;
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
