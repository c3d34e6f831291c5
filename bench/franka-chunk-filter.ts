/**
 * Issue 14 item 3 on the Franka node: what a policy's trajectories cost the node's control thread
 * with `chunk_filter: inline` and `worker`. The node (buildFrankaNode, gate mode, FR3, task
 * sim-pick-cup-into-box, the hand holding at 4 cm so every trajectory is bent by the held-tilt
 * bound: a real QP solve each) runs on the FAKE graph with the system clock and timers, fed robot
 * states at 1 kHz in real time while a policy proposes a trajectory (H = 20, dt = 0.05 s, pitching
 * the hand 34°) every 33 ms (30 Hz). Timed, on the node's thread:
 * - the proposed-trajectory callback (parse → screen → snapshot, and inline the filter itself);
 * - each robot-state callback, and its lag behind the 1 kHz schedule (what a trajectory delays).
 * Also the decisions (filtered / superseded / …) and, with the worker, its filter time.
 *
 *   npx tsx bench/franka-chunk-filter.ts [seconds per mode = 10]
 */
import { performance } from 'node:perf_hooks';
import { FakeRosGraph } from '../drivers/ros2/fake-ros-graph.js';
import { QOS_RELIABLE, QOS_SENSOR_DATA } from '../drivers/ros2/interface.js';
import { RclnodejsWire } from '../drivers/ros2/rclnodejs-wire.js';
import { toStamp, type JointTrajectory } from '../src/mcap/messages.js';
import { buildFrankaNode } from '../src/nodes/build-franka-node.js';
import { WorkerChunkFilterService } from '../src/rigs/filter-worker/worker-service.js';
import { OffThreadChunkPath } from '../src/runtime/off-thread-chunk-path.js';
import { defaultSpecPaths, loadScoringSpec } from '../src/cli/spec-files.js';
import { systemClock, systemTimers } from '../src/platform/system-clock.js';
import { gripperState, robotState } from '../test/drivers/franka/support/franka-messages.js';
import { frankaTestConfig } from '../test/nodes/support/franka-config.js';
import type { StringMsg } from '../src/nodes/ros-monitor-node.js';
import { describeCause } from '../src/gate/index.js';

const seconds = Number(process.argv[2] ?? 10);
const WARMUP_S = 2;
const loaded = loadScoringSpec(defaultSpecPaths());
if (!loaded.ok) throw new Error(loaded.problems.join('\n'));
const spec = loaded.spec;

const READY = [0, -0.785, 0, -2.356, 0, 1.571, 0.785];
const TILTED = READY.map((q, j) => (j === 5 ? q + 0.6 : q));
const JOINTS = READY.map((_, j) => `fr3_joint${j + 1}`);
const tau = [5, 5, 5, 5, 1, 1, 1];

function trajectory(id: string, stamp: number): JointTrajectory {
  const steps = 20;
  const none = new Float64Array(0);
  return {
    header: { stamp: toStamp(stamp), frame_id: id },
    joint_names: JOINTS,
    points: Array.from({ length: steps }, (_, k) => ({
      positions: Float64Array.from(READY, (q0, j) => q0 + ((k + 1) / steps) * (TILTED[j]! - q0)),
      velocities: none,
      accelerations: none,
      effort: none,
      time_from_start: toStamp((k + 1) * 0.05),
    })),
  };
}

const pct = (a: number[], digits: number) => {
  const s = [...a].sort((x, y) => x - y);
  const at = (p: number) => (s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? NaN).toFixed(digits);
  return { n: s.length, p50: at(0.5), p99: at(0.99), max: (s.at(-1) ?? NaN).toFixed(digits) };
};

async function run(mode: 'inline' | 'worker') {
  const config = frankaTestConfig({ task: 'sim-pick-cup-into-box', chunkFilter: mode });
  const graph = new FakeRosGraph(systemClock, systemTimers, { delivery: 'as-published' });
  const wire = new RclnodejsWire();
  const stateWire = wire.type('franka_msgs/msg/FrankaRobotState');
  const gripperWire = wire.type('sensor_msgs/msg/JointState');
  let service: WorkerChunkFilterService | undefined;
  const parts = buildFrankaNode(graph, config, spec, {
    ...(mode === 'worker'
      ? { filterService: (recipe) => (service = new WorkerChunkFilterService({ recipe, timers: systemTimers })) }
      : {}),
  });
  const worker = service as WorkerChunkFilterService | undefined;
  if (worker) await worker.start();
  // With the worker, the answer's handling on the node's thread (re-check, commit, publish) and the filter time in the worker.
  const answerMs: number[] = [];
  const workerFilterMs: number[] = [];
  if (worker) {
    const filter = worker.filter.bind(worker);
    worker.filter = (job, done) =>
      filter(job, (a) => {
        if (a.kind === 'filtered') workerFilterMs.push(a.filterMs);
        const t0 = performance.now();
        done(a);
        answerMs.push(performance.now() - t0);
      });
  }
  const path = parts.session.chunks;
  if (path instanceof OffThreadChunkPath) path.warmUp();
  const world = graph.createNode('world');
  const state = world.createPublisher<unknown>(
    'franka_msgs/msg/FrankaRobotState',
    config.robotStateTopic,
    QOS_RELIABLE,
  );
  const gripper = world.createPublisher<unknown>('sensor_msgs/msg/JointState', config.gripperTopic, QOS_SENSOR_DATA);
  const proposer = world.createPublisher<JointTrajectory>(
    'trajectory_msgs/msg/JointTrajectory',
    '/armguard/proposed_trajectory',
    QOS_RELIABLE,
  );
  const verdicts: Record<string, number> = {};
  world.createSubscription<StringMsg>('std_msgs/msg/String', '/armguard/chunk_result', QOS_RELIABLE, (m) => {
    const r = JSON.parse(m.data) as { verdict: string; code: string };
    const key = `${r.verdict}/${r.code}`;
    verdicts[key] = (verdicts[key] ?? 0) + 1;
  });
  // A bench operator: a hold whose cause is gone is released (a loaded host's stalls make the
  // robot state stale now and then); every hold is counted with its cause.
  const holds: Record<string, number> = {};
  parts.gate.onEvent((e) => {
    if (e.to !== 'hold') return;
    const why = describeCause(e.cause).slice(0, 60);
    holds[why] = (holds[why] ?? 0) + 1;
  });
  graph.spin();
  await new Promise((r) => setTimeout(r, 200)); // discovery

  const total = Math.round(seconds * 1000);
  const stateCost: number[] = [];
  const lag: number[] = [];
  const trajCost: number[] = [];
  let k = 0;
  let nextTraj = 0;
  const from = WARMUP_S * 1000;
  const start = performance.now();
  await new Promise<void>((done) => {
    const feed = (): void => {
      const now = performance.now();
      const due = Math.min(total, Math.floor(now - start) + 1);
      for (; k < due; k++) {
        const t = systemClock.now();
        const msg = stateWire.deliver(robotState(t, { q: READY, tau }));
        if (k % 10 === 0) gripper.publish(gripperWire.deliver(gripperState(t, 0.04)));
        const t0 = performance.now();
        state.publish(msg);
        const t1 = performance.now();
        if (k >= from) {
          stateCost.push((t1 - t0) * 1000);
          lag.push(t1 - (start + k));
        }
        if (k % 100 === 0 && parts.gate.holding)
          parts.session.release(systemClock.now(), { by: 'bench', authorised: true });
        if (k >= nextTraj && k >= 300) {
          nextTraj = k + 33;
          const msgT = trajectory(`c${k}`, systemClock.now());
          const p0 = performance.now();
          proposer.publish(msgT);
          if (k >= from) trajCost.push(performance.now() - p0);
        }
      }
      if (k < total) setImmediate(feed);
      else done();
    };
    feed();
  });
  await new Promise((r) => setTimeout(r, 300)); // the last answer
  const stats = path instanceof OffThreadChunkPath ? { ...path.stats } : undefined;
  await worker?.close();
  await graph.shutdown();
  return {
    mode,
    seconds,
    trajectories: trajCost.length,
    trajectory_callback_ms: pct(trajCost, 3),
    robot_state_callback_us: pct(stateCost, 1),
    ...(worker ? { answer_on_node_thread_ms: pct(answerMs, 3), filter_in_worker_ms: pct(workerFilterMs, 3) } : {}),
    lag_behind_1khz_ms: pct(lag, 2),
    verdicts,
    holds,
    path: stats,
    gate: parts.gate.state,
  };
}

for (const mode of ['inline', 'worker'] as const) console.log(JSON.stringify(await run(mode)));
