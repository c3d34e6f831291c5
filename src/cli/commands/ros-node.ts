import { readFileSync } from 'node:fs';
import { EXIT, parseArgs, type CliIo, type Command } from '../command.js';
import type { RosContext } from '../../../drivers/ros2/interface.js';
import type { FrankaNodeConfig } from '../../nodes/franka-node-config.js';
import type { ScoringSpec } from '../../safety/index.js';
import type { Timers } from '../../util/clock.js';
import { defaultSpecPaths, loadScoringSpec } from '../spec-files.js';
import { parseFrankaNodeConfig } from '../../nodes/franka-node-config.js';
import { buildFrankaNode } from '../../nodes/build-franka-node.js';
import { loadRclnodejsRos, RosUnavailableError } from '../../../drivers/ros2/rclnodejs-adapter.js';
import { systemTimers } from '../../platform/system-clock.js';

export const rosNodeCommand: Command = {
  name: 'ros-node',
  summary: 'run the armguard ROS 2 monitor node for a Franka (rclnodejs)',
  help: `usage: armguard ros-node --params <file.yaml> [--node-name armguard] [--check]

Runs armguard as a ROS 2 node beside franka_bringup: reads the robot state, gripper and tracking,
publishes /diagnostics, ~/robustness and ~/gate_state, offers ~/release and ~/label_success.
With episodes_dir set, records one armguard MCAP episode at a time there (~/label_success labels
it, closes it and opens the next; \`armguard report <dir>\` reads them).
Parameters use the ROS 2 parameter-file layout (<node>: ros__parameters: ...); see
launch/params/fr3.yaml. Needs a sourced ROS 2 installation and rclnodejs (see hardware.md).

  --check   validate the parameter file and list the applicable clauses, without ROS 2

examples:
  armguard ros-node --params launch/params/fr3.yaml --check
  ros2 launch launch/armguard_franka.launch.xml params_file:=$PWD/launch/params/fr3.yaml`,
  async run(args, io) {
    // ros2 launch appends `--ros-args ...` to executables; names come from the parameter file.
    const rosArgs = args.indexOf('--ros-args');
    const parsed = parseArgs(rosArgs >= 0 ? args.slice(0, rosArgs) : args, { strings: ['params', 'node-name'], booleans: ['check'] });
    if (!parsed.ok) {
      io.err(`armguard ros-node: ${parsed.error}`);
      return EXIT.usage;
    }
    const paramsPath = parsed.options.get('params');
    if (typeof paramsPath !== 'string') {
      io.err('armguard ros-node: --params <file.yaml> is required');
      return EXIT.usage;
    }
    let text: string;
    try {
      text = readFileSync(paramsPath, 'utf8');
    } catch (e) {
      io.err(`${paramsPath}: cannot read: ${(e as Error).message}`);
      return EXIT.failure;
    }
    const nodeName = typeof parsed.options.get('node-name') === 'string' ? (parsed.options.get('node-name') as string) : 'armguard';
    const cfg = parseFrankaNodeConfig(text, paramsPath, nodeName);
    if (!cfg.ok) {
      for (const e of cfg.errors) io.err(e.message);
      return EXIT.failure;
    }
    const spec = loadScoringSpec(defaultSpecPaths());
    if (!spec.ok) {
      for (const p of spec.problems) io.err(p);
      return EXIT.failure;
    }
    if (parsed.options.get('check') === true) {
      const { FakeRosGraph } = await import('../../../drivers/ros2/fake-ros-graph.js');
      const { ManualClock, ManualTimers } = await import('../../util/clock.js');
      const clock = new ManualClock();
      const parts = buildFrankaNode(new FakeRosGraph(clock, new ManualTimers(clock)), { ...cfg.config, gating: false }, spec.spec);
      io.out(`${paramsPath}: ok — robot ${cfg.config.robotId}, platform ${cfg.config.platform}, task ${cfg.config.task}`);
      for (const d of parts.decisions) io.out(`  ${d.clause.id.padEnd(26)} ${d.clause.tier === 'safe' ? d.explanation : 'report-only'}`);
      return EXIT.ok;
    }
    let ctx;
    try {
      ctx = await loadRclnodejsRos();
    } catch (e) {
      io.err(`armguard ros-node: ${(e as Error).message}`);
      return e instanceof RosUnavailableError ? EXIT.usage : EXIT.failure;
    }
    const stop = new Promise<string>((resolve) => {
      process.once('SIGINT', () => resolve('SIGINT'));
      process.once('SIGTERM', () => resolve('SIGTERM'));
    });
    return serveFrankaNode(ctx, cfg.config, spec.spec, io, stop);
  },
};

/**
 * Runs the node on `ctx` until `stop` resolves, then holds the arm (gating mode) before closing the
 * episode, as `armguard run` does, and always shuts the context down.
 */
export async function serveFrankaNode(ctx: RosContext, config: FrankaNodeConfig, spec: ScoringSpec, io: CliIo, stop: Promise<string>, timers: Timers = systemTimers): Promise<number> {
  try {
    const parts = buildFrankaNode(ctx, config, spec, { recording: { timers, log: (l) => io.out(l) } });
    io.out(`armguard ros-node: ${config.robotId} monitoring ${parts.bank.count} clauses; gate ${parts.gate.state}`);
    const episodes = parts.episodes;
    if (episodes) await episodes.start(parts.now());
    ctx.spin();
    const why = await stop;
    // The controller would otherwise keep executing the last forwarded trajectory.
    if (config.gating) parts.pipeline.eStop(parts.now(), `node shut down (${why})`);
    if (episodes) await episodes.close(parts.now(), `node shut down (${why})`);
    return EXIT.ok;
  } catch (e) {
    io.err(`armguard ros-node: ${(e as Error).message}`);
    return EXIT.failure;
  } finally {
    await ctx.shutdown();
  }
}
