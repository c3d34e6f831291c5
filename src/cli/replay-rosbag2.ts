/**
 * `armguard replay <bag.mcap | bag directory>` for Franka rosbag2 recordings: the bag is played into
 * the in-process fake ROS graph on its own clock and scored by the live node's code
 * (src/nodes/franka-replay.ts). Listed in `replayInputs` (commands/replay.ts), an explicit table.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { EXIT } from './command.js';
import type { ReplayInput } from './commands/replay.js';
import { loadScoringSpec, specPathsFrom } from './spec-files.js';
import { bagFiles } from '../platform/bag-files.js';
import { fileSource } from '../platform/file-source.js';
import { replayFrankaBag } from '../nodes/franka-replay.js';
import { coverageVerdict } from '../schema/clause-coverage.js';
import { describeScanEnd } from '../mcap/mcap-scan.js';

/** The bag's MCAP files in recording order (a file, or a bag directory: metadata.yaml or its split files); undefined when `path` is neither. */
async function mcapFiles(path: string): Promise<string[] | undefined> {
  try {
    const s = await stat(path);
    if (s.isFile()) return path.endsWith('.mcap') ? [path] : undefined;
    if (!s.isDirectory()) return undefined;
    const hasMetadata = await stat(join(path, 'metadata.yaml')).then(
      (m) => m.isFile(),
      () => false,
    );
    if (!hasMetadata && !(await readdir(path)).some((f) => f.endsWith('.mcap'))) return undefined;
  } catch {
    return undefined;
  }
  return bagFiles(path);
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
    try {
      return (await mcapFiles(path)) !== undefined;
    } catch {
      return true; // a bag directory whose metadata.yaml is broken: run() names the problem
    }
  },
  async run(path, options, io) {
    let files: string[] | undefined;
    try {
      files = await mcapFiles(path);
    } catch (e) {
      io.err(`armguard replay: ${(e as Error).message}`);
      return EXIT.failure;
    }
    if (!files || files.length === 0) {
      io.err(`${path}: no .mcap file`);
      return EXIT.failure;
    }
    for (const f of files) {
      if (
        !(await stat(f).then(
          (s) => s.isFile(),
          () => false,
        ))
      ) {
        io.err(`${f}: listed by the bag but missing: cannot replay a bag with a missing part`);
        return EXIT.failure;
      }
    }
    const task = options.get('task');
    if (typeof task !== 'string') {
      io.err('armguard replay: a rosbag2 replay needs --task <name> (it decides which clauses apply)');
      return EXIT.usage;
    }
    const spec = loadScoringSpec(
      specPathsFrom((k) => (typeof options.get(k) === 'string' ? (options.get(k) as string) : undefined)),
    );
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
    const report = await replayFrankaBag(
      { parts: files.map((f) => fileSource(f)) },
      {
        spec: spec.spec,
        platform,
        endEffector,
        task,
        ...(str('robot-state-topic') ? { robotStateTopic: str('robot-state-topic')! } : {}),
        ...(str('gripper-topic') ? { gripperTopic: str('gripper-topic')! } : {}),
      },
    );
    const name = (): string => (files.length === 1 ? files[0]! : `${path} (${files.length} files)`);
    // Nothing evaluated, or not all of the recording read: an error naming the file, never verdicts.
    const problems: string[] = [];
    report.parts.forEach((p, i) => {
      const f = files[i]!;
      if (p.end.kind === 'corrupt')
        problems.push(
          `${f}: not a readable MCAP file: ${describeScanEnd(p.end)}; ${p.messageCount} message(s) read before it`,
        );
      else if (p.messageCount === 0)
        problems.push(
          `${f}: no messages (${p.end.kind === 'complete' ? 'an empty recording' : describeScanEnd(p.end)})`,
        );
    });
    if (report.stoppedAtGap) {
      const g = report.stoppedAtGap;
      problems.push(
        `${name()}: log time jumps by ${g.gapSeconds.toExponential(3)} s at ${g.t.toFixed(3)} s (next message on ${g.topic}): a second time base in one recording; ` +
          `replay stopped there, ${g.messagesNotReplayed} message(s) after the jump not replayed`,
      );
    }
    if (report.steps === 0) {
      const found =
        report.bag.topics.length === 0
          ? 'no topics'
          : report.bag.topics.map((t) => `${t.topic} (${t.type}, ${t.count})`).join(', ');
      problems.push(
        `${path}: no robot-state samples to evaluate: looked for ${report.robotStateTopic} (franka_msgs/msg/FrankaRobotState), found ${found}; give the recorded topic with --robot-state-topic`,
      );
    }
    if (options.get('json') === true) {
      io.out(
        JSON.stringify(
          { ...report, files, problems },
          (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v),
          2,
        ),
      );
      for (const p of problems) io.err(`armguard replay: ${p}`);
      return problems.length > 0 ? EXIT.failure : EXIT.ok;
    }
    for (const u of report.undecodable)
      io.err(
        `${name()}: ${u.count} message(s) on ${u.topic} could not be decoded and were not replayed (first ${u.firstError})`,
      );
    if (report.steps === 0) {
      for (const p of problems) io.err(`armguard replay: ${p}`);
      io.err('armguard replay: no clause was evaluated: no verdicts');
      return EXIT.failure;
    }
    io.out(
      `${name()}: ${report.bag.messageCount} messages, ${report.duration.toFixed(3)} s, ${report.steps} robot-state samples (${describeScanEnd(report.bag.end)})`,
    );
    if (files.length > 1)
      report.parts.forEach((p, i) =>
        io.out(`  part ${i + 1}: ${files[i]}: ${p.messageCount} messages (${describeScanEnd(p.end)})`),
      );
    io.out(`arm: ${platform} with end effector ${endEffector} (self-collision volumes and TCP)`);
    for (const t of report.bag.topics) io.out(`  ${t.topic} (${t.type}): ${t.count}`);
    io.out('clauses:');
    for (const c of report.clauses) {
      if (!c.active) {
        io.out(`  ${c.id.padEnd(24)} — ${c.explanation}`);
        continue;
      }
      const v = coverageVerdict(c, report.steps, c.violatingSteps);
      if (c.evaluatedSteps === 0) {
        io.out(`  ${c.id.padEnd(24)} ${v.kind === 'satisfied' ? '' : v.note}`);
        continue;
      }
      const verdict =
        v.kind === 'satisfied'
          ? 'satisfied'
          : v.kind === 'not-evaluated'
            ? v.note
            : `VIOLATED first at ${c.firstViolation?.toFixed(3)} s (${c.violatingSteps} steps)${v.note ? ` (${v.note})` : ''}`;
      io.out(`  ${c.id.padEnd(24)} min ρ/|τ| ${fmt(c.minMargin)}  ${verdict}`);
    }
    io.out('gate:');
    for (const e of report.gateEvents) io.out(`  ${e.t.toFixed(3)} s  ${e.from} → ${e.to}: ${e.cause}`);
    if (report.gateEvents.length === 0) io.out('  no transitions (armed throughout)');
    if (problems.length > 0) {
      for (const p of problems) io.err(`armguard replay: ${p}`);
      io.err('armguard replay: the verdicts above cover only the part of the recording that could be read');
      return EXIT.failure;
    }
    return EXIT.ok;
  },
};
