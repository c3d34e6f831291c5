/**
 * How the adapter calls rclnodejs, checked against a FAKE of the rclnodejs module (rclnodejs cannot
 * be installed here; the contract suite runs the real one on a ROS 2 machine). The fake records the
 * calls and behaves as rclnodejs's documented API does where the adapter depends on it: `init`
 * takes argv, nodes report their effective name and namespace, entities report their resolved
 * topic, `shutdown` throws when the context is already shut down, and there is no module-level
 * `spin` (deprecated since rclnodejs 0.18: `node.spin()`).
 */
import { describe, expect, it } from 'vitest';
import {
  rclnodejsRos,
  type EntityOptions,
  type Rclnodejs,
  type RclNode,
} from '../../../drivers/ros2/rclnodejs-adapter.js';
import { QOS_LATCHED, QOS_RELIABLE, QOS_SENSOR_DATA } from '../../../drivers/ros2/interface.js';

interface Call {
  what: string;
  name?: string;
  options?: EntityOptions | { qos: unknown };
}

function fakeRclnodejsModule(effectiveNamespace = '') {
  const calls: Call[] = [];
  let shut = false;
  let handlerRemoved = false;
  const spun: string[] = [];
  /** rcl's clock (ROS time, Unix-epoch ns). */
  const clock = { ns: 1_500_000_000n };
  class FakeNode implements RclNode {
    constructor(
      private readonly nodeName: string,
      private readonly ns = '',
    ) {
      calls.push({ what: 'Node', name: `${ns}|${nodeName}` });
    }
    private full(name: string) {
      const ns = effectiveNamespace || this.ns;
      return name.startsWith('/')
        ? name
        : name.startsWith('~/')
          ? `${ns}/${this.nodeName}/${name.slice(2)}`
          : `${ns}/${name}`;
    }
    createSubscription(_type: string, topic: string, options: EntityOptions) {
      calls.push({ what: 'createSubscription', name: topic, options });
      return { topic: this.full(topic) };
    }
    createPublisher(_type: string, topic: string, options: { qos: unknown }) {
      calls.push({ what: 'createPublisher', name: topic, options });
      return { topic: this.full(topic), publish: () => undefined };
    }
    createService(_type: string, name: string, options: EntityOptions) {
      calls.push({ what: 'createService', name, options });
      return {};
    }
    createClient(_type: string, name: string, options: EntityOptions) {
      calls.push({ what: 'createClient', name, options });
      return { waitForService: async () => false, sendRequest: () => undefined };
    }
    createTimer() {
      return { cancel: () => undefined };
    }
    destroySubscription() {}
    destroyPublisher() {}
    destroyService() {}
    destroyClient() {}
    now() {
      return { nanoseconds: clock.ns };
    }
    name() {
      return this.nodeName;
    }
    namespace() {
      return effectiveNamespace || this.ns || '/';
    }
    spin() {
      if (spun.includes(this.nodeName)) throw new Error('The node is already spinning.');
      spun.push(this.nodeName);
    }
    destroy() {}
  }
  class FakeQoS {
    static HistoryPolicy = { RMW_QOS_POLICY_HISTORY_KEEP_LAST: 1 };
    static ReliabilityPolicy = { RMW_QOS_POLICY_RELIABILITY_RELIABLE: 1, RMW_QOS_POLICY_RELIABILITY_BEST_EFFORT: 2 };
    static DurabilityPolicy = { RMW_QOS_POLICY_DURABILITY_TRANSIENT_LOCAL: 1, RMW_QOS_POLICY_DURABILITY_VOLATILE: 2 };
    constructor(
      readonly history: number,
      readonly depth: number,
      readonly reliability: number,
      readonly durability: number,
    ) {}
  }
  const mod: Rclnodejs = {
    init: async (_context?: unknown, argv?: string[]) =>
      void calls.push({ what: 'init', name: (argv ?? []).join(' ') }),
    Node: FakeNode,
    QoS: FakeQoS,
    removeSignalHandlers: () => void (handlerRemoved = true),
    shutdown: () => {
      if (shut) throw new Error('The context has already been shut down.');
      shut = true;
    },
    isShutdown: () => shut,
  };
  return { mod, calls, spun, clock, removed: () => handlerRemoved };
}

describe('rclnodejs adapter (against a fake of the rclnodejs module)', () => {
  it('initialises rcl with the process arguments, so --ros-args reach it', async () => {
    const f = fakeRclnodejsModule();
    await rclnodejsRos(f.mod, ['node', 'armguard', 'ros-node', '--ros-args', '-r', '__ns:=/left']);
    expect(f.calls[0]).toEqual({ what: 'init', name: 'node armguard ros-node --ros-args -r __ns:=/left' });
  });

  it('asks for typed arrays on every subscription, service and client, and hands rcl relative names to resolve', async () => {
    const f = fakeRclnodejsModule('/left');
    const ctx = await rclnodejsRos(f.mod, ['armguard', '--ros-args', '-r', '__ns:=/left']);
    const node = ctx.createNode('armguard');
    expect(node.namespace).toBe('/left'); // rcl's answer, after __ns
    const sub = node.createSubscription(
      'sensor_msgs/msg/JointState',
      'franka_gripper/joint_states',
      QOS_SENSOR_DATA,
      () => undefined,
    );
    const pub = node.createPublisher('std_msgs/msg/String', '~/gate_state', QOS_LATCHED);
    node.createService('std_srvs/srv/Trigger', '~/release', () => ({ success: true, message: '' }));
    node.createClient('std_srvs/srv/SetBool', '~/label_success');
    expect(f.calls.filter((c) => c.what !== 'init' && c.what !== 'Node').map((c) => [c.what, c.name])).toEqual([
      ['createSubscription', 'franka_gripper/joint_states'],
      ['createPublisher', '~/gate_state'],
      ['createService', '~/release'],
      ['createClient', '~/label_success'],
    ]);
    for (const c of f.calls.filter(
      (x) => x.what === 'createSubscription' || x.what === 'createService' || x.what === 'createClient',
    )) {
      expect((c.options as EntityOptions).enableTypedArray, c.what).toBe(true);
    }
    expect(sub.topic).toBe('/left/franka_gripper/joint_states');
    expect(pub.topic).toBe('/left/armguard/gate_state');
  });

  it('a node-local remap is resolved here (rcl does not know it); other names stay relative', async () => {
    const f = fakeRclnodejsModule();
    const ctx = await rclnodejsRos(f.mod, ['armguard']);
    const node = ctx.createNode('gate', { namespace: '/armguard', remaps: { '~/out': '/controller/in' } });
    expect(node.createPublisher('std_msgs/msg/String', '~/out', QOS_RELIABLE).topic).toBe('/controller/in');
    node.createPublisher('std_msgs/msg/String', 'state', QOS_RELIABLE);
    expect(f.calls.filter((c) => c.what === 'createPublisher').map((c) => c.name)).toEqual(['/controller/in', 'state']);
  });

  it('spins with node.spin() (no deprecated rclnodejs.spin(node)), each node once, later nodes too', async () => {
    const f = fakeRclnodejsModule();
    const ctx = await rclnodejsRos(f.mod, ['armguard']);
    ctx.createNode('a');
    ctx.spin();
    ctx.spin();
    ctx.createNode('b');
    expect(f.spun).toEqual(['a', 'b']);
    expect('spin' in f.mod).toBe(false);
  });

  it('removes rclnodejs’s SIGINT handler on request; shutting down twice does not throw', async () => {
    const f = fakeRclnodejsModule();
    const ctx = await rclnodejsRos(f.mod, ['armguard']);
    expect(f.removed()).toBe(false);
    ctx.removeSignalHandlers();
    expect(f.removed()).toBe(true);
    await ctx.shutdown();
    await expect(ctx.shutdown()).resolves.toBeUndefined();
  });

  it('reads the node clock (nanoseconds as BigInt) as exact seconds since the first node was created; stamps go back to Unix ns exactly', async () => {
    const f = fakeRclnodejsModule();
    f.clock.ns = 1_764_612_345_123_456_789n; // a real-looking ROS time: beyond 2^53 ns
    const ctx = await rclnodejsRos(f.mod, ['armguard']);
    const a = ctx.createNode('clock');
    expect(a.time.originNs).toBe(1_764_612_345_123_456_789n);
    expect(a.now()).toBe(0);
    f.clock.ns += 5_000_001n;
    expect(a.now()).toBe(0.005000001);
    const b = ctx.createNode('later');
    expect(b.time).toBe(a.time); // one time base per context
    expect(b.now()).toBe(0.005000001);
    expect(a.time.stamp(0.005000001)).toEqual({ sec: 1_764_612_345, nanosec: 128_456_790 });
    expect(a.time.seconds({ sec: 1_764_612_345, nanosec: 128_456_790 })).toBe(0.005000001);
  });
});
