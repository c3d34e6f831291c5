/**
 * rosbag2 replay for Franka recordings (design §10): messages from the bag are published into an
 * in-process FAKE ROS graph whose clock follows the bag's log time, and the same code as the live
 * node consumes them — the Franka rig (src/rigs/franka.ts: FrankaRos, mapping, clause monitors)
 * handed to the session every platform runs, stepped by the monitor node.
 * What comes out is what the live node would have done: per-clause margins, violations and holds.
 */
import type { ScoringSpec } from '../safety/index.js';
import { ClauseCoverageCounter, type ClauseCoverage } from '../schema/clause-coverage.js';
import { ManualClock, ManualTimers } from '../util/clock.js';
import { describeCause, type GateEvent } from '../gate/index.js';
import { Session } from '../runtime/session.js';
import { FakeRosGraph } from '../../drivers/ros2/fake-ros-graph.js';
import { QOS_RELIABLE, QOS_SENSOR_DATA, type RosNode, type RosPublisher } from '../../drivers/ros2/interface.js';
import { scanBag, type BagMessage, type BagSummary, type ByteSource } from '../mcap/index.js';
import type { FrankaEndEffector } from '../kinematics/index.js';
import { FRANKA_TOPICS } from '../../drivers/franka/messages.js';
import { frankaRig, planFrankaMonitors, type FrankaRigOptions } from '../rigs/franka.js';
import { RosMonitorNode } from './ros-monitor-node.js';

/** A jump in log time longer than this (s) ends the replay (one hour of idle steps is 360,000 steps). */
export const MAX_LOG_TIME_GAP_S = 3600;

export interface FrankaReplayOptions {
  spec: ScoringSpec;
  /** Platform profile id (fr3 or panda): also picks the arm's description (joint limits, volumes). */
  platform: 'fr3' | 'panda';
  /** What was fitted on the flange when the bag was recorded (default franka_hand, franka_description's default). */
  endEffector?: FrankaEndEffector;
  /** Task id from the task map (decides the applicable clauses). */
  task: string;
  robotStateTopic?: string;
  gripperTopic?: string;
  /** Keep every active clause's normalised margin at every robot-state sample (`FrankaReplayReport.margins`). */
  keepMargins?: boolean;
}

/** `evaluatedSteps` counts robot-state samples; `missing`, the samples each signal was missing or invalid at (src/schema/clause-coverage.ts). */
export interface ClauseReplay extends ClauseCoverage {
  id: string;
  active: boolean;
  explanation: string;
  /** Smallest normalised margin ρ/|τ| over the replay (active clauses). */
  minMargin: number;
  /** Header stamp (s from the first message's log time) of the first violating robot state, or null. */
  firstViolation: number | null;
  violatingSteps: number;
}

export interface FrankaReplayReport {
  /** The arm description and end effector the robot states were mapped with. */
  arm: { robot: string; endEffector: FrankaEndEffector };
  /** Over all parts of the bag: message count, per-topic counts, and the first part that did not end complete (else complete). */
  bag: Pick<BagSummary, 'messageCount' | 'end'> & { topics: { topic: string; type: string; count: number }[] };
  /** Per part of a split bag, in replay order: messages read and how the file ended. */
  parts: { messageCount: number; end: BagSummary['end'] }[];
  /** The robot-state topic the replay listened to (no samples on it = nothing was evaluated). */
  robotStateTopic: string;
  duration: number;
  steps: number;
  clauses: ClauseReplay[];
  gateEvents: { t: number; from: string; to: string; cause: string }[];
  /** Messages that could not be decoded (not replayed), per topic, with the first reason. */
  undecodable: { topic: string; count: number; firstError: string }[];
  /**
   * The replay stopped at a jump in log time longer than MAX_LOG_TIME_GAP_S (records on a second
   * time base, e.g. a Unix-time record in a file on a monotonic clock): the messages from there on
   * were not replayed. Stepping the idle timers through such a gap would take years.
   */
  stoppedAtGap?: { t: number; gapSeconds: number; topic: string; messagesNotReplayed: number };
  /** Wall-clock cost per step (sample → signals → clauses → gate), for benchmarks. */
  stepTimes?: Float64Array;
  /** With `keepMargins`: per active clause, ρ/|τ| at each robot-state sample (NaN where not evaluated). */
  margins?: Record<string, Float64Array>;
}

/**
 * `source`: one MCAP file's bytes, or `{ parts }` — the files of a split bag in recording order
 * (src/platform/bag-files.ts's bagFiles), replayed one after the other on one clock.
 */
export async function replayFrankaBag(
  source: ByteSource | { readonly parts: readonly ByteSource[] },
  options: FrankaReplayOptions,
  timing?: { now(): number },
): Promise<FrankaReplayReport> {
  // Monitor only (no barrier: no chunks), armed from the start (no start-up phase). The Panda's own
  // description for a Panda bag (joint limits differ from the FR3's), with the end effector that was fitted.
  const rigOptions: FrankaRigOptions = {
    spec: options.spec,
    platform: options.platform,
    endEffector: options.endEffector ?? 'franka_hand',
    task: options.task,
    startup: false,
    topics: {
      ...(options.robotStateTopic ? { robotState: options.robotStateTopic } : {}),
      ...(options.gripperTopic ? { gripper: options.gripperTopic } : {}),
    },
  };
  const plan = planFrankaMonitors(rigOptions);
  const { decisions, active, bank } = plan;

  // The graph's clock reads seconds since the bag's first log time (its time base, RosTimeBase):
  // Unix-epoch ns as float seconds would put window and max-age edges at the mercy of rounding, and
  // timers created at 0 would have to fire for every period since 1970.
  const clock = new ManualClock(0);
  const timers = new ManualTimers(clock);
  let graph: FakeRosGraph | undefined;
  let playback: RosNode | undefined;
  const minMargin = new Float64Array(bank.count).fill(Infinity);
  const firstViolation: (number | null)[] = new Array<number | null>(bank.count).fill(null);
  const violating = new Int32Array(bank.count);
  // per robot-state sample (the bank's own count includes the idle steps between samples)
  const coverage = new ClauseCoverageCounter(Array.from({ length: bank.count }, (_, i) => bank.clauseSignals(i)));
  const events: GateEvent[] = [];
  let steps = 0;
  /** The first log time (ns), the graph's time origin; undefined before the first message. */
  let originNs: bigint | undefined;
  const stepTimes: number[] = [];
  const kept: number[][] | undefined = options.keepMargins ? Array.from({ length: bank.count }, () => []) : undefined;

  const start = (firstLogTime: bigint): void => {
    originNs = firstLogTime;
    // Decoded bag messages are published once and never touched again: no defensive copies.
    graph = new FakeRosGraph(clock, timers, {
      delivery: 'as-published',
      discovery: 'immediate',
      originNs: firstLogTime,
    });
    playback = graph.createNode('rosbag2_player');
    const { rig, franka } = frankaRig(graph.createNode('armguard'), rigOptions, plan);
    const session = new Session({ rig, gating: false, task: options.task, log: () => undefined });
    const { gate, pipeline } = session;
    const node = new RosMonitorNode(graph.createNode('armguard_monitor'), session, gate, bank, {
      robotId: 'replay',
      jointNames: franka.jointNamesList,
      gating: false,
      diagnosticsRate: 1,
      idleStepRate: 100,
    });
    gate.onEvent((e) => events.push(e));
    franka.onSample(() => {
      const w0 = timing?.now();
      node.sample();
      if (timing && w0 !== undefined) stepTimes.push(timing.now() - w0);
      // A robot state whose stamp is not after the last one monitored (a repeat, or a clock fault the
      // gate holds on) brought no sample: nothing new to count.
      if (!pipeline.sampled) return;
      steps++;
      coverage.step(pipeline.frame.validity);
      for (let i = 0; i < bank.count; i++) {
        // A clause with a missing or invalid signal was not evaluated (the bank did not feed it): no verdict.
        if (!coverage.evaluatedNow(i)) {
          kept?.[i]!.push(NaN);
          continue;
        }
        const m = bank.margin(i);
        kept?.[i]!.push(m);
        if (m < minMargin[i]!) minMargin[i] = m;
        if (m < 0) {
          violating[i]!++;
          if (firstViolation[i] === null) firstViolation[i] = pipeline.frame.t;
        }
      }
    });
  };

  const publishers = new Map<string, RosPublisher<unknown>>();
  const stateTopic = options.robotStateTopic ?? FRANKA_TOPICS.robotState;
  const undecodable = new Map<string, { topic: string; count: number; firstError: string }>();
  let stoppedAtGap: FrankaReplayReport['stoppedAtGap'];
  const onMessage = (msg: BagMessage): void => {
    if (stoppedAtGap) {
      stoppedAtGap.messagesNotReplayed++;
      return;
    }
    if (originNs === undefined) start(msg.logTime);
    // seconds since the first log time, exact in ns (its integer ns fit a double below 104 days)
    const t = Number(msg.logTime - originNs!) / 1e9;
    if (t - clock.now() > MAX_LOG_TIME_GAP_S) {
      stoppedAtGap = { t: clock.now(), gapSeconds: t - clock.now(), topic: msg.topic, messagesNotReplayed: 1 };
      return;
    }
    if (t > clock.now()) timers.advanceTo(t);
    let pub = publishers.get(msg.topic);
    if (!pub) {
      pub = playback!.createPublisher<unknown>(
        msg.type,
        msg.topic,
        msg.topic === stateTopic ? QOS_RELIABLE : QOS_SENSOR_DATA,
      );
      publishers.set(msg.topic, pub);
    }
    let decoded: Record<string, unknown>;
    try {
      decoded = msg.decode();
    } catch (e) {
      const u = undecodable.get(msg.topic);
      if (u) u.count++;
      else
        undecodable.set(msg.topic, {
          topic: msg.topic,
          count: 1,
          firstError: `at ${Number(msg.logTime) / 1e9} s: ${(e as Error).message}`,
        });
      return;
    }
    pub.publish(decoded);
  };
  const sources = isSplit(source) ? source.parts : [source];
  const summaries: BagSummary[] = [];
  for (const part of sources) summaries.push(await scanBag(part, onMessage));
  const topicCounts = new Map<string, { topic: string; type: string; count: number }>();
  for (const s of summaries) {
    for (const t of s.topics) {
      const seen = topicCounts.get(t.topic);
      if (seen) seen.count += t.messageCount;
      else topicCounts.set(t.topic, { topic: t.topic, type: t.type, count: t.messageCount });
    }
  }

  const clauseReports: ClauseReplay[] = decisions.map((d) => {
    const i = active.findIndex((a) => a.clause.id === d.clause.id);
    return {
      id: d.clause.id,
      active: i >= 0,
      explanation: d.clause.tier === 'safe' ? d.explanation : 'report-only clause: not part of Φ_safe, not gated',
      minMargin: i >= 0 ? minMargin[i]! : NaN,
      firstViolation: i >= 0 ? firstViolation[i]! : null,
      violatingSteps: i >= 0 ? violating[i]! : 0,
      ...(i >= 0 ? coverage.coverage(i) : { evaluatedSteps: 0, missing: [] }),
    };
  });
  return {
    arm: { robot: options.platform, endEffector: options.endEffector ?? 'franka_hand' },
    bag: {
      messageCount: summaries.reduce((n, s) => n + s.messageCount, 0),
      end: summaries.find((s) => s.end.kind !== 'complete')?.end ?? { kind: 'complete' },
      topics: [...topicCounts.values()],
    },
    parts: summaries.map((s) => ({ messageCount: s.messageCount, end: s.end })),
    robotStateTopic: stateTopic,
    duration: originNs === undefined ? 0 : clock.now(),
    steps,
    clauses: clauseReports,
    gateEvents: events.map((e) => ({ t: e.t, from: e.from, to: e.to, cause: describeCause(e.cause) })),
    undecodable: [...undecodable.values()],
    ...(stoppedAtGap ? { stoppedAtGap } : {}),
    ...(timing ? { stepTimes: Float64Array.from(stepTimes) } : {}),
    ...(kept ? { margins: Object.fromEntries(kept.map((m, i) => [bank.name(i), Float64Array.from(m)])) } : {}),
  };
}

function isSplit(
  source: ByteSource | { readonly parts: readonly ByteSource[] },
): source is { readonly parts: readonly ByteSource[] } {
  return (
    typeof source === 'object' &&
    source !== null &&
    'parts' in source &&
    Array.isArray((source as { parts?: unknown }).parts)
  );
}
