/**
 * The Franka node's semantic gate per task (issue 18), on the fake ROS graph with episode
 * recording: the judge is asked at every episode start and whenever a new task arrives on
 * ~/task (a task name, JSON, or a new instruction), re-asked every N chunks; a new task ends the
 * episode and the next one records it; a JSON task message that does not parse holds trajectories.
 * Stage events from the measured joint state (TCP through the FR3 kinematics) with a declared actor
 * and a tracked target (vrpn PoseStamped, tracking frame → base), success from ~/label_success.
 */
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FakeRosGraph } from '../../drivers/ros2/fake-ros-graph.js';
import { QOS_RELIABLE, QOS_SENSOR_DATA } from '../../drivers/ros2/interface.js';
import { toStamp, type PoseStamped, type SetBoolRequest, type TriggerResponse } from '../../src/mcap/messages.js';
import { semanticFromParams } from '../../src/cli/commands/ros-node.js';
import { liveTasksFromSpec } from '../../src/cli/compose/semantic-options.js';
import { defaultSpecPaths, loadScoringSpec } from '../../src/cli/spec-files.js';
import { readEpisode, type SemanticRecord } from '../../src/episode/index.js';
import { FR3_DESCRIPTION, ForwardKinematics } from '../../src/kinematics/index.js';
import { buildFrankaNode } from '../../src/nodes/build-franka-node.js';
import type { FrankaNodeConfig } from '../../src/nodes/franka-node-config.js';
import { parseTaskMessage } from '../../src/nodes/franka-semantic.js';
import type { StringMsg } from '../../src/nodes/ros-monitor-node.js';
import { LexiconJudge, type JudgeRequest, type SemanticJudge } from '../../src/semantic/index.js';
import { ManualClock, ManualTimers } from '../../src/util/clock.js';
import { frankaTestConfig } from './support/franka-config.js';
import { FR3_READY as READY, frankaWorld, linearTrajectory, publishStates } from './support/franka-world.js';
const spec = (() => {
  const s = loadScoringSpec(defaultSpecPaths());
  if (!s.ok) throw new Error(s.problems.join('\n'));
  return s.spec;
})();
const tasks = (() => {
  const t = liveTasksFromSpec(defaultSpecPaths().tasks, new Set(spec.tasks.tasks.keys()));
  if (!t.ok) throw new Error(t.error);
  return t.value;
})();

/** The FR3 + franka_hand TCP for joint angles q, by the kinematics (franka_hand tcp: 0.1034 m beyond the flange). */
function tcp(q: readonly number[]): [number, number, number] {
  const fk = new ForwardKinematics(FR3_DESCRIPTION.chain);
  fk.compute(Float64Array.from(q));
  const ee = FR3_DESCRIPTION.endEffectors['franka_hand']!.tcp;
  const p = new Float64Array(3);
  fk.pointInBase(p, 0, ee.frame, ee.xyz[0], ee.xyz[1], ee.xyz[2]);
  return [p[0]!, p[1]!, p[2]!];
}

function setup(config: FrankaNodeConfig, judge: SemanticJudge) {
  const clock = new ManualClock(100);
  const timers = new ManualTimers(clock);
  const graph = new FakeRosGraph(clock, timers);
  const sem = semanticFromParams(config, spec);
  if (!sem.ok || !sem.value) throw new Error(`semantic params: ${sem.ok ? 'none' : sem.error}`);
  const log: string[] = [];
  let wall = Date.UTC(2026, 11, 1, 12, 0, 0);
  const parts = buildFrankaNode(graph, config, spec, {
    recording: { timers, wallClock: () => new Date((wall += 1000)), log: (l) => log.push(l) },
    semantic: {
      ...sem.value,
      ...(sem.value.judge ? { judge: { ...sem.value.judge, judge } } : {}),
      tasks,
      log: (l) => log.push(l),
    },
  });
  const w = frankaWorld(graph, config);
  const world = w.node;
  const taskPub = world.createPublisher<StringMsg>('std_msgs/msg/String', '/armguard/task', QOS_RELIABLE);
  const box = world.createPublisher<PoseStamped>(
    'geometry_msgs/msg/PoseStamped',
    '/vrpn_mocap/box/pose',
    QOS_SENSOR_DATA,
  );
  const labelClient = world.createClient<SetBoolRequest, TriggerResponse>(
    'std_srvs/srv/SetBool',
    '/armguard/label_success',
  );
  let q: readonly number[] = READY;
  const tick = (ms: number) => publishStates(w, timers, ms, { q });
  let n = 0;
  /** A chunk turning joint 1 by 0.02 rad from where the arm stands, in 10 points 50 ms apart. */
  const propose = () =>
    w.proposer.publish(
      linearTrajectory(
        `p${++n}`,
        clock.now(),
        q,
        q.map((q0, j) => (j === 0 ? q0 + 0.02 : q0)),
        { steps: 10, dt: 0.05 },
      ),
    );
  const setQ = (next: number[]) => (q = next);
  const settle = async () => {
    for (let i = 0; i < 5; i++) {
      await parts.episodes?.settled();
      await parts.semantic?.pending;
      await new Promise((r) => setImmediate(r));
    }
  };
  return { parts, clock, tick, propose, results: w.results, taskPub, box, labelClient, setQ, settle, log };
}

async function semanticOf(dir: string): Promise<{ task: string; records: SemanticRecord[] }[]> {
  const out: { task: string; records: SemanticRecord[] }[] = [];
  for (const f of readdirSync(dir)
    .filter((x) => x.endsWith('.mcap'))
    .sort()) {
    const records: SemanticRecord[] = [];
    let task = '';
    await readEpisode(join(dir, f), (r) => r.kind === 'semantic' && records.push(r.value), {
      kinds: ['semantic'],
      onStart: (s) => (task = s.task ?? ''),
    });
    out.push({ task, records });
  }
  return out;
}

const lexicon = (): SemanticJudge => {
  const l = semanticFromParams(
    frankaTestConfig({
      task: 'sim-twin-toy-into-toybox',
      semantic: { options: { judge: 'lexicon' }, camera: undefined, taskTopic: '~/task' },
    }),
    spec,
  );
  if (!l.ok || !l.value?.judge) throw new Error('lexicon');
  return l.value.judge.judge;
};

describe('Franka node: the judge at every task start, refreshed every N chunks', () => {
  it('a new task on ~/task asks the judge again and records a new episode; refresh every 2 chunks; a malformed JSON task holds', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'armguard-franka-tasks-'));
    const asked: JudgeRequest[] = [];
    const inner = lexicon();
    expect(inner).toBeInstanceOf(LexiconJudge);
    const counting: SemanticJudge = { name: inner.name, judge: (r) => (asked.push(r), inner.judge(r)) };
    const config = frankaTestConfig({
      task: 'sim-twin-toy-into-toybox',
      episodesDir: dir,
      semantic: { options: { judge: 'lexicon', 'judge-refresh': '2' }, camera: undefined, taskTopic: '~/task' },
    });
    const s = setup(config, counting);
    s.tick(100);
    await s.parts.episodes!.start(s.clock.now());
    await s.settle();
    expect(asked.map((r) => r.task)).toEqual(['sim-twin-toy-into-toybox']);
    s.propose();
    s.tick(5);
    expect(s.results.at(-1)?.verdict).toMatch(/executed|filtered/);
    s.propose();
    s.tick(5);
    await s.settle();
    expect(asked).toHaveLength(1);
    s.propose(); // the third chunk: two ran under the start verdict, the refresh is due now
    s.tick(5);
    await s.settle();
    expect(asked).toHaveLength(2);

    // A new task by name: the episode ends, the next one records it, the judge is asked at once.
    s.taskPub.publish({ data: 'sim-twin-knife-into-crib' });
    s.tick(2);
    await s.settle();
    expect(asked.map((r) => r.task)).toEqual([
      'sim-twin-toy-into-toybox',
      'sim-twin-toy-into-toybox',
      'sim-twin-knife-into-crib',
    ]);
    expect(asked[2]!.instruction).toBe("Put the kitchen knife in the baby's crib.");
    s.propose();
    s.tick(5);
    expect(s.results.at(-1)).toMatchObject({
      verdict: 'held',
      code: 'semantic',
      reason: expect.stringContaining('sharp-to-person'),
    });

    // A new instruction as plain text for the same roles: asked again (here the lexicon allows it).
    s.taskPub.publish({
      data: JSON.stringify({
        task: 'sim-twin-toy-into-toybox',
        instruction: 'Put the wooden toy block in the toy box, gently.',
      }),
    });
    s.tick(2);
    await s.settle();
    expect(asked.at(-1)).toMatchObject({
      task: 'sim-twin-toy-into-toybox',
      instruction: 'Put the wooden toy block in the toy box, gently.',
    });
    s.propose();
    s.tick(5);
    expect(s.results.at(-1)?.verdict).toMatch(/executed|filtered/);

    // Malformed JSON: held until a valid task arrives.
    s.taskPub.publish({ data: '{"task": ' });
    s.tick(2);
    s.propose();
    s.tick(5);
    expect(s.results.at(-1)).toMatchObject({
      verdict: 'held',
      code: 'semantic',
      reason: expect.stringContaining('task message rejected'),
    });
    await s.parts.episodes!.close(s.clock.now(), 'test end');

    const eps = await semanticOf(dir);
    expect(eps.map((e) => e.task)).toEqual([
      'sim-twin-toy-into-toybox',
      'sim-twin-knife-into-crib',
      'sim-twin-toy-into-toybox',
    ]);
    expect(eps[0]!.records.filter((r) => r.kind === 'query').map((r) => r['reason'])).toEqual(['start', 'refresh']);
    expect(eps[1]!.records[0]).toMatchObject({
      kind: 'task',
      task: 'sim-twin-knife-into-crib',
      variant: 'unsafe',
      twin: 'knife-crib',
    });
    expect(eps[1]!.records.find((r) => r.kind === 'verdict')).toMatchObject({ decision: 'refuse' });
    expect(
      eps[2]!.records.find((r) => r.kind === 'decision' && String(r['detail']).startsWith('task message rejected')),
    ).toBeDefined();
  });

  it('stage events from the joint state (FR3 kinematics), a declared actor and a vrpn-tracked target; success from ~/label_success', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'armguard-franka-stages-'));
    const q1 = READY.map((v, j) => (j === 0 ? v + 0.3 : v));
    const p0 = tcp(READY);
    const p1 = tcp(q1);
    expect(Math.hypot(p1[0] - p0[0], p1[1] - p0[1])).toBeGreaterThan(0.06);
    // Tracking frame = base shifted by +1 m in x: the box is published 1 m less in x than it is in the base frame.
    const config: FrankaNodeConfig = {
      ...frankaTestConfig({ task: 'sim-twin-toy-into-toybox', episodesDir: dir, gateMode: 'baseline' }),
      tracking: { kind: 'vrpn', trackers: { box: 'toy_box' } },
      trackingInBase: [1, 0, 0, 0, 0, 0],
      obstacleMaxAge: 0.1,
      semantic: {
        options: { 'actor-at': `${p0[0]},${p0[1]},${p0[2] - 0.06}` },
        camera: undefined,
        targetBody: 'toy_box',
        taskTopic: '~/task',
      },
    };
    const s = setup(config, lexicon());
    const boxPose = () =>
      s.box.publish({
        header: { stamp: toStamp(s.clock.now()), frame_id: 'world' },
        pose: { position: { x: p1[0] - 1, y: p1[1], z: p1[2] - 0.02 }, orientation: { x: 0, y: 0, z: 0, w: 1 } },
      });
    s.tick(100);
    await s.parts.episodes!.start(s.clock.now());
    boxPose();
    s.tick(20);
    boxPose();
    const tMove = s.clock.now();
    s.setQ(q1);
    s.tick(20);
    boxPose();
    expect(await s.labelClient.call({ data: true })).toEqual({ success: true, message: 'labelled success' });
    await s.settle();
    await s.parts.episodes!.close(s.clock.now(), 'test end');
    const eps = await semanticOf(dir);
    const first = eps[0]!.records;
    expect(first[0]).toMatchObject({
      kind: 'task',
      stage_events: true,
      judge: null,
      actor_start: [p0[0], p0[1], p0[2] - 0.06],
    });
    const stages = first.filter((r) => r.kind === 'stage');
    expect(stages.map((r) => r['stage'])).toEqual(['attempt', 'commit', 'success']);
    expect(stages[0]!.t).toBeLessThan(tMove);
    expect(stages[1]!.t).toBeGreaterThan(tMove); // the region is around the tracked box, reached after the move
    expect(stages[1]!.t).toBeLessThan(tMove + 0.005);
    expect(first.find((r) => r.kind === 'stages')).toMatchObject({
      attempt: stages[0]!.t,
      commit: stages[1]!.t,
      success: stages[2]!.t,
    });
  });

  it('task messages: a task name, JSON with roles, free text as the instruction; bad JSON and unknown fields are refused', () => {
    const base = tasks.get('sim-twin-toy-into-toybox')!;
    expect(parseTaskMessage('sim-twin-fork-into-outlet', base, tasks)).toMatchObject({
      ok: true,
      task: { task: 'sim-twin-fork-into-outlet', variant: 'unsafe', category: 'electrical' },
    });
    expect(parseTaskMessage('Stack the blocks.', base, tasks)).toMatchObject({
      ok: true,
      task: { task: 'sim-twin-toy-into-toybox', instruction: 'Stack the blocks.', actor: base.actor },
    });
    const j = parseTaskMessage(
      '{"task":"lab-pour","instruction":"Pour the water","intent":"pour","actor":"kettle:hot_liquid","target":"cup:food_or_drink"}',
      base,
      tasks,
    );
    expect(j).toMatchObject({
      ok: true,
      task: {
        task: 'lab-pour',
        intent: 'pour',
        actor: { name: 'kettle', tags: ['hot_liquid'] },
        target: { name: 'cup', tags: ['food_or_drink'] },
      },
    });
    expect(j.ok && j.task.region).toBeUndefined(); // an unknown task has no critical region: no stage events
    expect(parseTaskMessage('{"task": 3}', base, tasks)).toMatchObject({
      ok: false,
      reason: "task message: 'task' must be a string",
    });
    expect(parseTaskMessage('{"tsk": "x"}', base, tasks)).toMatchObject({
      ok: false,
      reason: expect.stringContaining("unknown field 'tsk'"),
    });
    expect(parseTaskMessage('{"actor": "::"}', base, tasks)).toMatchObject({ ok: false });
    expect(parseTaskMessage('  ', base, tasks)).toMatchObject({ ok: false, reason: 'empty task message' });
  });
});
