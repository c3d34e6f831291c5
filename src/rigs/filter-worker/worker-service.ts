/**
 * The chunk filter in a worker thread (issue 14 item 3): the ChunkFilterService `armguard run so101`
 * wires, so that filtering a chunk (the CBF's QP solves, the warning band's predictions: several ms
 * each) never delays a control step. The worker (filter-host.ts) builds the rig's filter from its
 * recipe; jobs go in one at a time and answers come back on the event loop.
 *
 * Every failure is a typed fault, answered to the job in flight and reported by `fault` until the
 * worker runs again (the chunk path re-raises it every control step, so the gate holds and no
 * release is accepted meanwhile):
 * - the worker exits or throws (crash): `disconnect`;
 * - no answer within `timeoutS` (default 2 s): `timeout` — the worker is stopped (it may be stuck in a solve);
 * - an answer that cannot be read, or a job that cannot be posted: `internal`.
 * The worker is then started again after a back-off (0.5 s doubling to 8 s, on the injected
 * timers); once it reports ready the fault clears and an operator release can arm the gate.
 */
import { Worker } from 'node:worker_threads';
import type { ChunkFilterService, FilterAnswer, FilterJob } from '../../runtime/chunk-filter-service.js';
import type { Fault } from '../../schema/fault.js';
import type { TimerHandle, Timers } from '../../util/clock.js';
import { answerProblem, type FilterRecipe, type FromFilterWorker, type ToFilterWorker } from './protocol.js';

/**
 * No answer within this long (s) is a fault (a stuck worker): 80 × the slowest SO-101 filter measured
 * on a quiet machine (24.7 ms, bench/RESULTS.md "Network faults"), and 5 × the slowest seen on the
 * shared 2-core test machine at load 10 (≈ 0.4 s). Waiting costs no safety — meanwhile the arm plays
 * the previous, checked chunk or stays held, and a late answer is re-checked against the present
 * state and its own validity window before anything is sent — so the bound is set to avoid false
 * holds, not for speed.
 */
export const FILTER_WORKER_TIMEOUT_S = 2;
/**
 * The filter worker thread's nice value by default: the control thread's (0). A higher value lets
 * the control step take a core first: on the quiet 2-core machine nice 10 on both workers took about
 * a third off a chunk flood's p99 (still not ≤ 5 ms in every run), on the loaded one it made no
 * measurable difference (bench/RESULTS.md "Network faults"). On a host loaded by other programs a
 * niced worker gets a small share of a core and its answers, which gate the chunks, come late.
 * Settable (`nice`) for a dedicated host where it helps.
 */
export const FILTER_WORKER_NICE = 0;
const RESTART_FIRST_S = 0.5;
const RESTART_MAX_S = 8;
const SOURCE = 'chunk filter worker';

export interface WorkerChunkFilterServiceOptions {
  readonly recipe: FilterRecipe;
  readonly timers: Timers;
  /** No answer within this long (s) is a timeout fault; default FILTER_WORKER_TIMEOUT_S. */
  readonly timeoutS?: number;
  /** Told when the worker is running again after a fault (what happened, what was started). */
  readonly onRestart?: (detail: string) => void;
  /** The worker thread's nice value; default FILTER_WORKER_NICE. */
  readonly nice?: number;
}

interface Pending {
  readonly seq: number;
  readonly values: number;
  readonly done: (a: FilterAnswer) => void;
  readonly timer: TimerHandle;
}

/** The worker's entry: the compiled .js next to this module, or the .ts source through the loader boot. */
function workerEntry(): { file: URL; workerData: Record<string, unknown> } {
  if (import.meta.url.endsWith('.ts')) {
    return {
      file: new URL('../../telemetry/network-worker-boot.mjs', import.meta.url),
      workerData: { entry: new URL('./filter-host.ts', import.meta.url).href },
    };
  }
  return { file: new URL('./filter-host.js', import.meta.url), workerData: {} };
}

export class WorkerChunkFilterService implements ChunkFilterService {
  readonly mode = 'worker';
  private worker: Worker | undefined;
  private running = false;
  private closed = false;
  private current: Fault | null = null;
  private pending: Pending | undefined;
  private restartTimer: TimerHandle | undefined;
  private restartDelay = RESTART_FIRST_S;
  /** Times the worker was started again after a fault. */
  restarts = 0;
  /** The worker thread's priority as applied (its ready message), for the start-up line. */
  priority = '';

  constructor(private readonly o: WorkerChunkFilterServiceOptions) {}

  get fault(): Fault | null {
    return this.current;
  }

  /** Start the worker; resolves once it has built the filter (rejects with why not). */
  start(): Promise<void> {
    return this.spawn();
  }

  filter(job: FilterJob, done: (answer: FilterAnswer) => void): void {
    const w = this.worker;
    if (this.closed || !this.running || !w) {
      const fault = this.current ?? {
        kind: 'disconnect' as const,
        source: SOURCE,
        detail: this.closed ? 'closed' : 'not running',
      };
      return done({ kind: 'fault', seq: job.seq, fault });
    }
    if (this.pending)
      return done({
        kind: 'fault',
        seq: job.seq,
        fault: {
          kind: 'internal',
          source: SOURCE,
          detail: `job ${job.seq} while job ${this.pending.seq} is in flight`,
        },
      });
    const timeoutS = this.o.timeoutS ?? FILTER_WORKER_TIMEOUT_S;
    const timer = this.o.timers.setTimeout(
      () =>
        this.fail({
          kind: 'timeout',
          source: SOURCE,
          detail: `no answer to chunk filter job ${job.seq} within ${timeoutS} s: worker stopped`,
        }),
      timeoutS,
    );
    this.pending = { seq: job.seq, values: job.horizon * job.joints, done, timer };
    try {
      w.postMessage({ type: 'job', job } satisfies ToFilterWorker);
    } catch (e) {
      this.fail({ kind: 'internal', source: SOURCE, detail: `job ${job.seq} could not be posted: ${message(e)}` });
    }
  }

  /** Stop the worker; a job in flight is answered with a fault. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.restartTimer?.cancel();
    this.answerPending({ kind: 'disconnect', source: SOURCE, detail: 'closed (shutdown)' });
    const w = this.worker;
    this.worker = undefined;
    this.running = false;
    await w?.terminate();
  }

  private spawn(): Promise<void> {
    const entry = workerEntry();
    const worker = new Worker(entry.file, {
      workerData: { ...entry.workerData, recipe: this.o.recipe, nice: this.o.nice ?? FILTER_WORKER_NICE },
    });
    this.worker = worker;
    this.running = false;
    return new Promise((resolve, reject) => {
      let ready = false;
      worker.on('message', (m: FromFilterWorker) => {
        if (this.worker !== worker) return;
        if (!ready) {
          if (m.type === 'ready') {
            ready = true;
            this.priority = m.priority;
            this.running = true;
            this.current = null;
            resolve();
          } else if (m.type === 'start-failed') reject(new Error(`the chunk filter worker did not start: ${m.error}`));
          else
            reject(new Error(`the chunk filter worker sent '${String((m as { type?: unknown }).type)}' before ready`));
          return;
        }
        this.onAnswer(m);
      });
      worker.on('messageerror', (e) => {
        if (this.worker === worker)
          this.fail({ kind: 'internal', source: SOURCE, detail: `unreadable message: ${e.message}` });
      });
      worker.on('error', (e) => {
        if (this.worker !== worker) return;
        if (!ready) reject(e);
        else this.fail({ kind: 'disconnect', source: SOURCE, detail: `worker threw: ${e.message}` });
      });
      worker.on('exit', (code) => {
        if (this.worker !== worker) return;
        if (!ready) reject(new Error(`the chunk filter worker exited with code ${code} before it was ready`));
        else this.fail({ kind: 'disconnect', source: SOURCE, detail: `worker exited (code ${code})` });
      });
    });
  }

  private onAnswer(m: FromFilterWorker): void {
    const p = this.pending;
    if (!p) {
      this.fail({ kind: 'internal', source: SOURCE, detail: `message '${m.type}' with no job in flight` });
      return;
    }
    const problem = answerProblem(m, p.seq, p.values);
    if (problem !== null || m.type !== 'answer') {
      this.fail({ kind: 'internal', source: SOURCE, detail: `unreadable answer to job ${p.seq}: ${problem}` });
      return;
    }
    this.pending = undefined;
    p.timer.cancel();
    p.done({ kind: 'filtered', seq: m.seq, stage: m.stage, filterMs: m.filterMs });
  }

  private answerPending(fault: Fault): void {
    const p = this.pending;
    this.pending = undefined;
    if (!p) return;
    p.timer.cancel();
    p.done({ kind: 'fault', seq: p.seq, fault });
  }

  /** The worker cannot be trusted: fault (held while it lasts), stop it, start it again after the back-off. */
  private fail(fault: Fault): void {
    if (this.closed) return;
    this.current = fault;
    this.running = false;
    const w = this.worker;
    this.worker = undefined;
    void w?.terminate().catch(() => undefined);
    this.answerPending(fault);
    this.scheduleRestart(fault);
  }

  private scheduleRestart(fault: Fault): void {
    if (this.closed || this.restartTimer) return;
    const delay = this.restartDelay;
    this.restartDelay = Math.min(RESTART_MAX_S, delay * 2);
    this.restartTimer = this.o.timers.setTimeout(() => {
      this.restartTimer = undefined;
      if (this.closed) return;
      this.spawn().then(
        () => {
          if (this.closed) return;
          this.restarts++;
          this.restartDelay = RESTART_FIRST_S;
          this.o.onRestart?.(
            `chunk filter worker started again after ${fault.kind} (${'detail' in fault ? fault.detail : ''}); the gate stays held until an operator releases`,
          );
        },
        (e: unknown) => {
          if (this.closed) return;
          this.current = { kind: 'disconnect', source: SOURCE, detail: `restart failed: ${message(e)}` };
          this.worker = undefined;
          this.scheduleRestart(fault);
        },
      );
    }, delay);
  }
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
