/**
 * Names of the Franka node under `--ros-args` (issue 19): `-r __ns:=/left` moves every topic and
 * service armguard owns (private `~/` names and the relative Franka topics) into the namespace, so
 * two arms never collide; `/diagnostics` stays the graph-wide aggregator topic. `-r __node:=`
 * renames the node and picks its parameter section.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, ManualTimers } from '../../src/util/clock.js';
import { FakeRosGraph } from '../../drivers/ros2/fake-ros-graph.js';
import { buildFrankaNode } from '../../src/nodes/build-franka-node.js';
import { defaultSpecPaths, loadScoringSpec } from '../../src/cli/spec-files.js';
import { main } from '../../src/cli/main.js';
import { repoRoot } from '../support/paths.js';
import { frankaTestConfig } from './support/franka-config.js';

const spec = (() => {
  const s = loadScoringSpec(defaultSpecPaths());
  if (!s.ok) throw new Error(s.problems.join('\n'));
  return s.spec;
})();
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const capture = () => {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t) } };
};
/** Topic and service names from `ros-node --check` output (the lines after "topics and services:"). */
const namesFrom = (out: string[]) =>
  out.slice(out.indexOf('topics and services:') + 1).map((l) => l.trim().split(/\s+/)[0]!);

describe('Franka node names under --ros-args', () => {
  it('__ns:=/left puts every armguard topic and service under /left; /diagnostics stays global', () => {
    const clock = new ManualClock(0);
    const graph = new FakeRosGraph(clock, new ManualTimers(clock), {
      rosArgs: ['armguard', '--ros-args', '-r', '__ns:=/left'],
    });
    buildFrankaNode(graph, frankaTestConfig(), spec);
    const topics = [...graph.topics().keys()].sort();
    expect(topics).toEqual([
      '/diagnostics',
      '/left/armguard/chunk_result',
      '/left/armguard/gate_state',
      '/left/armguard/heartbeat',
      '/left/armguard/proposed_trajectory',
      '/left/armguard/robustness',
      '/left/fr3_arm_controller/joint_trajectory',
      '/left/franka_gripper/joint_states',
      '/left/franka_robot_state_broadcaster/robot_state',
    ]);
    expect(graph.serviceNames().sort()).toEqual(['/left/armguard/label_success', '/left/armguard/release']);
  });

  it('two arms (fr3_duo: /left and /right) share no topic or service but /diagnostics (ros-node --check)', async () => {
    const params = join(repoRoot, 'launch/params/fr3.yaml');
    const left = capture();
    const right = capture();
    expect(await main(['ros-node', '--params', params, '--check', '--ros-args', '-r', '__ns:=/left'], left.io)).toBe(0);
    expect(await main(['ros-node', '--params', params, '--check', '--ros-args', '-r', '__ns:=/right'], right.io)).toBe(
      0,
    );
    const l = namesFrom(left.out).filter((n) => n.startsWith('/left/'));
    expect(l).toContain('/left/franka_robot_state_broadcaster/robot_state');
    expect(l).toContain('/left/armguard/release');
    const shared = namesFrom(left.out).filter((n) => namesFrom(right.out).includes(n));
    // the mocap trackers are one system in the room: both arms read the same ones
    expect(shared.filter((n) => !n.startsWith('/vrpn_mocap/'))).toEqual(['/diagnostics']);
  });

  it('a remap redirects a topic; __node renames the node and its parameter section is read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'armguard-names-'));
    dirs.push(dir);
    const file = join(dir, 'p.yaml');
    writeFileSync(
      file,
      '/left/guard:\n  ros__parameters:\n    robot_id: fr3-left\n    task: libero-spatial-pick-bowl\n',
    );
    const c = capture();
    const args = [
      'ros-node',
      '--params',
      file,
      '--check',
      '--ros-args',
      '-r',
      '__ns:=/left',
      '-r',
      '__node:=guard',
      '-r',
      'fr3_arm_controller/joint_trajectory:=/left/policy_proxy',
    ];
    expect(await main(args, c.io)).toBe(0);
    expect(c.out[0]).toMatch(/ok — robot fr3-left/);
    const names = namesFrom(c.out);
    expect(names).toContain('/left/guard/release');
    expect(names).toContain('/left/policy_proxy');
    expect(names).not.toContain('/left/fr3_arm_controller/joint_trajectory');
    const missing = capture();
    expect(await main(['ros-node', '--params', file, '--check', '--ros-args', '-r', '__node:=other'], missing.io)).toBe(
      1,
    );
    expect(missing.err.join('\n')).toMatch(/expected the node's section 'other:'/);
  });
});
