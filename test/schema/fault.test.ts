/**
 * One closed fault union (issue 17 item 1). The `@ts-expect-error` lines are checked by
 * `npx tsc --noEmit` (the tsconfig includes test/): each would compile with the old shapes (the
 * gate's `GateFault { kind: string }`, a stale-signal without signal and age) and must not now.
 * The table below has one fault per kind and the mapped type makes it fail to compile when a kind
 * is added without a case here.
 */
import { describe, expect, it } from 'vitest';
import { describeCause, Gate } from '../../src/gate/index.js';
import type { Fault as PortFault } from '../../src/ports/index.js';
import { describeFault, faultDetail, type Fault, type FaultKind } from '../../src/schema/fault.js';

const ONE_OF_EACH: { readonly [K in FaultKind]: Extract<Fault, { kind: K }> } = {
  disconnect: { kind: 'disconnect', source: '/dev/ttyACM0', detail: 'port closed' },
  timeout: { kind: 'timeout', source: 'so101', detail: 'no reply from servos 3, 4', servoIds: [3, 4] },
  'checksum-budget': { kind: 'checksum-budget', source: 'so101', detail: '12 bad checksums in 1 s' },
  'servo-error': { kind: 'servo-error', source: 'so101', servoId: 3, bits: ['overload', 'overheat'] },
  framing: { kind: 'framing', source: 'so101', detail: 'bytes but no valid reply' },
  'robot-mode': { kind: 'robot-mode', source: 'franka', mode: 'REFLEX' },
  'stale-signal': { kind: 'stale-signal', source: 'tracking', signal: 'non_target_disp_max', age: 0.31 },
  'invalid-sample': { kind: 'invalid-sample', source: 'franka', signal: 'max_joint_torque', value: NaN },
  'clock-jump': { kind: 'clock-jump', source: 'franka', dt: 0.0625 },
  solver: { kind: 'solver', source: 'cbf', status: 'max-iterations' },
  storage: { kind: 'storage', source: 'episodes/', detail: 'ENOSPC' },
  'remote-heartbeat': { kind: 'remote-heartbeat', source: 'mqtt', detail: 'no operator heartbeat within 2 s' },
  'mqtt-link-lost': { kind: 'mqtt-link-lost', source: 'mqtt', detail: 'command channel (remote e-stop) down' },
  'subscribe-refused': { kind: 'subscribe-refused', source: 'mqtt', detail: 'broker refused armguard/cmd' },
  judge: { kind: 'judge', source: 'lexicon', cause: 'timeout', detail: 'no answer within 2 s' },
  internal: { kind: 'internal', source: 'control loop', detail: 'control loop: x is undefined' },
};

describe('one Fault type', () => {
  it('describeFault: one line per kind, the detail where there is one, else the payload in words', () => {
    const lines = Object.fromEntries(Object.values(ONE_OF_EACH).map((f: Fault) => [f.kind, describeFault(f)]));
    expect(lines).toEqual({
      disconnect: 'disconnect from /dev/ttyACM0: port closed',
      timeout: 'timeout from so101: no reply from servos 3, 4',
      'checksum-budget': 'checksum-budget from so101: 12 bad checksums in 1 s',
      'servo-error': 'servo-error from so101: servo 3: overload, overheat',
      framing: 'framing from so101: bytes but no valid reply',
      'robot-mode': 'robot-mode from franka: robot mode REFLEX',
      'stale-signal': 'stale-signal from tracking: non_target_disp_max 0.310 s old',
      'invalid-sample': 'invalid-sample from franka: max_joint_torque = NaN',
      'clock-jump': 'clock-jump from franka: 0.0625 s',
      solver: 'solver from cbf: status max-iterations',
      storage: 'storage from episodes/: ENOSPC',
      'remote-heartbeat': 'remote-heartbeat from mqtt: no operator heartbeat within 2 s',
      'mqtt-link-lost': 'mqtt-link-lost from mqtt: command channel (remote e-stop) down',
      'subscribe-refused': 'subscribe-refused from mqtt: broker refused armguard/cmd',
      judge: 'judge from lexicon: no answer within 2 s',
      internal: 'internal from control loop: control loop: x is undefined',
    });
  });

  it('a detail, where a kind carries one, is what is printed; a stale signal never seen says so', () => {
    expect(
      faultDetail({
        kind: 'servo-error',
        source: 'so101',
        servoId: 3,
        bits: ['overload'],
        detail: 'servo 3 (elbow_flex): overload (error byte 0x20)',
      }),
    ).toBe('servo 3 (elbow_flex): overload (error byte 0x20)');
    expect(
      faultDetail({ kind: 'stale-signal', source: 'tracking', signal: "tracked obstacle 'bowl'", age: Infinity }),
    ).toBe("tracked obstacle 'bowl' never seen");
    expect(
      faultDetail({
        kind: 'invalid-sample',
        source: 'mapping',
        signal: '*',
        value: NaN,
        detail: 'mapping threw: no table',
      }),
    ).toBe('mapping threw: no table');
  });

  it('the gate holds on the one type and prints it through describeFault (the hold reason a sink receives)', () => {
    const gate = new Gate();
    gate.fault(0, ONE_OF_EACH['robot-mode']);
    expect(gate.state).toBe('hold');
    expect(describeCause(gate.holdCause!)).toBe('driver fault robot-mode from franka: robot mode REFLEX');
  });

  it('faults outside the union do not compile (checked by tsc)', () => {
    const gate = new Gate();
    const rejected = [
      // @ts-expect-error: a kind outside the union (the gate's old `kind: string` took it)
      { kind: 'mqtt-down', source: 'mqtt', detail: 'x' } satisfies Fault,
      // @ts-expect-error: a stale signal must name its signal and age
      { kind: 'stale-signal', source: 'tracking', detail: "tracked obstacle 'bowl' never seen" } satisfies Fault,
      // @ts-expect-error: a disconnect says what happened
      { kind: 'disconnect', source: 'so101' } satisfies Fault,
      // @ts-expect-error: a robot-mode fault carries the mode, not a detail
      { kind: 'robot-mode', source: 'franka', detail: 'REFLEX' } satisfies Fault,
    ];
    // @ts-expect-error: the gate takes only the one Fault
    gate.fault(0, { kind: 'whatever', source: 'x' });
    const fromPorts: PortFault = ONE_OF_EACH.storage; // the ports' Fault is the same type
    expect(rejected).toHaveLength(4);
    expect(fromPorts.kind).toBe('storage');
  });
});
