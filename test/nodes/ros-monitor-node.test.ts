/**
 * The ROS 2 monitor node over the in-process FAKE ROS graph: Franka robot states in, robustness,
 * diagnostics and gate state out, holds on a torque violation and a reflex, release service
 * refused while the cause persists. The same node code runs on rclnodejs on a ROS 2 machine.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ManualClock, ManualTimers } from '../../src/util/clock.js';
import { FakeRosGraph } from '../../drivers/ros2/fake-ros-graph.js';
import { QOS_LATCHED, QOS_RELIABLE } from '../../drivers/ros2/interface.js';
import type { DiagnosticArray, JointTrajectory, TriggerResponse } from '../../src/mcap/messages.js';
import { toStamp } from '../../src/mcap/messages.js';
import { FrankaRos } from '../../drivers/franka/franka-ros.js';
import { ROBOT_MODE, type FrankaRobotState } from '../../drivers/franka/messages.js';
import { parseClauseLibrary, instantiateClause } from '../../src/safety/index.js';
import { MonitorBank } from '../../src/runtime/monitor-bank.js';
import { Pipeline } from '../../src/runtime/pipeline.js';
import { Gate, DEFAULT_GATE_CONFIG } from '../../src/gate/index.js';
import {
  RosMonitorNode,
  type Float64MultiArray,
  type MonitorNodeOptions,
  type StringMsg,
} from '../../src/nodes/ros-monitor-node.js';
import { repoRoot } from '../support/paths.js';
import { robotState } from '../drivers/franka/support/franka-messages.js';

function setup(hooks: Pick<MonitorNodeOptions, 'onStep'> = {}) {
  const clock = new ManualClock(100);
  const timers = new ManualTimers(clock);
  const graph = new FakeRosGraph(clock, timers);
  const armguard = graph.createNode('armguard');
  const franka = new FrankaRos(armguard);
  const lib = parseClauseLibrary(readFileSync(join(repoRoot, 'spec/clauses.yaml'), 'utf8'), 'spec/clauses.yaml');
  if (!lib.ok) throw new Error(lib.error.map((e) => e.message).join('\n'));
  const torqueClause = lib.value.clauses.find((c) => c.id === 'joint_torque');
  if (!torqueClause) throw new Error('joint_torque clause missing from the library');
  const bank = MonitorBank.fromClauses([instantiateClause(torqueClause)]);
  const gate = new Gate({ ...DEFAULT_GATE_CONFIG, requiredSignals: bank.requiredSignals, startup: true });
  const pipeline = new Pipeline({ source: franka, monitors: bank, gate, sink: franka, watchdogTimeout: 0.1 });
  const node = new RosMonitorNode(armguard, pipeline, gate, bank, {
    robotId: 'fr3-lab',
    jointNames: franka.jointNamesList,
    gating: true,
    diagnosticsRate: 10,
    idleStepRate: 100,
    ...hooks,
  });
  franka.onSample(() => node.sample());

  const observer = graph.createNode('observer');
  const diagnostics: DiagnosticArray[] = [];
  const robustness: Float64MultiArray[] = [];
  const gateStates: string[] = [];
  const toController: JointTrajectory[] = [];
  observer.createSubscription<DiagnosticArray>(
    'diagnostic_msgs/msg/DiagnosticArray',
    '/diagnostics',
    QOS_RELIABLE,
    (m) => diagnostics.push(m),
  );
  observer.createSubscription<Float64MultiArray>(
    'std_msgs/msg/Float64MultiArray',
    '/armguard/robustness',
    QOS_RELIABLE,
    (m) => robustness.push(m),
  );
  observer.createSubscription<StringMsg>('std_msgs/msg/String', '/armguard/gate_state', QOS_LATCHED, (m) =>
    gateStates.push(m.data),
  );
  observer.createSubscription<JointTrajectory>(
    'trajectory_msgs/msg/JointTrajectory',
    '/fr3_arm_controller/joint_trajectory',
    QOS_RELIABLE,
    (m) => toController.push(m),
  );
  const release = observer.createClient<Record<string, never>, TriggerResponse>(
    'std_srvs/srv/Trigger',
    '/armguard/release',
  );
  const statePub = graph
    .createNode('franka_robot_state_broadcaster')
    .createPublisher<FrankaRobotState>(
      'franka_msgs/msg/FrankaRobotState',
      '/franka_robot_state_broadcaster/robot_state',
      QOS_RELIABLE,
    );
  timers.advance(0.1); // discovery: every endpoint pair above matches, one after another
  /** Publish robot states at 1 kHz for `ms` milliseconds with joint-5 torque `tau5`. */
  const run = (ms: number, tau5: number, mode: number = ROBOT_MODE.MOVE) => {
    for (let i = 0; i < ms; i++) {
      timers.advance(0.001);
      statePub.publish(robotState(clock.now(), { tau: [0, 0, 0, 0, tau5, 0, 0], mode }));
    }
  };
  return { run, timers, node, gate, diagnostics, robustness, gateStates, toController, release, graph };
}

describe('armguard ROS 2 monitor node (fake graph)', () => {
  it('a diagnostics publish that throws (a failing graph) holds the gate instead of throwing out of the ROS timer', () => {
    const s = setup();
    s.run(50, 6);
    expect(s.gate.state).toBe('armed');
    s.graph
      .createNode('bad-listener')
      .createSubscription<DiagnosticArray>('diagnostic_msgs/msg/DiagnosticArray', '/diagnostics', QOS_RELIABLE, () => {
        throw new Error('transport down');
      });
    expect(() => s.timers.advance(0.2)).not.toThrow(); // two diagnostics periods at 10 Hz
    expect(s.gate.state).toBe('hold');
    expect(s.gateStates.at(-1)).toMatch(/diagnostics publish threw: transport down/);
  });

  it('a recording hook that throws holds the gate with the reason instead of throwing out of the ROS callback', () => {
    let calls = 0;
    const s = setup({
      onStep: () => {
        if (++calls === 60) throw new Error('disk gone');
      },
    });
    s.run(1, 6); // past the idle steps that ran while discovery did
    const before = calls;
    expect(() => s.run(100, 6)).not.toThrow();
    expect(calls - before).toBe(100);
    expect(s.gate.state).toBe('hold');
    expect(s.gateStates.at(-1)).toMatch(/step hook threw: disk gone/);
  });
  it('publishes robustness and diagnostics; a wrist torque over its 12 N·m limit holds the arm', async () => {
    const s = setup();
    s.run(200, 6); // 6 N·m on a 12 N·m joint: half the limit
    expect(s.gate.state).toBe('armed');
    const last = s.robustness.at(-1)!;
    expect(last.layout.dim.map((d) => d.label)).toEqual(['joint_torque']);
    expect(last.data[0]).toBeCloseTo(0.5, 9); // ρ/τ = (87 − 43.5)/87
    expect(s.diagnostics.at(-1)!.status.map((x) => x.name)).toEqual(['armguard: gate', 'armguard: joint_torque']);
    s.run(5, 12.5);
    expect(s.gate.state).toBe('hold');
    expect(s.gateStates.at(-1)).toMatch(/^hold: clause joint_torque violated/);
    expect(s.toController.at(-1)!.points).toEqual([]); // JTC holds current position
    expect((await s.release.call({})).success).toBe(false);
    s.run(50, 6);
    expect(await s.release.call({})).toEqual({ success: true, message: 'released' });
    expect(s.gate.state).toBe('armed');
    expect(s.graph.qosMismatches).toEqual([]);
  });

  it('a reflex in the robot state holds the gate with the robot mode as cause', () => {
    const s = setup();
    s.run(20, 1);
    s.run(1, 1, ROBOT_MODE.REFLEX);
    expect(s.gate.state).toBe('hold');
    expect(s.gate.holdCause).toMatchObject({ kind: 'driver-fault', fault: { kind: 'robot-mode', mode: 'REFLEX' } });
  });

  it('robot states that stop arriving hold the arm (idle steps run the watchdog)', () => {
    const s = setup();
    s.run(20, 1);
    expect(s.gate.state).toBe('armed');
    s.timers.advance(0.5); // the broadcaster goes silent
    expect(s.gate.state).toBe('hold');
    expect(['watchdog', 'stale-signal']).toContain(s.gate.holdCause?.kind);
    expect(s.toController.at(-1)!.points).toEqual([]);
  });

  it('a malformed proposed trajectory is refused and never reaches the controller', () => {
    const s = setup();
    s.run(20, 1);
    const before = s.toController.length;
    const proposer = s.graph
      .createNode('policy')
      .createPublisher<JointTrajectory>(
        'trajectory_msgs/msg/JointTrajectory',
        '/armguard/proposed_trajectory',
        QOS_RELIABLE,
      );
    s.run(50, 1); // discovery of the new publisher
    proposer.publish({ header: { stamp: toStamp(100.1), frame_id: 'c1' }, joint_names: ['fr3_joint1'], points: [] });
    expect(s.node.refusedTrajectories).toBe(1);
    expect(s.node.lastRefusal).toBe('trajectory has no points');
    expect(s.toController.length).toBe(before);
  });
});
