/**
 * Child process for the ros-node signal test: the Franka node as `armguard ros-node` runs it
 * (runFrankaNodeUntilSignal on the real `process` signals, the system clock and timers), on the
 * FAKE graph, which installs rclnodejs's SIGINT handler on `process` as loading rclnodejs does. The
 * world node (frankaWorld) feeds robot and gripper states at 1 kHz and records what reaches the controller.
 * argv[2]: the episodes directory. Prints `ready` once 300 robot states have been published, and
 * on the way out one line `result {json}`; the exit code is the node's.
 */
import { FakeRosGraph } from '../../../drivers/ros2/fake-ros-graph.js';
import { runFrankaNodeUntilSignal } from '../../../src/cli/commands/ros-node.js';
import { defaultSpecPaths, loadScoringSpec } from '../../../src/cli/spec-files.js';
import { systemClock, systemTimers } from '../../../src/platform/system-clock.js';
import { gripperState, robotState } from '../../drivers/franka/support/franka-messages.js';
import { frankaTestConfig } from './franka-config.js';
import { FR3_READY, GRIPPER_OPEN, frankaWorld } from './franka-world.js';

const spec = loadScoringSpec(defaultSpecPaths());
if (!spec.ok) throw new Error(spec.problems.join('\n'));
const graph = new FakeRosGraph(systemClock, systemTimers, { signals: process });
const config = frankaTestConfig({ episodesDir: process.argv[2], startupTimeout: 30 });

const world = frankaWorld(graph, config);
const toController = world.toController;
let stoppedAt = -1;
let published = 0;
world.node.createTimer(0.001, () => {
  const t = systemClock.now();
  world.state.publish(robotState(t, { q: [...FR3_READY], tau: [5, 5, 5, 5, 1, 1, 1] }));
  world.gripper.publish(gripperState(t, GRIPPER_OPEN));
  if (++published === 300) process.stdout.write('ready\n');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void (stoppedAt = toController.length));

const io = { out: (l: string) => process.stdout.write(`${l}\n`), err: (l: string) => process.stderr.write(`${l}\n`) };
const exit = await runFrankaNodeUntilSignal(graph, config, spec.spec, io, process, systemTimers);
const afterStop = stoppedAt < 0 ? [] : toController.slice(stoppedAt);
process.stdout.write(
  `result ${JSON.stringify({ exit, holdsAfterStop: afterStop.filter((m) => m.points.length === 0).length, forwardedAfterStop: afterStop.filter((m) => m.points.length > 0).length })}\n`,
);
process.exitCode = exit;
