/**
 * The gate's start-up phase (GateConfig.startup, issue 19): held until every required signal has
 * been seen fresh once, then armed without a release; anything but "not seen yet" ends the start-up
 * in an ordinary latched hold.
 */
import { describe, expect, it } from 'vitest';
import { ArrayClauseMargins, Gate, describeCause } from '../../src/gate/index.js';
import type { GateEvent } from '../../src/gate/index.js';
import { SignalFrame, signalIndex } from '../../src/schema/signals.js';

const FORCE = signalIndex('arm_furniture_contact_force')!;
const TORQUE = signalIndex('max_joint_torque')!; // maxAge 0.05 s
const GRIP = signalIndex('gripper_contact')!;

function setup() {
  const gate = new Gate({
    requiredSignals: [TORQUE, FORCE, GRIP],
    maxStepGap: 0.5,
    faultQuietPeriod: 1,
    startup: true,
  });
  const events: GateEvent[] = [];
  gate.onEvent((e) => events.push(e));
  const margins = new ArrayClauseMargins(['arm_furniture_force', 'joint_torque'], [0.2, 0.1]);
  const frame = new SignalFrame();
  const step = (t: number, fresh: readonly number[]) => {
    frame.t = t;
    for (const i of fresh) frame.set(i, i === GRIP ? 0 : 1, t, 'test');
    return gate.evaluate(t, margins, frame);
  };
  return { gate, events, margins, frame, step };
}

describe('Gate start-up phase', () => {
  it('starts held (not armed), names what it waits for, and refuses a release', () => {
    const { gate } = setup();
    expect(gate.state).toBe('hold');
    expect(gate.starting).toBe(true);
    expect(gate.neverSeen()).toEqual(['max_joint_torque', 'arm_furniture_contact_force', 'gripper_contact']);
    expect(describeCause(gate.holdCause!)).toMatch(/^starting: waiting for every required signal/);
    expect(gate.release(0, { by: 'op', authorised: true })).toEqual({
      ok: false,
      reason: expect.stringMatching(/cause persists: starting/) as string,
    });
  });

  it('signals appearing one by one (robot state first, gripper later) do not latch; once all are fresh it arms by itself', () => {
    const { gate, events, step } = setup();
    expect(step(0.0, [])).toBe('hold');
    for (let k = 1; k <= 20; k++) expect(step(k * 0.001, [TORQUE, FORCE])).toBe('hold');
    expect(gate.starting).toBe(true);
    expect(gate.neverSeen()).toEqual(['gripper_contact']);
    expect(events).toEqual([]);
    expect(step(0.021, [TORQUE, FORCE, GRIP])).toBe('armed');
    expect(gate.starting).toBe(false);
    expect(events.map((e) => [e.from, e.to, e.cause.kind])).toEqual([['hold', 'armed', 'start-up-complete']]);
  });

  it('a signal seen once and then stale while others are still missing keeps waiting; arming needs all fresh at one step', () => {
    const { gate, step } = setup();
    step(0.0, [TORQUE, FORCE]);
    step(0.2, [GRIP]); // torque and force are 0.2 s old now (max age 0.05 s)
    expect(gate.state).toBe('hold');
    expect(gate.starting).toBe(true);
    expect(gate.neverSeen()).toEqual([]);
    expect(step(0.21, [TORQUE, FORCE, GRIP])).toBe('armed');
  });

  it('after arming, a lost required signal latches as always (a release is needed)', () => {
    const { gate, step } = setup();
    step(0.0, [TORQUE, FORCE, GRIP]);
    expect(gate.state).toBe('armed');
    step(0.01, [TORQUE, FORCE]);
    step(0.2, [TORQUE, FORCE]); // gripper_contact stale
    expect(gate.state).toBe('hold');
    expect(gate.holdCause?.kind).toBe('stale-signal');
    step(0.21, [TORQUE, FORCE, GRIP]);
    expect(gate.state).toBe('hold');
    expect(gate.release(0.22, { by: 'op', authorised: true })).toEqual({ ok: true });
  });

  it('a violation, an invalid sample or a driver fault during start-up ends it in a latched hold, not an automatic arm', () => {
    const violated = setup();
    violated.margins.setFinal(1, -0.1);
    violated.step(0, [TORQUE, FORCE, GRIP]);
    expect(violated.gate.starting).toBe(false);
    expect(violated.gate.holdCause).toMatchObject({ kind: 'violation', clause: 'joint_torque' });
    violated.margins.setFinal(1, 0.5);
    expect(violated.step(0.01, [TORQUE, FORCE, GRIP])).toBe('hold');
    expect(violated.events.map((e) => [e.from, e.to, e.cause.kind])).toEqual([['hold', 'hold', 'violation']]);

    const invalid = setup();
    invalid.frame.set(TORQUE, NaN, 0, 'test');
    invalid.step(0, []);
    expect(invalid.gate.holdCause).toMatchObject({ kind: 'invalid-sample', signal: 'max_joint_torque' });

    const faulted = setup();
    faulted.gate.fault(0, { kind: 'robot-mode', source: 'franka', mode: 'REFLEX' });
    expect(faulted.step(0.01, [TORQUE, FORCE, GRIP])).toBe('hold');
    expect(faulted.gate.holdCause?.kind).toBe('driver-fault');
  });

  it('a watchdog expiry before the first sample does not latch; arming waits until samples are fed', () => {
    const { gate, step } = setup();
    gate.watchdogExpiredAt(0.2, 0.2);
    expect(gate.starting).toBe(true);
    expect(step(0.21, [TORQUE, FORCE, GRIP])).toBe('hold');
    gate.watchdogFed();
    expect(step(0.22, [TORQUE, FORCE, GRIP])).toBe('armed');
  });

  it('a start-up that times out latches a hold naming the signals never seen', () => {
    const { gate, events, step } = setup();
    step(0, [TORQUE]);
    gate.startupTimedOut(10);
    expect(gate.starting).toBe(false);
    expect(gate.holdCause).toEqual({
      kind: 'start-up-failed',
      neverSeen: ['arm_furniture_contact_force', 'gripper_contact'],
    });
    expect(describeCause(gate.holdCause!)).toBe(
      'start-up failed: required signals never seen: arm_furniture_contact_force, gripper_contact',
    );
    expect(step(10.01, [TORQUE, FORCE, GRIP])).toBe('hold');
    expect(events.at(-1)).toMatchObject({ t: 10, from: 'hold', to: 'hold' });
  });

  it('a start-up that times out with every signal seen but the gate unable to arm names that condition instead', () => {
    const { gate, margins, step } = setup();
    margins.setFinal(0, NaN);
    step(0, [TORQUE, FORCE, GRIP]);
    expect(gate.starting).toBe(true); // a margin not computable yet: waits
    gate.startupTimedOut(10);
    expect(gate.holdCause).toMatchObject({ kind: 'invalid-margin', clause: 'arm_furniture_force' });
  });

  it('without start-up configured the gate is armed at once (unchanged)', () => {
    const gate = new Gate({ requiredSignals: [TORQUE], maxStepGap: 0.5, faultQuietPeriod: 1 });
    expect(gate.state).toBe('armed');
    expect(gate.starting).toBe(false);
    expect(gate.neverSeen()).toEqual([]);
  });
});
