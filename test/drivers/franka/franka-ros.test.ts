import { describe, expect, it } from 'vitest';
import { ManualClock, ManualTimers } from '../../../src/util/clock.js';
import { SignalFrame } from '../../../src/schema/signals.js';
import type { Fault } from '../../../src/ports/index.js';
import { FakeRosGraph } from '../../../drivers/ros2/fake-ros-graph.js';
import { QOS_RELIABLE, QOS_SENSOR_DATA } from '../../../drivers/ros2/interface.js';
import type { JointState, JointTrajectory } from '../../../src/mcap/messages.js';
import { FrankaRos, FR3_JOINTS } from '../../../drivers/franka/franka-ros.js';
import { ROBOT_MODE, type FrankaRobotState } from '../../../drivers/franka/messages.js';
import { gripperState, robotState } from './support/franka-messages.js';

function setup(options: ConstructorParameters<typeof FakeRosGraph>[2] = {}) {
  const clock = new ManualClock(0);
  const timers = new ManualTimers(clock);
  const graph = new FakeRosGraph(clock, timers, options);
  const franka = new FrankaRos(graph.createNode('armguard'));
  const broadcaster = graph.createNode('franka_robot_state_broadcaster');
  const gripper = graph.createNode('franka_gripper');
  const controller = graph.createNode('fr3_arm_controller');
  const sent: JointTrajectory[] = [];
  controller.createSubscription<JointTrajectory>(
    'trajectory_msgs/msg/JointTrajectory',
    '/fr3_arm_controller/joint_trajectory',
    QOS_RELIABLE,
    (m) => sent.push(m),
  );
  /** Let discovery match every endpoint created so far (the fake matches them after a delay, in order). */
  const discover = () => timers.advance(0.1);
  return { graph, franka, broadcaster, gripper, sent, discover };
}

describe('Franka over the ROS 2 interface (fake graph)', () => {
  it('reads the reliable robot state and a best-effort gripper stream into the frame', () => {
    const { graph, franka, broadcaster, gripper, discover } = setup();
    const statePub = broadcaster.createPublisher<FrankaRobotState>(
      'franka_msgs/msg/FrankaRobotState',
      '/franka_robot_state_broadcaster/robot_state',
      QOS_RELIABLE,
    );
    const gripPub = gripper.createPublisher<JointState>(
      'sensor_msgs/msg/JointState',
      '/franka_gripper/joint_states',
      QOS_SENSOR_DATA,
    );
    discover();
    gripPub.publish(gripperState(0.5, 0.03));
    statePub.publish(robotState(0.5, { tau: [0, 0, 0, 0, 6, 0, 0], q: [0.1, 0.2, 0.3, -1, 0.5, 1.2, 0.7] }));
    const frame = new SignalFrame();
    franka.poll(frame, 0.5);
    expect(frame.get('max_joint_torque')).toBeCloseTo(43.5, 12);
    expect(frame.get('gripper_contact')).toBe(1);
    const q = new Float64Array(7);
    expect(franka.readPositions(q)).toBeCloseTo(0.5, 9);
    expect(Array.from(q)).toEqual([0.1, 0.2, 0.3, -1, 0.5, 1.2, 0.7]);
    expect(graph.qosMismatches).toEqual([]);
  });

  it('requests best effort where the publisher offers only best effort (no QoS mismatch)', () => {
    const { graph, franka, gripper, discover } = setup();
    const pub = gripper.createPublisher<JointState>(
      'sensor_msgs/msg/JointState',
      '/franka_gripper/joint_states',
      QOS_SENSOR_DATA,
    );
    discover();
    pub.publish(gripperState(0, 0.03));
    expect(franka.counts.gripper).toBe(1);
    expect(graph.qosMismatches).toEqual([]);
  });

  it('reflex mode becomes a robot-mode fault', () => {
    const { franka, broadcaster, discover } = setup();
    const faults: Fault[] = [];
    franka.onFault((f) => faults.push(f));
    const pub = broadcaster.createPublisher<FrankaRobotState>(
      'franka_msgs/msg/FrankaRobotState',
      '/franka_robot_state_broadcaster/robot_state',
      QOS_RELIABLE,
    );
    discover();
    pub.publish(robotState(0, { mode: ROBOT_MODE.REFLEX }));
    expect(faults).toEqual([{ kind: 'robot-mode', source: 'franka', mode: 'REFLEX' }]);
  });

  it('a malformed robot-state message becomes a fault, never a throw', () => {
    // rclnodejs fills every field a publisher left out, so this arrives only as a replayed bag's
    // decoded message (recorded under another definition): delivered as it is, as a replay does.
    const { franka, broadcaster } = setup({ delivery: 'as-published', discovery: 'immediate' });
    const faults: Fault[] = [];
    franka.onFault((f) => faults.push(f));
    const pub = broadcaster.createPublisher<unknown>(
      'franka_msgs/msg/FrankaRobotState',
      '/franka_robot_state_broadcaster/robot_state',
      QOS_RELIABLE,
    );
    // a stamp and nothing else: every signal derived from a missing field is reported
    expect(() => pub.publish({ header: { stamp: { sec: 0, nanosec: 0 } } })).not.toThrow();
    expect(faults.length).toBeGreaterThan(0);
    expect(faults.every((f) => f.kind === 'invalid-sample')).toBe(true);
    expect(faults.map((f) => (f.kind === 'invalid-sample' ? f.signal : ''))).toEqual(
      expect.arrayContaining(['max_joint_torque', 'contact_force_max']),
    );
    // not even a header: one fault for the message
    faults.length = 0;
    expect(() => pub.publish({ robot_mode: 'x' })).not.toThrow();
    expect(faults).toMatchObject([{ kind: 'invalid-sample', signal: 'robot_state' }]);
  });

  it('forwards a checked chunk as a trajectory and holds with an empty trajectory', () => {
    const { franka, sent, discover } = setup();
    discover();
    const targets = new Float64Array(2 * 7).map((_, i) => i / 10);
    franka.execute({ id: 'c1', stamp: 1, horizon: 2, joints: 7, dt: 1 / 30, targets }, 1);
    franka.hold(1.1, 'violation');
    expect(sent).toHaveLength(2);
    expect(sent[0]!.joint_names).toEqual([...FR3_JOINTS]);
    expect(sent[0]!.points[0]!.positions).toBeInstanceOf(Float64Array);
    expect(sent[0]!.points.map((p) => Array.from(p.positions))).toEqual([
      Array.from(targets.slice(0, 7)),
      Array.from(targets.slice(7)),
    ]);
    expect(sent[1]!.points).toEqual([]);
  });
});
