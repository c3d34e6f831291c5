/**
 * `armguard replay <bag.mcap | bag directory>` for Franka rosbag2 recordings: the bag is played into
 * the in-process fake ROS graph on its own clock and scored by the live node's code
 * (src/nodes/franka-replay.ts). Registered as a replay input kind.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { EXIT } from './command.js';
import type { ReplayInput } from './commands/replay.js';
import { defaultSpecPaths, loadScoringSpec } from './spec-files.js';
import { fileSource } from '../../drivers/ros2/bag/index.js';
import { replayFrankaBag } from '../nodes/franka-replay.js';
import { describeScanEnd } from '../../drivers/ros2/bag/mcap-scan.js';

async function mcapPath(path: string): Promise<string | undefined> {
  try {
    const s = await stat(path);
    if (s.isFile()) return path.endsWith('.mcap') ? path : undefined;
    if (s.isDirectory()) {
      const files = (await readdir(path)).filter((f) => f.endsWith('.mcap')).sort();
      return files[0] ? join(path, files[0]) : undefined;
    }
  } catch {
    return undefined;
  }
  return undefined;
}

const fmt = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : x === Infinity ? '+inf (never applied)' : String(x));

export const rosbag2ReplayInput: ReplayInput = {
  kind: 'rosbag2 MCAP (Franka robot state)',
  strings: ['task', 'platform', 'end-effector', 'robot-state-topic', 'gripper-topic'],
  booleans: ['json'],
  help: `rosbag2 options:
  --task <name>               task from spec/tasks.yaml (decides the applicable clauses; required)
  --platform fr3|panda        platform profile and arm description (default fr3)
  --end-effector franka_hand|none  what was on the flange (self-collision volumes, TCP; default franka_hand)
  --robot-state-topic <t>     default /franka_robot_state_broadcaster/robot_state
  --gripper-topic <t>         default /franka_gripper/joint_states
  --json                      machine-readable output`,
  async detect(path) {
    return (await mcapPath(path)) !== undefined;
  },
  async run(path, options, io) {
    const file = await mcapPath(path);
    if (!file) {
      io.err(`${path}: no .mcap file`);
      return EXIT.failure;
    }
    const task = options.get('task');
    if (typeof task !== 'string') {
      io.err('armguard replay: a rosbag2 replay needs --task <name> (it decides which clauses apply)');
      return EXIT.usage;
    }
    const spec = loadScoringSpec(defaultSpecPaths());
    if (!spec.ok) {
      for (const p of spec.problems) io.err(p);
      return EXIT.failure;
    }
    const str = (k: string) => (typeof options.get(k) === 'string' ? (options.get(k) as string) : undefined);
    const platform = str('platform') ?? 'fr3';
    const endEffector = str('end-effector') ?? 'franka_hand';
    if (platform !== 'fr3' && platform !== 'panda') {
      io.err(`armguard replay: --platform must be fr3 or panda for a Franka bag, got '${platform}'`);
      return EXIT.usage;
    }
    if (endEffector !== 'franka_hand' && endEffector !== 'none') {
      io.err(`armguard replay: --end-effector must be franka_hand or none, got '${endEffector}'`);
      return EXIT.usage;
    }
    const report = await replayFrankaBag(fileSource(file), {
      spec: spec.spec,
      platform,
      endEffector,
      task,
      ...(str('robot-state-topic') ? { robotStateTopic: str('robot-state-topic')! } : {}),
      ...(str('gripper-topic') ? { gripperTopic: str('gripper-topic')! } : {}),
    });
    if (options.get('json') === true) {
      io.out(JSON.stringify(report, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v), 2));
      return EXIT.ok;
    }
    io.out(`${file}: ${report.bag.messageCount} messages, ${report.duration.toFixed(3)} s, ${report.steps} robot-state samples (${describeScanEnd(report.bag.end)})`);
    io.out(`arm: ${platform} with end effector ${endEffector} (self-collision volumes and TCP)`);
    for (const u of report.undecodable) io.err(`${file}: ${u.count} message(s) on ${u.topic} could not be decoded and were not replayed (first ${u.firstError})`);
    for (const t of report.bag.topics) io.out(`  ${t.topic} (${t.type}): ${t.count}`);
    io.out('clauses:');
    for (const c of report.clauses) {
      if (!c.active) {
        io.out(`  ${c.id.padEnd(24)} — ${c.explanation}`);
        continue;
      }
      const verdict = c.firstViolation === null ? 'satisfied' : `VIOLATED first at ${c.firstViolation.toFixed(3)} s (${c.violatingSteps} steps)`;
      io.out(`  ${c.id.padEnd(24)} min ρ/|τ| ${fmt(c.minMargin)}  ${verdict}`);
    }
    io.out('gate:');
    for (const e of report.gateEvents) io.out(`  ${e.t.toFixed(3)} s  ${e.from} → ${e.to}: ${e.cause}`);
    if (report.gateEvents.length === 0) io.out('  no transitions (armed throughout)');
    return EXIT.ok;
  },
};
