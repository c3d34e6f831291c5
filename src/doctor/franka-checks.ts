/**
 * Franka checks (hardware.md "First pilot: Franka"): ROS 2 sourced, rclnodejs loadable with the
 * franka_msgs bindings generated, the robot's topics publishing, and the clock offset between the
 * robot PC's stamps and this machine's ROS time. The graph is reached through the RosContext port
 * (rclnodejs on the robot's network; the fake graph in tests).
 */
import { QOS_RELIABLE, QOS_SENSOR_DATA, type QosProfile, type RosContext } from '../../drivers/ros2/interface.js';
import type { Header } from '../mcap/messages.js';
import { fail, pass, type Check } from './checks.js';

/** The message types armguard subscribes to and must find in the generated bindings. */
export const FRANKA_BINDINGS = [
  'franka_msgs/msg/FrankaRobotState',
  'sensor_msgs/msg/JointState',
  'trajectory_msgs/msg/JointTrajectory',
  'diagnostic_msgs/msg/DiagnosticArray',
] as const;

/** Stamp-to-receipt offset above this (s) fails: the torque signal's max age is 0.05 s. */
export const MAX_CLOCK_OFFSET_S = 0.02;

export type RclnodejsProbe =
  | { ok: true; version: string; hasType(type: string): boolean }
  | { ok: false; detail: string };

export interface FrankaTopic {
  readonly topic: string;
  readonly type: string;
  readonly qos: QosProfile;
  /** Used for the clock offset (the robot state, stamped by the robot PC). */
  readonly clock?: boolean;
}

export interface FrankaDoctorContext {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly loadRclnodejs: () => Promise<RclnodejsProbe>;
  /** A ROS context on the robot's graph (created after the rclnodejs check passed). */
  readonly ros: () => Promise<RosContext>;
  readonly topics: readonly FrankaTopic[];
  /** Waits for real time to pass (s); the fake graph's tests advance their clock here. */
  readonly wait: (seconds: number) => Promise<void>;
  /** How long to wait for a first message on each topic (s). */
  readonly sampleSeconds: number;
  readonly found: { rclnodejs?: boolean; offsets?: number[]; received?: Map<string, number> };
}

export function frankaTopics(o: { robotStateTopic: string; gripperTopic: string }): FrankaTopic[] {
  return [
    { topic: o.robotStateTopic, type: 'franka_msgs/msg/FrankaRobotState', qos: QOS_RELIABLE, clock: true },
    { topic: o.gripperTopic, type: 'sensor_msgs/msg/JointState', qos: QOS_SENSOR_DATA },
  ];
}

export const rosSourced: Check<FrankaDoctorContext> = {
  id: 'ros2-sourced',
  title: 'ROS 2 sourced',
  async run(ctx) {
    const distro = ctx.env['ROS_DISTRO'];
    const prefix = ctx.env['AMENT_PREFIX_PATH'];
    if (!distro || !prefix) {
      return fail(
        `ROS_DISTRO ${distro ? `= ${distro}` : 'unset'}, AMENT_PREFIX_PATH ${prefix ? 'set' : 'unset'}`,
        'source /opt/ros/humble/setup.bash (or jazzy), then the workspace that holds franka_ros2: source ~/franka_ros2_ws/install/setup.bash',
      );
    }
    const franka = prefix.split(':').some((p) => /franka/i.test(p));
    const domain = ctx.env['ROS_DOMAIN_ID'] ?? '0 (default)';
    const rmw = ctx.env['RMW_IMPLEMENTATION'] ?? 'the distro default';
    const detail = `ROS_DISTRO ${distro}; ROS_DOMAIN_ID ${domain}; RMW ${rmw}; franka workspace on AMENT_PREFIX_PATH: ${franka ? 'yes' : 'no'}`;
    return franka
      ? pass(detail)
      : fail(
          detail,
          'source the franka_ros2 workspace too (franka_msgs must be on AMENT_PREFIX_PATH before rclnodejs generates bindings): source ~/franka_ros2_ws/install/setup.bash',
        );
  },
};

export const rclnodejsBindings: Check<FrankaDoctorContext> = {
  id: 'rclnodejs',
  title: 'rclnodejs loadable with franka_msgs bindings',
  async run(ctx) {
    const r = await ctx.loadRclnodejs();
    if (!r.ok)
      return fail(
        `rclnodejs cannot be loaded: ${r.detail}`,
        'with ROS 2 sourced, in the armguard folder: npm install rclnodejs',
      );
    const missing = FRANKA_BINDINGS.filter((t) => !r.hasType(t));
    if (missing.length > 0) {
      return fail(
        `rclnodejs ${r.version}: no bindings for ${missing.join(', ')}`,
        'with ROS 2 and the franka_ros2 workspace sourced: npx generate-ros-messages (rclnodejs generates JavaScript for every interface package on AMENT_PREFIX_PATH)',
      );
    }
    ctx.found.rclnodejs = true;
    return pass(`rclnodejs ${r.version}; bindings for ${FRANKA_BINDINGS.join(', ')}`);
  },
};

export const topicsPublishing: Check<FrankaDoctorContext> = {
  id: 'topics',
  title: 'robot topics publishing; clock offset to the robot',
  async run(ctx) {
    if (!ctx.found.rclnodejs)
      return fail('rclnodejs is not usable (see above): the graph was not read', 'fix the rclnodejs check first');
    const ros = await ctx.ros();
    const node = ros.createNode('armguard_doctor');
    const received = new Map<string, number>();
    const offsets: number[] = [];
    try {
      const subs = ctx.topics.map((t) =>
        node.createSubscription<{ header?: Header }>(t.type, t.topic, t.qos, (m) => {
          received.set(t.topic, (received.get(t.topic) ?? 0) + 1);
          const stamp = m.header?.stamp;
          if (t.clock && stamp !== undefined && offsets.length < 1000)
            offsets.push(node.now() - node.time.seconds(stamp));
        }),
      );
      ros.spin();
      await ctx.wait(ctx.sampleSeconds);
      for (const s of subs) s.destroy();
    } finally {
      node.destroy();
    }
    ctx.found.received = received;
    ctx.found.offsets = offsets;
    const lines = ctx.topics.map(
      (t) =>
        `  ${t.topic} (${t.type}, ${t.qos.reliability}): ${received.get(t.topic) ?? 0} message(s) in ${ctx.sampleSeconds} s`,
    );
    const silent = ctx.topics.filter((t) => !received.has(t.topic));
    const problems: string[] = [];
    const fixes: string[] = [];
    if (silent.length > 0) {
      problems.push(`no message on ${silent.map((t) => t.topic).join(', ')}`);
      fixes.push(
        'start the robot: ros2 launch franka_bringup franka.launch.py robot_ip:=<ip>; check with ros2 topic hz <topic>; same ROS_DOMAIN_ID and RMW on both machines; a best-effort topic needs no reliable subscriber, a reliable one needs a reliable publisher',
      );
    }
    if (offsets.length > 0) {
      const sorted = [...offsets].sort((a, b) => a - b);
      const median = sorted[Math.floor(sorted.length / 2)]!;
      lines.push(
        `  clock offset (receipt − robot stamp): median ${(median * 1000).toFixed(1)} ms over ${offsets.length} message(s), min ${(sorted[0]! * 1000).toFixed(1)} ms, max ${(sorted.at(-1)! * 1000).toFixed(1)} ms`,
      );
      if (Math.abs(median) > MAX_CLOCK_OFFSET_S) {
        problems.push(
          `robot stamps are ${(median * 1000).toFixed(0)} ms ${median > 0 ? 'behind' : 'ahead of'} this machine's clock (limit ±${MAX_CLOCK_OFFSET_S * 1000} ms: the torque signal may be 50 ms old at most, and a sample 50 ms in the future holds)`,
        );
        fixes.push(
          'synchronise the clocks: chrony against the same server on both machines (chronyc tracking shows the offset), or PTP (ptp4l/phc2sys) on the lab network',
        );
      }
    } else if (ctx.topics.some((t) => t.clock)) {
      problems.push('no stamped robot state: the clock offset could not be measured');
    }
    return problems.length === 0
      ? pass(lines.join('\n'))
      : fail([...lines, ...problems].join('\n'), fixes.join('\n') || 'start the robot and run doctor again');
  },
};

export const FRANKA_CHECKS: readonly Check<FrankaDoctorContext>[] = [rosSourced, rclnodejsBindings, topicsPublishing];
