/**
 * Sparse cached querying (seeds/003 F.1): asks the judge at task start and again every N chunks,
 * without waiting — the gate keeps enforcing the cached verdict while a refresh is in flight. A
 * judge that throws instead of returning a fault becomes an `internal` fault: never a silent allow.
 * Time comes from the `now` passed in.
 */
import type { SemanticGate } from './semantic-gate.js';
import type { JudgeOutcome, JudgeRequest, SemanticJudge } from './types.js';

export class JudgeScheduler {
  private inFlight: Promise<void> | undefined;

  constructor(
    private readonly gate: SemanticGate,
    private readonly judge: SemanticJudge,
    private readonly now: () => number,
  ) {}

  /**
   * Start a query at chunk boundary `chunk` if one is due; `request` is built only then (it may be
   * asynchronous, e.g. a camera grab; the query counts as outstanding from this call).
   */
  atChunk(chunk: number, request: () => JudgeRequest | Promise<JudgeRequest>): void {
    const reason = this.gate.queryDue(chunk);
    if (reason === undefined) return;
    const started = this.now();
    const id = this.gate.startQuery(started, chunk, reason);
    const internal = (what: string, e: unknown): void =>
      this.gate.settle(this.now(), id, {
        ok: false,
        fault: {
          kind: 'judge',
          source: this.judge.name,
          cause: 'internal',
          detail: `${what}: ${(e as Error)?.message ?? String(e)}`,
          latency: this.now() - started,
        },
      });
    let built: JudgeRequest | Promise<JudgeRequest>;
    try {
      built = request();
    } catch (e) {
      internal('building the request failed', e);
      return;
    }
    const ask = (req: JudgeRequest): Promise<void> => {
      let asked: Promise<JudgeOutcome>;
      try {
        asked = this.judge.judge(req);
      } catch (e) {
        internal('judge threw', e);
        return Promise.resolve();
      }
      return asked.then(
        (outcome) => this.gate.settle(this.now(), id, outcome),
        (e: unknown) => internal('judge threw', e),
      );
    };
    // A request built synchronously is sent at once (no extra turn of the event loop).
    const pending =
      built instanceof Promise
        ? built.then(ask, (e: unknown) => internal('building the request failed', e))
        : ask(built);
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
