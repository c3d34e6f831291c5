/**
 * Gate states, causes and transition events (design §6). Causes are a discriminated union so
 * recorders and dashboards can switch on `kind` exhaustively.
 */
import { describeFault, type Fault } from '../schema/fault.js';

export type GateState = 'armed' | 'warning' | 'filtering' | 'hold';

/** Why the gate holds. */
export type HoldCause =
  | { kind: 'violation'; clause: string; margin: number }
  | { kind: 'certain-violation'; clause: string; high: number }
  | { kind: 'invalid-margin'; clause: string; value: number }
  | { kind: 'missing-signal'; signal: string }
  | { kind: 'stale-signal'; signal: string; age: number; maxAge: number }
  | { kind: 'invalid-sample'; signal: string; value: number }
  | { kind: 'clock-jump'; dt: number }
  | { kind: 'driver-fault'; fault: Fault }
  | { kind: 'solver-failure'; chunkId: string; status: string }
  | { kind: 'unsafe-chunk'; chunkId: string; detail: string }
  | { kind: 'e-stop'; by: string }
  | { kind: 'watchdog'; gap: number }
  /** Start-up phase: held until every required signal has been seen fresh once. */
  | { kind: 'starting'; signals: readonly string[] }
  /** Start-up gave up: these required signals were never seen fresh. */
  | { kind: 'start-up-failed'; neverSeen: readonly string[] };

/** Why the gate left hold or moved between the non-hold states. */
export type ActivityCause =
  | { kind: 'margin-warning'; clause: string; margin: number; epsilon: number }
  | { kind: 'margins-clear' }
  | { kind: 'filter-active'; chunkId: string }
  | { kind: 'filter-idle'; chunkId: string }
  | { kind: 'release'; by: string }
  | { kind: 'start-up-complete' }
  /** A latched e-stop was reset by an operator naming who pressed it; the gate stays in hold until released. */
  | { kind: 'e-stop-reset'; by: string; pressedBy: string };

export type GateCause = HoldCause | ActivityCause;

/**
 * A state change, or (from === to === 'hold') an e-stop pressed or reset while the gate already
 * held: every e-stop is reported whatever the state.
 */
export interface GateEvent {
  readonly t: number;
  readonly from: GateState;
  readonly to: GateState;
  readonly cause: GateCause;
}

/** One latched e-stop: who pressed it, when, and the sender's id for the press when it gave one. */
export interface EStopLatch {
  readonly by: string;
  readonly t: number;
  readonly id?: string;
}

export type GateListener = (event: GateEvent) => void;

/** One line a person can read, e.g. for the hold command's reason and logs. */
export function describeCause(c: GateCause): string {
  switch (c.kind) {
    case 'violation':
      return `clause ${c.clause} violated (normalised margin ${fmt(c.margin)})`;
    case 'certain-violation':
      return `clause ${c.clause} certain to be violated (upper bound ${fmt(c.high)})`;
    case 'invalid-margin':
      return `clause ${c.clause} robustness is not a number (${c.value})`;
    case 'missing-signal':
      return `required signal ${c.signal} missing`;
    case 'stale-signal':
      return `signal ${c.signal} stale (age ${fmt(c.age)} s > max ${c.maxAge} s)`;
    case 'invalid-sample':
      return `signal ${c.signal} has an invalid sample (${c.value})`;
    case 'clock-jump':
      return `clock jump of ${fmt(c.dt)} s between steps`;
    case 'driver-fault':
      return `driver fault ${describeFault(c.fault)}`;
    case 'solver-failure':
      return `CBF solve for chunk ${c.chunkId} failed (${c.status})`;
    case 'unsafe-chunk':
      return `chunk ${c.chunkId} cannot be made safe: ${c.detail}`;
    case 'e-stop':
      return `e-stop from ${c.by}`;
    case 'watchdog':
      return `no fresh samples for ${fmt(c.gap)} s (watchdog)`;
    case 'starting':
      return `starting: waiting for every required signal to be seen fresh (${c.signals.join(', ')})`;
    case 'start-up-failed':
      return `start-up failed: required signals never seen: ${c.neverSeen.join(', ')}`;
    case 'margin-warning':
      return `clause ${c.clause} inside its soft band (${fmt(c.margin)} < ε ${c.epsilon})`;
    case 'margins-clear':
      return 'all margins outside their soft bands';
    case 'filter-active':
      return `CBF modified chunk ${c.chunkId}`;
    case 'filter-idle':
      return `chunk ${c.chunkId} executed unmodified`;
    case 'release':
      return `released by ${c.by}`;
    case 'start-up-complete':
      return 'every required signal seen fresh: armed';
    case 'e-stop-reset':
      return `e-stop from ${c.pressedBy} reset by ${c.by}`;
  }
}

function fmt(x: number): string {
  return Number.isFinite(x) ? x.toPrecision(4) : String(x);
}
