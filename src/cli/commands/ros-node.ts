import { readFileSync } from 'node:fs';
import { EXIT, parseArgs, type CliIo, type Command } from '../command.js';
import { parseRosNameArgs, type RosContext } from '../../../drivers/ros2/interface.js';
import { userOrPackagePath } from '../../platform/package-files.js';
import type { FrankaGateMode, FrankaNodeConfig } from '../../nodes/franka-node-config.js';
import type { ScoringSpec } from '../../safety/index.js';
import type { Timers } from '../../util/clock.js';
import { SPEC_FILE_HELP, SPEC_FILE_OPTIONS, defaultSpecPaths, loadScoringSpec, specPathsFrom } from '../spec-files.js';
import { parseFrankaNodeConfig } from '../../nodes/franka-node-config.js';
import { buildFrankaNode } from '../../nodes/build-franka-node.js';
import { describeCause } from '../../gate/index.js';
import { liveTasksFromSpec, parseSemanticRunOptions } from '../compose/semantic-options.js';
import type { LiveTask } from '../../runtime/live-semantic.js';
import { loadRclnodejsRos, RosUnavailableError } from '../../../drivers/ros2/rclnodejs-adapter.js';
import { systemTimers } from '../../platform/system-clock.js';
import type { WorkerChunkFilterService } from '../../rigs/filter-worker/worker-service.js';
import { OffThreadChunkPath } from '../../runtime/off-thread-chunk-path.js';

export const rosNodeCommand: Command = {
  name: 'ros-node',
  help: `usage: armguard ros-node --params <file.yaml> [--node-name armguard] [--check]

Runs armguard as a ROS 2 node beside franka_bringup: reads the robot state, gripper and tracking,
publishes /diagnostics, ~/robustness and ~/gate_state, offers ~/release and ~/label_success.
With episodes_dir set, records one armguard MCAP episode at a time there (~/label_success labels
it, closes it and opens the next; \`armguard report <dir>\` reads them).
Parameters use the ROS 2 parameter-file layout (<node>: ros__parameters: ...); see
launch/params/fr3.yaml. Needs a sourced ROS 2 installation and rclnodejs (see hardware.md).
The gate starts held and arms once every required signal has been seen (startup_timeout, s).
ROS arguments apply: --ros-args -r __ns:=/left -r __node:=<name> -r <from>:=<to>.
SIGINT/SIGTERM: holds the arm (gating), closes the episode and exits.

  --check   validate the parameter file and list the applicable clauses, without ROS 2
${SPEC_FILE_HELP}

examples:
  armguard ros-node --params launch/params/fr3.yaml --check
  ros2 launch launch/armguard_franka.launch.xml params_file:=$PWD/launch/params/fr3.yaml`,
  async run(args, io) {
    // ros2 launch appends `--ros-args ...` to executables; names come from the parameter file.
    const rosArgs = args.indexOf('--ros-args');
    const parsed = parseArgs(rosArgs >= 0 ? args.slice(0, rosArgs) : args, {
      strings: ['params', 'node-name', ...SPEC_FILE_OPTIONS],
      booleans: ['check'],
    });
    if (!parsed.ok) {
      io.err(`armguard ros-node: ${parsed.error}`);
      return EXIT.usage;
    }
    const paramsOption = parsed.options.get('params');
    if (typeof paramsOption !== 'string') {
      io.err('armguard ros-node: --params <file.yaml> is required');
      return EXIT.usage;
    }
    const paramsPath = userOrPackagePath(paramsOption);
    let text: string;
    try {
      text = readFileSync(paramsPath, 'utf8');
    } catch (e) {
      io.err(`${paramsPath}: cannot read: ${(e as Error).message}`);
      return EXIT.failure;
    }
    let nameArgs;
    try {
      nameArgs = parseRosNameArgs(args);
    } catch (e) {
      io.err(`armguard ros-node: ${(e as Error).message}`);
      return EXIT.usage;
    }
    // `-r __node:=left_guard` renames the node; its parameter section follows the name.
    const nodeName =
      nameArgs.nodeName ??
      (typeof parsed.options.get('node-name') === 'string' ? (parsed.options.get('node-name') as string) : 'armguard');
    const cfg = parseFrankaNodeConfig(text, paramsPath, nodeName, nameArgs.namespace);
    if (!cfg.ok) {
      for (const e of cfg.errors) io.err(e.message);
      return EXIT.failure;
    }
    for (const w of cfg.warnings) io.err(`armguard ros-node: ${w}`);
    const specOption = (k: string) =>
      typeof parsed.options.get(k) === 'string' ? (parsed.options.get(k) as string) : undefined;
    const spec = loadScoringSpec(specPathsFrom(specOption));
    if (!spec.ok) {
      for (const p of spec.problems) io.err(p);
      return EXIT.failure;
    }
    if (parsed.options.get('check') === true) {
      const semantic = semanticFromParams(cfg.config, spec.spec);
      if (!semantic.ok) {
        io.err(`${paramsPath}: ${semantic.error}`);
        return EXIT.failure;
      }
      const { FakeRosGraph } = await import('../../../drivers/ros2/fake-ros-graph.js');
      const { ManualClock, ManualTimers } = await import('../../util/clock.js');
      const clock = new ManualClock();
      // The same names as on the robot: the ROS arguments (__ns, __node, remaps) apply here too.
      const graph = new FakeRosGraph(clock, new ManualTimers(clock), {
        discovery: 'immediate',
        rosArgs: ['armguard', ...args],
      });
      const parts = buildFrankaNode(graph, cfg.config, spec.spec);
      io.out(
        `${paramsPath}: ok — robot ${cfg.config.robotId}, platform ${cfg.config.platform}, task ${cfg.config.task}; gate mode ${describeGateMode(cfg.config.gateMode)}`,
      );
      for (const d of parts.decisions)
        io.out(`  ${d.clause.id.padEnd(26)} ${d.clause.tier === 'safe' ? d.explanation : 'report-only'}`);
      io.out('topics and services:');
      for (const [topic, type] of [...graph.topics()].sort(([a], [b]) => a.localeCompare(b)))
        io.out(`  ${topic.padEnd(50)} ${type}`);
      for (const name of graph.serviceNames().sort()) io.out(`  ${name.padEnd(50)} (service)`);
      return EXIT.ok;
    }
    let ctx;
    try {
      // rcl reads `--ros-args` (-r __ns:=/left, -r __node:=..., remaps) from these, as from any ROS 2 process.
      ctx = await loadRclnodejsRos(process.env, ['armguard', ...args]);
    } catch (e) {
      io.err(`armguard ros-node: ${(e as Error).message}`);
      return e instanceof RosUnavailableError ? EXIT.usage : EXIT.failure;
    }
    return runFrankaNodeUntilSignal(ctx, cfg.config, spec.spec, io, process, systemTimers, spec.versions);
  },
};

/** The gate mode in the words of the start-up line. */
export function describeGateMode(mode: FrankaGateMode): string {
  switch (mode) {
    case 'baseline':
      return 'baseline (BASELINE run: trajectories forwarded unfiltered; violations recorded, no hold sent)';
    case 'monitor':
      return 'monitor (the policy drives the controller; a violation sends a hold)';
    case 'gate':
      return 'gate (trajectories checked before the controller; a violation holds)';
  }
}

/** The part of `process` the node's signal handling uses. */
export interface ProcessSignals {
  once(signal: 'SIGINT' | 'SIGTERM', listener: () => void): unknown;
  removeListener(signal: 'SIGINT' | 'SIGTERM', listener: () => void): unknown;
}

/**
 * Serve the Franka node until SIGINT (Ctrl-C, `ros2 launch` stopping it) or SIGTERM. Each handler
 * fires once: a second signal during the shutdown gets Node's default and ends the process.
 */
export async function runFrankaNodeUntilSignal(
  ctx: RosContext,
  config: FrankaNodeConfig,
  spec: ScoringSpec,
  io: CliIo,
  signals: ProcessSignals,
  timers: Timers = systemTimers,
  versions?: Readonly<Record<string, string>>,
): Promise<number> {
  let onInt = (): void => undefined;
  let onTerm = (): void => undefined;
  const stop = new Promise<string>((resolve) => {
    onInt = () => resolve('SIGINT');
    onTerm = () => resolve('SIGTERM');
  });
  signals.once('SIGINT', onInt);
  signals.once('SIGTERM', onTerm);
  try {
    return await serveFrankaNode(ctx, config, spec, io, stop, timers, versions);
  } finally {
    signals.removeListener('SIGINT', onInt);
    signals.removeListener('SIGTERM', onTerm);
  }
}

/**
 * Runs the node on `ctx` until `stop` resolves (or start-up fails), then holds the arm (gating
 * mode) before closing the episode, as `armguard run` does, and always shuts the context down.
 * The ROS client library's own SIGINT handler is removed first: it would destroy the nodes before
 * this shutdown could hold the arm (rclnodejs installs one when it loads).
 */
export async function serveFrankaNode(
  ctx: RosContext,
  config: FrankaNodeConfig,
  spec: ScoringSpec,
  io: CliIo,
  stop: Promise<string>,
  timers: Timers = systemTimers,
  versions?: Readonly<Record<string, string>>,
): Promise<number> {
  ctx.removeSignalHandlers();
  let startupFailed = (_neverSeen: readonly string[]): void => undefined;
  const failed = new Promise<{ kind: 'start-up-failed'; neverSeen: readonly string[] }>((resolve) => {
    startupFailed = (neverSeen) => resolve({ kind: 'start-up-failed', neverSeen });
  });
  /** The running episode until it is closed: whatever fails, it is closed before the context goes. */
  let openEpisodes: { close(t: number, reason: string): Promise<void> } | undefined;
  let lastTime = NaN;
  /** The chunk filter's worker thread (gate mode, chunk_filter worker): stopped whatever happens. */
  let filterWorker: WorkerChunkFilterService | undefined;
  try {
    const semantic = semanticFromParams(config, spec);
    if (!semantic.ok) {
      io.err(`armguard ros-node: ${semantic.error}`);
      return EXIT.failure;
    }
    const parts = buildFrankaNode(ctx, config, spec, {
      recording: { timers, log: (l) => io.out(l), ...(versions ? { versions } : {}) },
      onStartupFailed: (n) => startupFailed(n),
      ...(semantic.value
        ? { semantic: { ...semantic.value, log: (l: string) => io.out(l), tasks: liveTasks(spec) } }
        : {}),
      filterWorker: { timers },
    });
    filterWorker = parts.filterWorker;
    io.out(
      `armguard ros-node: ${config.robotId} monitoring ${parts.bank.count} clauses; gate mode ${describeGateMode(config.gateMode)}; gate ${parts.gate.starting ? `starting (held until ${parts.gate.neverSeen().join(', ')} seen)` : parts.gate.state}`,
    );
    lastTime = parts.now();
    // The first episode (with episodes_dir) and the semantic gate's task (again with each episode and each ~/task message).
    openEpisodes = parts.session;
    await parts.session.start(lastTime);
    const worker = parts.filterWorker;
    if (worker) {
      // Before the graph spins: the first trajectory finds the worker running and its code compiled.
      await worker.start();
      const path = parts.session.chunks;
      if (path instanceof OffThreadChunkPath) path.warmUp();
      io.out(
        'armguard ros-node: chunk filter in a worker thread (CBF and warning band); each answer is re-checked on the control thread against the present joint state, obstacles and grip before it reaches the controller',
      );
    }
    ctx.spin();
    const outcome = await Promise.race([stop.then((signal) => ({ kind: 'signal' as const, signal })), failed]);
    const why = outcome.kind === 'signal' ? outcome.signal : 'start-up failed';
    lastTime = parts.now();
    if (config.gateMode !== 'monitor') {
      // Gate and baseline forward trajectories: the controller would otherwise keep executing the last forwarded trajectory. The e-stop
      // sends the hold unless the gate already holds; then it is sent again here, once more.
      const alreadyHeld = parts.gate.holding && !parts.gate.starting;
      parts.pipeline.eStop(lastTime, `node shut down (${why})`);
      if (alreadyHeld) parts.franka.hold(lastTime, `node shut down (${why})`);
    }
    openEpisodes = undefined;
    await parts.session.close(parts.now(), `node shut down (${why})`);
    if (outcome.kind === 'start-up-failed') {
      io.err(
        outcome.neverSeen.length > 0
          ? `armguard ros-node: start-up failed: required signals never seen within ${config.startupTimeout} s: ${outcome.neverSeen.join(', ')} (check the topics in the parameter file and that their publishers run)`
          : `armguard ros-node: start-up failed within ${config.startupTimeout} s: every required signal was seen, but ${parts.gate.holdCause ? describeCause(parts.gate.holdCause) : 'the gate did not arm'}`,
      );
      return EXIT.failure;
    }
    io.out(`armguard ros-node: stopped (${why})`);
    return EXIT.ok;
  } catch (e) {
    io.err(`armguard ros-node: ${(e as Error).message}`);
    return EXIT.failure;
  } finally {
    // An episode left open would keep its flush timer, and the process, alive.
    if (openEpisodes) {
      await openEpisodes
        .close(lastTime, 'node failed')
        .catch((e: unknown) => io.err(`armguard ros-node: closing the episode failed: ${(e as Error).message}`));
    }
    await filterWorker?.close();
    await ctx.shutdown();
  }
}

/** The tasks of the task file with a semantic entry (a ~/task message may name one). */
function liveTasks(spec: ScoringSpec): Map<string, LiveTask> {
  const all = liveTasksFromSpec(defaultSpecPaths().tasks, new Set(spec.tasks.tasks.keys()));
  return all.ok ? all.value : new Map();
}

/** The semantic gate's judge, settings, task roles and stage-event positions from the node's `semantic_*` parameters (none without any). */
export function semanticFromParams(
  config: FrankaNodeConfig,
  spec: ScoringSpec,
): ReturnType<typeof parseSemanticRunOptions> {
  const opts = config.semantic?.options;
  if (!opts) return { ok: true, value: undefined };
  return parseSemanticRunOptions(
    (k) => opts[k],
    () => false,
    config.task,
    defaultSpecPaths().tasks,
    new Set(spec.tasks.tasks.keys()),
  );
}
