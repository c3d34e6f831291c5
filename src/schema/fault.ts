/**
 * The one fault type (issue 17): everything that goes wrong below the gate, in a driver, the
 * runtime or the telemetry becomes one of these — never a throw — and the gate holds on it. A closed
 * union: each kind carries its own payload, so a fault outside it does not compile, and
 * `describeFault` is the one place that turns a fault into text. Pure.
 */
export type Fault =
  | { readonly kind: 'disconnect'; readonly source: string; readonly detail: string }
  | {
      readonly kind: 'timeout';
      readonly source: string;
      readonly detail: string;
      readonly servoIds?: readonly number[];
    }
  | { readonly kind: 'checksum-budget'; readonly source: string; readonly detail: string }
  | {
      readonly kind: 'servo-error';
      readonly source: string;
      readonly servoId: number;
      readonly bits: readonly string[];
      readonly detail?: string;
    }
  /** Bytes arrived but no valid reply (noise, a wrong baud rate, two masters): not a silent bus. */
  | {
      readonly kind: 'framing';
      readonly source: string;
      readonly detail: string;
      readonly servoIds?: readonly number[];
    }
  | { readonly kind: 'robot-mode'; readonly source: string; readonly mode: string }
  /** `age` in s (Infinity: never seen). */
  | {
      readonly kind: 'stale-signal';
      readonly source: string;
      readonly signal: string;
      readonly age: number;
      readonly detail?: string;
    }
  | {
      readonly kind: 'invalid-sample';
      readonly source: string;
      readonly signal: string;
      readonly value: number;
      readonly detail?: string;
    }
  /** `dt` in s: how far the time jumped (or a stamp lies ahead). */
  | { readonly kind: 'clock-jump'; readonly source: string; readonly dt: number; readonly detail?: string }
  | { readonly kind: 'solver'; readonly source: string; readonly status: string }
  | { readonly kind: 'storage'; readonly source: string; readonly detail: string }
  | { readonly kind: 'remote-heartbeat'; readonly source: string; readonly detail: string }
  /** The MQTT command channel (remote e-stop) is down. */
  | { readonly kind: 'mqtt-link-lost'; readonly source: string; readonly detail: string }
  /** The broker refused the command-channel subscription (remote e-stop unavailable). */
  | { readonly kind: 'subscribe-refused'; readonly source: string; readonly detail: string }
  /** A semantic judge gave no verdict (issue 18): timeout, HTTP status, network, malformed answer, … */
  | { readonly kind: 'judge'; readonly source: string; readonly cause: string; readonly detail: string }
  /** armguard's own code threw where it must not (a bug): the step's outputs cannot be trusted. */
  | { readonly kind: 'internal'; readonly source: string; readonly detail: string };

export type FaultKind = Fault['kind'];

/** What the fault says beyond its kind and source: its detail, else its payload in words. */
export function faultDetail(f: Fault): string {
  switch (f.kind) {
    case 'disconnect':
    case 'timeout':
    case 'checksum-budget':
    case 'framing':
    case 'storage':
    case 'remote-heartbeat':
    case 'mqtt-link-lost':
    case 'subscribe-refused':
    case 'judge':
    case 'internal':
      return f.detail;
    case 'servo-error':
      return f.detail ?? `servo ${f.servoId}: ${f.bits.join(', ') || 'error'}`;
    case 'robot-mode':
      return `robot mode ${f.mode}`;
    case 'stale-signal':
      return f.detail ?? `${f.signal} ${Number.isFinite(f.age) ? `${f.age.toPrecision(3)} s old` : 'never seen'}`;
    case 'invalid-sample':
      return f.detail ?? `${f.signal} = ${f.value}`;
    case 'clock-jump':
      return f.detail ?? `${f.dt.toPrecision(3)} s`;
    case 'solver':
      return `status ${f.status}`;
  }
}

/** One line a person can read: `kind from source: detail`. */
export function describeFault(f: Fault): string {
  return `${f.kind} from ${f.source}: ${faultDetail(f)}`;
}
