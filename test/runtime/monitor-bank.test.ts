import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/util/errors.js';
import { MonitorBank } from '../../src/runtime/index.js';
import { SIGNALS, SignalFrame, signalIndex } from '../../src/schema/signals.js';

const TORQUE = signalIndex('max_joint_torque')!;
const SELF = signalIndex('self_collision_clearance')!;

function bank() {
  return MonitorBank.fromClauses([
    { clause: { id: 'joint_torque' }, formula: 'always (max_joint_torque < 2)', tau: 2, warn: 0.2 },
    {
      clause: { id: 'self_collision_free' },
      formula: 'always (self_collision_clearance >= 0)',
      tau: 0,
      warn: undefined,
    },
  ]);
}

describe('MonitorBank', () => {
  it('normalises ρ by |τ| and ε = warn/|τ|; τ = 0 clauses are not normalised and have no band', () => {
    const b = bank();
    expect(b.count).toBe(2);
    expect([b.name(0), b.name(1)]).toEqual(['joint_torque', 'self_collision_free']);
    expect(b.epsilon(0)).toBeCloseTo(0.1, 15);
    expect(b.epsilon(1)).toBe(0);
    expect(b.requiredSignals).toEqual([TORQUE, SELF].sort((x, y) => x - y));
    const f = new SignalFrame();
    f.set(TORQUE, 1.5, 0, 't');
    f.set(SELF, 0.05, 0, 't');
    b.push(0, f);
    expect(b.margin(0)).toBeCloseTo(0.25, 15); // (2 − 1.5) / 2
    expect(b.margin(1)).toBe(0.05); // clearance 0.05 m − 0, unnormalised
    f.set(TORQUE, 2.4, 0.01, 't');
    f.set(SELF, -0.01, 0.01, 't');
    b.push(0.01, f);
    expect(b.margin(0)).toBeCloseTo(-0.2, 15);
    expect(b.high(0)).toBeCloseTo(-0.2, 15);
    expect(b.margin(1)).toBe(-0.01);
  });

  it('after a violation clears, margin and high follow the present again (release is possible)', () => {
    const b = bank();
    const f = new SignalFrame();
    f.set(SELF, 0, 0, 't');
    for (const [t, v] of [
      [0, 1],
      [0.01, 3],
      [0.02, 1],
    ] as const) {
      f.set(TORQUE, v, t, 't');
      b.push(t, f);
    }
    expect(b.margin(0)).toBeCloseTo(0.5, 15);
    expect(b.high(0)).toBeCloseTo(0.5, 15);
  });

  it('reports +∞ before anything is decided and after reset', () => {
    const b = bank();
    expect(b.margin(0)).toBe(Infinity);
    const f = new SignalFrame();
    f.set(TORQUE, 3, 0, 't');
    f.set(SELF, 0, 0, 't');
    b.push(0, f);
    expect(b.margin(0)).toBeLessThan(0);
    b.reset();
    expect(b.margin(0)).toBe(Infinity);
  });

  it('a formula that does not parse is an InputError naming the clause and position', () => {
    let error: unknown;
    try {
      MonitorBank.fromClauses([
        { clause: { id: 'broken' }, formula: 'always (max_joint_torque <', tau: 1, warn: undefined },
      ]);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).message).toMatch(/clause broken/);
    expect((error as InputError).where.column).toBeGreaterThan(0);
  });
});

describe('MonitorBank with derived signals', () => {
  it('monitors the transport-guarded tilt clause: ρ in degrees while in transport, +∞ otherwise', () => {
    const bank = MonitorBank.fromClauses([
      {
        clause: { id: 'held_object_tilt_world' },
        formula: 'always (in_transport -> target_obj_tilt_world_deg < 15)',
        tau: 15,
        warn: 1.5,
      },
    ]);
    const names = bank.requiredSignals.map((i) => SIGNALS[i]!.name).sort();
    expect(names).toEqual(['gripper_contact', 'obj_above_table', 'target_obj_tilt_world_deg']);
    const f = new SignalFrame();
    const step = (t: number, grip: number, height: number, tilt: number) => {
      f.setByName('gripper_contact', grip, t, 'test');
      f.setByName('obj_above_table', height, t, 'test');
      f.setByName('target_obj_tilt_world_deg', tilt, t, 'test');
      bank.push(t, f);
      return bank.margin(0);
    };
    expect(step(0, 1, 0.01, 40)).toBe(Infinity); // held but not lifted past 5 cm: guard false
    expect(step(0.1, 1, 0.08, 9)).toBeCloseTo((15 - 9) / 15, 12);
    expect(step(0.2, 1, 0.08, 22.5)).toBeCloseTo(-0.5, 12);
    expect(step(0.3, 0, 0.08, 40)).toBe(Infinity); // released
  });
});

describe('MonitorBank buffer sizing', () => {
  const clauses = [
    {
      clause: { id: 'torque_window' },
      formula: 'always (historically[0:0.5] (max_joint_torque < 2))',
      tau: 2,
      warn: undefined,
    },
    {
      clause: { id: 'torque_soon' },
      formula: 'always ((max_joint_torque > 3) -> eventually[0:0.2] (max_joint_torque < 2))',
      tau: 0,
      warn: undefined,
    },
  ];
  const run = (b: MonitorBank): void => {
    const f = new SignalFrame();
    for (let i = 0; i < 3000; i++) {
      const t = i * 0.001;
      f.set(TORQUE, 1 + Math.sin(i * 0.01), t, 't');
      b.push(t, f);
    }
  };
  it('with minSampleInterval the monitors are sized up front: a 1 kHz episode grows no buffer', () => {
    const b = MonitorBank.fromClauses(clauses, { minSampleInterval: 0.0005 });
    const sized = b.bufferCapacity;
    run(b);
    expect(b.bufferCapacity).toBe(sized);
  });
  it('without it the buffers start small and grow during the first episode (what the option avoids)', () => {
    const b = MonitorBank.fromClauses(clauses);
    const initial = b.bufferCapacity;
    run(b);
    expect(b.bufferCapacity).toBeGreaterThan(initial);
  });
});
