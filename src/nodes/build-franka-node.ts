/**
 * Composition of the Franka monitor node on any ROS 2 context (rclnodejs on a robot, the fake
 * graph in tests): FrankaRos source/sink, external tracking, the applicable clause monitors,
 * the gate, the pipeline and the monitor node.
 */
import type { ScoringSpec } from '../safety/index.js';
import type { ClauseApplicability } from '../safety/index.js';
import { planSafeMonitors } from '../runtime/safe-monitors.js';
import { declaredSignals } from '../schema/platform.js';
import { DEFAULT_GATE_CONFIG, Gate, type ExecutedChunk, type GateChunk } from '../gate/index.js';
import type { MonitorBank } from '../runtime/monitor-bank.js';
import { Pipeline } from '../runtime/pipeline.js';
import type { ChunkExecutor } from '../runtime/chunk-executor.js';
import type { GateEventSink } from '../runtime/events.js';
import type { RosContext } from '../../drivers/ros2/interface.js';
import { FR3_JOINTS, FrankaRos } from '../../drivers/franka/franka-ros.js';
import { FrankaMapping, frankaMappingConfig } from '../../drivers/franka/mapping.js';
import { FRANKA_STATE_MIN_INTERVAL_S } from '../../drivers/franka/messages.js';
import { SceneTracker } from '../../drivers/tracking/scene-tracker.js';
import { subscribeTracking } from '../../drivers/tracking/ros-adapters.js';
import { RosMonitorNode } from './ros-monitor-node.js';
import { frankaChunkExecutor, frankaChunkScreen } from './franka-chunks.js';
import { GateOffBaseline } from '../runtime/gate-off-baseline.js';
import { recordedGateMode, type FrankaNodeConfig } from './franka-node-config.js';
import { FrankaEpisodes } from './franka-episodes.js';
import type { Timers } from '../util/clock.js';
import { COMPRESSED_IMAGE_TYPE, IMAGE_TYPE, RosImageCamera } from '../../drivers/camera/ros-image.js';
import type { LiveSemanticConfig, LiveTask } from '../runtime/live-semantic.js';
import { FrankaSemantic } from './franka-semantic.js';

export interface FrankaNodeParts {
  franka: FrankaRos;
  gate: Gate;
  bank: MonitorBank;
  pipeline: Pipeline;
  node: RosMonitorNode;
  decisions: ClauseApplicability[];
  /** Episode recording, when the parameters name `episodes_dir` and the caller gave `recording`. */
  episodes: FrankaEpisodes | undefined;
  /** The node's clock (s). */
  now: () => number;
  /** The semantic gate and stage events, when configured; it begins with each episode (without recording: call `begin`). */
  semantic: FrankaSemantic | undefined;
}

export function buildFrankaNode(
  ctx: RosContext,
  config: FrankaNodeConfig,
  spec: ScoringSpec,
  extras: {
    chunks?: (franka: FrankaRos, gate: Gate) => ChunkExecutor;
    events?: GateEventSink;
    /** Timers for the episode recorder's flushes (and a wall clock for ids), to record when `episodes_dir` is set. */
    recording?: { timers: Timers; wallClock?: () => Date; log?: (line: string) => void; versions?: Readonly<Record<string, string>> };
    /** Start-up ran out of `startup_timeout` with these required signals never seen. */
    onStartupFailed?: (neverSeen: readonly string[], t: number) => void;
    /** The semantic gate and stage events (issue 18): judge, gate settings, the task, declared positions; the camera comes from the parameters. */
    semantic?: LiveSemanticConfig & { log?: (line: string) => void; tasks?: ReadonlyMap<string, LiveTask> };
  } = {},
): FrankaNodeParts {
  const optional = config.bystanders.length > 0 && config.tracking ? ['non_target_disp_max'] : [];
  // robot state at 1 kHz: buffers sized for samples 0.5 ms apart
  const { decisions, bank } = planSafeMonitors(spec, config.platform, config.task, (profile) => declaredSignals(profile, optional), { minSampleInterval: FRANKA_STATE_MIN_INTERVAL_S });

  const rosNode = ctx.createNode(config.nodeName);
  // franka_ros2 prefixes joint names with robot_type (hardware-facts §A): fr3_joint1..7 or panda_joint1..7.
  const panda = config.platform === 'panda';
  const mapping = new FrankaMapping(frankaMappingConfig(config.platform, config.endEffector));
  const franka = new FrankaRos(rosNode, mapping, {
    jointNames: panda ? FR3_JOINTS.map((j) => j.replace('fr3_', 'panda_')) : FR3_JOINTS,
    robotStateTopic: config.robotStateTopic,
    gripperTopic: config.gripperTopic,
    controllerTopic: config.controllerTopic,
  });
  let tracker: SceneTracker | undefined;
  const semBodies = [config.semantic?.actorBody, config.semantic?.targetBody].filter((b): b is string => b !== undefined);
  if (config.tracking && (config.bystanders.length > 0 || config.obstacles.length > 0 || semBodies.length > 0)) {
    tracker = new SceneTracker({ bystanders: config.bystanders, obstacles: config.obstacles.map((o) => o.body), positionsOnly: semBodies, source: config.tracking.kind });
    subscribeTracking(rosNode, tracker, config.tracking);
  }
  // Held until every required signal has been seen fresh once: on a ROS graph the robot state,
  // gripper and tracking publishers are discovered one after another.
  const gate = new Gate({ ...DEFAULT_GATE_CONFIG, requiredSignals: bank.requiredSignals, startup: true });
  const trackedBodies = tracker && config.obstacles.length > 0 ? tracker : undefined;
  const chunks =
    extras.chunks ??
    (config.gateMode === 'gate'
      ? (f: FrankaRos, g: Gate) =>
          frankaChunkExecutor(f, g, {
            platform: config.platform,
            endEffector: config.endEffector,
            tableHeight: config.tableHeight,
            dSafe: config.dSafe,
            ...(config.workspace ? { workspace: config.workspace } : {}),
            ...(trackedBodies
              ? { tracked: { bodies: config.obstacles, source: trackedBodies, trackingInBase: config.trackingInBase, maxAge: config.obstacleMaxAge } }
              : {}),
          })
      : undefined);
  // gate_mode baseline is the Franka gate-off run: proposed trajectories go to the controller unfiltered
  // (screened), clause holds are recorded but not sent; e-stop, watchdog and faults still hold.
  // gate_mode monitor takes no trajectories (the policy drives the controller) and sends every hold.
  const baseline = config.gateMode === 'baseline' && !extras.chunks ? new GateOffBaseline({ gate, screen: frankaChunkScreen(config.platform), arm: franka }) : undefined;
  const pipeline = new Pipeline({
    source: franka,
    ...(tracker ? { mapping: (frame) => tracker.writeSignals(frame) } : {}),
    monitors: bank,
    gate,
    sink: baseline ? baseline.sink : franka,
    watchdogTimeout: 0.1,
    ...(chunks ? { chunks: chunks(franka, gate) } : baseline ? { chunks: baseline } : {}),
    ...(extras.events ? { events: extras.events } : {}),
  });
  const rec = extras.recording;
  const episodes =
    config.episodesDir !== undefined && rec
      ? new FrankaEpisodes(pipeline, bank, gate, {
          dir: config.episodesDir,
          robotId: config.robotId,
          platform: config.platform,
          task: config.task,
          timers: rec.timers,
          now: () => rosNode.now(),
          log: rec.log ?? (() => {}),
          gateMode: recordedGateMode(config.gateMode),
          onEpisodeStart: (t) => semantic?.begin(t),
          onEpisodeEnd: (t) => semantic?.end(t),
          // the node's clock reads seconds since this ROS time (RosTimeBase): the records' Unix time is origin + t
          versions: { ...rec.versions, ros_time_origin_ns: rosNode.time.originNs.toString() },
          ...(rec.wallClock ? { wallClock: rec.wallClock } : {}),
        })
      : undefined;
  const sem = extras.semantic;
  const cam = config.semantic?.camera;
  const camera = sem?.judge && cam ? new RosImageCamera(rosNode, { topic: cam.topic, type: cam.type === 'compressed' ? COMPRESSED_IMAGE_TYPE : IMAGE_TYPE, maxWidth: cam.maxWidth, maxAge: cam.maxAge }) : undefined;
  const semantic = sem
    ? new FrankaSemantic(rosNode, {
        config: { ...sem, ...(sem.judge ? { judge: { ...sem.judge, ...(camera ? { camera } : {}) } } : {}) }, tasks: sem.tasks ?? new Map(),
        platform: config.platform, endEffector: config.endEffector, franka, frame: pipeline.frame, gating: config.gateMode === 'gate',
        ...(tracker && config.tracking ? { tracking: { tracker, ...(config.semantic?.actorBody ? { actorBody: config.semantic.actorBody } : {}), ...(config.semantic?.targetBody ? { targetBody: config.semantic.targetBody } : {}), inBase: config.trackingInBase, maxAge: config.obstacleMaxAge } } : {}),
        record: (r) => episodes?.semantic(r), log: sem.log ?? (() => {}), taskTopic: config.semantic?.taskTopic ?? '~/task',
        onJudgeFault: (f, t) => episodes?.manager.recorder?.fault(t, { kind: 'judge', source: f.source, cause: f.cause, detail: f.detail }),
        ...(episodes ? { onNewTask: (t: number, task: string) => episodes.newTask(t, task) } : {}),
      })
    : undefined;
  const node = new RosMonitorNode(rosNode, pipeline, gate, bank, {
    robotId: config.robotId,
    jointNames: franka.jointNamesList,
    // proposed trajectories are taken when gating and in the baseline (forwarded unfiltered), not in monitor mode
    gating: chunks !== undefined || baseline !== undefined,
    diagnosticsRate: config.diagnosticsRate,
    idleStepRate: config.idleStepRate,
    startupTimeout: config.startupTimeout,
    ...(extras.onStartupFailed ? { onStartupFailed: extras.onStartupFailed } : {}),
    ...(episodes
      ? {
          onChunk: (c: GateChunk, r: ExecutedChunk, t: number) => episodes.onChunk(c, r, t),
          onLabel: (success: boolean, t: number) => {
            semantic?.live.label(success, t);
            return episodes.label(success, t);
          },
        }
      : {}),
    ...(episodes || semantic
      ? {
          onStep: (t: number) => {
            episodes?.onStep(t);
            semantic?.live.step(t);
          },
        }
      : {}),
    ...(semantic
      ? {
          beforeChunk: (c: GateChunk, t: number): ExecutedChunk | undefined => {
            const held = semantic.beforeChunk(t);
            if (held === undefined) {
              semantic.live.chunkForwarded();
              return undefined;
            }
            return { id: c.id, verdict: 'held', code: 'semantic', reason: held };
          },
        }
      : {}),
  });
  franka.onSample(() => node.sample());
  return { franka, gate, bank, pipeline, node, decisions, episodes, now: () => rosNode.now(), semantic };
}
