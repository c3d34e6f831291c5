/**
 * armguard doctor on a Franka: ROS 2 environment, rclnodejs bindings and the robot's topics on the
 * in-process fake ROS graph (named fake: no live ROS 2 graph here), with the robot PC's stamps
 * offset from this machine's clock by a known amount.
 */
import { describe, expect, it } from 'vitest';
import { FakeRosGraph } from '../../drivers/ros2/fake-ros-graph.js';
import { QOS_RELIABLE, QOS_SENSOR_DATA } from '../../drivers/ros2/interface.js';
import { toStamp } from '../../src/mcap/messages.js';
import { allPassed, formatResults, runChecks } from '../../src/doctor/checks.js';
import {
  FRANKA_BINDINGS,
  FRANKA_CHECKS,
  frankaTopics,
  type FrankaDoctorContext,
} from '../../src/doctor/franka-checks.js';
import { ManualClock, ManualTimers } from '../../src/util/clock.js';

const ENV = {
  ROS_DISTRO: 'humble',
  AMENT_PREFIX_PATH: '/home/lab/franka_ros2_ws/install/franka_msgs:/opt/ros/humble',
  ROS_DOMAIN_ID: '7',
};
const TOPICS = {
  robotStateTopic: '/franka_robot_state_broadcaster/robot_state',
  gripperTopic: '/franka_gripper/joint_states',
};

/** A graph whose "robot" publishes the state at 1 kHz stamped `offset` s behind the clock, and the gripper at 50 Hz. */
function robotGraph(offset: number, gripper = true) {
  const clock = new ManualClock(1_764_000_000);
  const timers = new ManualTimers(clock);
  const graph = new FakeRosGraph(clock, timers);
  const robot = graph.createNode('franka_robot_state_broadcaster');
  const state = robot.createPublisher<unknown>(
    'franka_msgs/msg/FrankaRobotState',
    TOPICS.robotStateTopic,
    QOS_RELIABLE,
  );
  const fingers = robot.createPublisher<unknown>('sensor_msgs/msg/JointState', TOPICS.gripperTopic, QOS_SENSOR_DATA);
  const wait = async (seconds: number) => {
    for (let k = 0; k < seconds * 1000; k++) {
      timers.advance(0.001); // the fake graph discovers endpoints and delivers on its timers
      state.publish({ header: { stamp: toStamp(clock.now() - offset), frame_id: 'base' } });
      if (gripper && k % 20 === 0)
        fingers.publish({
          header: { stamp: toStamp(clock.now()), frame_id: '' },
          name: [],
          position: [0.04, 0.04],
          velocity: [],
          effort: [],
        });
    }
  };
  return { graph, wait };
}

function context(over: Partial<FrankaDoctorContext> & Pick<FrankaDoctorContext, 'ros' | 'wait'>): FrankaDoctorContext {
  return {
    env: ENV,
    loadRclnodejs: async () => ({ ok: true, version: '0.27.1', hasType: () => true }),
    topics: frankaTopics(TOPICS),
    sampleSeconds: 0.2,
    found: {},
    ...over,
  };
}

describe('armguard doctor franka (fake ROS graph)', () => {
  it('sourced, bindings present, both topics publishing, robot stamps 4 ms old: every check passes', async () => {
    const { graph, wait } = robotGraph(0.004);
    const rs = await runChecks(FRANKA_CHECKS, context({ ros: async () => graph, wait }));
    expect(allPassed(rs), formatResults(rs)).toBe(true);
    expect(rs[0]!.detail).toContain('ROS_DOMAIN_ID 7');
    // 1 kHz for 0.2 s, less the first milliseconds the graph takes to discover the endpoints
    const n = Number(
      /robot_state \(franka_msgs\/msg\/FrankaRobotState, reliable\): (\d+) message\(s\)/.exec(rs[2]!.detail)?.[1],
    );
    expect(n).toBeGreaterThan(150);
    expect(n).toBeLessThanOrEqual(200);
    expect(rs[2]!.detail).toContain(
      `clock offset (receipt − robot stamp): median 4.0 ms over ${n} message(s), min 4.0 ms, max 4.0 ms`,
    );
  });

  it('a robot clock 150 ms behind fails with the chrony/PTP fix; a silent gripper topic is named', async () => {
    const { graph, wait } = robotGraph(0.15, false);
    const rs = await runChecks(FRANKA_CHECKS, context({ ros: async () => graph, wait }));
    const topics = rs[2]!;
    expect(topics.status).toBe('fail');
    expect(topics.detail).toMatch(/robot stamps are 150 ms behind this machine's clock/);
    expect(topics.detail).toContain(`no message on ${TOPICS.gripperTopic}`);
    expect(topics.fix).toMatch(/chrony/);
    expect(topics.fix).toMatch(/ros2 launch franka_bringup/);
  });

  it('ROS 2 not sourced, or franka_msgs bindings not generated: failures with the commands that fix them; the graph is not touched', async () => {
    let touched = false;
    const ros = async () => {
      touched = true;
      throw new Error('no graph');
    };
    const rs = await runChecks(
      FRANKA_CHECKS,
      context({
        env: {},
        ros,
        wait: async () => undefined,
        loadRclnodejs: async () => ({ ok: true, version: '0.27.1', hasType: (t) => t !== FRANKA_BINDINGS[0] }),
      }),
    );
    expect(rs.map((r) => r.status)).toEqual(['fail', 'fail', 'fail']);
    expect(rs[0]!.fix).toContain('source /opt/ros/humble/setup.bash');
    expect(rs[1]!.detail).toContain('no bindings for franka_msgs/msg/FrankaRobotState');
    expect(rs[1]!.fix).toContain('npx generate-ros-messages');
    expect(touched).toBe(false);
  });
});
