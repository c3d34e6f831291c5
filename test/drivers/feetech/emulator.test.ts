import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ManualClock, ManualTimers } from '../../../src/util/clock.js';
import {
  ERROR_BITS,
  FeetechEmulator,
  PacketFramer,
  type Packet,
  STS3215_REGISTERS,
  decodeRegister,
  encodeAction,
  encodePacket,
  encodePing,
  encodeRead,
  encodeRegWrite,
  encodeSyncRead,
  encodeSyncWrite,
  encodeWrite,
  goalTrackingPhysics,
} from '../../../drivers/feetech/index.js';

const hex = (b: Uint8Array): string =>
  Buffer.from(b)
    .toString('hex')
    .toUpperCase()
    .replace(/(..)(?!$)/g, '$1 ');

function rig(ids = [1, 2, 3]) {
  const clock = new ManualClock(0);
  const timers = new ManualTimers(clock);
  const emu = new FeetechEmulator({ ids, timers });
  const wire: Uint8Array[] = [];
  emu.onTransmit((b) => wire.push(b));
  const replies = (): Packet[] => {
    const f = new PacketFramer();
    const out: Packet[] = [];
    for (const b of wire.splice(0)) f.push(b, (p) => out.push(p));
    return out;
  };
  return { clock, timers, emu, wire, replies };
}

describe('FeetechEmulator protocol replies', () => {
  it('answers PING with an empty status packet', () => {
    const { emu, wire } = rig();
    emu.feed(encodePing(1));
    // FF FF 01 02 00 CHK, sum = 01 + 02 + 00 = 3 → 0xFC
    expect(wire.map(hex)).toEqual(['FF FF 01 02 00 FC']);
  });

  it('answers READ of Model_Number (777 = 0x0309, little-endian)', () => {
    const { emu, wire } = rig();
    emu.feed(encodeRead(2, 3, 2));
    // sum = 02 + 04 + 00 + 09 + 03 = 0x12 → 0xED
    expect(wire.map(hex)).toEqual(['FF FF 02 04 00 09 03 ED']);
  });

  it('stays silent for absent ids, unresponsive servos and broadcast WRITE', () => {
    const { emu, wire } = rig();
    emu.feed(encodePing(9));
    emu.servo(1).responsive = false;
    emu.feed(encodePing(1));
    emu.feed(encodeWrite(0xfe, 40, [1]));
    expect(wire).toEqual([]);
    expect(emu.servo(2).torqueEnabled).toBe(true);
  });

  it('WRITE changes RAM registers and ignores read-only ones', () => {
    const { emu, replies } = rig();
    emu.feed(encodeWrite(1, 42, [0x00, 0x04])); // Goal_Position = 1024
    emu.feed(encodeWrite(1, 56, [0x34, 0x12])); // Present_Position is read-only
    expect(replies().map((p) => [p.id, p.params.length])).toEqual([
      [1, 0],
      [1, 0],
    ]);
    expect(emu.servo(1).goalPosition).toBe(1024);
    expect(emu.servo(1).getRegister('Present_Position')).toBe(2048);
  });

  it('SYNC_READ: one status per listed servo, in request order, skipping silent ones', () => {
    const { emu, replies } = rig([1, 2, 3]);
    emu.servo(3).setPresent({ position: -7, load: -120 });
    emu.servo(2).responsive = false;
    emu.feed(encodeSyncRead(56, 6, [3, 2, 1]));
    const got = replies();
    expect(got.map((p) => p.id)).toEqual([3, 1]);
    expect(decodeRegister(STS3215_REGISTERS.Present_Position, got[0]!.params, 0)).toBe(-7);
    expect(decodeRegister(STS3215_REGISTERS.Present_Load, got[0]!.params, 4)).toBe(-120);
  });

  it('SYNC_WRITE writes each servo its own bytes without replying', () => {
    const { emu, wire } = rig([1, 2]);
    emu.feed(
      encodeSyncWrite(
        42,
        2,
        new Map([
          [1, Uint8Array.of(0x10, 0x00)],
          [2, Uint8Array.of(0x64, 0x80)],
        ]),
      ),
    );
    expect(wire).toEqual([]);
    expect(emu.servo(1).goalPosition).toBe(16);
    expect(emu.servo(2).goalPosition).toBe(-100);
  });

  it('REG_WRITE stages until ACTION', () => {
    const { emu, replies } = rig([1]);
    emu.feed(encodeRegWrite(1, 42, [0x00, 0x02]));
    expect(replies()).toHaveLength(1);
    expect(emu.servo(1).goalPosition).toBe(2048);
    emu.feed(encodeAction());
    expect(emu.servo(1).goalPosition).toBe(512);
  });

  it('Response_Status_Level 0: WRITE gets no reply, READ still does', () => {
    const { emu, replies } = rig([1]);
    emu.servo(1).setRegister('Response_Status_Level', 0);
    emu.feed(encodeWrite(1, 40, [0]));
    emu.feed(encodeRead(1, 40, 1));
    const got = replies();
    expect(got).toHaveLength(1);
    expect(Array.from(got[0]!.params)).toEqual([0]);
  });

  it('honours Return_Delay_Time (2 µs units) on injected timers', () => {
    const { emu, timers, wire } = rig([1, 2]);
    emu.servo(1).setRegister('Return_Delay_Time', 250); // 500 µs
    emu.servo(2).setRegister('Return_Delay_Time', 250);
    emu.feed(encodeSyncRead(56, 2, [1, 2]));
    expect(wire).toHaveLength(0);
    timers.advance(0.000499);
    expect(wire).toHaveLength(0);
    timers.advance(0.000002);
    expect(wire).toHaveLength(1);
    timers.advance(0.0005);
    expect(wire).toHaveLength(2);
  });

  it('reports injected and computed error bits in the status packet and the Status register', () => {
    const { emu, replies } = rig([1]);
    const s = emu.servo(1);
    s.injectedErrors = ERROR_BITS.overload;
    s.setPresent({ temperature: 75, voltage: 30 }); // > 70 °C limit, < 4.0 V
    emu.feed(encodeRead(1, 65, 1));
    const [p] = replies();
    const expected = ERROR_BITS.overload | ERROR_BITS.overheat | ERROR_BITS.voltage;
    expect(p!.code).toBe(expected);
    expect(p!.params[0]).toBe(expected);
  });

  it('calls the physics hook before answering and write listeners after writes', () => {
    const { emu, replies } = rig([1]);
    const seen: string[] = [];
    emu.setPhysics((s) => {
      seen.push(`physics ${s.id}`);
      s.setPresent({ position: 1234 });
    });
    emu.onWrite((s, addr, len) => seen.push(`write ${s.id} @${addr}+${len}`));
    emu.feed(encodeWrite(1, 42, [0, 1]));
    emu.feed(encodeRead(1, 56, 2));
    expect(seen).toEqual(['write 1 @42+2', 'physics 1']);
    expect(decodeRegister(STS3215_REGISTERS.Present_Position, replies()[1]!.params)).toBe(1234);
  });

  it('corrupts the requested number of replies', () => {
    const { emu, replies } = rig([1]);
    emu.servo(1).corruptReplies = 1;
    emu.feed(encodePing(1));
    emu.feed(encodePing(1));
    expect(replies()).toHaveLength(1);
  });

  it('ID write re-addresses the servo', () => {
    const { emu, replies } = rig([1]);
    emu.feed(encodeWrite(1, 5, [9]));
    emu.feed(encodePing(9));
    expect(replies().map((p) => p.id)).toEqual([9, 9]);
  });

  it('EEPROM writes persist across a power cycle only when unlocked', () => {
    const { emu } = rig([1]);
    const s = emu.servo(1);
    emu.feed(encodeWrite(1, 7, [10])); // Return_Delay_Time while Lock = 1
    emu.feed(encodeWrite(1, 42, [0, 1])); // RAM
    s.powerCycle();
    expect(s.getRegister('Return_Delay_Time')).toBe(0);
    expect(s.goalPosition).toBe(2048);
    emu.feed(encodeWrite(1, 55, [0])); // unlock
    emu.feed(encodeWrite(1, 7, [10]));
    s.powerCycle();
    expect(s.getRegister('Return_Delay_Time')).toBe(10);
    expect(s.getRegister('Lock')).toBe(1);
  });
});

describe('goalTrackingPhysics (kinematic stand-in)', () => {
  it('moves toward the goal at most maxSpeed while torque is on, and not at all when off', () => {
    const clock = new ManualClock(0);
    const emu = new FeetechEmulator({ ids: [1] });
    const s = emu.servo(1);
    const hook = goalTrackingPhysics(clock, 1000);
    hook(s);
    s.setRegister('Goal_Position', 3000);
    clock.advance(0.1);
    hook(s);
    expect(s.getRegister('Present_Position')).toBe(2048); // torque off
    s.setRegister('Torque_Enable', 1);
    clock.advance(0.5);
    hook(s);
    expect(s.getRegister('Present_Position')).toBe(2548);
    expect(s.getRegister('Present_Velocity')).toBe(1000);
    expect(s.getRegister('Moving')).toBe(1);
    clock.advance(1);
    hook(s);
    expect(s.getRegister('Present_Position')).toBe(3000);
    expect(s.getRegister('Moving')).toBe(0);
  });
});

describe('FeetechEmulator robustness', () => {
  it('never throws on random bytes or random instructions, and only emits valid status packets', () => {
    const instruction = fc
      .record({
        id: fc.oneof(fc.integer({ min: 0, max: 7 }), fc.constant(0xfe)),
        code: fc.oneof(fc.constantFrom(1, 2, 3, 4, 5, 6, 0x82, 0x83), fc.integer({ min: 0, max: 255 })),
        params: fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 30 }),
      })
      .map((p) => encodePacket(p.id, p.code, p.params));
    const chunk = fc.oneof(fc.uint8Array({ maxLength: 40 }), instruction);
    fc.assert(
      fc.property(fc.array(chunk, { maxLength: 30 }), (chunks) => {
        const emu = new FeetechEmulator({ ids: [1, 2, 3] });
        const sent: Uint8Array[] = [];
        emu.onTransmit((b) => sent.push(b));
        for (const c of chunks) emu.feed(c);
        const f = new PacketFramer();
        let packets = 0;
        for (const b of sent) f.push(b, () => packets++);
        expect(f.counters.droppedBytes).toBe(0);
        expect(f.buffered).toBe(0);
        expect(packets).toBe(emu.counters.replies);
      }),
      { numRuns: 300 },
    );
  });

  it('ignores requests no servo could answer (reply longer than a packet, id 0xFF)', () => {
    const emu = new FeetechEmulator({ ids: [1] });
    const sent: Uint8Array[] = [];
    emu.onTransmit((b) => sent.push(b));
    expect(() => emu.feed(encodeRead(1, 0, 255))).not.toThrow();
    expect(() => emu.feed(encodeSyncRead(0, 254, [1]))).not.toThrow();
    expect(sent).toEqual([]);
    emu.feed(encodeWrite(1, 5, [0xff])); // ID := 255 is refused
    expect(emu.servo(1).id).toBe(1);
  });

  it('saturates simulator values instead of throwing', () => {
    const emu = new FeetechEmulator({ ids: [1] });
    emu.servo(1).setPresent({ position: 1e9, load: -5000, current: -3, temperature: Number.NaN });
    expect(emu.servo(1).getRegister('Present_Position')).toBe(32767);
    expect(emu.servo(1).getRegister('Present_Load')).toBe(-1023);
    expect(emu.servo(1).getRegister('Present_Current')).toBe(0);
    expect(emu.servo(1).getRegister('Present_Temperature')).toBe(0);
  });
});
