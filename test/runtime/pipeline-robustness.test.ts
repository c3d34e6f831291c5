/** Pipeline paths that must hold the arm whatever the events sink, the mapping or the source clock do. */
import { describe, expect, it } from 'vitest';
import { ArrayClauseMargins, Gate } from '../../src/gate/index.js';
import type { GateEvent } from '../../src/gate/index.js';
import type { Fault } from '../../src/ports/index.js';
import { MemoryEventSink, MonitorBank, Pipeline } from '../../src/runtime/index.js';
import { SIGNALS, signalIndex, type SignalFrame } from '../../src/schema/signals.js';
import type { GateEventSink, PipelineOptions } from '../../src/runtime/index.js';
import { KinematicArm } from './support/kinematic-arm.js';
import { Q0, TORQUE_CLAUSE, runSteps } from './support/rig.js';
import { ScriptedSource } from './support/scripted-source.js';

const DT = 0.001;

class ThrowingEvents implements GateEventSink {
  gateEventCalls = 0;
  faultCalls = 0;
  gateEvent(_e: GateEvent): void {
    this.gateEventCalls++;
    throw new Error('recorder: disk full');
  }
  chunkResult(): void {
    throw new Error('recorder: disk full');
  }
  fault(_f: Fault, _t: number): void {
    this.faultCalls++;
    throw new Error('telemetry: socket closed');
  }
}

type BuildOptions = Partial<Pick<PipelineOptions, 'events' | 'mapping' | 'monitors' | 'watchdogTimeout'>> & {
  source?: ScriptedSource;
};

function build({ source = new ScriptedSource(), ...opts }: BuildOptions = {}) {
  const bank = MonitorBank.fromClauses([TORQUE_CLAUSE]);
  const gate = new Gate({ requiredSignals: bank.requiredSignals, maxStepGap: 0.25, faultQuietPeriod: 0.5 });
  const arm = new KinematicArm(Q0);
  const pipeline = new Pipeline({
    source,
    monitors: opts.monitors ?? bank,
    gate,
    sink: arm,
    watchdogTimeout: 0.2,
    openGripperOnHold: true,
    ...opts,
  });
  return { source, gate, arm, pipeline };
}

function run(r: ReturnType<typeof build>, from: number, steps: number): number {
  return runSteps(r, from, steps, DT);
}

describe('Pipeline with an events sink that throws', () => {
  it('still sends exactly one hold (and opens the gripper) on a violating sample, and step does not throw', () => {
    const events = new ThrowingEvents();
    const r = build({ events });
    r.source.live.set('max_joint_torque', 1);
    const t = run(r, 0, 3);
    r.source.live.set('max_joint_torque', 2.5);
    expect(() => run(r, t + DT, 3)).not.toThrow();
    expect(r.gate.holdCause).toMatchObject({ kind: 'violation', clause: 'joint_torque' });
    expect(r.arm.holds).toHaveLength(1);
    expect(r.arm.holds[0]!.reason).toMatch(/clause joint_torque violated/);
    expect(r.arm.gripperOpened).toBe(1);
    expect(events.gateEventCalls).toBe(1);
  });

  it('still holds when polling throws, and step does not throw', () => {
    const events = new ThrowingEvents();
    const r = build({ events });
    r.source.pollThrows = new Error('port closed');
    expect(() => r.pipeline.step(0)).not.toThrow();
    expect(r.gate.holdCause).toMatchObject({ kind: 'driver-fault', fault: { kind: 'disconnect', source: 'scripted' } });
    expect(r.arm.holds).toHaveLength(1);
    expect(events.faultCalls).toBe(1);
  });

  it('still holds on a fault a driver reports, and the report does not throw back into the driver', () => {
    const events = new ThrowingEvents();
    const r = build({ events });
    r.source.live.set('max_joint_torque', 1);
    run(r, 0, 3);
    expect(() =>
      r.source.raise({ kind: 'servo-error', source: 'so101', servoId: 3, bits: ['overload'] }, 0.0025),
    ).not.toThrow();
    expect(r.gate.holdCause).toMatchObject({ kind: 'driver-fault', fault: { kind: 'servo-error' } });
    expect(r.arm.holds).toHaveLength(1);
    expect(() =>
      r.arm.faultListeners.forEach((l) => l({ kind: 'disconnect', source: 'so101', detail: 'EIO' }, 0.003)),
    ).not.toThrow();
    expect(events.faultCalls).toBe(2);
  });

  it('still holds when a monitor throws, and step does not throw', () => {
    const events = new ThrowingEvents();
    const monitors = Object.assign(new ArrayClauseMargins(['joint_torque'], [0.1]), {
      pushNs(): void {
        throw new Error('monitor blew up');
      },
    });
    const r = build({ events, monitors });
    expect(() => r.pipeline.step(0)).not.toThrow();
    expect(r.gate.holdCause).toMatchObject({ kind: 'driver-fault', fault: { kind: 'invalid-sample' } });
    expect(r.arm.holds).toHaveLength(1);
    expect(events.faultCalls).toBe(1);
  });
});

describe('Pipeline mapping', () => {
  it('a throwing mapping holds as an invalid sample from the mapping, with what it threw, not as a source disconnect', () => {
    const events = new MemoryEventSink();
    let broken = false;
    const r = build({
      events,
      mapping: () => {
        if (broken) throw new Error('calibration table missing joint 3');
      },
    });
    r.source.live.set('max_joint_torque', 1);
    const t = run(r, 0, 3);
    expect(r.gate.state).toBe('armed');
    broken = true;
    expect(() => r.pipeline.step(t + DT)).not.toThrow();
    const fault = {
      kind: 'invalid-sample',
      source: 'mapping',
      detail: 'mapping threw: calibration table missing joint 3',
    };
    expect(r.gate.holdCause).toEqual({ kind: 'driver-fault', fault: expect.objectContaining(fault) });
    expect(events.faults).toEqual([{ fault: expect.objectContaining(fault), t: t + DT }]);
    expect(r.arm.holds).toHaveLength(1);
    expect(r.arm.holds[0]!.reason).toBe(
      'driver fault invalid-sample from mapping: mapping threw: calibration table missing joint 3',
    );
  });
});

/** Stamps the next poll's samples `skew` seconds after the pipeline's now (a source clock ahead). */
class SkewedSource extends ScriptedSource {
  skewOnce = 0;
  override poll(frame: SignalFrame, now: number): void {
    super.poll(frame, now + this.skewOnce);
    this.skewOnce = 0;
  }
}

describe('Pipeline watchdog and future-stamped samples', () => {
  it("a source whose own sample time runs 100 s ahead (its signals' stamps sane) holds naming it, not a silently skipped sample", () => {
    class AheadSampleTime extends ScriptedSource {
      aheadS = 0;
      private nowS = 0;
      override poll(frame: SignalFrame, now: number): void {
        this.nowS = now;
        super.poll(frame, now);
      }
      sampleNs(): number {
        return Math.round((this.nowS + this.aheadS) * 1e9);
      }
    }
    const source = new AheadSampleTime();
    const events = new MemoryEventSink();
    const r = build({ source, events });
    source.live.set('max_joint_torque', 1);
    let t = run(r, 0, 10);
    expect(r.gate.state).toBe('armed');
    source.aheadS = 100;
    t += DT;
    r.arm.tick(t);
    r.pipeline.step(t);
    expect(r.pipeline.sampled).toBe(false);
    expect(r.gate.holdCause).toEqual({
      kind: 'driver-fault',
      fault: {
        kind: 'clock-jump',
        source: 'scripted',
        dt: expect.closeTo(100, 6),
        detail: 'sample time 100 s in the future: not monitored',
      },
    });
    expect(r.arm.holds).toHaveLength(1);
    t = run(r, t, 5); // still ahead: held, reported once
    expect(events.faults).toHaveLength(1);
    expect(r.arm.holds).toHaveLength(1);
  });

  it('one sample stamped 100 s ahead, then silence: holds for the future stamp, and the watchdog still expires', () => {
    const source = new SkewedSource();
    const events = new MemoryEventSink();
    const r = build({ source, events, watchdogTimeout: 0.2 });
    source.live.set('max_joint_torque', 1);
    let t = run(r, 0, 10);
    source.skewOnce = 0.04; // within the tolerance
    t += DT;
    r.pipeline.step(t);
    expect(r.gate.state).toBe('armed');
    t += DT;
    source.skewOnce = 100;
    r.arm.tick(t);
    r.pipeline.step(t);
    source.live.set('max_joint_torque', undefined); // silence
    expect(r.gate.holdCause).toEqual({
      kind: 'driver-fault',
      fault: {
        kind: 'clock-jump',
        source: 'scripted',
        dt: expect.closeTo(100, 9),
        detail: 'max_joint_torque sample stamped 100 s in the future',
      },
    });
    expect(r.arm.holds).toHaveLength(1);
    const refused = r.pipeline.release(t, { by: 'op', authorised: true });
    expect(!refused.ok && refused.reason).toMatch(/clock-jump .*stamped 100 s in the future/);
    t = run(r, t + DT, 300); // > watchdogTimeout after the last sane sample
    const later = r.pipeline.release(t, { by: 'op', authorised: true });
    expect(later).toEqual({
      ok: false,
      reason: 'release refused: cause persists: no fresh samples for 0.2010 s (watchdog)',
    });
    expect(events.faults).toHaveLength(1); // reported once, not every step
    expect(r.arm.holds).toHaveLength(1);
  });
});

/** Delivers one sample stamped `ahead` s after now, then re-delivers that same sample (a source whose clock runs ahead, then stalls). */
class AheadThenStalledSource extends ScriptedSource {
  stamp = NaN;
  value = 1;
  override poll(frame: SignalFrame, _now: number): void {
    if (this.stamp === this.stamp) frame.set(signalIndex('max_joint_torque')!, this.value, this.stamp, this.name);
  }
}

describe('a sample stamped ahead within the clock tolerance (issue 14 item 5)', () => {
  it('goes stale max age after it arrived, not max age + how far ahead it was stamped', () => {
    const source = new AheadThenStalledSource();
    // No watchdog in the way: only the gate's per-signal staleness (torque max age 0.05 s, design §2).
    const r = build({ source, watchdogTimeout: 10 });
    const maxAge = SIGNALS[signalIndex('max_joint_torque')!]!.maxAge;
    expect(maxAge).toBe(0.05);
    source.stamp = 0.04; // arrives at t = 0, stamped 0.04 s ahead (tolerance 0.05 s)
    let t = 0;
    let heldAt = NaN;
    for (let k = 0; k <= 120 && heldAt !== heldAt; k++) {
      t = k * DT;
      r.pipeline.step(t);
      if (r.gate.state === 'hold') heldAt = t;
    }
    expect(r.gate.holdCause).toMatchObject({ kind: 'stale-signal', signal: 'max_joint_torque' });
    // First step with age > 0.05 s counted from its arrival at t = 0 (the old code held at 0.091 s).
    expect(heldAt).toBeCloseTo(0.051, 9);
  });
});
