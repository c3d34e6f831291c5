/**
 * The semantic gate on a live chunk path (issue 18): before each proposed chunk it lets the
 * scheduler ask the judge when a query is due (start, every N chunks, the chunk after a fault) with
 * the newest camera frame, and returns the gate's decision; each control step it returns the
 * decision again so a verdict that lands mid-chunk is enforced at once. Every query, verdict,
 * fault, decision and the frames the judge saw are handed to `record` as /armguard/semantic records.
 * A camera that cannot give a frame is recorded and the judge is asked without one.
 */
import type { SemanticRecord } from '../episode/types.js';
import { JudgeScheduler } from '../semantic/judge-scheduler.js';
import type { SemanticDecision, SemanticEvent, SemanticGate } from '../semantic/semantic-gate.js';
import type { SemanticEntity } from '../semantic/task-semantics.js';
import type { CameraFrame, CameraSource, JudgeRequest, SemanticJudge } from '../semantic/types.js';

/** An episode record for each gate event (the same shape the testbed and the live run write). */
export function semanticEventRecord(e: SemanticEvent): SemanticRecord {
  switch (e.kind) {
    case 'verdict':
      return {
        t: e.t,
        kind: 'verdict',
        query: e.query,
        decision: e.verdict.decision,
        reason: e.verdict.reason,
        latency: e.verdict.latency,
        judge: e.verdict.judge,
        ...(e.verdict.riskScore !== undefined ? { risk_score: e.verdict.riskScore } : {}),
        ...(e.verdict.category ? { category: e.verdict.category } : {}),
      };
    case 'fault':
      return {
        t: e.t,
        kind: 'fault',
        query: e.query,
        cause: e.fault.cause,
        source: e.fault.source,
        detail: e.fault.detail,
        latency: e.fault.latency,
      };
    case 'query':
      return { t: e.t, kind: 'query', query: e.query, reason: e.reason, chunk: e.chunk };
    case 'late-answer':
      return { t: e.t, kind: 'late-answer', query: e.query, outcome: e.outcome };
    case 'decision':
      return { t: e.t, kind: 'decision', pass: e.pass, detail: e.detail };
  }
}

export function frameRecord(f: CameraFrame): SemanticRecord {
  return {
    t: f.t,
    kind: 'frame',
    source: f.source,
    mime: f.mime,
    width: f.width,
    height: f.height,
    data: Buffer.from(f.data).toString('base64'),
  };
}

export interface SemanticTaskInput {
  readonly task: string;
  readonly instruction: string;
  readonly intent: string;
  readonly actor?: SemanticEntity;
  readonly target?: SemanticEntity;
}

export interface SemanticGuardOptions {
  readonly gate: SemanticGate;
  readonly judge: SemanticJudge;
  readonly camera?: CameraSource;
  readonly task: SemanticTaskInput;
  readonly now: () => number;
  readonly record: (r: SemanticRecord) => void;
  readonly log: (line: string) => void;
}

export class SemanticGuard {
  private chunks = 0;
  private readonly scheduler: JudgeScheduler;

  constructor(private readonly o: SemanticGuardOptions) {
    this.scheduler = new JudgeScheduler(o.gate, o.judge, o.now);
    o.gate.onEvent((e) => {
      o.record(semanticEventRecord(e));
      if (e.kind === 'verdict')
        o.log(`judge ${e.verdict.decision} in ${(e.verdict.latency * 1000).toFixed(0)} ms: ${e.verdict.reason}`);
      else if (e.kind === 'fault') o.log(`judge fault (${e.fault.cause}) from ${e.fault.source}: ${e.fault.detail}`);
      else if (e.kind === 'decision' && !e.pass) o.log(`semantic gate holds: ${e.detail}`);
    });
  }

  /** The 'task' record that opens an episode's semantic records. */
  taskRecord(t: number): SemanticRecord {
    const { task, gate, judge, camera } = {
      task: this.o.task,
      gate: this.o.gate,
      judge: this.o.judge,
      camera: this.o.camera,
    };
    return {
      t,
      kind: 'task',
      task: task.task,
      instruction: task.instruction,
      intent: task.intent,
      actor: task.actor ?? null,
      target: task.target ?? null,
      judge: judge.name,
      fail_mode: gate.config.failMode,
      refresh_every_chunks: gate.config.refreshEveryChunks,
      camera: camera?.name ?? null,
    };
  }

  /** Task start: records the task's roles and judge settings, then sends the first query. */
  begin(now: number): void {
    this.o.record(this.taskRecord(now));
    this.start(now);
  }

  /** Task start: the first query goes out now, before any chunk (the gate holds until it is answered unless fail-open). */
  start(now: number): void {
    this.scheduler.atChunk(0, () => this.request(now));
  }

  /** Before a proposed chunk: query if due (refresh every N chunks, retry after a fault), then the decision for this chunk. */
  beforeChunk(now: number): SemanticDecision {
    this.o.gate.tick(now, this.o.judge.name);
    const chunk = this.chunks++;
    this.scheduler.atChunk(chunk, () => this.request(now));
    return this.o.gate.decide(now);
  }

  /** Each control step: the decision now (a verdict or timeout may have landed since the chunk). */
  step(now: number): SemanticDecision {
    this.o.gate.tick(now, this.o.judge.name);
    return this.o.gate.decide(now);
  }

  /** The query in flight, if any. */
  get pending(): Promise<void> | undefined {
    return this.scheduler.pending;
  }

  private async request(now: number): Promise<JudgeRequest> {
    const frames: CameraFrame[] = [];
    if (this.o.camera) {
      const g = await this.o.camera.grab(now);
      if (g.ok) {
        frames.push(g.frame);
        this.o.record(frameRecord(g.frame));
      } else {
        this.o.record({
          t: this.o.now(),
          kind: 'fault',
          cause: 'camera',
          source: g.fault.source,
          detail: g.fault.detail,
        });
        this.o.log(`camera: ${g.fault.detail} (asking the judge without an image)`);
      }
    }
    const t = this.o.task;
    return {
      task: t.task,
      instruction: t.instruction,
      intent: t.intent,
      frames,
      scene: [
        ...(t.actor ? [{ name: t.actor.name, tags: t.actor.tags, role: 'actor' as const }] : []),
        ...(t.target ? [{ name: t.target.name, tags: t.target.tags, role: 'target' as const }] : []),
      ],
    };
  }
}
