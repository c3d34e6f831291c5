/**
 * Sparse cached querying (seeds/003 F.1): asks the judge at task start and again every N chunks,
 * without waiting — the gate keeps enforcing the cached verdict while a refresh is in flight. A
 * judge that throws instead of returning a fault becomes an `internal` fault: never a silent allow.
 * Time comes from the `now` passed in.
 */
import type { SemanticGate } from './semantic-gate.js';
import type { JudgeRequest, SemanticJudge } from './types.js';

export class JudgeScheduler {
  private inFlight: Promise<void> | undefined;

  constructor(
    private readonly gate: SemanticGate,
    private readonly judge: SemanticJudge,
    private readonly now: () => number,
  ) {}

  /** Start a query at chunk boundary `chunk` if one is due; `request` is built only then. */
  atChunk(chunk: number, request: () => JudgeRequest): void {
    const reason = this.gate.queryDue(chunk);
    if (reason === undefined) return;
    const started = this.now();
    const id = this.gate.startQuery(started, chunk, reason);
    let pending: Promise<void>;
    try {
      const req = request();
      pending = this.judge.judge(req).then(
        (outcome) => this.gate.settle(this.now(), id, outcome),
        (e: unknown) => this.gate.settle(this.now(), id, { ok: false, fault: { kind: 'judge', source: this.judge.name, cause: 'internal', detail: `judge threw: ${(e as Error)?.message ?? String(e)}`, latency: this.now() - started } }),
      );
    } catch (e) {
      this.gate.settle(this.now(), id, { ok: false, fault: { kind: 'judge', source: this.judge.name, cause: 'internal', detail: `building the request failed: ${(e as Error)?.message ?? String(e)}`, latency: 0 } });
      pending = Promise.resolve();
    }
    const tracked = pending.finally(() => {
      if (this.inFlight === tracked) this.inFlight = undefined;
    });
    this.inFlight = tracked;
  }

  /** The query in flight, if any (callers that pace a simulation wait on it). */
  get pending(): Promise<void> | undefined {
    return this.inFlight;
  }
}
