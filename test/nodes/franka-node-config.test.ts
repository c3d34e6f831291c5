import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ManualClock, ManualTimers } from '../../src/util/clock.js';
import { FakeRosGraph } from '../../drivers/ros2/fake-ros-graph.js';
import { QOS_SENSOR_DATA } from '../../drivers/ros2/interface.js';
import type { PoseStamped } from '../../src/mcap/messages.js';
import { parseFrankaNodeConfig } from '../../src/nodes/franka-node-config.js';
import { buildFrankaNode } from '../../src/nodes/build-franka-node.js';
import { defaultSpecPaths, loadScoringSpec } from '../../src/cli/spec-files.js';
import { main } from '../../src/cli/main.js';
import { repoRoot } from '../support/paths.js';

const spec = (() => {
  const s = loadScoringSpec(defaultSpecPaths());
  if (!s.ok) throw new Error(s.problems.join('\n'));
  return s.spec;
})();

describe('Franka node parameters (ROS 2 parameter-file layout)', () => {
  it('reads the shipped launch/params/fr3.yaml', () => {
    const r = parseFrankaNodeConfig(readFileSync(join(repoRoot, 'launch/params/fr3.yaml'), 'utf8'), 'fr3.yaml');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.config).toMatchObject({
      robotId: 'fr3-lab1',
      platform: 'fr3',
      endEffector: 'franka_hand',
      gateMode: 'monitor',
      bystanders: ['cup', 'plate'],
      startupTimeout: 10,
    });
    // relative: they resolve in the node's namespace (-r __ns:=/left)
    expect(r.config).toMatchObject({
      robotStateTopic: 'franka_robot_state_broadcaster/robot_state',
      gripperTopic: 'franka_gripper/joint_states',
      controllerTopic: 'fr3_arm_controller/joint_trajectory',
    });
    expect(r.config.tracking).toEqual({ kind: 'vrpn', trackers: { Cup1: 'cup', Plate3: 'plate' } });
    expect(r.config).toMatchObject({ selfClearance: 0.02, planningMargin: 0.003, heldTilt: true });
  });
  it('self_clearance, planning_margin and held_tilt: absent means the rig defaults; a bad one is named', () => {
    const params = (extra: string) =>
      `armguard:\n  ros__parameters:\n    robot_id: r\n    platform: fr3\n    task: t\n${extra}`;
    const def = parseFrankaNodeConfig(params(''), 'p.yaml');
    expect(def.ok && [def.config.selfClearance, def.config.planningMargin, def.config.heldTilt]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    const off = parseFrankaNodeConfig(params('    self_clearance: 0\n    held_tilt: false\n'), 'p.yaml');
    expect(off.ok && [off.config.selfClearance, off.config.heldTilt]).toEqual([0, false]);
    const bad = parseFrankaNodeConfig(params('    planning_margin: -0.01\n    held_tilt: maybe\n'), 'p.yaml');
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    const text = bad.errors.map((e) => e.message).join('\n');
    expect(text).toMatch(/planning_margin/);
    expect(text).toMatch(/held_tilt/);
  });
  it('chunk_filter: worker (the default, as armguard run --chunk-filter) or inline; anything else refused naming it', () => {
    const params = (extra: string) =>
      `armguard:\n  ros__parameters:\n    robot_id: r\n    platform: fr3\n    task: t\n${extra}`;
    const def = parseFrankaNodeConfig(params(''), 'p.yaml');
    expect(def.ok && def.config.chunkFilter).toBe('worker');
    const inline = parseFrankaNodeConfig(params('    chunk_filter: inline\n'), 'p.yaml');
    expect(inline.ok && inline.config.chunkFilter).toBe('inline');
    const bad = parseFrankaNodeConfig(params('    chunk_filter: gpu\n'), 'p.yaml');
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    expect(bad.errors.map((e) => e.message).join('\n')).toMatch(
      /p\.yaml:6.*armguard\.ros__parameters\.chunk_filter.*expected worker or inline, got 'gpu'/,
    );
  });
  it('end_effector names what is on the flange: franka_hand by default (as franka_description), none, anything else refused', () => {
    const params = (extra: string) =>
      `armguard:\n  ros__parameters:\n    robot_id: r\n    platform: panda\n    task: t\n${extra}`;
    const def = parseFrankaNodeConfig(params(''), 'p.yaml');
    expect(def.ok && def.config.endEffector).toBe('franka_hand');
    const none = parseFrankaNodeConfig(params('    end_effector: none\n'), 'p.yaml');
    expect(none.ok && none.config.endEffector).toBe('none');
    const bad = parseFrankaNodeConfig(params('    end_effector: robotiq_2f85\n'), 'p.yaml');
    expect(bad.ok).toBe(false);
    if (!bad.ok)
      expect(bad.errors.map((e) => e.message)).toContain(
        "p.yaml:6 field 'armguard.ros__parameters.end_effector': expected franka_hand or none, got 'robotiq_2f85'",
      );
  });
  it('gate_mode: baseline|off, monitor, gate|on; the default is monitor; anything else refused with file, line and the choices', () => {
    const params = (extra: string) => `armguard:\n  ros__parameters:\n    robot_id: r\n    task: t\n${extra}`;
    const mode = (extra: string) => {
      const r = parseFrankaNodeConfig(params(extra), 'p.yaml');
      if (!r.ok) throw new Error(r.errors.map((e) => e.message).join('; '));
      expect(r.warnings).toEqual([]);
      return r.config.gateMode;
    };
    expect(mode('')).toBe('monitor');
    expect(mode('    gate_mode: baseline\n')).toBe('baseline');
    expect(mode('    gate_mode: off\n')).toBe('baseline');
    expect(mode('    gate_mode: monitor\n')).toBe('monitor');
    expect(mode('    gate_mode: gate\n')).toBe('gate');
    expect(mode('    gate_mode: on\n')).toBe('gate');
    const bad = parseFrankaNodeConfig(params('    gate_mode: hold\n'), 'p.yaml');
    expect(bad.ok).toBe(false);
    if (!bad.ok)
      expect(bad.errors.map((e) => e.message)).toContain(
        "p.yaml:5 field 'armguard.ros__parameters.gate_mode': expected baseline (or off), monitor or gate (or on), got 'hold'",
      );
  });
  it('the deprecated gating: reads as it behaved before gate_mode (false = monitor, sends holds; true = gate) with a deprecation naming file and line; with gate_mode too it is refused', () => {
    const params = (extra: string) => `armguard:\n  ros__parameters:\n    robot_id: r\n    task: t\n${extra}`;
    const off = parseFrankaNodeConfig(params('    gating: false\n'), 'p.yaml');
    expect(off.ok && off.config.gateMode).toBe('monitor');
    expect(off.ok && off.warnings).toEqual([
      "p.yaml:5 parameter 'armguard.ros__parameters.gating' is deprecated: 'gating: false' is read as 'gate_mode: monitor' (violations send the controller a hold; for a gate-off baseline run write gate_mode: baseline); write 'gate_mode: monitor' instead",
    ]);
    const on = parseFrankaNodeConfig(params('    gating: true\n'), 'p.yaml');
    expect(on.ok && on.config.gateMode).toBe('gate');
    expect(on.ok && on.warnings[0]).toMatch(/^p\.yaml:5 .*deprecated.*'gate_mode: gate'/);
    const both = parseFrankaNodeConfig(params('    gate_mode: baseline\n    gating: false\n'), 'p.yaml');
    expect(both.ok).toBe(false);
    if (!both.ok)
      expect(both.errors.map((e) => e.message)).toContain(
        "p.yaml:6 field 'armguard.ros__parameters.gating': give gate_mode only: 'gating' is deprecated and both are set",
      );
  });
  it('names file, line and parameter for every problem', () => {
    const text =
      'armguard:\n  ros__parameters:\n    robot_id: 7\n    platform: ur5\n    task: t\n    tracking: vrpn\n    vrpn_trackers: ["nocolon"]\n';
    const r = parseFrankaNodeConfig(text, 'p.yaml');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const messages = r.errors.map((e) => e.message);
    expect(messages).toContain("p.yaml:4 field 'armguard.ros__parameters.platform': expected fr3 or panda, got 'ur5'");
    expect(messages.some((m) => m.startsWith("p.yaml:3 field 'armguard.ros__parameters.robot_id'"))).toBe(true);
    expect(messages.some((m) => m.includes("expected 'source:body' entries, got 'nocolon'"))).toBe(true);
    expect(messages.some((m) => m.includes('no bystanders or obstacle_bodies are listed'))).toBe(true);
  });
  it('reads tracked obstacle bodies, the tracking frame, the workspace and d_safe, and names every bad one', () => {
    const head =
      'armguard:\n  ros__parameters:\n    robot_id: r\n    task: t\n    tracking: vrpn\n    vrpn_trackers: ["Box1:box"]\n';
    const ok = parseFrankaNodeConfig(
      `${head}    obstacle_bodies: ["box:0.06"]\n    tracking_frame_in_base: [0.3, 0, 0, 0, 0, 1.5708]\n    obstacle_max_age: 0.05\n    workspace: [-0.8, -0.8, -0.05, 0.8, 0.8, 1.2]\n    d_safe: 0.02\n    episodes_dir: /data/episodes\n`,
      'p.yaml',
    );
    expect(ok.ok).toBe(true);
    if (ok.ok) {
      expect(ok.config).toMatchObject({
        obstacles: [{ body: 'box', radius: 0.06 }],
        trackingInBase: [0.3, 0, 0, 0, 0, 1.5708],
        obstacleMaxAge: 0.05,
        workspace: [-0.8, -0.8, -0.05, 0.8, 0.8, 1.2],
        dSafe: 0.02,
        episodesDir: '/data/episodes',
      });
      expect(ok.config.bystanders).toEqual([]);
    }
    const bad = parseFrankaNodeConfig(
      `${head}    obstacle_bodies: ["cup:0.05", "box:-1"]\n    tracking_frame_in_base: [1, 2]\n    workspace: [1, 0, 0, 0, 1, 1]\n`,
      'p.yaml',
    );
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    const m = bad.errors.map((e) => e.message);
    expect(m).toContain(
      "p.yaml:7 field 'armguard.ros__parameters.obstacle_bodies': expected 'body:radius_m' entries with 0 < radius < 2, got 'box:-1'",
    );
    expect(m).toContain(
      "p.yaml:7 field 'armguard.ros__parameters.obstacle_bodies': obstacle body 'cup' is not mapped in vrpn_trackers",
    );
    expect(m).toContain("p.yaml:8 field 'armguard.ros__parameters.tracking_frame_in_base': expected 6 numbers, got 2");
    expect(m).toContain(
      "p.yaml:9 field 'armguard.ros__parameters.workspace': expected [xmin, ymin, zmin, xmax, ymax, zmax] with each min below its max",
    );
    const untracked = parseFrankaNodeConfig(
      'armguard:\n  ros__parameters:\n    robot_id: r\n    task: t\n    obstacle_bodies: ["box:0.05"]\n',
      'p.yaml',
    );
    expect(untracked.ok).toBe(false);
    if (!untracked.ok) expect(untracked.errors[0]!.message).toMatch(/obstacle bodies need tracking/);
  });
  it('a missing node section says what is expected', () => {
    const r = parseFrankaNodeConfig('other:\n  ros__parameters: {}\n', 'p.yaml');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]!.message).toMatch(/expected the node's section 'armguard:'/);
  });
});

describe('buildFrankaNode on the fake graph', () => {
  const config = (tracking: boolean) => {
    const r = parseFrankaNodeConfig(readFileSync(join(repoRoot, 'launch/params/fr3.yaml'), 'utf8'), 'fr3.yaml');
    if (!r.ok) throw new Error('bad params');
    return tracking ? r.config : { ...r.config, tracking: undefined, bystanders: [] };
  };
  it('tracked bystanders make non_target_max_disp applicable and feed it', () => {
    const clock = new ManualClock(10);
    const graph = new FakeRosGraph(clock, new ManualTimers(clock));
    const parts = buildFrankaNode(graph, config(true), spec);
    const names = Array.from({ length: parts.bank.count }, (_, i) => parts.bank.name(i));
    expect(names).toContain('non_target_max_disp');
    const pub = graph
      .createNode('vrpn')
      .createPublisher<PoseStamped>('geometry_msgs/msg/PoseStamped', '/vrpn_mocap/Cup1/pose', QOS_SENSOR_DATA);
    pub.publish({
      header: { stamp: { sec: 10, nanosec: 0 }, frame_id: 'world' },
      pose: { position: { x: 0, y: 0, z: 0 }, orientation: { x: 0, y: 0, z: 0, w: 1 } },
    });
    expect(graph.topics().get('/vrpn_mocap/Plate3/pose')).toBe('geometry_msgs/msg/PoseStamped');
  });
  it('without tracking the clause is reported as not applicable (reduced set), never scored safe', () => {
    const clock = new ManualClock(10);
    const parts = buildFrankaNode(new FakeRosGraph(clock, new ManualTimers(clock)), config(false), spec);
    const d = parts.decisions.find((x) => x.clause.id === 'non_target_max_disp')!;
    expect(d.active).toBe(false);
    expect(d.explanation).toMatch(/reduced applicable set/);
  });
});

describe('armguard ros-node', () => {
  const io = () => {
    const out: string[] = [];
    const err: string[] = [];
    return { out, err, io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t) } };
  };
  it('--check validates the parameters and lists clause applicability without ROS 2', async () => {
    const c = io();
    expect(await main(['ros-node', '--params', join(repoRoot, 'launch/params/fr3.yaml'), '--check'], c.io)).toBe(0);
    expect(c.out.join('\n')).toMatch(/joint_torque\s+active/);
  });
  it('without ROS 2 sourced it explains how to get it', async () => {
    const saved = process.env.ROS_DISTRO;
    delete process.env.ROS_DISTRO;
    const c = io();
    expect(
      await main(
        ['ros-node', '--params', join(repoRoot, 'launch/params/fr3.yaml'), '--ros-args', '-r', '__node:=armguard'],
        c.io,
      ),
    ).toBe(2);
    expect(c.err.join('\n')).toMatch(/ROS_DISTRO is unset/);
    if (saved !== undefined) process.env.ROS_DISTRO = saved;
  });
});
