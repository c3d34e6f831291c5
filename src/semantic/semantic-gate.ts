/**
 * The semantic gate (issue 18; seeds/003 App. F.1): the latest judge verdict, enforced on every
 * chunk and every control tick. A refusal holds (zero motion, gripper optionally opened). Until the
 * first verdict arrives the gate holds (fail-closed) unless the operator chose `open`; a judge that
 * errs or times out is a fault with its cause — in `closed` mode it holds, in `open` mode the fault
 * is recorded and the last verdict (or, with none, the open default) stays in force. A fault never
 * turns an earlier refusal into an allow. Pure: times are passed in.
 */
import type { JudgeFailMode, JudgeFault, JudgeOutcome, Verdict } from './types.js';
import { Listeners } from '../util/listeners.js';

export interface SemanticGateConfig {
  readonly failMode: JudgeFailMode;
  /** Open the gripper while holding on a refusal (seeds/003 F.1 "optional gripper-open"). */
  readonly openGripperOnRefuse: boolean;
  /** Refresh the verdict every this many chunks (seeds/003: ~20 steps; here 20 chunks' worth by default). */
  readonly refreshEveryChunks: number;
  /** A query without an answer after this long (s) is a timeout fault. */
  readonly queryTimeout: number;
}

export const DEFAULT_SEMANTIC_GATE_CONFIG: SemanticGateConfig = {
  failMode: 'closed',
  openGripperOnRefuse: false,
  refreshEveryChunks: 20,
  queryTimeout: 10,
};

export type SemanticHoldCause =
  | { readonly kind: 'awaiting-verdict' }
  | { readonly kind: 'refused'; readonly reason: string; readonly judge: string }
  | { readonly kind: 'judge-fault'; readonly fault: JudgeFault };

export type SemanticDecision =
  | { readonly pass: true; readonly basis: 'allow' | 'fail-open' }
  | { readonly pass: false; readonly cause: SemanticHoldCause; readonly openGripper: boolean };

export type QueryReason = 'start' | 'refresh' | 'retry';

export type SemanticEvent =
  | {
      readonly t: number;
      readonly kind: 'query';
      readonly query: number;
      readonly reason: QueryReason;
      readonly chunk: number;
    }
  | { readonly t: number; readonly kind: 'verdict'; readonly query: number; readonly verdict: Verdict }
  | { readonly t: number; readonly kind: 'fault'; readonly query: number; readonly fault: JudgeFault }
  | { readonly t: number; readonly kind: 'late-answer'; readonly query: number; readonly outcome: 'verdict' | 'fault' }
  | { readonly t: number; readonly kind: 'decision'; readonly pass: boolean; readonly detail: string };

export function describeSemanticCause(c: SemanticHoldCause): string {
  switch (c.kind) {
    case 'awaiting-verdict':
      return 'no judge verdict yet (fail-closed)';
    case 'refused':
      return `judge ${c.judge} refused: ${c.reason}`;
    case 'judge-fault':
      return `judge fault (${c.fault.cause}) from ${c.fault.source}: ${c.fault.detail}`;
  }
}

/*
 * The decisions without a payload are shared constants, and a decision with one is built once per
 * verdict or fault it carries: `decide` runs every control step and allocates nothing there.
 */
const PASS_ALLOW: SemanticDecision = { pass: true, basis: 'allow' };
const PASS_FAIL_OPEN: SemanticDecision = { pass: true, basis: 'fail-open' };
const HOLD_AWAITING: SemanticDecision = { pass: false, cause: { kind: 'awaiting-verdict' }, openGripper: false };

export class SemanticGate {
  private latest: Verdict | undefined;
  private fault: JudgeFault | undefined;
  private outstanding: { id: number; since: number } | undefined;
  private nextId = 1;
  private lastQueryChunk = -Infinity;
  private lastDecisionKey = '';
  private lastDecision: SemanticDecision | undefined;
  /** The hold decisions of the current refusal and fault, built when they change. */
  private refusal: { readonly of: Verdict; readonly decision: SemanticDecision } | undefined;
  private faultHold: { readonly of: JudgeFault; readonly decision: SemanticDecision } | undefined;
  private readonly listeners = new Listeners<[e: SemanticEvent]>();

  constructor(readonly config: SemanticGateConfig = DEFAULT_SEMANTIC_GATE_CONFIG) {
    if (!Number.isInteger(config.refreshEveryChunks) || config.refreshEveryChunks < 1)
      throw new RangeError('refreshEveryChunks must be an integer >= 1');
    if (!(config.queryTimeout > 0)) throw new RangeError('queryTimeout must be > 0');
  }

  onEvent(listener: (e: SemanticEvent) => void): void {
    this.listeners.add(listener);
  }

  get verdict(): Verdict | undefined {
    return this.latest;
  }

  get activeFault(): JudgeFault | undefined {
    return this.fault;
  }

  get querying(): boolean {
    return this.outstanding !== undefined;
  }

  /**
   * Whether to query the judge at chunk boundary `chunk`: at the start, every `refreshEveryChunks`
   * chunks, and at the next chunk after a fault; never while a query is outstanding.
   */
  queryDue(chunk: number): QueryReason | undefined {
    if (this.outstanding) return undefined;
    if (this.lastQueryChunk === -Infinity) return 'start';
    if (this.fault && chunk > this.lastQueryChunk) return 'retry';
    if (chunk - this.lastQueryChunk >= this.config.refreshEveryChunks) return 'refresh';
    return undefined;
  }

  /** A query was sent; returns its id for `settle`. */
  startQuery(t: number, chunk: number, reason: QueryReason): number {
    const id = this.nextId++;
    this.outstanding = { id, since: t };
    this.lastQueryChunk = chunk;
    this.emit({ t, kind: 'query', query: id, reason, chunk });
    return id;
  }

  /** The judge answered query `id` at time `t`. Answers to a query already timed out are recorded, not used. */
  settle(t: number, id: number, outcome: JudgeOutcome): void {
    if (this.outstanding?.id !== id) {
      this.emit({ t, kind: 'late-answer', query: id, outcome: outcome.ok ? 'verdict' : 'fault' });
      return;
    }
    this.outstanding = undefined;
    if (outcome.ok) {
      this.latest = outcome.verdict;
      this.fault = undefined;
      this.emit({ t, kind: 'verdict', query: id, verdict: outcome.verdict });
    } else {
      this.fault = outcome.fault;
      this.emit({ t, kind: 'fault', query: id, fault: outcome.fault });
    }
  }

  /** Time passes: an outstanding query older than the timeout becomes a timeout fault. */
  tick(t: number, source = 'judge'): void {
    const q = this.outstanding;
    if (!q || t - q.since < this.config.queryTimeout) return;
    this.outstanding = undefined;
    this.fault = {
      kind: 'judge',
      source,
      cause: 'timeout',
      detail: `no answer within ${this.config.queryTimeout} s`,
      latency: t - q.since,
    };
    this.emit({ t, kind: 'fault', query: q.id, fault: this.fault });
  }

  /** What the arm may do now. Decision changes are reported as events. */
  decide(t: number): SemanticDecision {
    const d = this.evaluate();
    if (d === this.lastDecision) return d;
    this.lastDecision = d;
    const key = d.pass ? `pass:${d.basis}` : `hold:${describeSemanticCause(d.cause)}`;
    if (key !== this.lastDecisionKey) {
      this.lastDecisionKey = key;
      this.emit({
        t,
        kind: 'decision',
        pass: d.pass,
        detail: d.pass
          ? d.basis === 'allow'
            ? `allowed by ${this.latest?.judge ?? 'judge'}`
            : 'no usable verdict: passing (--judge-fail open)'
          : describeSemanticCause(d.cause),
      });
    }
    return d;
  }

  private evaluate(): SemanticDecision {
    const v = this.latest;
    const closed = this.config.failMode === 'closed';
    const fault = this.fault;
    if (fault && closed) {
      if (this.faultHold?.of !== fault)
        this.faultHold = {
          of: fault,
          decision: { pass: false, cause: { kind: 'judge-fault', fault }, openGripper: false },
        };
      return this.faultHold.decision;
    }
    if (v?.decision === 'refuse') {
      if (this.refusal?.of !== v)
        this.refusal = {
          of: v,
          decision: {
            pass: false,
            cause: { kind: 'refused', reason: v.reason, judge: v.judge },
            openGripper: this.config.openGripperOnRefuse,
          },
        };
      return this.refusal.decision;
    }
    if (v?.decision === 'allow') return PASS_ALLOW;
    if (closed) return HOLD_AWAITING;
    return PASS_FAIL_OPEN;
  }

  private emit(e: SemanticEvent): void {
    this.listeners.emit(e);
  }
}
