/**
 * Issue #14 item 4: an e-stop that arrives while the gate already holds (watchdog) is reported and
 * latches on its own; a release never clears it; only a reset naming who pressed it does.
 */
import { describe, expect, it } from 'vitest';
import { Gate, NO_CLAUSES } from '../../src/gate/index.js';
import type { GateEvent } from '../../src/gate/index.js';

function held() {
  const gate = new Gate({ requiredSignals: [], maxStepGap: 0.5, faultQuietPeriod: 1 });
  const events: GateEvent[] = [];
  gate.onEvent((e) => events.push(e));
  gate.evaluate(0, NO_CLAUSES, null);
  gate.watchdogExpiredAt(0.1, 0.1);
  return { gate, events };
}

describe('Gate e-stop latch', () => {
  it('an e-stop during a watchdog hold is reported as a hold → hold event and latched', () => {
    const { gate, events } = held();
    gate.eStop(0.2, 'mqtt (dashboard alice)', 'press-1');
    expect(events.at(-1)).toEqual({
      t: 0.2,
      from: 'hold',
      to: 'hold',
      cause: { kind: 'e-stop', by: 'mqtt (dashboard alice)' },
    });
    expect(gate.eStops).toEqual([{ by: 'mqtt (dashboard alice)', t: 0.2, id: 'press-1' }]);
  });

  it('the release after the watchdog cause is gone is refused while the e-stop is latched', () => {
    const { gate } = held();
    gate.eStop(0.2, 'mqtt (dashboard alice)');
    gate.watchdogFed();
    const r = gate.release(0.3, { by: 'op', authorised: true });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toContain('e-stop from mqtt (dashboard alice) is latched');
    expect(gate.state).toBe('hold');
    // A second release changes nothing either: release never clears an e-stop.
    expect(gate.release(0.4, { by: 'op', authorised: true }).ok).toBe(false);
  });

  it('a reset must name a latched presser (by text or press id) and be authorised; the gate stays in hold until released', () => {
    const { gate, events } = held();
    gate.watchdogFed();
    gate.eStop(0.2, 'operator key');
    gate.eStop(0.25, 'mqtt (bob)', 'p-7');
    expect(gate.resetEStop(0.3, { by: 'op', pressedBy: 'someone else', authorised: true })).toEqual({
      ok: false,
      reason: "no e-stop from 'someone else' is latched (latched: 'operator key', 'mqtt (bob)')",
    });
    expect(gate.resetEStop(0.3, { by: 'viewer', pressedBy: 'operator key', authorised: false }).ok).toBe(false);
    expect(gate.resetEStop(0.3, { by: 'op', pressedBy: 'operator key', authorised: true })).toEqual({ ok: true });
    expect(events.at(-1)).toEqual({
      t: 0.3,
      from: 'hold',
      to: 'hold',
      cause: { kind: 'e-stop-reset', by: 'op', pressedBy: 'operator key' },
    });
    // bob's press is still latched
    expect(gate.release(0.35, { by: 'op', authorised: true }).ok).toBe(false);
    expect(gate.resetEStop(0.4, { by: 'op', pressedBy: 'p-7', authorised: true })).toEqual({ ok: true });
    expect(gate.eStops).toEqual([]);
    expect(gate.state).toBe('hold');
    expect(gate.release(0.45, { by: 'op', authorised: true })).toEqual({ ok: true });
    expect(gate.state).toBe('armed');
  });

  it('a repeated press by the same presser is one latch (one reset clears it), each press still reported', () => {
    const { gate, events } = held();
    gate.watchdogFed();
    gate.eStop(0.2, 'panel');
    gate.eStop(0.3, 'panel');
    expect(events.filter((e) => e.cause.kind === 'e-stop')).toHaveLength(2);
    expect(gate.eStops).toEqual([{ by: 'panel', t: 0.3 }]);
    expect(gate.resetEStop(0.4, { by: 'op', pressedBy: 'panel', authorised: true }).ok).toBe(true);
    expect(gate.release(0.5, { by: 'op', authorised: true }).ok).toBe(true);
  });
});
