/**
 * The runtime pipeline (design §1): source → mapping → monitors → gate → sinks, one `step(now)` per
 * sample; plus the source watchdog, the hold action and the per-cycle heartbeat. Time comes from
 * the caller (the composition root's clock, or a ManualClock in tests and replays).
 */
import type { ExecutedChunk, GateChunk } from '../gate/chunk.js';
import { describeCause } from '../gate/events.js';
import type { GateEvent, GateState } from '../gate/events.js';
import type { Gate, ReleaseResult } from '../gate/gate.js';
import type { ClauseMargins } from '../gate/margins.js';
import type { CommandSink, Fault, SignalSource } from '../ports/index.js';
import { SIGNAL_COUNT, SIGNALS, SignalFrame, Validity } from '../schema/signals.js';
import { nsToSeconds, secondsToNs } from '../util/time.js';
import type { ChunkPath } from './chunk-executor.js';
import type { GateEventSink } from './events.js';

/** Monitors the pipeline drives: margins for the gate plus a per-sample update. */
export interface FrameMonitors extends ClauseMargins {
  /** One sample at `tNs`: integer ns on the run's time base (the sample's own time), increasing. */
  pushNs(tNs: number, frame: SignalFrame): void;
}

export interface PipelineOptions {
  readonly source: SignalSource;
  /** Platform mapping (calibration, estimators) applied in place after polling. */
  readonly mapping?: (frame: SignalFrame, now: number) => void;
  readonly monitors: FrameMonitors;
  readonly gate: Gate;
  readonly sink: CommandSink;
  readonly chunks?: ChunkPath;
  readonly events?: GateEventSink;
  /** No fresh sample (newest stamp in the frame) for this long (s) trips the watchdog. */
  readonly watchdogTimeout: number;
  /** Hold action: also open the gripper (design §6: off by default for held objects). */
  readonly openGripperOnHold?: boolean;
  /** A sample stamped more than this (s) after `now` is a clock fault (default 0.05). */
  readonly futureStampTolerance?: number;
}

export class Pipeline {
  readonly frame = new SignalFrame();
  private newest = -Infinity;
  private watchdogTripped = false;
  /** Set while the frame holds a sample stamped in the future; re-raised each step so it persists. */
  private futureFault: Fault | null = null;
  private started = NaN;
  /**
   * Per signal: the last stamp a source delivered and when the pipeline first saw it. A sample
   * stamped ahead of `now` (within the tolerance) is aged from when it was first seen, not from its
   * stamp: aged from the stamp it would stay fresh for max age + tolerance (twice the max age for
   * torque, whose max age equals the default tolerance).
   */
  private readonly lastStamp = new Float64Array(SIGNAL_COUNT).fill(NaN);
  private readonly firstSeen = new Float64Array(SIGNAL_COUNT);

  private watchdogTimeoutNs: number;
  private readonly futureToleranceNs: number;
  /** The sample time (ns) last pushed to the monitors. */
  private lastSampleNs = -Infinity;
  /**
   * Whether the last step brought a new sample to the monitors (then `frame.t` is its time); an
   * idle step (no new sample) leaves the margins and records nothing new.
   */
  sampled = false;

  constructor(private readonly o: PipelineOptions) {
    this.watchdogTimeoutNs = secondsToNs(o.watchdogTimeout);
    this.futureToleranceNs = secondsToNs(o.futureStampTolerance ?? 0.05);
    o.gate.onEvent((e) => this.onGateEvent(e));
    const onFault = (f: Fault, t: number) => {
      o.gate.fault(t, f);
      this.report(f, t);
    };
    o.source.onFault(onFault);
    o.sink.onFault(onFault);
  }

  get state(): GateState {
    return this.o.gate.state;
  }

  /** One sample cycle at `now`. Never throws; allocates nothing unless the gate changes state. */
  step(now: number): GateState {
    const { source, gate, monitors, sink } = this.o;
    if (this.started !== this.started) this.started = now;
    this.o.chunks?.step?.(now);
    const frame = this.frame;
    let polled = false;
    try {
      source.poll(frame, now);
      polled = true;
    } catch (e) {
      const f: Fault = {
        kind: 'disconnect',
        source: source.name,
        detail: `poll threw: ${e instanceof Error ? e.message : String(e)}`,
      };
      gate.fault(now, f);
      this.report(f, now);
    }
    // The mapping works in place: on a frame the poll did not refresh it would map mapped values again.
    if (polled && this.o.mapping) {
      try {
        this.o.mapping(frame, now);
      } catch (e) {
        // The source is fine; the mapped frame (calibration, estimators) cannot be trusted.
        const f = {
          kind: 'invalid-sample',
          source: 'mapping',
          signal: '*',
          value: NaN,
          detail: `mapping threw: ${e instanceof Error ? e.message : String(e)}`,
        } as const;
        gate.fault(now, f);
        this.report(f, now);
      }
    }
    const sampleNs = polled ? this.sampleTime(now) : NaN;
    this.sampled = sampleNs === sampleNs;
    if (this.sampled) frame.t = nsToSeconds(sampleNs);
    this.checkWatchdog(now);
    // A sample stamped beyond the future tolerance is a clock fault (the gate holds): not monitored,
    // or every later sample would look older than it.
    if (this.sampled && sampleNs > secondsToNs(now) + this.futureToleranceNs) {
      this.sampled = false;
      // The source's own sample time may run ahead while its signals' stamps do not (checkWatchdog
      // sees only those): this is the fault that holds for it, not a silently skipped sample.
      this.futureSampleTime(now, sampleNs);
    } else if (this.sampled) this.futureSampleFault = null;
    try {
      if (this.sampled) {
        this.lastSampleNs = sampleNs;
        monitors.pushNs(sampleNs, frame);
      }
    } catch (e) {
      // Margins from a monitor that threw cannot be trusted: hold.
      const f: Fault = {
        kind: 'invalid-sample',
        source: 'monitors',
        signal: '*',
        value: NaN,
        detail: e instanceof Error ? e.message : String(e),
      };
      gate.fault(now, f);
      this.report(f, now);
    }
    gate.evaluate(now, monitors, frame);
    try {
      sink.heartbeat(now);
    } catch {
      // The arm-side watchdog holds the arm when heartbeats do not arrive.
    }
    return gate.state;
  }

  /** A proposed chunk, already parsed. */
  submitChunk(chunk: GateChunk, now: number): ExecutedChunk {
    if (!this.o.chunks) {
      return {
        id: chunk.id,
        verdict: 'rejected',
        code: 'no-chunk-path',
        reason: 'this pipeline has no chunk executor configured',
      };
    }
    return this.o.chunks.submit(chunk, now);
  }

  /** A proposed chunk whose decision may arrive later (a chunk path filtering off the control thread); `done` is called once. */
  submitChunkAsync(chunk: GateChunk, now: number, done: (result: ExecutedChunk, t: number) => void): void {
    const path = this.o.chunks;
    if (path?.submitAsync) return path.submitAsync(chunk, now, done);
    done(this.submitChunk(chunk, now), now);
  }

  /** The watchdog timeout (s) from the next step on (`run` raises it with the adaptive max-age floor). */
  setWatchdogTimeout(seconds: number): void {
    if (!(seconds > 0) || !Number.isFinite(seconds))
      throw new RangeError(`watchdog: expected seconds > 0, got ${seconds}`);
    this.watchdogTimeoutNs = secondsToNs(seconds);
  }

  /** How old (s) the joint state may be when a chunk is filtered, from now on (a chunk path that checks it). */
  setMaxStateAge(seconds: number): void {
    this.o.chunks?.setMaxStateAge?.(seconds);
  }

  eStop(now: number, by: string): void {
    this.o.gate.eStop(now, by);
  }
  release(now: number, request: { by: string; authorised: boolean }): ReleaseResult {
    return this.o.gate.release(now, request);
  }

  /**
   * The time the monitors see this step's frame at (issue 13 item 3): the source's own stamp of its
   * newest sample (SignalSource.sampleNs, e.g. a ROS header stamp exact in ns), never when it
   * arrived; the step time for a source without stamps. NaN when the step brings no new sample (an
   * idle step repeats the last one). A stamp older than the last monitored one is a clock fault.
   */
  private sampleTime(now: number): number {
    const src = this.o.source;
    const ns = src.sampleNs ? src.sampleNs() : secondsToNs(now);
    if (!(ns > this.lastSampleNs)) {
      if (ns < this.lastSampleNs) {
        const f: Fault = {
          kind: 'clock-jump',
          source: src.name,
          dt: nsToSeconds(ns - this.lastSampleNs),
          detail: `sample stamped ${nsToSeconds(this.lastSampleNs - ns)} s before the previous one: not monitored`,
        };
        this.o.gate.fault(now, f);
        this.report(f, now);
      }
      return NaN;
    }
    return ns;
  }

  /**
   * Times are compared in integer ns (src/util/time.ts): a gap exactly the timeout long has not
   * tripped it. The watchdog timeout and the gate's max ages stay decimal seconds in the
   * configuration: they are not STL window edges (which samples a clause reads) but how long a
   * sample may be trusted, compared as step time − stamp, both converted to integer ns before the
   * subtraction, against the tolerance's exact ns (secondsToNs(0.1) = 100,000,000); a sample exactly
   * that old is still fresh. Float seconds there cost nothing in exactness.
   */
  private checkWatchdog(now: number): void {
    const f = this.frame;
    const nowNs = secondsToNs(now);
    const limitNs = nowNs + this.futureToleranceNs;
    let newest = this.newest;
    let future = -1;
    for (let i = 0; i < SIGNAL_COUNT; i++) {
      if (f.validity[i] === Validity.Missing) continue;
      let stamp = f.stamps[i]!;
      if (stamp !== this.lastStamp[i]) {
        this.lastStamp[i] = stamp;
        this.firstSeen[i] = now;
      }
      const stampNs = secondsToNs(stamp);
      // A future stamp (clock skew) must not feed the watchdog: as the running max it would keep it fed.
      if (stampNs > limitNs) {
        if (future < 0) future = i;
        continue;
      }
      if (stampNs > secondsToNs(this.firstSeen[i]!)) {
        // Ahead of our clock but within the tolerance: the frame carries the time it was first
        // seen, so the gate's staleness check and the watchdog age it from then.
        stamp = this.firstSeen[i]!;
        f.stamps[i] = stamp;
      }
      if (stamp > newest) newest = stamp;
    }
    this.newest = newest;
    if (future >= 0) this.futureStamped(now, future);
    else this.futureFault = null;
    const since = newest === -Infinity ? this.started : newest;
    const gapNs = nowNs - secondsToNs(since);
    if (gapNs > this.watchdogTimeoutNs) {
      if (!this.watchdogTripped) {
        this.watchdogTripped = true;
        this.o.gate.watchdogExpiredAt(now, nsToSeconds(gapNs));
      }
    } else if (this.watchdogTripped) {
      this.watchdogTripped = false;
      this.o.gate.watchdogFed();
    }
  }

  /** The fault for a source sample time ahead of the clock, re-raised (not re-reported) while it lasts. */
  private futureSampleFault: Fault | null = null;

  private futureSampleTime(now: number, sampleNs: number): void {
    if (this.futureSampleFault !== null) {
      this.o.gate.fault(now, this.futureSampleFault);
      return;
    }
    const ahead = nsToSeconds(sampleNs - secondsToNs(now));
    const f: Fault = {
      kind: 'clock-jump',
      source: this.o.source.name,
      dt: ahead,
      detail: `sample time ${ahead.toPrecision(3)} s in the future: not monitored`,
    };
    this.futureSampleFault = f;
    this.o.gate.fault(now, f);
    this.report(f, now);
  }

  private futureStamped(now: number, i: number): void {
    if (this.futureFault !== null) {
      this.o.gate.fault(now, this.futureFault);
      return;
    }
    const ahead = this.frame.stamps[i]! - now;
    const f: Fault = {
      kind: 'clock-jump',
      source: this.frame.sources[i] || this.o.source.name,
      dt: ahead,
      detail: `${SIGNALS[i]?.name ?? `signal#${i}`} sample stamped ${ahead.toPrecision(3)} s in the future`,
    };
    this.futureFault = f;
    this.o.gate.fault(now, f);
    this.report(f, now);
  }

  private onGateEvent(e: GateEvent): void {
    if (e.to === 'hold') {
      const { sink } = this.o;
      try {
        sink.hold(e.t, describeCause(e.cause));
        if (this.o.openGripperOnHold) sink.openGripper?.(e.t);
      } catch {
        // The sink reports its own faults; the arm-side heartbeat watchdog is the last line.
      }
    }
    try {
      this.o.events?.gateEvent(e);
    } catch {
      // A failing recorder or telemetry sink loses this record; the hold above has been sent.
    }
  }

  /** To the events sink, after the gate has acted on the fault: a sink that throws cannot undo that. */
  private report(f: Fault, t: number): void {
    try {
      this.o.events?.fault(f, t);
    } catch {
      // The fault is already in the gate's hold cause.
    }
  }
}
