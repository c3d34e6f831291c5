/**
 * Issue 19 benchmark: the Franka node fed at 1 kHz through the ROS adapter boundary, in real time.
 * The node (buildFrankaNode: FrankaRos → mapping → clause monitors → gate, gating on, diagnostics
 * at 10 Hz) runs on the FAKE graph with the system clock and timers; every FrankaRobotState is
 * shaped as rclnodejs delivers it (Float64Array arrays, defaults; rclnodejs-wire.ts) before it is
 * handed over, so the timed part is what armguard spends per message from its subscription
 * callback to its return. The gripper publishes at 100 Hz.
 *
 * Prints per-message cost (p50/p99/max, µs), the lag of each message behind its 1 kHz due time
 * (ms), the largest backlog (messages due but not yet handed over when the feeder got the CPU
 * back), the measured /diagnostics rate and the cost of the fake's shaping (for scale; rclnodejs
 * deserialises natively). The feeder polls with setImmediate, so the process CPU figure includes
 * its busy wait.
 *
 *   npx tsx bench/ros-node-rate.ts [seconds=20]
 */
import { performance } from 'node:perf_hooks';
import { FakeRosGraph } from '../drivers/ros2/fake-ros-graph.js';
import { QOS_RELIABLE, QOS_SENSOR_DATA } from '../drivers/ros2/interface.js';
import { RclnodejsWire } from '../drivers/ros2/rclnodejs-wire.js';
import type { DiagnosticArray } from '../src/mcap/messages.js';
import { buildFrankaNode } from '../src/nodes/build-franka-node.js';
import { parseFrankaNodeConfig } from '../src/nodes/franka-node-config.js';
import { defaultSpecPaths, loadScoringSpec } from '../src/cli/spec-files.js';
import { systemClock, systemTimers } from '../src/platform/system-clock.js';
import { gripperState, robotState } from '../test/drivers/franka/support/franka-messages.js';

const seconds = Number(process.argv[2] ?? 20);
const WARMUP_S = 2;
const spec = loadScoringSpec(defaultSpecPaths());
if (!spec.ok) throw new Error(spec.problems.join('\n'));
const params = parseFrankaNodeConfig(
  'armguard:\n  ros__parameters:\n    robot_id: fr3-bench\n    task: libero-spatial-pick-bowl\n    gating: true\n    diagnostics_rate: 10.0\n',
  'bench.yaml',
);
if (!params.ok) throw new Error(params.errors.map((e) => e.message).join('\n'));
const config = params.config;

// Messages are shaped below (outside the timed part) and handed over as they are.
const graph = new FakeRosGraph(systemClock, systemTimers, { delivery: 'as-published' });
const wire = new RclnodejsWire();
const stateWire = wire.type('franka_msgs/msg/FrankaRobotState');
const gripperWire = wire.type('sensor_msgs/msg/JointState');
const parts = buildFrankaNode(graph, config, spec.spec);
const world = graph.createNode('world');
const state = world.createPublisher<unknown>('franka_msgs/msg/FrankaRobotState', config.robotStateTopic, QOS_RELIABLE);
const gripper = world.createPublisher<unknown>('sensor_msgs/msg/JointState', config.gripperTopic, QOS_SENSOR_DATA);
const diagnosticsAt: number[] = [];
world.createSubscription<DiagnosticArray>('diagnostic_msgs/msg/DiagnosticArray', '/diagnostics', QOS_RELIABLE, () =>
  diagnosticsAt.push(performance.now()),
);
graph.spin();

const q = [0, -0.785, 0, -2.356, 0, 1.571, 0.785];
const tau = [5, 5, 5, 5, 1, 1, 1];
const total = Math.round(seconds * 1000);
const cost = new Float64Array(total);
const lag = new Float64Array(total);
const shape = new Float64Array(total);
let maxBacklog = 0;
let k = 0;
const holds: string[] = [];
parts.gate.onEvent((e) => {
  if (e.to === 'hold') holds.push(e.cause.kind);
});

await new Promise((r) => setTimeout(r, 200)); // discovery
const cpu0 = process.cpuUsage();
const start = performance.now();
await new Promise<void>((done) => {
  const feed = (): void => {
    const now = performance.now();
    const due = Math.min(total, Math.floor(now - start) + 1);
    maxBacklog = Math.max(maxBacklog, due - k);
    for (; k < due; k++) {
      const t = systemClock.now();
      const s0 = performance.now();
      const msg = stateWire.deliver(robotState(t, { q, tau }));
      const g = k % 10 === 0 ? gripperWire.deliver(gripperState(t, 0.08)) : undefined;
      const t0 = performance.now();
      if (g !== undefined) gripper.publish(g);
      state.publish(msg);
      const t1 = performance.now();
      shape[k] = t0 - s0;
      cost[k] = t1 - t0;
      lag[k] = t1 - (start + k);
    }
    if (k < total) setImmediate(feed);
    else done();
  };
  feed();
});
const elapsed = (performance.now() - start) / 1000;
const cpu = process.cpuUsage(cpu0);
const from = WARMUP_S * 1000;
const stats = (a: Float64Array, scale: number, digits: number) => {
  const s = Float64Array.from(a.subarray(from)).sort();
  const at = (p: number) => (s[Math.min(s.length - 1, Math.floor(p * s.length))]! * scale).toFixed(digits);
  return { p50: at(0.5), p99: at(0.99), max: (s[s.length - 1]! * scale).toFixed(digits) };
};
const diagWindow = diagnosticsAt.filter((t) => t >= start + from);
const diagHz = diagWindow.length > 1 ? (diagWindow.length - 1) / ((diagWindow.at(-1)! - diagWindow[0]!) / 1000) : 0;
console.log(
  JSON.stringify({
    fed_s: seconds,
    wall_s: elapsed.toFixed(2),
    robot_states: total,
    measured_after_warmup: total - from,
    per_message_us: stats(cost, 1000, 1),
    lag_behind_1khz_ms: stats(lag, 1, 2),
    max_backlog_messages: maxBacklog,
    // the last second's lag: a backlog that grew over the run would show here
    lag_last_second_ms: stats(lag.subarray(total - 1000 - from), 1, 2),
    // share of each 1 ms period the node's callbacks took (sum of per-message cost / wall time)
    node_busy_fraction: (cost.reduce((a, b) => a + b, 0) / 1000 / elapsed).toFixed(4),
    process_cpu_ms_per_s: ((cpu.user + cpu.system) / 1000 / elapsed).toFixed(0),
    diagnostics_hz: diagHz.toFixed(2),
    diagnostics_rate_param: config.diagnosticsRate,
    fake_shaping_us: stats(shape, 1000, 1),
    gate: parts.gate.state,
    holds,
  }),
);
await graph.shutdown();
