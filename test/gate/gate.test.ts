import { describe, expect, it } from 'vitest';
import { ArrayClauseMargins, Gate, NO_CLAUSES } from '../../src/gate/index.js';
import type { GateEvent } from '../../src/gate/index.js';
import { SignalFrame, signalIndex } from '../../src/schema/signals.js';

const FORCE = signalIndex('arm_furniture_contact_force')!;
const TORQUE = signalIndex('max_joint_torque')!; // maxAge 0.05 s

function setup(requiredSignals: number[] = [FORCE, TORQUE]) {
  const gate = new Gate({ requiredSignals, maxStepGap: 0.5, faultQuietPeriod: 1 });
  const events: GateEvent[] = [];
  gate.onEvent((e) => events.push(e));
  const margins = new ArrayClauseMargins(['arm_furniture_force', 'joint_torque'], [0.2, 0.1]);
  const frame = new SignalFrame();
  const fresh = (t: number) => {
    frame.t = t;
    frame.set(FORCE, 1, t, 'test');
    frame.set(TORQUE, 0.5, t, 'test');
  };
  return { gate, events, margins, frame, fresh };
}

describe('Gate state machine', () => {
  it('stays armed while margins are outside their bands and signals are fresh', () => {
    const { gate, events, margins, frame, fresh } = setup();
    for (let k = 0; k < 100; k++) {
      fresh(k * 0.01);
      expect(gate.evaluate(k * 0.01, margins, frame)).toBe('armed');
    }
    expect(events).toEqual([]);
  });

  it('enters warning inside the soft band ε and goes back when the margin recovers', () => {
    const { gate, events, margins, frame, fresh } = setup();
    fresh(0);
    gate.evaluate(0, margins, frame);
    margins.setFinal(0, 0.15); // ε = 0.2 for clause 0
    fresh(0.01);
    expect(gate.evaluate(0.01, margins, frame)).toBe('warning');
    margins.setFinal(0, 0.25);
    fresh(0.02);
    expect(gate.evaluate(0.02, margins, frame)).toBe('armed');
    expect(events.map((e) => [e.t, e.from, e.to, e.cause.kind])).toEqual([
      [0.01, 'armed', 'warning', 'margin-warning'],
      [0.02, 'warning', 'armed', 'margins-clear'],
    ]);
    expect(events[0]!.cause).toEqual({
      kind: 'margin-warning',
      clause: 'arm_furniture_force',
      margin: 0.15,
      epsilon: 0.2,
    });
  });

  it('a lower interval bound inside the band also warns (0.05 < ε = 0.1 of clause 1)', () => {
    const { gate, margins, frame, fresh } = setup();
    margins.setInterval(1, 0.5, 0.05, 0.9);
    fresh(0);
    expect(gate.evaluate(0, margins, frame)).toBe('warning');
  });

  it('holds on a violation (margin < 0) with the clause in the cause, and latches', () => {
    const { gate, events, margins, frame, fresh } = setup();
    fresh(0);
    gate.evaluate(0, margins, frame);
    margins.setFinal(1, -0.01);
    fresh(0.01);
    expect(gate.evaluate(0.01, margins, frame)).toBe('hold');
    expect(gate.holdCause).toEqual({ kind: 'violation', clause: 'joint_torque', margin: -0.01 });
    margins.setFinal(1, 1);
    fresh(0.02);
    expect(gate.evaluate(0.02, margins, frame)).toBe('hold');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ t: 0.01, from: 'armed', to: 'hold' });
  });

  it('holds on a certain future violation (interval high < 0) although the final margin is positive', () => {
    const { gate, margins, frame, fresh } = setup();
    margins.setInterval(0, 0.5, -0.4, -0.1);
    fresh(0);
    expect(gate.evaluate(0, margins, frame)).toBe('hold');
    expect(gate.holdCause).toEqual({ kind: 'certain-violation', clause: 'arm_furniture_force', high: -0.1 });
  });

  it('does not hold while the interval still admits satisfaction (low < 0 < high)', () => {
    const { gate, margins, frame, fresh } = setup();
    margins.setInterval(0, 0.5, -0.4, 0.1);
    fresh(0);
    expect(gate.evaluate(0, margins, frame)).toBe('warning');
  });

  it('holds on a NaN robustness', () => {
    const { gate, margins, frame, fresh } = setup();
    margins.setFinal(0, NaN);
    fresh(0);
    expect(gate.evaluate(0, margins, frame)).toBe('hold');
    expect(gate.holdCause?.kind).toBe('invalid-margin');
  });

  it('holds on a stale required signal (older than its maxAge from the schema)', () => {
    const { gate, margins, frame, fresh } = setup();
    fresh(0);
    gate.evaluate(0, margins, frame);
    frame.set(FORCE, 1, 0.1, 'test'); // the torque sample stays at t = 0; its maxAge is 0.05 s
    expect(gate.evaluate(0.04, margins, frame)).toBe('armed');
    expect(gate.evaluate(0.06, margins, frame)).toBe('hold');
    expect(gate.holdCause).toMatchObject({ kind: 'stale-signal', signal: 'max_joint_torque', maxAge: 0.05 });
    expect((gate.holdCause as { age: number }).age).toBeCloseTo(0.06, 12);
  });

  it('holds on a missing required signal', () => {
    const { gate, margins, frame } = setup();
    frame.set(FORCE, 1, 0, 'test');
    expect(gate.evaluate(0, margins, frame)).toBe('hold');
    expect(gate.holdCause).toEqual({ kind: 'missing-signal', signal: 'max_joint_torque' });
  });

  it('holds on a NaN or infinite sample', () => {
    for (const bad of [NaN, Infinity, -Infinity]) {
      const { gate, margins, frame, fresh } = setup();
      fresh(0);
      frame.set(TORQUE, bad, 0, 'test');
      expect(gate.evaluate(0, margins, frame)).toBe('hold');
      expect(gate.holdCause).toEqual({ kind: 'invalid-sample', signal: 'max_joint_torque', value: bad });
    }
  });

  it('holds on clock jumps: time going backwards, or a gap above maxStepGap', () => {
    const back = setup([]);
    back.gate.evaluate(1, NO_CLAUSES, null);
    expect(back.gate.evaluate(0.9, NO_CLAUSES, null)).toBe('hold');
    expect(back.gate.holdCause?.kind).toBe('clock-jump');
    expect((back.gate.holdCause as { dt: number }).dt).toBeCloseTo(-0.1, 12);
    const gap = setup([]);
    gap.gate.evaluate(1, NO_CLAUSES, null);
    expect(gap.gate.evaluate(1.5, NO_CLAUSES, null)).toBe('armed');
    expect(gap.gate.evaluate(2.01, NO_CLAUSES, null)).toBe('hold');
    const nan = setup([]);
    nan.gate.evaluate(1, NO_CLAUSES, null);
    expect(nan.gate.evaluate(NaN, NO_CLAUSES, null)).toBe('hold');
  });

  it('holds on a driver fault, an e-stop, a solver failure, an unsafe chunk and the watchdog', () => {
    const cases: [string, (g: Gate) => void][] = [
      [
        'driver-fault',
        (g) => g.fault(1, { kind: 'servo-error', source: 'so101', servoId: 3, bits: ['overload'], detail: 'overload' }),
      ],
      ['e-stop', (g) => g.eStop(1, 'mqtt:operator')],
      ['solver-failure', (g) => g.solverFailed(1, 'c7', 'max-iterations')],
      ['unsafe-chunk', (g) => g.unsafeChunk(1, 'c8', 'h = -0.01 at step 3')],
      ['watchdog', (g) => g.watchdogExpiredAt(1, 0.3)],
    ];
    for (const [kind, trigger] of cases) {
      const { gate, events } = setup([]);
      gate.evaluate(0.9, NO_CLAUSES, null);
      trigger(gate);
      expect(gate.state).toBe('hold');
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ t: 1, from: 'armed', to: 'hold', cause: { kind } });
    }
  });

  it('goes to filtering when the CBF modifies a chunk and back when chunks pass unmodified', () => {
    const { gate, events } = setup([]);
    gate.evaluate(0, NO_CLAUSES, null);
    gate.chunkExecuted(0.1, 'a', true);
    expect(gate.state).toBe('filtering');
    gate.chunkExecuted(0.2, 'b', true);
    gate.chunkExecuted(0.3, 'c', false);
    expect(gate.state).toBe('armed');
    expect(events.map((e) => e.cause)).toEqual([
      { kind: 'filter-active', chunkId: 'a' },
      { kind: 'filter-idle', chunkId: 'c' },
    ]);
  });

  it('a throwing listener neither escapes nor keeps the transition from the listeners after it', () => {
    const { gate, margins, frame, fresh } = setup([]);
    const seen: GateEvent[] = [];
    gate.onEvent(() => {
      throw new Error('recorder disk full');
    });
    gate.onEvent((e) => seen.push(e));
    fresh(0);
    gate.evaluate(0, margins, frame);
    margins.setFinal(1, -0.01);
    fresh(0.01);
    let state: string | undefined;
    expect(() => (state = gate.evaluate(0.01, margins, frame))).not.toThrow();
    expect(state).toBe('hold');
    expect(gate.state).toBe('hold');
    expect(seen).toEqual([
      { t: 0.01, from: 'armed', to: 'hold', cause: { kind: 'violation', clause: 'joint_torque', margin: -0.01 } },
    ]);
    for (const hold of [
      (g: Gate) => g.fault(0, { kind: 'disconnect', source: 'so101', detail: 'port closed' }),
      (g: Gate) => g.eStop(0, 'panel'),
      (g: Gate) => g.solverFailed(0, 'c1', 'infeasible'),
    ]) {
      const g = new Gate({ requiredSignals: [], maxStepGap: 0.5, faultQuietPeriod: 1 });
      const heard: GateEvent[] = [];
      g.onEvent(() => {
        throw new Error('telemetry down');
      });
      g.onEvent((e) => heard.push(e));
      expect(() => hold(g)).not.toThrow();
      expect(g.state).toBe('hold');
      expect(heard.map((e) => e.to)).toEqual(['hold']);
    }
  });
});

describe('Gate release', () => {
  it('is refused without authorisation', () => {
    const { gate } = setup([]);
    gate.evaluate(0, NO_CLAUSES, null);
    gate.solverFailed(0.1, 'c', 'infeasible');
    const r = gate.release(0.2, { by: 'someone', authorised: false });
    expect(r).toEqual({ ok: false, reason: 'release by someone refused: not authorised' });
    expect(gate.state).toBe('hold');
  });

  it('is refused while a violation persists, naming it, and granted once it clears', () => {
    const { gate, events, margins, frame, fresh } = setup();
    margins.setFinal(0, -0.3);
    fresh(0);
    gate.evaluate(0, margins, frame);
    fresh(0.01);
    gate.evaluate(0.01, margins, frame);
    const refused = gate.release(0.015, { by: 'op', authorised: true });
    expect(refused.ok).toBe(false);
    expect(!refused.ok && refused.reason).toContain('clause arm_furniture_force violated');
    margins.setFinal(0, 0.5);
    fresh(0.02);
    gate.evaluate(0.02, margins, frame);
    expect(gate.release(0.025, { by: 'op', authorised: true })).toEqual({ ok: true });
    expect(gate.state).toBe('armed');
    expect(events.at(-1)).toEqual({ t: 0.025, from: 'hold', to: 'armed', cause: { kind: 'release', by: 'op' } });
  });

  it('is refused while the e-stop is engaged, the watchdog expired, or a fault is recent', () => {
    const e = setup([]);
    e.gate.evaluate(0, NO_CLAUSES, null);
    e.gate.eStop(0.1, 'button');
    expect(e.gate.release(0.2, { by: 'op', authorised: true }).ok).toBe(false);
    expect(e.gate.resetEStop(0.25, { by: 'op', pressedBy: 'button', authorised: true })).toEqual({ ok: true });
    expect(e.gate.release(0.3, { by: 'op', authorised: true }).ok).toBe(true);

    const w = setup([]);
    w.gate.evaluate(0, NO_CLAUSES, null);
    w.gate.watchdogExpiredAt(0.5, 0.5);
    const r = w.gate.release(0.6, { by: 'op', authorised: true });
    expect(!r.ok && r.reason).toContain('watchdog');
    w.gate.watchdogFed();
    expect(w.gate.release(0.7, { by: 'op', authorised: true }).ok).toBe(true);

    const f = setup([]);
    f.gate.evaluate(0, NO_CLAUSES, null);
    f.gate.fault(0.1, { kind: 'disconnect', source: 'so101', detail: 'ENOENT' });
    f.gate.fault(0.5, { kind: 'disconnect', source: 'so101', detail: 'ENOENT' });
    const rf = f.gate.release(1.4, { by: 'op', authorised: true }); // 0.9 s after the last report < 1 s
    expect(!rf.ok && rf.reason).toContain('driver fault disconnect from so101');
    expect(f.gate.release(1.6, { by: 'op', authorised: true }).ok).toBe(true);
  });

  it('is refused while a required signal is still stale', () => {
    const { gate, margins, frame, fresh } = setup();
    fresh(0);
    gate.evaluate(0, margins, frame);
    gate.evaluate(0.2, margins, frame);
    expect(gate.holdCause?.kind).toBe('stale-signal');
    gate.evaluate(0.3, margins, frame);
    expect(gate.release(0.3, { by: 'op', authorised: true }).ok).toBe(false);
    fresh(0.35);
    gate.evaluate(0.35, margins, frame);
    expect(gate.release(0.35, { by: 'op', authorised: true }).ok).toBe(true);
  });

  it('release when not holding is refused and changes nothing', () => {
    const { gate, events } = setup([]);
    expect(gate.release(0, { by: 'op', authorised: true })).toEqual({ ok: false, reason: 'gate is not holding' });
    expect(events).toEqual([]);
  });
});
