/**
 * Gating mode on the fake ROS graph: proposed JointTrajectories go through the screen and the chunk
 * CBF filter (FR3 capsules vs the table plane) and only checked chunks reach the controller topic.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock, ManualTimers } from '../../src/util/clock.js';
import { FakeRosGraph } from '../../drivers/ros2/fake-ros-graph.js';
import { QOS_SENSOR_DATA } from '../../drivers/ros2/interface.js';
import { toStamp, type PoseStamped } from '../../src/mcap/messages.js';
import { buildFrankaNode } from '../../src/nodes/build-franka-node.js';
import type { FrankaNodeConfig } from '../../src/nodes/franka-node-config.js';
import { parseFrankaNodeConfig } from '../../src/nodes/franka-node-config.js';
import { frankaTestConfig } from './support/franka-config.js';
import { frankaWorld } from './support/franka-world.js';
import { defaultSpecPaths, loadScoringSpec } from '../../src/cli/spec-files.js';
import { Barrier, CapsuleModel, FR3_MODEL, PANDA_DESCRIPTION } from '../../src/kinematics/index.js';
import { gripperState, robotState } from '../drivers/franka/support/franka-messages.js';
import { fr3ToolTilt } from './support/fr3-tilt.js';

const READY = [0, -0.785, 0, -2.356, 0, 1.571, 0.785];
const JOINTS = ['fr3_joint1', 'fr3_joint2', 'fr3_joint3', 'fr3_joint4', 'fr3_joint5', 'fr3_joint6', 'fr3_joint7'];

function setup(overrides: Partial<FrankaNodeConfig> = {}) {
  const spec = loadScoringSpec(defaultSpecPaths());
  if (!spec.ok) throw new Error(spec.problems.join('\n'));
  const clock = new ManualClock(100);
  const timers = new ManualTimers(clock);
  const graph = new FakeRosGraph(clock, timers);
  const config = frankaTestConfig(overrides);
  const parts = buildFrankaNode(graph, config, spec.spec);
  const world = frankaWorld(graph, config);
  const { state, gripper, proposer, toController, results } = world;
  const other = world.node;
  /** `width`: the fingers' distance (m); 0.08 open, inside the grasp band (0.002–0.075) holding. */
  const tick = (ms: number, tau = [5, 5, 5, 5, 1, 1, 1], width = 0.08) => {
    for (let i = 0; i < ms; i++) {
      timers.advance(0.001);
      gripper.publish(gripperState(clock.now(), width));
      state.publish(robotState(clock.now(), { q: READY, tau }));
    }
  };
  const names = config.platform === 'panda' ? JOINTS.map((j) => j.replace('fr3_', 'panda_')) : JOINTS;
  const propose = (id: string, end: number[], steps = 20, dt = 0.05) => {
    const points = Array.from({ length: steps }, (_, k) => ({
      positions: READY.map((q0, j) => q0 + ((k + 1) / steps) * (end[j]! - q0)),
      velocities: [],
      accelerations: [],
      effort: [],
      time_from_start: toStamp((k + 1) * dt),
    }));
    proposer.publish({ header: { stamp: toStamp(clock.now()), frame_id: id }, joint_names: names, points });
  };
  return { parts, tick, propose, toController, results, clock, other };
}

describe('Franka gating mode (fake graph, FR3 capsules, real QP)', () => {
  it('a small safe motion is forwarded unchanged to the controller', () => {
    const s = setup();
    s.tick(50);
    expect(s.parts.gate.state).toBe('armed');
    s.propose(
      'safe',
      READY.map((q, j) => (j === 0 ? q + 0.2 : q)),
    );
    expect(s.results.at(-1)).toMatchObject({ verdict: 'executed' });
    const sent = s.toController.at(-1)!;
    expect(sent.points).toHaveLength(20);
    expect(sent.points.at(-1)!.positions[0]).toBeCloseTo(0.2, 9);
  });

  it('a motion that would drive the arm through the table is never forwarded as proposed', () => {
    const s = setup();
    s.tick(50);
    // Shoulder forward and wrist flexed: the nominal end pose puts the hand below the table plane.
    const end = [0, 0.8, 0, -2.356, 0, 2.5, 0.785];
    const check = new Barrier(
      new CapsuleModel(FR3_MODEL),
      { planes: Float64Array.from([0, 0, 1, 0]), spheres: new Float64Array(0), box: null },
      0.03,
      { includeSelf: false },
    );
    expect(check.value(end)).toBeLessThan(0);
    const before = s.toController.length;
    s.propose('into-table', end);
    const r = s.results.at(-1)!;
    expect(['filtered', 'held']).toContain(r.verdict);
    if (r.verdict === 'filtered') {
      const sent = s.toController.at(-1)!;
      for (const p of sent.points) expect(check.value(p.positions)).toBeGreaterThanOrEqual(-1e-6);
    } else {
      expect(s.toController.slice(before).every((m) => m.points.length === 0)).toBe(true);
    }
  });

  it('a chunk tilting the hand while the fingers hold an object is bent within the tilt clause; with the hand open it is forwarded', () => {
    // an open cup: held_object_tilt_world applies (τ 15°, ε 1.5°: the tool may tilt 13.5°)
    const task = 'sim-pick-cup-into-box';
    // joint 6 turned 0.6 rad (34°): the hand pitches
    const end = READY.map((q, j) => (j === 5 ? q + 0.6 : q));
    // the tilt from the tool direction that was world-vertical at READY
    const tiltDeg = fr3ToolTilt(READY);
    expect(tiltDeg(end)).toBeGreaterThan(30);

    const held = setup({ task });
    held.tick(50, undefined, 0.04);
    expect(held.parts.gate.state).toBe('armed');
    held.propose('tilt-held', end);
    expect(held.results.at(-1)).toMatchObject({ verdict: 'filtered' });
    const bent = held.toController.at(-1)!.points.map((p) => tiltDeg(p.positions));
    expect(Math.max(...bent)).toBeLessThanOrEqual(13.5 + 0.05);
    expect(Math.max(...bent)).toBeGreaterThan(5); // bent, not held

    const open = setup({ task });
    open.tick(50);
    open.propose('tilt-open', end);
    expect(open.results.at(-1)).toMatchObject({ verdict: 'executed' });
    const off = setup({ task, heldTilt: false });
    off.tick(50, undefined, 0.04);
    off.propose('tilt-off', end);
    expect(off.results.at(-1)).toMatchObject({ verdict: 'executed' });
  });

  it('on a Panda the joints are panda_joint1..7 (robot_type prefix): its trajectories are accepted and forwarded under those names', () => {
    const s = setup({ platform: 'panda' });
    s.tick(50);
    s.propose(
      'panda-safe',
      READY.map((q, j) => (j === 0 ? q + 0.2 : q)),
    );
    expect(s.results.at(-1)).toMatchObject({ verdict: 'executed' });
    expect(s.toController.at(-1)!.joint_names).toEqual(JOINTS.map((j) => j.replace('fr3_', 'panda_')));
    expect(s.parts.franka.mapping.config.robot).toBe(PANDA_DESCRIPTION);
  });

  it('a malformed trajectory is rejected and nothing reaches the controller', () => {
    const s = setup();
    s.tick(50);
    const before = s.toController.length;
    s.propose('short', [0, 0, 0], 3);
    expect(s.results.at(-1)).toMatchObject({ verdict: 'rejected' });
    expect(s.toController.length).toBe(before);
  });
});

describe('Franka gating with a tracked object as a barrier sphere (vrpn, tracking frame turned 90° in the base)', () => {
  // tracking frame at (0.3, 0, 0) in the base, yaw +90°: base = (0.3 − y_t, x_t, z_t), so tracking = (y_b, 0.3 − x_b, z_b)
  const trackingInBase: [number, number, number, number, number, number] = [0.3, 0, 0, 0, 0, Math.PI / 2];
  const toTracking = (b: Float64Array) => ({ x: b[1]!, y: 0.3 - b[0]!, z: b[2]! });
  // A 1.2 rad turn of the base joint sweeps the hand sideways; the object sits where the hand's axis
  // passes halfway through the turn. (Half of 0.8 rad was too little once the hand's environment
  // volumes span its 0.18 m width: the palm's edge then starts within d_safe of the object, and the
  // gate rightly holds at the present position.)
  const TURN = 1.2;
  const END = READY.map((q, j) => (j === 0 ? q + TURN : q));
  const model = new CapsuleModel(FR3_MODEL);
  model.update(READY.map((q, j) => (j === 0 ? q + TURN / 2 : q)));
  const k = model.spec.capsules.findIndex((c) => c.name === 'hand'); // the hand's environment capsule
  const hand = Float64Array.from(model.world.subarray(6 * k + 3, 6 * k + 6));
  const RADIUS = 0.04;
  const tracked = () =>
    setup({
      tracking: { kind: 'vrpn', trackers: { Box1: 'box' } },
      obstacles: [{ body: 'box', radius: RADIUS }],
      trackingInBase,
    });
  const publishBox = (s: ReturnType<typeof setup>) => {
    const pub = s.other.createPublisher<PoseStamped>(
      'geometry_msgs/msg/PoseStamped',
      '/vrpn_mocap/Box1/pose',
      QOS_SENSOR_DATA,
    );
    return () =>
      pub.publish({
        header: { stamp: toStamp(s.clock.now()), frame_id: 'world' },
        pose: { position: toTracking(hand), orientation: { x: 0, y: 0, z: 0, w: 1 } },
      });
  };
  const sphereCheck = () =>
    new Barrier(
      new CapsuleModel(FR3_MODEL),
      { planes: new Float64Array(0), spheres: Float64Array.from([...hand, RADIUS]), box: null },
      0.03,
      { includeSelf: false },
    );

  it('a sweep through the tracked object reaches the controller only bent around it', () => {
    const s = tracked();
    const box = publishBox(s);
    s.tick(50);
    box();
    expect(sphereCheck().value(READY)).toBeGreaterThan(0); // clear at the start
    expect(sphereCheck().value(READY.map((q, j) => (j === 0 ? q + TURN / 2 : q)))).toBeLessThan(0); // the nominal sweep goes through it
    s.propose('sweep', END);
    const r = s.results.at(-1)!;
    expect(r.verdict, r.reason).toBe('filtered');
    const check = sphereCheck();
    for (const p of s.toController.at(-1)!.points) expect(check.value(p.positions)).toBeGreaterThanOrEqual(-1e-9);
  });

  it('without a recent sample of the object the chunk is held, naming the body', () => {
    const s = tracked();
    s.tick(50);
    const before = s.toController.length;
    s.propose('never-seen', END);
    expect(s.results.at(-1)).toMatchObject({ verdict: 'held' });
    expect(s.results.at(-1)!.reason).toMatch(/tracked obstacle 'box' never seen/);
    expect(s.toController.slice(before).every((m) => m.points.length === 0)).toBe(true);

    const t = tracked();
    const box = publishBox(t);
    t.tick(50);
    box();
    t.tick(200); // 0.2 s without a sample > obstacle_max_age 0.1 s
    t.propose('stale', END);
    expect(t.results.at(-1)!.reason).toMatch(/tracked obstacle 'box' last seen 0\.2\d* s ago/);
  });
});

describe('gate_mode: baseline — the Franka baseline run', () => {
  it('forwards a proposed trajectory unfiltered (also one the CBF would change), screened for limits', () => {
    const s = setup({ gateMode: 'baseline' });
    s.tick(50);
    const end = [0, 0.8, 0, -2.356, 0, 2.5, 0.785]; // through the table: gating would filter or hold it
    s.propose('into-table', end);
    expect(s.results.at(-1)).toMatchObject({ verdict: 'executed', code: 'gate-off' });
    const sent = s.toController.at(-1)!;
    expect(sent.points).toHaveLength(20);
    sent.points.at(-1)!.positions.forEach((q, j) => expect(q).toBeCloseTo(end[j]!, 9));
    s.tick(5);
    s.propose(
      'beyond-limits',
      READY.map((q, j) => (j === 0 ? 3.5 : q)),
    );
    expect(s.results.at(-1)).toMatchObject({ verdict: 'rejected', code: 'beyond-limits' });
  });

  it('a clause violation is a recorded would-hold, not a hold sent to the controller; an e-stop is sent', () => {
    const s = setup({ gateMode: 'baseline' });
    s.tick(50);
    const before = s.toController.length;
    s.tick(20, [120, 5, 5, 5, 1, 1, 1]); // joint 1 beyond 87 N·m: joint_torque violated
    expect(s.parts.gate.state).toBe('hold');
    expect(s.toController.length).toBe(before); // no empty (hold) trajectory
    s.propose(
      'still-forwarded',
      READY.map((q, j) => (j === 0 ? q + 0.1 : q)),
    );
    expect(s.results.at(-1)).toMatchObject({ verdict: 'executed' });
    s.parts.pipeline.eStop(s.clock.now(), 'operator');
    s.tick(2, [120, 5, 5, 5, 1, 1, 1]);
    expect(s.toController.at(-1)!.points).toEqual([]); // the hold trajectory
    s.propose(
      'after-estop',
      READY.map((q, j) => (j === 0 ? q + 0.15 : q)),
    );
    expect(s.results.at(-1)).toMatchObject({ verdict: 'held' });
  });
});

describe('gate_mode: monitor — and the deprecated gating: false, read as monitor', () => {
  const parsed = (line: string) => {
    const r = parseFrankaNodeConfig(
      `armguard:\n  ros__parameters:\n    robot_id: fr3-test\n    task: libero-spatial-pick-bowl\n${line}`,
      'p.yaml',
    );
    if (!r.ok) throw new Error(r.errors.map((e) => e.message).join('\n'));
    return r.config;
  };
  for (const line of ['    gate_mode: monitor\n', '    gating: false\n', '']) {
    it(`${line.trim() || '(neither parameter: the default)'}: a clause violation sends the controller a hold; proposed trajectories are not taken`, () => {
      const c = parsed(line);
      expect(c.gateMode).toBe('monitor');
      const s = setup({ gateMode: c.gateMode });
      s.tick(50);
      const before = s.toController.length;
      s.tick(20, [120, 5, 5, 5, 1, 1, 1]); // joint 1 beyond 87 N·m: joint_torque violated
      expect(s.parts.gate.state).toBe('hold');
      expect(s.toController.length).toBeGreaterThan(before);
      expect(s.toController.at(-1)!.points).toEqual([]); // the hold trajectory
      const results = s.results.length;
      s.propose(
        'not-ours',
        READY.map((q, j) => (j === 0 ? q + 0.1 : q)),
      );
      expect(s.results.length).toBe(results); // no ~/proposed_trajectory subscription: the policy drives the controller
    });
  }
});
