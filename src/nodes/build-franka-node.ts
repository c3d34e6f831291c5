/**
 * Composition of the Franka monitor node on any ROS 2 context (rclnodejs on a robot, the fake
 * graph in tests): the Franka rig (src/rigs/franka.ts) handed to the session every platform runs
 * (src/runtime/session.ts), the episode files when `episodes_dir` is set, the semantic gate with its
 * ROS camera, and the monitor node that steps the session on every robot-state sample.
 */
import type { ScoringSpec } from '../safety/index.js';
import type { ClauseApplicability } from '../safety/index.js';
import type { Gate } from '../gate/index.js';
import type { MonitorBank } from '../runtime/monitor-bank.js';
import type { Pipeline } from '../runtime/pipeline.js';
import { Session } from '../runtime/session.js';
import type { LiveSemanticConfig, LiveTask } from '../runtime/live-semantic.js';
import { FrankaSemantic } from './franka-semantic.js';
import type { RosContext } from '../../drivers/ros2/interface.js';
import type { FrankaRos } from '../../drivers/franka/franka-ros.js';
import { RosMonitorNode } from './ros-monitor-node.js';
import {
  frankaFingerJoints,
  frankaRig,
  planFrankaMonitors,
  type FrankaFilterRecipe,
  type FrankaRigOptions,
} from '../rigs/franka.js';
import type { ChunkFilterService } from '../runtime/chunk-filter-service.js';
import type { PlatformRig } from '../runtime/rig.js';
import { WorkerChunkFilterService } from '../rigs/filter-worker/worker-service.js';
import { recordedGateMode, type FrankaNodeConfig } from './franka-node-config.js';
import { EpisodeManager } from '../episode/episode-manager.js';
import type { Timers } from '../util/clock.js';
import { COMPRESSED_IMAGE_TYPE, IMAGE_TYPE, RosImageCamera } from '../../drivers/camera/ros-image.js';

export interface FrankaNodeParts {
  franka: FrankaRos;
  /** The rig the session runs (its barrier model: the filter, the chunk filter's recipe's source). */
  rig: PlatformRig;
  session: Session;
  gate: Gate;
  bank: MonitorBank;
  pipeline: Pipeline;
  node: RosMonitorNode;
  decisions: ClauseApplicability[];
  /** The session, when the parameters name `episodes_dir` and the caller gave `recording`: `start` opens the first episode. */
  episodes: Session | undefined;
  /** The node's clock (s). */
  now: () => number;
  /** The chunk filter's worker thread (extras.filterWorker in gate mode): start it before the graph spins, close it at the end. */
  filterWorker: WorkerChunkFilterService | undefined;
  /** The semantic gate and stage events, when configured; Session.start begins its task (without it, call `begin`). */
  semantic: FrankaSemantic | undefined;
}

export function buildFrankaNode(
  ctx: RosContext,
  config: FrankaNodeConfig,
  spec: ScoringSpec,
  extras: {
    /** Timers for the episode recorder's flushes (and a wall clock for ids), to record when `episodes_dir` is set. */
    recording?: {
      timers: Timers;
      wallClock?: () => Date;
      log?: (line: string) => void;
      versions?: Readonly<Record<string, string>>;
    };
    /**
     * Gate mode: the chunk filter's service from the rig's recipe; absent (and no `filterWorker`):
     * filtered inline, on the calling thread.
     */
    filterService?: (recipe: FrankaFilterRecipe) => ChunkFilterService;
    /**
     * Gate mode, `chunk_filter: worker`: the chunk filter in a worker thread on these timers
     * (`parts.filterWorker`; the caller starts it before the graph spins and closes it). Its
     * restarts after a fault are logged and recorded in the episode.
     */
    filterWorker?: { timers: Timers; timeoutS?: number };
    /** Start-up ran out of `startup_timeout` with these required signals never seen. */
    onStartupFailed?: (neverSeen: readonly string[], t: number) => void;
    /** The semantic gate and stage events (issue 18): judge, gate settings, the task, declared positions; the camera comes from the parameters. */
    semantic?: LiveSemanticConfig & { log?: (line: string) => void; tasks?: ReadonlyMap<string, LiveTask> };
  } = {},
): FrankaNodeParts {
  const semBodies = [config.semantic?.actorBody, config.semantic?.targetBody].filter(
    (b): b is string => b !== undefined,
  );
  let filterWorker: WorkerChunkFilterService | undefined;
  const fw = extras.filterWorker;
  const filterService =
    extras.filterService ??
    (fw && config.chunkFilter !== 'inline'
      ? (recipe: FrankaFilterRecipe) =>
          (filterWorker = new WorkerChunkFilterService({
            recipe,
            timers: fw.timers,
            ...(fw.timeoutS !== undefined ? { timeoutS: fw.timeoutS } : {}),
            onRestart: (detail) => {
              extras.recording?.log?.(`armguard ros-node: ${detail}`);
              session.recordEvent(rosNode.now(), 'chunk-filter-worker', detail);
            },
          }))
      : undefined);
  const rigOptions: FrankaRigOptions = {
    spec,
    platform: config.platform,
    endEffector: config.endEffector,
    task: config.task,
    startup: true,
    topics: { robotState: config.robotStateTopic, gripper: config.gripperTopic, controller: config.controllerTopic },
    ...(config.tracking
      ? {
          tracking: {
            input: config.tracking,
            bystanders: config.bystanders,
            obstacles: config.obstacles,
            trackingInBase: config.trackingInBase,
            obstacleMaxAge: config.obstacleMaxAge,
            positionsOnly: semBodies,
          },
        }
      : {}),
    // gate_mode gate: trajectories checked (CBF) before the controller. baseline (the gate-off run):
    // forwarded unfiltered after the screen, clause holds recorded but not sent; e-stop, watchdog and
    // faults still hold. monitor: no trajectories (the policy drives the controller), every hold sent.
    ...(config.gateMode !== 'monitor'
      ? {
          barrier: {
            tableHeight: config.tableHeight,
            dSafe: config.dSafe,
            // self_clearance: 0 turns the self pair off
            ...(config.selfClearance !== undefined
              ? { selfClearance: config.selfClearance > 0 ? config.selfClearance : null }
              : {}),
            ...(config.planningMargin !== undefined ? { planningMargin: config.planningMargin } : {}),
            ...(config.heldTilt !== undefined ? { heldTilt: config.heldTilt } : {}),
            ...(config.workspace ? { workspace: config.workspace } : {}),
            ...(config.warningBand
              ? {
                  warningBand: config.warningBandRunOn !== undefined ? { runOn: config.warningBandRunOn } : {},
                }
              : {}),
            ...(config.gateMode === 'gate' && filterService ? { filterService } : {}),
          },
        }
      : {}),
  };
  const plan = planFrankaMonitors(rigOptions);
  const rosNode = ctx.createNode(config.nodeName);
  const { rig, franka, tracker } = frankaRig(rosNode, rigOptions, plan);
  const rec = extras.recording;
  const log = rec?.log ?? (() => {});
  const recording = config.episodesDir !== undefined && rec ? { dir: config.episodesDir, ...rec } : undefined;
  const sem = extras.semantic;
  const cam = sem?.judge ? config.semantic?.camera : undefined;
  let semantic: FrankaSemantic | undefined;
  const session: Session = new Session({
    rig,
    gating: config.gateMode !== 'baseline',
    task: config.task,
    log,
    ...(recording
      ? {
          episodes: (hooks) =>
            new EpisodeManager({
              dir: recording.dir,
              robotId: config.robotId,
              platform: config.platform,
              task: config.task,
              clauses: Array.from({ length: rig.monitors.count }, (_, i) => rig.monitors.name(i)),
              timers: recording.timers,
              gateMode: recordedGateMode(config.gateMode),
              // the node's clock reads seconds since this ROS time (RosTimeBase): the records' Unix time is origin + t
              versions: {
                ...recording.versions,
                platform: config.platform,
                ros_time_origin_ns: rosNode.time.originNs.toString(),
              },
              clauseCoverage: () => rig.monitors.episodeCoverage(),
              ...(recording.wallClock ? { wallClock: recording.wallClock } : {}),
              log,
              onFault: hooks.onFault,
              onWritten: hooks.onWritten,
            }),
        }
      : {}),
    ...(sem
      ? {
          semantic: ({ record, frame }) => {
            const camera = cam
              ? new RosImageCamera(rosNode, {
                  topic: cam.topic,
                  type: cam.type === 'compressed' ? COMPRESSED_IMAGE_TYPE : IMAGE_TYPE,
                  maxWidth: cam.maxWidth,
                  maxAge: cam.maxAge,
                })
              : undefined;
            const fs: FrankaSemantic = new FrankaSemantic(rosNode, {
              config: { ...sem, ...(sem.judge ? { judge: { ...sem.judge, ...(camera ? { camera } : {}) } } : {}) },
              tasks: sem.tasks ?? new Map(),
              platform: config.platform,
              endEffector: config.endEffector,
              franka,
              frame,
              gating: config.gateMode === 'gate',
              ...(tracker && config.tracking
                ? {
                    tracking: {
                      tracker,
                      ...(config.semantic?.actorBody ? { actorBody: config.semantic.actorBody } : {}),
                      ...(config.semantic?.targetBody ? { targetBody: config.semantic.targetBody } : {}),
                      inBase: config.trackingInBase,
                      maxAge: config.obstacleMaxAge,
                    },
                  }
                : {}),
              record,
              log: sem.log ?? (() => {}),
              taskTopic: config.semantic?.taskTopic ?? '~/task',
              onJudgeFault: (f, t) =>
                session.recordFault(t, { kind: 'judge', source: f.source, cause: f.cause, detail: f.detail }),
              ...(recording
                ? { onNewTask: (t: number, task: string) => session.newTask(t, task).then(() => undefined) }
                : {}),
            });
            semantic = fs;
            return {
              startTask: (t) => fs.begin(t),
              endTask: (t) => fs.end(t),
              step: (now) => fs.live.step(now),
              beforeChunk: (now) => fs.beforeChunk(now),
              chunkForwarded: () => fs.live.chunkForwarded(),
              label: (success, t) => fs.live.label(success, t),
            };
          },
        }
      : {}),
  });
  const node = new RosMonitorNode(rosNode, session, session.gate, session.bank, {
    robotId: config.robotId,
    jointNames: franka.jointNamesList,
    // a trajectory may carry the fingers' command beside the arm's joints (the held-tilt bound's close row)
    fingerJoints: frankaFingerJoints(config.platform),
    // proposed trajectories are taken when gating and in the baseline (forwarded unfiltered), not in monitor mode
    gating: config.gateMode !== 'monitor',
    diagnosticsRate: config.diagnosticsRate,
    idleStepRate: config.idleStepRate,
    startupTimeout: config.startupTimeout,
    ...(extras.onStartupFailed ? { onStartupFailed: extras.onStartupFailed } : {}),
    ...(recording
      ? {
          onLabel: (success: boolean, t: number) => {
            const r = session.finishEpisode({ source: 'operator', by: 'ros2 ~/label_success', success }, t, true);
            if (!r.ok) return r;
            r.ended.then(
              ({ id }) => log(`episode ${id} labelled ${success ? 'success' : 'failure'} and closed`),
              (e: unknown) =>
                session.onStorageFault({
                  kind: 'storage',
                  source: recording.dir,
                  detail: `next episode: ${(e as Error).message}`,
                }),
            );
            return { ok: true as const };
          },
        }
      : {}),
  });
  franka.onSample(() => node.sample());
  return {
    franka,
    rig,
    session,
    gate: session.gate,
    bank: session.bank,
    pipeline: session.pipeline,
    node,
    decisions: plan.decisions,
    episodes: recording ? session : undefined,
    now: () => rosNode.now(),
    filterWorker,
    semantic,
  };
}
