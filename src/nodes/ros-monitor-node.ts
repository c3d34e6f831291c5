/**
 * The armguard ROS 2 monitor node (design §9): an entry point that wires the runtime (the session,
 * src/runtime/session.ts, or a bare Pipeline) to a ROS 2 graph. It publishes per-clause robustness and gate state (diagnostic_msgs/DiagnosticArray on
 * /diagnostics, std_msgs on ~/robustness and ~/gate_state), offers ~/release (std_srvs/Trigger) and
 * ~/label_success (std_srvs/SetBool), and in gating mode takes proposed chunks as
 * trajectory_msgs/JointTrajectory on ~/proposed_trajectory and forwards only checked chunks (the
 * pipeline's command sink publishes them to the controller topic, remapped in launch files).
 * Every name but /diagnostics (the graph-wide aggregator topic, told apart by hardware_id) is
 * private (`~/`), so `--ros-args -r __ns:=/left` and `-r __node:=` move all of them: two arms
 * never collide.
 *
 * With a gate configured for start-up (GateConfig.startup) the node starts held and arms by
 * itself once every required signal has been seen fresh; after `startupTimeout` seconds without
 * that, start-up fails (a latched hold naming the signals never seen, and `onStartupFailed`).
 */
import { describeCause, type ExecutedChunk, type Gate, type GateChunk, type ReleaseResult } from '../gate/index.js';
import type { ClauseMargins } from '../gate/margins.js';
import { QOS_LATCHED, QOS_RELIABLE, type RosNode, type RosPublisher } from '../../drivers/ros2/interface.js';
import {
  DIAGNOSTIC_LEVEL,
  type DiagnosticArray,
  type DiagnosticStatus,
  type JointTrajectory,
  type SetBoolRequest,
  type TriggerResponse,
} from '../mcap/messages.js';
import { trajectoryToChunk } from '../../drivers/ros2/trajectory.js';
import type { Verdict } from '../util/result.js';

export interface Float64MultiArray {
  layout: { dim: { label: string; size: number; stride: number }[]; data_offset: number };
  data: Float64Array;
}
export interface StringMsg {
  data: string;
}

/** What the node drives: the session (src/runtime/session.ts), or a bare Pipeline. */
export interface MonitoredRuntime {
  /** One monitoring step at `now`. */
  step(now: number): unknown;
  submitChunk(chunk: GateChunk, now: number): ExecutedChunk;
  /**
   * A chunk whose decision may arrive later (the chunk filter off the control thread); `done` is
   * called once. Taken over `submitChunk` when present.
   */
  submitChunkAsync?(chunk: GateChunk, now: number, done: (result: ExecutedChunk, t: number) => void): void;
  release(now: number, request: { by: string; authorised: boolean }): ReleaseResult;
}

export interface MonitorNodeOptions {
  robotId: string;
  /** Joint names of the arm, in the pipeline's joint order (gating mode). */
  jointNames: readonly string[];
  /**
   * Gripper finger joints a proposed trajectory may carry beside the arm's (their positions are the
   * chunk's commanded gripper width; never forwarded to the arm's controller).
   */
  fingerJoints?: readonly string[];
  /** Accept proposed chunks (gating mode). */
  gating: boolean;
  /** How often /diagnostics and ~/robustness are published (Hz). */
  diagnosticsRate: number;
  /**
   * The pipeline steps on every sample (`sample()`); when samples stop, a timer at this rate (Hz)
   * steps it anyway so the watchdog and staleness checks hold the arm.
   */
  idleStepRate: number;
  /** Success/failure label for the current episode (from ~/label_success). */
  onLabel?: (success: boolean, t: number) => Verdict;
  /** After every step. */
  onStep?: (t: number) => void;
  /** Seconds the gate may stay in its start-up phase (default 10). */
  startupTimeout?: number;
  /** Start-up ran out of time; `neverSeen` are the required signals never seen fresh. */
  onStartupFailed?: (neverSeen: readonly string[], t: number) => void;
}

export class RosMonitorNode {
  private readonly diagnostics: RosPublisher<DiagnosticArray>;
  private readonly robustness: RosPublisher<Float64MultiArray>;
  private readonly gateState: RosPublisher<StringMsg>;
  private readonly chunkResults: RosPublisher<StringMsg>;
  /** Trajectories refused before reaching the pipeline (malformed), and the last reason (bounded). */
  refusedTrajectories = 0;
  lastRefusal = '';

  constructor(
    private readonly node: RosNode,
    private readonly pipeline: MonitoredRuntime,
    private readonly gate: Gate,
    private readonly margins: ClauseMargins,
    private readonly options: MonitorNodeOptions,
  ) {
    this.robustnessData = new Float64Array(margins.count);
    this.diagnostics = node.createPublisher<DiagnosticArray>(
      'diagnostic_msgs/msg/DiagnosticArray',
      '/diagnostics',
      QOS_RELIABLE,
    );
    this.robustness = node.createPublisher<Float64MultiArray>(
      'std_msgs/msg/Float64MultiArray',
      '~/robustness',
      QOS_RELIABLE,
    );
    this.gateState = node.createPublisher<StringMsg>('std_msgs/msg/String', '~/gate_state', QOS_LATCHED);
    this.chunkResults = node.createPublisher<StringMsg>('std_msgs/msg/String', '~/chunk_result', QOS_RELIABLE);
    this.publishGate(`${gate.state}: ${gate.holdCause ? describeCause(gate.holdCause) : 'started'}`);
    gate.onEvent((e) => this.publishGate(`${e.to}: ${describeCause(e.cause)}`));

    node.createService<Record<string, never>, TriggerResponse>('std_srvs/srv/Trigger', '~/release', () => {
      const r = this.pipeline.release(this.node.now(), { by: 'ros2 ~/release', authorised: true });
      return r.ok ? { success: true, message: 'released' } : { success: false, message: r.reason };
    });
    node.createService<SetBoolRequest, TriggerResponse>('std_srvs/srv/SetBool', '~/label_success', (req) => {
      if (!options.onLabel) return { success: false, message: 'no episode is recording labels' };
      const r = options.onLabel(req.data === true, this.node.now());
      return r.ok
        ? { success: true, message: `labelled ${req.data ? 'success' : 'failure'}` }
        : { success: false, message: r.reason };
    });
    if (options.gating) {
      node.createSubscription<JointTrajectory>(
        'trajectory_msgs/msg/JointTrajectory',
        '~/proposed_trajectory',
        QOS_RELIABLE,
        (m) => this.onProposed(m),
      );
    }
    node.createTimer(1 / options.diagnosticsRate, () =>
      this.guarded(this.node.now(), 'diagnostics publish', () => this.publishDiagnostics()),
    );
    this.startedAt = node.now();
    node.createTimer(1 / options.idleStepRate, () => {
      const now = this.node.now();
      if (now - this.lastStep >= 1 / options.idleStepRate) this.step(now);
      this.checkStartup(now);
    });
  }

  private readonly startedAt: number;

  private checkStartup(now: number): void {
    if (!this.gate.starting || now - this.startedAt < (this.options.startupTimeout ?? 10)) return;
    const neverSeen = this.gate.neverSeen();
    this.gate.startupTimedOut(now);
    if (this.options.onStartupFailed)
      this.guarded(now, 'start-up failure hook', () => this.options.onStartupFailed!(neverSeen, now));
  }

  private lastStep = -Infinity;
  private readonly robustnessData: Float64Array;

  /** A new sample arrived (call from the source's sample hook): step the pipeline now. */
  sample(): void {
    this.step(this.node.now());
  }

  private step(now: number): void {
    this.lastStep = now;
    // The pipeline never throws; the session's recording can.
    this.guarded(now, 'step', () => this.pipeline.step(now));
    if (this.options.onStep) this.guarded(now, 'step hook', () => this.options.onStep!(now));
  }

  /**
   * A step (episode recording), hook or publish that throws becomes a fault that holds, never an
   * exception in a ROS callback. Returns whether `fn` ran through without throwing.
   */
  private guarded(now: number, what: string, fn: () => void): boolean {
    try {
      fn();
      return true;
    } catch (e) {
      this.gate.fault(now, {
        kind: 'storage',
        source: 'armguard node',
        detail: `${what} threw: ${e instanceof Error ? e.message : String(e)}`,
      });
      return false;
    }
  }

  private publishGate(text: string): void {
    this.gateState.publish({ data: text });
  }

  private onProposed(msg: JointTrajectory): void {
    const now = this.node.now();
    const parsed = trajectoryToChunk(msg, this.options.jointNames, this.node.time, this.options.fingerJoints);
    if (!parsed.ok) {
      this.refusedTrajectories++;
      this.lastRefusal = parsed.reason;
      this.chunkResults.publish({
        data: JSON.stringify({
          v: 1,
          id: msg.header?.frame_id ?? '',
          verdict: 'rejected',
          code: 'malformed',
          reason: parsed.reason,
          t: this.node.time.unixSeconds(now),
        }),
      });
      return;
    }
    // Recording the decision can throw: the gate then holds with the cause and the answer says held.
    const failed: ExecutedChunk = {
      id: parsed.chunk.id,
      verdict: 'held',
      code: 'fault',
      reason: 'the chunk decision failed (see the gate cause)',
    };
    const runtime = this.pipeline;
    if (runtime.submitChunkAsync) {
      // The decision arrives when the chunk filter answers (at once with an inline filter).
      let answered = false;
      const answer = (r: ExecutedChunk, t: number): void => {
        if (answered) return;
        answered = true;
        this.guarded(t, 'chunk result publish', () => this.publishResult(r, t));
      };
      if (!this.guarded(now, 'chunk decision', () => runtime.submitChunkAsync!(parsed.chunk, now, answer)))
        answer(failed, now);
      return;
    }
    let r = failed;
    this.guarded(now, 'chunk decision', () => {
      r = this.pipeline.submitChunk(parsed.chunk, now);
    });
    this.publishResult(r, now);
  }

  private publishResult(r: ExecutedChunk, now: number): void {
    this.chunkResults.publish({
      data: JSON.stringify({
        v: 1,
        id: r.id,
        verdict: r.verdict,
        code: r.code,
        reason: r.reason,
        t: this.node.time.unixSeconds(now),
        // what the warning band did (action, clause, step, predicted margin), when it changed the chunk
        ...(r.band ? { band: r.band } : {}),
      }),
    });
  }

  /** Publish one DiagnosticArray (gate + one status per clause) and the robustness vector now. */
  publishDiagnostics(): void {
    const m = this.margins;
    const now = this.node.now();
    const status: DiagnosticStatus[] = [];
    const hw = this.options.robotId;
    const holding = this.gate.state === 'hold';
    const starting = this.gate.starting;
    status.push({
      level: starting
        ? DIAGNOSTIC_LEVEL.WARN
        : holding
          ? DIAGNOSTIC_LEVEL.ERROR
          : this.gate.state === 'armed'
            ? DIAGNOSTIC_LEVEL.OK
            : DIAGNOSTIC_LEVEL.WARN,
      name: 'armguard: gate',
      message: starting
        ? `starting: waiting for ${this.gate.neverSeen().join(', ')}`
        : this.gate.state + (this.gate.holdCause ? `: ${describeCause(this.gate.holdCause)}` : ''),
      hardware_id: hw,
      values: [{ key: 'state', value: starting ? 'starting' : this.gate.state }],
    });
    const data = this.robustnessData;
    for (let i = 0; i < m.count; i++) {
      const margin = m.margin(i);
      data[i] = margin;
      const level = !(margin === margin)
        ? DIAGNOSTIC_LEVEL.STALE
        : margin < 0
          ? DIAGNOSTIC_LEVEL.ERROR
          : margin < m.epsilon(i)
            ? DIAGNOSTIC_LEVEL.WARN
            : DIAGNOSTIC_LEVEL.OK;
      status.push({
        level,
        name: `armguard: ${m.name(i)}`,
        message: margin < 0 ? 'violated' : margin < m.epsilon(i) ? 'inside warning band' : 'ok',
        hardware_id: hw,
        values: [
          { key: 'normalised_margin', value: String(margin) },
          { key: 'upper_bound', value: String(m.high(i)) },
          { key: 'epsilon', value: String(m.epsilon(i)) },
        ],
      });
    }
    this.diagnostics.publish({ header: { stamp: this.node.time.stamp(now), frame_id: '' }, status });
    this.robustness.publish({
      layout: {
        dim: Array.from({ length: m.count }, (_, i) => ({ label: m.name(i), size: 1, stride: 1 })),
        data_offset: 0,
      },
      data,
    });
  }
}
