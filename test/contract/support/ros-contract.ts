/**
 * One contract for every implementation of the ROS 2 interface (drivers/ros2/interface.ts): the
 * in-process FAKE graph runs it in CI; the rclnodejs adapter runs it where ROS 2 is sourced
 * (ROS_DISTRO set; see hardware.md "Running the ROS 2 contract suite"). Beyond delivery, QoS,
 * services, names and timers it pins what messages look like when they arrive — for the types
 * armguard uses: float64[] as Float64Array, int64 as BigInt, nested messages and arrays of them,
 * time stamps, fields the publisher left out at their defaults.
 *
 * Each test opens one harness; `afterEach` closes it whatever the test did, so one failing test
 * cannot leave a context initialised for the next ("The context has already been initialized").
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { RosContext } from '../../../drivers/ros2/interface.js';
import { QOS_LATCHED, QOS_RELIABLE, QOS_SENSOR_DATA } from '../../../drivers/ros2/interface.js';

export interface RosHarness {
  ctx: RosContext;
  /** Let `seconds` of node time pass (fake: advance manual timers; real: wait and spin). */
  pass(seconds: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * At most one open harness: `open` makes one, `closeOpen` closes it (idempotent). rosContract
 * calls `closeOpen` in afterEach; a make() that fails leaves nothing open.
 */
export function harnessLifecycle(make: () => Promise<RosHarness>): {
  open(): Promise<RosHarness>;
  closeOpen(): Promise<void>;
} {
  let current: RosHarness | undefined;
  return {
    async open() {
      if (current) throw new Error('a contract harness is already open (close it first)');
      current = await make();
      return current;
    },
    async closeOpen() {
      const h = current;
      current = undefined;
      if (h) await h.close();
    },
  };
}

interface StringMsg {
  data: string;
}
interface Trigger {
  success: boolean;
  message: string;
}

/** One event-loop turn, so settled promises' callbacks have run (not a sleep). */
const turn = (): Promise<void> => new Promise((r) => setImmediate(r));

export function rosContract(name: string, make: () => Promise<RosHarness>): void {
  describe(`ROS 2 interface contract: ${name}`, () => {
    const unique = () => `/armguard_contract_${Math.floor(Math.random() * 1e9)}`;
    const lifecycle = harnessLifecycle(make);
    afterEach(() => lifecycle.closeOpen());
    const harness = () => lifecycle.open();

    /** Publish `message` on a fresh topic of `type` and return what the subscriber received. */
    let trips = 0;
    async function roundTrip(h: RosHarness, type: string, message: unknown, qos = QOS_RELIABLE): Promise<unknown[]> {
      const topic = unique();
      const got: unknown[] = [];
      const n = ++trips;
      h.ctx.createNode(`contract_rt_sub_${n}`).createSubscription<unknown>(type, topic, qos, (m) => got.push(m));
      const pub = h.ctx.createNode(`contract_rt_pub_${n}`).createPublisher<unknown>(type, topic, qos);
      await h.pass(0.3);
      pub.publish(message);
      await h.pass(0.3);
      return got;
    }

    it('delivers published messages to a matching subscription, in order', async () => {
      const h = await harness();
      const topic = unique();
      const a = h.ctx.createNode('contract_pub');
      const b = h.ctx.createNode('contract_sub');
      const got: string[] = [];
      b.createSubscription<StringMsg>('std_msgs/msg/String', topic, QOS_RELIABLE, (m) => got.push(m.data));
      const pub = a.createPublisher<StringMsg>('std_msgs/msg/String', topic, QOS_RELIABLE);
      await h.pass(0.2);
      for (const s of ['one', 'two', 'three']) pub.publish({ data: s });
      await h.pass(0.3);
      expect(got).toEqual(['one', 'two', 'three']);
    });

    it('sensor_msgs/JointState: float64[] arrive as Float64Array, string[] as an array, the stamp as sec/nanosec', async () => {
      const h = await harness();
      const [m] = (await roundTrip(h, 'sensor_msgs/msg/JointState', {
        header: { stamp: { sec: 1700000000, nanosec: 123456789 }, frame_id: 'fr3_link0' },
        name: ['fr3_finger_joint1', 'fr3_finger_joint2'],
        position: [0.02, 0.021],
        velocity: [0, 0],
        effort: [],
      })) as {
        header: { stamp: { sec: number; nanosec: number }; frame_id: string };
        name: string[];
        position: Float64Array;
        velocity: Float64Array;
        effort: Float64Array;
      }[];
      expect(m).toBeDefined();
      expect(m!.position).toBeInstanceOf(Float64Array);
      expect(Array.from(m!.position)).toEqual([0.02, 0.021]);
      expect(m!.effort).toBeInstanceOf(Float64Array);
      expect(m!.effort.length).toBe(0);
      expect(Array.isArray(m!.name)).toBe(true);
      expect(m!.name).toEqual(['fr3_finger_joint1', 'fr3_finger_joint2']);
      expect(m!.header).toEqual({ stamp: { sec: 1700000000, nanosec: 123456789 }, frame_id: 'fr3_link0' });
    });

    it('trajectory_msgs/JointTrajectory: points are an array of messages whose positions are Float64Array; Duration keeps sec/nanosec', async () => {
      const h = await harness();
      const [m] = (await roundTrip(h, 'trajectory_msgs/msg/JointTrajectory', {
        header: { stamp: { sec: 12, nanosec: 5 }, frame_id: 'chunk-7' },
        joint_names: ['fr3_joint1', 'fr3_joint2'],
        points: [
          {
            positions: [0.1, 0.2],
            velocities: [],
            accelerations: [],
            effort: [],
            time_from_start: { sec: 0, nanosec: 50_000_000 },
          },
          { positions: Float64Array.from([0.3, 0.4]), time_from_start: { sec: 1, nanosec: 0 } },
        ],
      })) as {
        header: { frame_id: string };
        joint_names: string[];
        points: {
          positions: Float64Array;
          velocities: Float64Array;
          time_from_start: { sec: number; nanosec: number };
        }[];
      }[];
      expect(m!.header.frame_id).toBe('chunk-7');
      expect(Array.isArray(m!.points)).toBe(true);
      expect(m!.points).toHaveLength(2);
      expect(m!.points[0]!.positions).toBeInstanceOf(Float64Array);
      expect(Array.from(m!.points[1]!.positions)).toEqual([0.3, 0.4]);
      expect(m!.points[1]!.velocities).toBeInstanceOf(Float64Array); // left out: empty, same type
      expect(m!.points[0]!.time_from_start).toEqual({ sec: 0, nanosec: 50_000_000 });
    });

    it('franka_msgs/FrankaRobotState: nested messages; fixed float64[7]/float64[2] as Float64Array; fields left out arrive at their defaults', async () => {
      const h = await harness();
      const [m] = (await roundTrip(h, 'franka_msgs/msg/FrankaRobotState', {
        header: { stamp: { sec: 3, nanosec: 500_000_000 }, frame_id: 'fr3_link0' },
        measured_joint_state: { position: [0, -0.785, 0, -2.356, 0, 1.571, 0.785], effort: [1, 2, 3, 4, 5, 6, 7] },
        o_f_ext_hat_k: { wrench: { force: { x: 1.5, y: 0, z: -2 } } },
        robot_mode: 2,
        current_errors: { joint_reflex: true },
      })) as {
        header: { stamp: { sec: number; nanosec: number } };
        measured_joint_state: { position: Float64Array; effort: Float64Array; name: string[] };
        o_f_ext_hat_k: { wrench: { force: { x: number; z: number }; torque: { x: number } } };
        o_t_ee: { pose: { orientation: { w: number } } };
        ddq_d: Float64Array;
        elbow: { position: Float64Array };
        collision_indicators: { is_joint_collision: Float64Array };
        robot_mode: number;
        current_errors: Record<string, boolean>;
      }[];
      expect(m!.header.stamp).toEqual({ sec: 3, nanosec: 500_000_000 });
      expect(m!.measured_joint_state.position).toBeInstanceOf(Float64Array);
      expect(Array.from(m!.measured_joint_state.effort)).toEqual([1, 2, 3, 4, 5, 6, 7]);
      expect(m!.measured_joint_state.name).toEqual([]);
      expect(m!.o_f_ext_hat_k.wrench.force).toMatchObject({ x: 1.5, z: -2 });
      expect(m!.o_f_ext_hat_k.wrench.torque.x).toBe(0);
      expect(m!.o_t_ee.pose.orientation.w).toBe(1); // geometry_msgs/Quaternion: float64 w 1
      expect(m!.ddq_d).toBeInstanceOf(Float64Array);
      expect(Array.from(m!.ddq_d)).toEqual([0, 0, 0, 0, 0, 0, 0]);
      expect(m!.elbow.position).toBeInstanceOf(Float64Array);
      expect(m!.elbow.position.length).toBe(2);
      expect(m!.collision_indicators.is_joint_collision.length).toBe(7);
      expect(m!.robot_mode).toBe(2);
      expect(m!.current_errors.joint_reflex).toBe(true);
      expect(m!.current_errors.cartesian_reflex).toBe(false);
    });

    it('geometry_msgs/PoseStamped over best effort: nested numbers and the stamp arrive as sent', async () => {
      const h = await harness();
      const sent = {
        header: { stamp: { sec: 9, nanosec: 999_999_999 }, frame_id: 'world' },
        pose: { position: { x: 0.4, y: -0.1, z: 0.02 }, orientation: { x: 0, y: 0, z: 0.7071, w: 0.7071 } },
      };
      expect(await roundTrip(h, 'geometry_msgs/msg/PoseStamped', sent, QOS_SENSOR_DATA)).toEqual([sent]);
    });

    it('std_msgs/Float64MultiArray (~/robustness) and diagnostic_msgs/DiagnosticArray (/diagnostics)', async () => {
      const h = await harness();
      const [r] = (await roundTrip(h, 'std_msgs/msg/Float64MultiArray', {
        layout: { dim: [{ label: 'joint_torque', size: 1, stride: 1 }], data_offset: 0 },
        data: Float64Array.from([0.5, -0.25]),
      })) as { layout: { dim: { label: string }[] }; data: Float64Array }[];
      expect(r!.data).toBeInstanceOf(Float64Array);
      expect(Array.from(r!.data)).toEqual([0.5, -0.25]);
      expect(r!.layout.dim.map((d) => d.label)).toEqual(['joint_torque']);
      const [d] = (await roundTrip(h, 'diagnostic_msgs/msg/DiagnosticArray', {
        header: { stamp: { sec: 1, nanosec: 2 }, frame_id: '' },
        status: [
          {
            level: 2,
            name: 'armguard: gate',
            message: 'hold',
            hardware_id: 'fr3',
            values: [{ key: 'state', value: 'hold' }],
          },
        ],
      })) as { status: { level: number; values: { key: string; value: string }[] }[] }[];
      expect(d!.status[0]!.level).toBe(2);
      expect(d!.status[0]!.values).toEqual([{ key: 'state', value: 'hold' }]);
    });

    it('int64 fields arrive as BigInt, beyond 2^53 exactly', async () => {
      const h = await harness();
      const big = 2n ** 53n + 1n;
      const [m] = (await roundTrip(h, 'std_msgs/msg/Int64', { data: big })) as { data: unknown }[];
      expect(typeof m!.data).toBe('bigint');
      expect(m!.data).toBe(big);
    });

    it('a reliable subscription does not match a best-effort publisher; a best-effort one does', async () => {
      const h = await harness();
      const topic = unique();
      const pubNode = h.ctx.createNode('contract_be_pub');
      const subNode = h.ctx.createNode('contract_be_sub');
      const reliable: string[] = [];
      const bestEffort: string[] = [];
      subNode.createSubscription<StringMsg>('std_msgs/msg/String', topic, QOS_RELIABLE, (m) => reliable.push(m.data));
      subNode.createSubscription<StringMsg>('std_msgs/msg/String', topic, QOS_SENSOR_DATA, (m) =>
        bestEffort.push(m.data),
      );
      const pub = pubNode.createPublisher<StringMsg>('std_msgs/msg/String', topic, QOS_SENSOR_DATA);
      await h.pass(0.2);
      pub.publish({ data: 'x' });
      await h.pass(0.3);
      expect(reliable).toEqual([]);
      expect(bestEffort).toEqual(['x']);
    });

    it('a transient-local subscription gets the last latched message when it joins late', async () => {
      const h = await harness();
      const topic = unique();
      const pubNode = h.ctx.createNode('contract_latch_pub');
      const pub = pubNode.createPublisher<StringMsg>('std_msgs/msg/String', topic, QOS_LATCHED);
      pub.publish({ data: 'armed' });
      pub.publish({ data: 'hold' });
      await h.pass(0.2);
      const got: string[] = [];
      h.ctx
        .createNode('contract_latch_sub')
        .createSubscription<StringMsg>('std_msgs/msg/String', topic, QOS_LATCHED, (m) => got.push(m.data));
      await h.pass(0.3);
      expect(got).toEqual(['hold']);
    });

    it('answers std_srvs/Trigger (empty request) calls in order', async () => {
      const h = await harness();
      const name = `${unique()}_release`;
      const server = h.ctx.createNode('contract_srv');
      let calls = 0;
      server.createService<Record<string, never>, Trigger>('std_srvs/srv/Trigger', name, () => ({
        success: ++calls === 1,
        message: `call ${calls}`,
      }));
      const client = h.ctx
        .createNode('contract_cli')
        .createClient<Record<string, never>, Trigger>('std_srvs/srv/Trigger', name);
      expect(await client.call({})).toEqual({ success: true, message: 'call 1' });
      expect(await client.call({})).toEqual({ success: false, message: 'call 2' });
    });

    it('std_srvs/SetBool (~/label_success): the request field arrives as a boolean; a response field left out arrives at its default', async () => {
      const h = await harness();
      const name = `${unique()}_label`;
      const seen: unknown[] = [];
      h.ctx
        .createNode('contract_setbool_srv')
        .createService<{ data: boolean }, Partial<Trigger>>('std_srvs/srv/SetBool', name, (req) => {
          seen.push(req.data);
          return { success: req.data };
        });
      const client = h.ctx
        .createNode('contract_setbool_cli')
        .createClient<{ data: boolean }, Trigger>('std_srvs/srv/SetBool', name);
      expect(await client.call({ data: true })).toEqual({ success: true, message: '' });
      expect(await client.call({ data: false })).toEqual({ success: false, message: '' });
      expect(seen).toEqual([true, false]);
    });

    it('a call to a service with no server rejects once its timeout has passed, not before', async () => {
      const h = await harness();
      const name = `${unique()}_nobody`;
      const client = h.ctx
        .createNode('contract_cli_none')
        .createClient<Record<string, never>, { success: boolean }>('std_srvs/srv/Trigger', name);
      const seen: { outcome: 'pending' | 'resolved' | Error } = { outcome: 'pending' };
      void client.call({}, 0.5).then(
        () => (seen.outcome = 'resolved'),
        (e: Error) => (seen.outcome = e),
      );
      await h.pass(0.3);
      await turn();
      expect(seen.outcome).toBe('pending');
      await h.pass(0.4);
      await turn();
      expect(seen.outcome).toBeInstanceOf(Error);
      expect(seen.outcome instanceof Error && seen.outcome.message).toContain(name);
    });

    it('a call made before its server exists is answered once the server appears within the timeout', async () => {
      const h = await harness();
      const name = `${unique()}_late`;
      const client = h.ctx
        .createNode('contract_cli_late')
        .createClient<Record<string, never>, Trigger>('std_srvs/srv/Trigger', name);
      const answer = client.call({}, 2);
      await h.pass(0.2);
      h.ctx
        .createNode('contract_srv_late')
        .createService<Record<string, never>, Trigger>('std_srvs/srv/Trigger', name, () => ({
          success: true,
          message: 'late',
        }));
      await h.pass(0.5);
      expect(await answer).toEqual({ success: true, message: 'late' });
    });

    it('resolves private and relative names in the namespace and applies node-local remaps', async () => {
      const h = await harness();
      const node = h.ctx.createNode('gate', {
        namespace: '/armguard',
        remaps: { '/armguard/gate/out': '/controller/in' },
      });
      const pub = node.createPublisher<StringMsg>('std_msgs/msg/String', '~/out', QOS_RELIABLE);
      const state = node.createPublisher<StringMsg>('std_msgs/msg/String', 'state', QOS_RELIABLE);
      const priv = node.createPublisher<StringMsg>('std_msgs/msg/String', '~/gate_state', QOS_RELIABLE);
      expect(pub.topic).toBe('/controller/in');
      expect(state.topic).toBe('/armguard/state');
      expect(priv.topic).toBe('/armguard/gate/gate_state');
      const got: string[] = [];
      h.ctx
        .createNode('controller')
        .createSubscription<StringMsg>('std_msgs/msg/String', '/controller/in', QOS_RELIABLE, (m) => got.push(m.data));
      await h.pass(0.2);
      pub.publish({ data: 'chunk' });
      await h.pass(0.3);
      expect(got).toEqual(['chunk']);
    });

    it('fires timers at their period until cancelled', async () => {
      const h = await harness();
      const node = h.ctx.createNode('contract_timer');
      let n = 0;
      const timer = node.createTimer(0.1, () => n++);
      await h.pass(0.55);
      timer.cancel();
      const seen = n;
      await h.pass(0.3);
      expect(seen).toBeGreaterThanOrEqual(4);
      expect(seen).toBeLessThanOrEqual(6);
      expect(n).toBe(seen);
    });
  });
}
