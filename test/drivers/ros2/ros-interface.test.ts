import { describe, expect, it } from 'vitest';
import { ManualClock, ManualTimers } from '../../../src/util/clock.js';
import { FakeRosGraph } from '../../../drivers/ros2/fake-ros-graph.js';
import { loadRclnodejsRos, RosUnavailableError } from '../../../drivers/ros2/rclnodejs-adapter.js';
import { resolveTopic, qosCompatible, QOS_RELIABLE, QOS_SENSOR_DATA, QOS_LATCHED } from '../../../drivers/ros2/interface.js';
import { rosContract } from '../../contract/ros-contract.js';

rosContract('in-process fake graph', async () => {
  const clock = new ManualClock(0);
  const timers = new ManualTimers(clock);
  const ctx = new FakeRosGraph(clock, timers);
  return { ctx, pass: async (s) => timers.advance(s), close: () => ctx.shutdown() };
});

if (process.env.ROS_DISTRO) {
  rosContract(`rclnodejs (ROS ${process.env.ROS_DISTRO})`, async () => {
    const ctx = await loadRclnodejsRos();
    ctx.spin();
    return { ctx, pass: (s) => new Promise((r) => setTimeout(r, s * 1000)), close: () => ctx.shutdown() };
  });
}

describe('ROS 2 interface helpers', () => {
  it('resolves names like rcl', () => {
    expect(resolveTopic('~/robustness', 'monitor', '/armguard')).toBe('/armguard/monitor/robustness');
    expect(resolveTopic('gate_state', 'monitor', '')).toBe('/gate_state');
    expect(resolveTopic('/tf', 'monitor', '/armguard')).toBe('/tf');
    expect(resolveTopic('~/out', 'm', '/a', { '/a/m/out': 'ctrl/in' })).toBe('/a/ctrl/in');
  });
  it('applies DDS QoS compatibility', () => {
    expect(qosCompatible(QOS_SENSOR_DATA, QOS_RELIABLE)).toBe(false);
    expect(qosCompatible(QOS_RELIABLE, QOS_SENSOR_DATA)).toBe(true);
    expect(qosCompatible(QOS_RELIABLE, QOS_LATCHED)).toBe(false);
    expect(qosCompatible(QOS_LATCHED, QOS_RELIABLE)).toBe(true);
  });
  it('the fake records QoS mismatches as a real graph reports incompatible QoS', () => {
    const clock = new ManualClock();
    const g = new FakeRosGraph(clock, new ManualTimers(clock));
    g.createNode('s').createSubscription('std_msgs/msg/String', '/x', QOS_RELIABLE, () => undefined);
    g.createNode('p').createPublisher('std_msgs/msg/String', '/x', QOS_SENSOR_DATA).publish({ data: 'a' });
    expect(g.qosMismatches).toMatchObject([{ topic: '/x', publisherNode: 'p', subscriberNode: 's' }]);
  });
  it('the fake refuses a second type on one topic', () => {
    const clock = new ManualClock();
    const g = new FakeRosGraph(clock, new ManualTimers(clock));
    g.createNode('a').createPublisher('std_msgs/msg/String', '/x', QOS_RELIABLE);
    expect(() => g.createNode('b').createSubscription('std_msgs/msg/Float64', '/x', QOS_RELIABLE, () => undefined)).toThrow(/already carries/);
  });
  it('without ROS 2 sourced, loading rclnodejs fails with what to do', async () => {
    await expect(loadRclnodejsRos({})).rejects.toThrow(RosUnavailableError);
    await expect(loadRclnodejsRos({})).rejects.toThrow(/source \/opt\/ros/);
  });
});
