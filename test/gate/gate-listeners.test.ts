import { describe, expect, it } from 'vitest';
import { ArrayClauseMargins, Gate } from '../../src/gate/index.js';
import type { GateEvent } from '../../src/gate/index.js';
import { SignalFrame, signalIndex } from '../../src/schema/signals.js';

const FORCE = signalIndex('arm_furniture_contact_force')!;

describe('Gate listeners', () => {
  it('a listener that unsubscribes itself on an event does not make the next listener miss that event', () => {
    // The gate's listener loop once walked the array by index while a listener could splice it:
    // the listener after one that unsubscribed itself (the one that sends the hold command) missed the hold.
    const gate = new Gate({ requiredSignals: [FORCE], maxStepGap: 0.5, faultQuietPeriod: 1 });
    const firstOnly: GateEvent[] = [];
    const off = gate.onEvent((e) => {
      firstOnly.push(e);
      off();
    });
    const holds: GateEvent[] = [];
    gate.onEvent((e) => holds.push(e));
    const margins = new ArrayClauseMargins(['arm_furniture_force'], [0.2]);
    const frame = new SignalFrame();
    frame.t = 0;
    frame.set(FORCE, 1, 0, 'test');
    margins.setFinal(0, -0.1);
    expect(gate.evaluate(0, margins, frame)).toBe('hold');
    expect(firstOnly.map((e) => e.to)).toEqual(['hold']);
    expect(holds.map((e) => e.to)).toEqual(['hold']);
  });
});
