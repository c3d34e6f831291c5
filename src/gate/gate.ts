/**
 * The gate state machine (design §6): armed → warning → filtering → hold. Pure: every input carries
 * its time. `evaluate` runs once per sample and allocates nothing unless the state changes.
 * Hold latches; `release` needs an authorised operator and is refused while any cause persists.
 * Every e-stop latches on its own (also when the gate already holds) and is cleared only by
 * `resetEStop` naming who pressed it; a release never clears an e-stop.
 */
import { SIGNALS, Validity } from '../schema/signals.js';
import type { SignalFrame } from '../schema/signals.js';
import type { ClauseMargins } from './margins.js';
import type { EStopLatch, GateCause, GateEvent, GateListener, GateState, HoldCause } from './events.js';
import type { Fault } from '../schema/fault.js';
import { describeCause } from './events.js';
import { nsToSeconds, secondsToNs } from '../util/time.js';
import { Listeners } from '../util/listeners.js';
import type { Verdict } from '../util/result.js';

export interface GateConfig {
  /** Indices into SIGNALS the active clauses need; missing/stale/invalid ones hold the gate. */
  readonly requiredSignals: readonly number[];
  /** Per-signal max age override (s), indexed like SIGNALS; default SIGNALS[i].maxAge. */
  readonly maxAge?: readonly number[];
  /** A forward step larger than this (s) between evaluations is a clock jump. */
  readonly maxStepGap: number;
  /** A driver fault persists (blocks release) until this long (s) after its last report. */
  readonly faultQuietPeriod: number;
  /**
   * Start held and arm without a release once every required signal has been seen fresh at one
   * evaluation (a ROS 2 graph matches its publishers one at a time, so signals appear one by one).
   * While starting, a signal not seen yet (missing, stale) or a margin not computable yet waits;
   * anything else (violation, invalid sample, fault, e-stop, clock jump) ends the start-up in a
   * latched hold. After arming, a lost signal holds as always. Default false: armed at once.
   */
  readonly startup?: boolean;
}

export const DEFAULT_GATE_CONFIG: GateConfig = {
  requiredSignals: [],
  maxStepGap: 0.5,
  faultQuietPeriod: 1.0,
};

/** What the gate says to a release or e-stop reset request. */
export type ReleaseResult = Verdict;

/** The per-sample condition found by the last evaluation, kept as scalars (no allocation). */
const enum Block {
  None,
  ClockJump,
  Missing,
  Stale,
  Invalid,
  MarginNaN,
  Violation,
  Certain,
}

export class Gate {
  private st: GateState = 'armed';
  /**
   * Isolated: a failing listener (recorder, telemetry) must neither undo a transition nor keep it
   * from the listeners after it, which include the one that sends the hold command.
   */
  private readonly listeners = new Listeners<[GateEvent]>({ isolate: true });
  /** The max ages given at construction (s): `setMaxAgeFloor` never goes below them. */
  private readonly baseMaxAge: Float64Array;
  private readonly maxAge: Float64Array;
  /** The same in integer ns, as the ages are compared (a sample exactly maxAge old is fresh). */
  private readonly maxAgeNs: Float64Array;
  private readonly maxStepGapNs: number;
  private readonly faultQuietNs: number;
  private lastT = NaN;
  private inBand = false;
  private filterActive = false;
  private cause: HoldCause | null = null;
  // Persisting conditions, refreshed by evaluate / the external inputs.
  private block: Block = Block.None;
  private blockIndex = -1;
  private blockValue = 0;
  private readonly latches: EStopLatch[] = [];
  private watchdogGap = 0;
  private watchdogExpired = false;
  private lastFault: Fault | null = null;
  private lastFaultT = -Infinity;
  private lastMargins: ClauseMargins | null = null;
  private startingUp: boolean;
  /** Per required signal (config order): seen fresh at least once during start-up. */
  private readonly seenFresh: Uint8Array;

  constructor(private readonly config: GateConfig = DEFAULT_GATE_CONFIG) {
    this.maxAge = new Float64Array(SIGNALS.length);
    for (let i = 0; i < SIGNALS.length; i++) this.maxAge[i] = config.maxAge?.[i] ?? SIGNALS[i]?.maxAge ?? 0;
    this.baseMaxAge = this.maxAge.slice();
    this.maxAgeNs = this.maxAge.map(secondsToNs);
    this.maxStepGapNs = secondsToNs(config.maxStepGap);
    this.faultQuietNs = secondsToNs(config.faultQuietPeriod);
    this.seenFresh = new Uint8Array(config.requiredSignals.length);
    this.startingUp = config.startup === true;
    if (this.startingUp) {
      this.st = 'hold';
      this.cause = { kind: 'starting', signals: config.requiredSignals.map((i) => SIGNALS[i]?.name ?? `signal#${i}`) };
    }
  }

  /**
   * Raise every signal's max age to at least `floorS` (s) from now on — never below the max ages
   * given at construction (a lower floor restores those). The caller owns the bound (`run` keeps the
   * floor under a ceiling); the next evaluation judges ages against the new limits.
   */
  setMaxAgeFloor(floorS: number): void {
    if (!(floorS >= 0) || !Number.isFinite(floorS))
      throw new RangeError(`max-age floor: expected seconds ≥ 0, got ${floorS}`);
    for (let i = 0; i < this.maxAge.length; i++) {
      this.maxAge[i] = Math.max(this.baseMaxAge[i]!, floorS);
      this.maxAgeNs[i] = secondsToNs(this.maxAge[i]!);
    }
  }

  /** The max age (s) in force for signal index `i` (indexed like SIGNALS). */
  maxAgeOf(i: number): number {
    return this.maxAge[i] ?? NaN;
  }

  /** In the start-up phase (held, waiting for every required signal once). */
  get starting(): boolean {
    return this.startingUp;
  }
  /** Required signals not yet seen fresh during start-up (names; empty once armed). */
  neverSeen(): string[] {
    if (!this.startingUp) return [];
    return this.config.requiredSignals
      .filter((_, k) => this.seenFresh[k] === 0)
      .map((i) => SIGNALS[i]?.name ?? `signal#${i}`);
  }
  /**
   * Start-up took too long: end it in a latched hold naming the signals never seen — or, when all
   * were seen but the gate still could not arm (a signal gone stale again, a margin that is not a
   * number), with that condition as the cause.
   */
  startupTimedOut(t: number): void {
    if (!this.startingUp) return;
    const neverSeen = this.neverSeen();
    const blocked = neverSeen.length === 0 && this.block !== Block.None;
    this.endStartupHeld(t, blocked ? this.blockCause(this.lastMargins) : { kind: 'start-up-failed', neverSeen });
  }

  get state(): GateState {
    return this.st;
  }
  /** Why the gate is holding (null unless in hold). */
  get holdCause(): HoldCause | null {
    return this.cause;
  }
  get holding(): boolean {
    return this.st === 'hold';
  }
  /** Time of the last `evaluate` (NaN before the first). */
  get lastEvaluated(): number {
    return this.lastT;
  }

  onEvent(listener: GateListener): () => void {
    return this.listeners.add(listener);
  }

  /** One sample: clock, required signals, clause margins. Returns the state after it. */
  evaluate(t: number, margins: ClauseMargins, frame: SignalFrame | null): GateState {
    this.block = Block.None;
    this.lastMargins = margins;
    // Times are compared in integer ns (src/util/time.ts): a step exactly maxStepGap long is not a jump.
    const dt = secondsToNs(t) - secondsToNs(this.lastT);
    if (!Number.isFinite(t) || (this.lastT === this.lastT && !(dt >= 0 && dt <= this.maxStepGapNs))) {
      this.setBlock(Block.ClockJump, -1, Number.isFinite(dt) ? nsToSeconds(dt) : NaN);
    }
    if (Number.isFinite(t)) this.lastT = t;
    if (frame !== null) this.checkSignals(t, frame);
    let bandClause = -1;
    for (let i = 0; i < margins.count; i++) {
      const m = margins.margin(i);
      const lo = margins.low(i);
      const hi = margins.high(i);
      if (m !== m || lo !== lo || hi !== hi) this.setBlock(Block.MarginNaN, i, m !== m ? m : hi !== hi ? hi : lo);
      else if (m < 0) this.setBlock(Block.Violation, i, m);
      else if (hi < 0) this.setBlock(Block.Certain, i, hi);
      else if (bandClause < 0 && (m < margins.epsilon(i) || lo < margins.epsilon(i))) bandClause = i;
    }
    if (this.startingUp) {
      this.startupStep(t, frame);
      return this.st;
    }
    if (this.st === 'hold') return this.st;
    if (this.block !== Block.None) {
      this.enterHold(t, this.blockCause(margins));
      return this.st;
    }
    const wasInBand = this.inBand;
    this.inBand = bandClause >= 0;
    if (this.inBand !== wasInBand || this.st !== this.activityState()) {
      const cause: GateCause = this.inBand
        ? {
            kind: 'margin-warning',
            clause: margins.name(bandClause),
            margin: Math.min(margins.margin(bandClause), margins.low(bandClause)),
            epsilon: margins.epsilon(bandClause),
          }
        : { kind: 'margins-clear' };
      this.moveTo(t, this.activityState(), cause);
    }
    return this.st;
  }

  /** A driver reported a fault: hold. The fault persists for `faultQuietPeriod` after its last report. */
  fault(t: number, fault: Fault): void {
    this.lastFault = fault;
    this.lastFaultT = t;
    this.enterHold(t, { kind: 'driver-fault', fault });
  }

  /** The e-stops latched now, oldest first (empty when none). */
  get eStops(): readonly EStopLatch[] {
    return this.latches;
  }

  /**
   * An e-stop: latches (one latch per presser; a repeat press by the same presser refreshes it)
   * and holds. Reported to the listeners whatever the state: from hold it is a hold → hold event.
   */
  eStop(t: number, by: string, id?: string): void {
    const latch: EStopLatch = id !== undefined ? { by, t, id } : { by, t };
    const i = this.latches.findIndex((l) => l.by === by);
    if (i >= 0) this.latches[i] = latch;
    else this.latches.push(latch);
    const cause: HoldCause = { kind: 'e-stop', by };
    // during start-up the gate already reads 'hold': enterHold ends start-up into a latched hold (and reports it)
    if (this.st !== 'hold' || this.startingUp) this.enterHold(t, cause);
    else this.emit({ t, from: 'hold', to: 'hold', cause });
  }

  /**
   * Clear the latched e-stop pressed by `pressedBy` (its `by` text or its id). The gate stays in
   * hold: a release is still needed (and is refused while another e-stop is latched).
   */
  resetEStop(t: number, request: { by: string; pressedBy: string; authorised: boolean }): ReleaseResult {
    if (!request.authorised) return { ok: false, reason: `e-stop reset by ${request.by} refused: not authorised` };
    const i = this.latches.findIndex(
      (l) => l.by === request.pressedBy || (l.id !== undefined && l.id === request.pressedBy),
    );
    if (i < 0) {
      const latched = this.latches.map((l) => `'${l.by}'`).join(', ');
      return { ok: false, reason: `no e-stop from '${request.pressedBy}' is latched (latched: ${latched || 'none'})` };
    }
    const [latch] = this.latches.splice(i, 1);
    this.emit({ t, from: this.st, to: this.st, cause: { kind: 'e-stop-reset', by: request.by, pressedBy: latch!.by } });
    return { ok: true };
  }

  /** The source watchdog expired: no fresh sample for `gap` seconds. */
  watchdogExpiredAt(t: number, gap: number): void {
    this.watchdogExpired = true;
    this.watchdogGap = gap;
    if (this.st !== 'hold') this.enterHold(t, { kind: 'watchdog', gap });
  }
  /** Fresh samples arrive again. */
  watchdogFed(): void {
    this.watchdogExpired = false;
  }

  /** The CBF solve failed (infeasible, iteration/time cap, numerical): hold. */
  solverFailed(t: number, chunkId: string, status: string): void {
    this.enterHold(t, { kind: 'solver-failure', chunkId, status });
  }
  /** The filter found no safe modification (h < 0 after re-check, slack beyond tolerance): hold. */
  unsafeChunk(t: number, chunkId: string, detail: string): void {
    this.enterHold(t, { kind: 'unsafe-chunk', chunkId, detail });
  }
  /** A chunk was executed: `modified` says whether the CBF changed it (→ filtering) or not. */
  chunkExecuted(t: number, chunkId: string, modified: boolean): void {
    if (this.st === 'hold' || modified === this.filterActive) return;
    this.filterActive = modified;
    this.moveTo(
      t,
      this.activityState(),
      modified ? { kind: 'filter-active', chunkId } : { kind: 'filter-idle', chunkId },
    );
  }

  /** Operator release. Refused unless authorised and no hold cause persists at time `t`. */
  release(t: number, request: { by: string; authorised: boolean }): ReleaseResult {
    if (this.st !== 'hold') return { ok: false, reason: 'gate is not holding' };
    if (!request.authorised) return { ok: false, reason: `release by ${request.by} refused: not authorised` };
    const persisting = this.persistingReason(t);
    if (persisting !== null) return { ok: false, reason: `release refused: cause persists: ${persisting}` };
    this.cause = null;
    this.inBand = false;
    this.filterActive = false;
    this.moveTo(t, 'armed', { kind: 'release', by: request.by });
    return { ok: true };
  }

  private startupStep(t: number, frame: SignalFrame | null): void {
    const b = this.block;
    if (b !== Block.None && b !== Block.Missing && b !== Block.Stale && b !== Block.MarginNaN) {
      this.endStartupHeld(t, this.blockCause(this.lastMargins));
      return;
    }
    let all = true;
    const req = this.config.requiredSignals;
    for (let k = 0; k < req.length; k++) {
      if (this.seenFresh[k] === 0 && frame !== null) {
        const i = req[k] ?? -1;
        if (frame.validity[i] === Validity.Valid && frame.ageNs(i, t) <= (this.maxAgeNs[i] ?? 0)) this.seenFresh[k] = 1;
      }
      if (this.seenFresh[k] === 0) all = false;
    }
    if (!all || b !== Block.None || this.latches.length > 0 || this.watchdogExpired) return;
    this.startingUp = false;
    this.cause = null;
    this.moveTo(t, 'armed', { kind: 'start-up-complete' });
  }

  /** Leave the start-up phase into an ordinary latched hold (release needed) with `cause`. */
  private endStartupHeld(t: number, cause: HoldCause): void {
    this.startingUp = false;
    this.cause = cause;
    this.emit({ t, from: 'hold', to: 'hold', cause });
  }

  /** What would keep the gate in hold now, or null. */
  persistingReason(t: number): string | null {
    if (this.startingUp && this.cause) return describeCause(this.cause);
    const stop = this.stopReason(t);
    if (stop !== null) return stop;
    if (this.block !== Block.None) return describeCause(this.blockCause(this.lastMargins));
    if (this.lastT !== this.lastT) return 'no sample evaluated yet';
    return null;
  }

  /**
   * A latched e-stop, the source watchdog or a driver fault (within its quiet period), or null: the
   * causes that stop the arm even in a gate-off baseline run, where clause verdicts are only recorded.
   */
  stopReason(t: number): string | null {
    const latch = this.latches[0];
    if (latch !== undefined) {
      const more = this.latches.length > 1 ? ` (and ${this.latches.length - 1} more)` : '';
      return `${describeCause({ kind: 'e-stop', by: latch.by })} is latched${more}: reset it naming who pressed it`;
    }
    if (this.watchdogExpired) return describeCause({ kind: 'watchdog', gap: this.watchdogGap });
    if (this.lastFault !== null && secondsToNs(t) - secondsToNs(this.lastFaultT) < this.faultQuietNs) {
      return describeCause({ kind: 'driver-fault', fault: this.lastFault });
    }
    return null;
  }

  private checkSignals(t: number, frame: SignalFrame): void {
    const req = this.config.requiredSignals;
    for (let k = 0; k < req.length; k++) {
      const i = req[k] ?? -1;
      const v = frame.validity[i];
      if (v === Validity.Missing) this.setBlock(Block.Missing, i, NaN);
      else if (v === Validity.Invalid) this.setBlock(Block.Invalid, i, frame.values[i] ?? NaN);
      else {
        const age = frame.ageNs(i, t);
        if (!(age <= (this.maxAgeNs[i] ?? 0))) this.setBlock(Block.Stale, i, nsToSeconds(age));
      }
    }
  }

  /** Keep the first condition found: it is the one reported. */
  private setBlock(b: Block, index: number, value: number): void {
    if (this.block !== Block.None) return;
    this.block = b;
    this.blockIndex = index;
    this.blockValue = value;
  }

  private blockCause(margins: ClauseMargins | null): HoldCause {
    const i = this.blockIndex;
    const signal = SIGNALS[i]?.name ?? `signal#${i}`;
    const clause = margins ? margins.name(i) : `clause#${i}`;
    switch (this.block) {
      case Block.ClockJump:
        return { kind: 'clock-jump', dt: this.blockValue };
      case Block.Missing:
        return { kind: 'missing-signal', signal };
      case Block.Stale:
        return { kind: 'stale-signal', signal, age: this.blockValue, maxAge: this.maxAge[i] ?? 0 };
      case Block.Invalid:
        return { kind: 'invalid-sample', signal, value: this.blockValue };
      case Block.MarginNaN:
        return { kind: 'invalid-margin', clause, value: this.blockValue };
      case Block.Violation:
        return { kind: 'violation', clause, margin: this.blockValue };
      case Block.Certain:
      case Block.None:
        return { kind: 'certain-violation', clause, high: this.blockValue };
    }
  }

  private activityState(): GateState {
    return this.filterActive ? 'filtering' : this.inBand ? 'warning' : 'armed';
  }

  private enterHold(t: number, cause: HoldCause): void {
    if (this.startingUp) {
      this.endStartupHeld(t, cause);
      return;
    }
    if (this.st === 'hold') return;
    this.cause = cause;
    this.moveTo(t, 'hold', cause);
  }

  private moveTo(t: number, to: GateState, cause: GateCause): void {
    const from = this.st;
    if (from === to) return;
    this.st = to;
    this.emit({ t, from, to, cause });
  }

  private emit(event: GateEvent): void {
    this.listeners.emit(event);
  }
}
