import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { ManualClock, ManualTimers } from '../../../src/util/clock.js';
import { FakeRosGraph } from '../../../drivers/ros2/fake-ros-graph.js';
import { loadRclnodejsRos, RosUnavailableError } from '../../../drivers/ros2/rclnodejs-adapter.js';
import { WireTypeError } from '../../../drivers/ros2/rclnodejs-wire.js';
import {
  expandTopicName,
  parseRosNameArgs,
  resolveTopic,
  qosCompatible,
  QOS_RELIABLE,
  QOS_SENSOR_DATA,
  QOS_LATCHED,
} from '../../../drivers/ros2/interface.js';
import { harnessLifecycle, rosContract, type RosHarness } from '../../contract/support/ros-contract.js';

rosContract('in-process fake graph', async () => {
  const clock = new ManualClock(0);
  const timers = new ManualTimers(clock);
  const ctx = new FakeRosGraph(clock, timers);
  return { ctx, pass: async (s) => timers.advance(s), close: () => ctx.shutdown() };
});

if (process.env.ROS_DISTRO) {
  rosContract(`rclnodejs (ROS ${process.env.ROS_DISTRO})`, async () => {
    const ctx = await loadRclnodejsRos(process.env, ['vitest']);
    ctx.spin();
    return { ctx, pass: (s) => new Promise((r) => setTimeout(r, s * 1000)), close: () => ctx.shutdown() };
  });
}

function fakeGraph(options: ConstructorParameters<typeof FakeRosGraph>[2] = {}) {
  const clock = new ManualClock(0);
  const timers = new ManualTimers(clock);
  return { clock, timers, graph: new FakeRosGraph(clock, timers, options) };
}

describe('ROS 2 interface helpers', () => {
  it('expands names like rcl and refuses names rcl refuses', () => {
    expect(expandTopicName('~/robustness', 'monitor', '/armguard')).toBe('/armguard/monitor/robustness');
    expect(expandTopicName('~', 'monitor', 'left')).toBe('/left/monitor');
    expect(expandTopicName('gate_state', 'monitor', '')).toBe('/gate_state');
    expect(expandTopicName('franka_gripper/joint_states', 'armguard', '/left')).toBe(
      '/left/franka_gripper/joint_states',
    );
    expect(expandTopicName('/tf', 'monitor', '/armguard')).toBe('/tf');
    for (const bad of ['', '/', 'a//b', 'a/', '~x', '9lives', 'a b'])
      expect(() => expandTopicName(bad, 'n', '/ns'), bad).toThrow(/invalid topic or service name/);
  });
  it('applies node-local remaps, then process-wide ones (node-specific ones only to their node)', () => {
    expect(resolveTopic('~/out', 'm', '/a', { '/a/m/out': 'ctrl/in' })).toBe('/a/ctrl/in');
    expect(resolveTopic('~/out', 'm', '/a', { out: '/x' })).toBe('/a/m/out'); // `out` expands to /a/out, not ~/out
    expect(resolveTopic('joint_states', 'm', '/a', undefined, [{ from: 'joint_states', to: '/left/js' }])).toBe(
      '/left/js',
    );
    expect(
      resolveTopic('joint_states', 'm', '/a', undefined, [{ node: 'other', from: 'joint_states', to: '/x' }]),
    ).toBe('/a/joint_states');
    expect(resolveTopic('~/heartbeat', 'm', '', { '~/heartbeat': 'hb' }, [{ from: '~/heartbeat', to: '/never' }])).toBe(
      '/hb',
    );
  });
  it('reads __ns, __node and remap rules from --ros-args', () => {
    expect(
      parseRosNameArgs([
        'armguard',
        'ros-node',
        '--params',
        'p.yaml',
        '--ros-args',
        '-r',
        '__ns:=/left',
        '--remap',
        '__node:=guard',
        '-r',
        'armguard:a:=b',
        '-p',
        'x:=1',
        '-r',
        'c:=/d',
      ]),
    ).toEqual({
      namespace: '/left',
      nodeName: 'guard',
      remaps: [
        { node: 'armguard', from: 'a', to: 'b' },
        { from: 'c', to: '/d' },
      ],
    });
    expect(parseRosNameArgs(['-r', 'a:=b'])).toEqual({ remaps: [] }); // not ROS arguments
    expect(() => parseRosNameArgs(['--ros-args', '-r', 'nonsense'])).toThrow(/expected -r \[node:\]from:=to/);
  });
  it('applies DDS QoS compatibility', () => {
    expect(qosCompatible(QOS_SENSOR_DATA, QOS_RELIABLE)).toBe(false);
    expect(qosCompatible(QOS_RELIABLE, QOS_SENSOR_DATA)).toBe(true);
    expect(qosCompatible(QOS_RELIABLE, QOS_LATCHED)).toBe(false);
    expect(qosCompatible(QOS_LATCHED, QOS_RELIABLE)).toBe(true);
  });
  it('without ROS 2 sourced, loading rclnodejs fails with what to do', async () => {
    await expect(loadRclnodejsRos({})).rejects.toThrow(RosUnavailableError);
    await expect(loadRclnodejsRos({})).rejects.toThrow(/source \/opt\/ros/);
  });
  it('the contract harness is closed after a test that throws, so the next one can open its own', async () => {
    // rclnodejs refuses a second init of the default context until the first is shut down.
    let initialised = false;
    const make = async (): Promise<RosHarness> => {
      if (initialised) throw new Error('The context has already been initialized.');
      initialised = true;
      const { graph, timers } = fakeGraph();
      return { ctx: graph, pass: async (s) => timers.advance(s), close: async () => void (initialised = false) };
    };
    const lifecycle = harnessLifecycle(make);
    const failingTest = async () => {
      await lifecycle.open();
      throw new Error('assertion failed mid-test');
    };
    await expect(failingTest()).rejects.toThrow(/mid-test/);
    await lifecycle.closeOpen(); // what afterEach does
    await expect(lifecycle.open()).resolves.toBeDefined();
    await lifecycle.closeOpen();
    await lifecycle.closeOpen(); // idempotent
    expect(initialised).toBe(false);
  });
});

describe('FAKE ROS graph: what a real graph does that the node must survive', () => {
  it('records QoS mismatches when the endpoints discover each other, as a real graph reports incompatible QoS', () => {
    const { graph, timers } = fakeGraph();
    graph.createNode('s').createSubscription('std_msgs/msg/String', '/x', QOS_RELIABLE, () => undefined);
    graph.createNode('p').createPublisher('std_msgs/msg/String', '/x', QOS_SENSOR_DATA).publish({ data: 'a' });
    expect(graph.qosMismatches).toEqual([]);
    timers.advance(0.1);
    expect(graph.qosMismatches).toMatchObject([{ topic: '/x', publisherNode: 'p', subscriberNode: 's' }]);
  });

  it('refuses a second type on one topic and a type rclnodejs could not load', () => {
    const { graph } = fakeGraph();
    graph.createNode('a').createPublisher('std_msgs/msg/String', '/x', QOS_RELIABLE);
    expect(() =>
      graph.createNode('b').createSubscription('std_msgs/msg/Float64MultiArray', '/x', QOS_RELIABLE, () => undefined),
    ).toThrow(/already carries/);
    expect(() => graph.createNode('c').createPublisher('no_msgs/msg/Nothing', '/y', QOS_RELIABLE)).toThrow(
      WireTypeError,
    );
  });

  it('a publish that does not fit the type throws naming the field, before anything is delivered', () => {
    const { graph, timers } = fakeGraph();
    const got: unknown[] = [];
    graph.createNode('s').createSubscription('sensor_msgs/msg/JointState', '/js', QOS_RELIABLE, (m) => got.push(m));
    const pub = graph.createNode('p').createPublisher<unknown>('sensor_msgs/msg/JointState', '/js', QOS_RELIABLE);
    timers.advance(0.1);
    expect(() => pub.publish({ position: [0.1, 'x'] })).toThrow(
      /sensor_msgs\/msg\/JointState: field position\[1\] expects float64, got string/,
    );
    expect(() => pub.publish({ header: { stamp: { sec: '1' } } })).toThrow(/field header\.stamp\.sec expects int32/);
    const robot = graph
      .createNode('r')
      .createPublisher<unknown>('franka_msgs/msg/FrankaRobotState', '/rs', QOS_RELIABLE);
    expect(() => robot.publish({ ddq_d: [1, 2, 3] })).toThrow(/ddq_d is a fixed-size array of 7, got 3/);
    expect(got).toEqual([]);
  });

  it('every subscriber gets its own copy: one that writes into its message changes nobody else’s', () => {
    const { graph, timers } = fakeGraph();
    const a: Float64Array[] = [];
    const b: Float64Array[] = [];
    graph
      .createNode('a')
      .createSubscription<{ position: Float64Array }>('sensor_msgs/msg/JointState', '/js', QOS_RELIABLE, (m) => {
        m.position[0] = 99;
        a.push(m.position);
      });
    graph.createNode('b').createSubscription<{
      position: Float64Array;
    }>('sensor_msgs/msg/JointState', '/js', QOS_RELIABLE, (m) => b.push(m.position));
    const sent = Float64Array.from([1, 2]);
    const pub = graph.createNode('p').createPublisher<unknown>('sensor_msgs/msg/JointState', '/js', QOS_RELIABLE);
    timers.advance(0.1);
    pub.publish({ position: sent });
    expect(Array.from(a[0]!)).toEqual([99, 2]);
    expect(Array.from(b[0]!)).toEqual([1, 2]);
    expect(Array.from(sent)).toEqual([1, 2]);
  });

  it('endpoints match one pair at a time in discovery order; messages before the match are lost', () => {
    const { graph, timers, clock } = fakeGraph();
    const node = graph.createNode('armguard');
    const firstAt: Record<string, number> = {};
    const seen = (topic: string) => () => void (firstAt[topic] ??= clock.now());
    // the node subscribes in this order (robot state, gripper, tracking), the world then publishes all three
    node.createSubscription('std_msgs/msg/String', '/robot_state', QOS_RELIABLE, seen('robot_state'));
    node.createSubscription('std_msgs/msg/String', '/gripper', QOS_SENSOR_DATA, seen('gripper'));
    node.createSubscription('std_msgs/msg/String', '/mocap', QOS_SENSOR_DATA, seen('mocap'));
    const world = graph.createNode('world');
    const pubs = ['/robot_state', '/gripper', '/mocap'].map((t) =>
      world.createPublisher<{ data: string }>('std_msgs/msg/String', t, QOS_RELIABLE),
    );
    pubs[0]!.publish({ data: 'too early' });
    expect(firstAt).toEqual({});
    for (let i = 0; i < 100; i++) {
      timers.advance(0.001);
      for (const p of pubs) p.publish({ data: 'x' });
    }
    expect(Object.keys(firstAt)).toEqual(['robot_state', 'gripper', 'mocap']);
    expect(firstAt.robot_state!).toBeLessThan(firstAt.gripper!);
    expect(firstAt.gripper!).toBeLessThan(firstAt.mocap!);
    expect(firstAt.robot_state!).toBeGreaterThanOrEqual(0.02); // not before discovery latency
  });

  it("reproduces rclnodejs's SIGINT handler: the context shuts down, nodes are destroyed (now() fails), timers stop", () => {
    const signals = new EventEmitter();
    const { graph, timers } = fakeGraph({ signals });
    const node = graph.createNode('armguard');
    let ticks = 0;
    node.createTimer(0.01, () => ticks++);
    timers.advance(0.05);
    expect(ticks).toBe(5);
    signals.emit('SIGINT');
    expect(() => node.now()).toThrow("Cannot read properties of null (reading 'now')");
    timers.advance(0.05);
    expect(ticks).toBe(5);
    expect(() => graph.createNode('late')).toThrow(/shut down/);
    expect(signals.listenerCount('SIGINT')).toBe(0);
  });

  it('after removeSignalHandlers() SIGINT is the application’s: the graph keeps running', () => {
    const signals = new EventEmitter();
    const { graph, timers } = fakeGraph({ signals });
    const node = graph.createNode('armguard');
    graph.removeSignalHandlers();
    let mine = 0;
    signals.on('SIGINT', () => mine++);
    signals.emit('SIGINT');
    expect(mine).toBe(1);
    timers.advance(0.5);
    expect(node.now()).toBeCloseTo(0.5, 9);
  });

  it('applies --ros-args: __ns moves relative and private names, __node renames, remaps redirect', () => {
    const { graph } = fakeGraph({
      rosArgs: [
        'armguard',
        '--ros-args',
        '-r',
        '__ns:=/left',
        '-r',
        '__node:=guard',
        '-r',
        'fr3_arm_controller/joint_trajectory:=/left/proxy',
      ],
    });
    const node = graph.createNode('armguard');
    expect(node.name).toBe('guard');
    expect(node.namespace).toBe('/left');
    expect(node.createPublisher('std_msgs/msg/String', '~/gate_state', QOS_LATCHED).topic).toBe(
      '/left/guard/gate_state',
    );
    expect(
      node.createSubscription(
        'sensor_msgs/msg/JointState',
        'franka_gripper/joint_states',
        QOS_SENSOR_DATA,
        () => undefined,
      ).topic,
    ).toBe('/left/franka_gripper/joint_states');
    expect(
      node.createPublisher('trajectory_msgs/msg/JointTrajectory', 'fr3_arm_controller/joint_trajectory', QOS_RELIABLE)
        .topic,
    ).toBe('/left/proxy');
    expect(node.createPublisher('diagnostic_msgs/msg/DiagnosticArray', '/diagnostics', QOS_RELIABLE).topic).toBe(
      '/diagnostics',
    );
  });
});
