/**
 * Start-up of the Franka node on the FAKE graph, which matches endpoints one pair at a time as a
 * real graph does (issue 19): the robot state arrives before the gripper. The node is held
 * (chunks refused) until every required signal has been seen fresh, then arms without a release;
 * a signal lost later latches; a start-up that runs out of time fails naming what never came.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock, ManualTimers } from '../../src/util/clock.js';
import { FakeRosGraph } from '../../drivers/ros2/fake-ros-graph.js';
import { QOS_LATCHED, QOS_RELIABLE } from '../../drivers/ros2/interface.js';
import { toStamp, type DiagnosticArray } from '../../src/mcap/messages.js';
import type { StringMsg } from '../../src/nodes/ros-monitor-node.js';
import { buildFrankaNode } from '../../src/nodes/build-franka-node.js';
import { serveFrankaNode } from '../../src/cli/commands/ros-node.js';
import { frankaTestConfig } from './support/franka-config.js';
import { frankaWorld } from './support/franka-world.js';
import { defaultSpecPaths, loadScoringSpec } from '../../src/cli/spec-files.js';
import { gripperState, robotState } from '../drivers/franka/support/franka-messages.js';

const READY = [0, -0.785, 0, -2.356, 0, 1.571, 0.785];
const JOINTS = ['fr3_joint1', 'fr3_joint2', 'fr3_joint3', 'fr3_joint4', 'fr3_joint5', 'fr3_joint6', 'fr3_joint7'];
const spec = (() => {
  const s = loadScoringSpec(defaultSpecPaths());
  if (!s.ok) throw new Error(s.problems.join('\n'));
  return s.spec;
})();

function world(graph: FakeRosGraph, clock: ManualClock, timers: ManualTimers) {
  const config = frankaTestConfig();
  const world = frankaWorld(graph, config);
  const { node: w, state, gripper, proposer, toController, results } = world;
  const gateStates: string[] = [];
  const diagnostics: DiagnosticArray[] = [];
  w.createSubscription<DiagnosticArray>('diagnostic_msgs/msg/DiagnosticArray', '/diagnostics', QOS_RELIABLE, (m) =>
    diagnostics.push(m),
  );
  w.createSubscription<StringMsg>('std_msgs/msg/String', '/armguard/gate_state', QOS_LATCHED, (m) =>
    gateStates.push(m.data),
  );
  /** `ms` milliseconds at 1 kHz; the gripper publishes only when `withGripper`. */
  const tick = (ms: number, withGripper: boolean) => {
    for (let i = 0; i < ms; i++) {
      timers.advance(0.001);
      state.publish(robotState(clock.now(), { q: READY, tau: [5, 5, 5, 5, 1, 1, 1] }));
      if (withGripper) gripper.publish(gripperState(clock.now(), 0.08));
    }
  };
  const propose = (id: string) => {
    const points = Array.from({ length: 10 }, (_, k) => ({
      positions: READY.map((q, j) => (j === 0 ? q + (0.05 * (k + 1)) / 10 : q)),
      velocities: [],
      accelerations: [],
      effort: [],
      time_from_start: toStamp((k + 1) * 0.05),
    }));
    proposer.publish({ header: { stamp: toStamp(clock.now()), frame_id: id }, joint_names: JOINTS, points });
  };
  return { tick, propose, toController, results, gateStates, diagnostics };
}

describe('Franka node start-up phase (fake graph, discovery in order)', () => {
  it('held while the gripper has not been seen (chunks refused, no latched missing-signal hold), then armed without a release', () => {
    const clock = new ManualClock(100);
    const timers = new ManualTimers(clock);
    const graph = new FakeRosGraph(clock, timers);
    const parts = buildFrankaNode(graph, frankaTestConfig(), spec);
    const w = world(graph, clock, timers);
    expect(parts.gate.starting).toBe(true);
    w.tick(200, false); // robot state matched and flowing; the gripper driver not up yet
    expect(parts.gate.state).toBe('hold');
    expect(parts.gate.starting).toBe(true);
    expect(parts.gate.holdCause?.kind).toBe('starting');
    expect(parts.gate.neverSeen()).toEqual(['gripper_contact']);
    expect(w.gateStates.at(-1)).toMatch(/^hold: starting: waiting for every required signal/);
    expect(w.diagnostics.at(-1)!.status[0]).toMatchObject({
      level: 1,
      message: 'starting: waiting for gripper_contact',
      values: [{ key: 'state', value: 'starting' }],
    });
    const before = w.toController.length;
    w.propose('during-start-up');
    expect(w.results.at(-1)).toMatchObject({ verdict: 'held' });
    expect(w.toController.slice(before).every((m) => m.points.length === 0)).toBe(true);

    w.tick(20, true); // the gripper appears
    expect(parts.gate.state).toBe('armed');
    expect(w.gateStates.at(-1)).toBe('armed: every required signal seen fresh: armed');
    w.propose('armed');
    expect(w.results.at(-1)).toMatchObject({ verdict: 'executed' });
    expect(w.toController.at(-1)!.points).toHaveLength(10);
  });

  it('a required signal lost after arming latches a hold that needs a release, as before', () => {
    const clock = new ManualClock(100);
    const timers = new ManualTimers(clock);
    const graph = new FakeRosGraph(clock, timers);
    const parts = buildFrankaNode(graph, frankaTestConfig(), spec);
    const w = world(graph, clock, timers);
    w.tick(100, true);
    expect(parts.gate.state).toBe('armed');
    w.tick(300, false); // the gripper goes silent
    expect(parts.gate.state).toBe('hold');
    expect(parts.gate.holdCause).toMatchObject({ kind: 'stale-signal', signal: 'gripper_contact' });
    w.tick(50, true);
    expect(parts.gate.state).toBe('hold');
    expect(parts.pipeline.release(clock.now(), { by: 'test', authorised: true })).toEqual({ ok: true });
  });

  it('start-up that runs out of startup_timeout fails: the node exits non-zero naming the signals never seen', async () => {
    const clock = new ManualClock(100);
    const timers = new ManualTimers(clock);
    const graph = new FakeRosGraph(clock, timers);
    const errs: string[] = [];
    const running = serveFrankaNode(
      graph,
      frankaTestConfig({ startupTimeout: 0.5 }),
      spec,
      { out: () => undefined, err: (l) => errs.push(l) },
      new Promise<string>(() => undefined),
      timers,
    );
    await new Promise((r) => setImmediate(r));
    const w = world(graph, clock, timers);
    w.tick(600, false);
    expect(await running).toBe(1);
    expect(errs.join('\n')).toMatch(/start-up failed: required signals never seen within 0\.5 s: gripper_contact/);
    expect(() => graph.createNode('after')).toThrow(/shut down/);
  });
});
