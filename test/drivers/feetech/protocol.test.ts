import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  BROADCAST_ID,
  ERROR_BITS,
  FULL_STATE_BLOCK,
  PacketFramer,
  REGISTER_NAMES,
  STS3215_REGISTERS,
  type RegisterSpec,
  checksum,
  decodeErrorBits,
  decodeFullState,
  decodeRegister,
  decodeSignMagnitude,
  encodeAction,
  encodePacket,
  encodePing,
  encodeRead,
  encodeRegWrite,
  encodeRegister,
  encodeSignMagnitude,
  encodeStatus,
  encodeSyncRead,
  encodeSyncWrite,
  encodeWrite,
} from '../../../drivers/feetech/index.js';

const hex = (b: Uint8Array): string =>
  Buffer.from(b)
    .toString('hex')
    .toUpperCase()
    .replace(/(..)(?!$)/g, '$1 ');

describe('instruction packets, byte-exact (checksums computed by hand)', () => {
  it('PING id 1', () => {
    // sum = 01 + 02 + 01 = 0x04 → ~0x04 & 0xFF = 0xFB
    expect(hex(encodePing(1))).toBe('FF FF 01 02 01 FB');
  });
  it('READ id 1, Present_Position (56 = 0x38), 2 bytes', () => {
    // LEN = 2 params + 2 = 4; sum = 01 + 04 + 02 + 38 + 02 = 0x41 → 0xBE
    expect(hex(encodeRead(1, 56, 2))).toBe('FF FF 01 04 02 38 02 BE');
  });
  it('WRITE id 1, Goal_Position (42 = 0x2A) = 2048 little-endian', () => {
    // params 2A 00 08, LEN 5; sum = 01 + 05 + 03 + 2A + 00 + 08 = 0x3B → 0xC4
    expect(hex(encodeWrite(1, 42, [0x00, 0x08]))).toBe('FF FF 01 05 03 2A 00 08 C4');
  });
  it('REG_WRITE id 1, Goal_Position = 2048, then ACTION broadcast', () => {
    // sum = 01 + 05 + 04 + 2A + 00 + 08 = 0x3C → 0xC3
    expect(hex(encodeRegWrite(1, 42, [0x00, 0x08]))).toBe('FF FF 01 05 04 2A 00 08 C3');
    // sum = FE + 02 + 05 = 0x105 → low byte 05 → 0xFA
    expect(hex(encodeAction())).toBe('FF FF FE 02 05 FA');
  });
  it('SYNC_READ Present_Position of ids 1, 2', () => {
    // LEN = N + 4 = 6; sum = FE + 06 + 82 + 38 + 02 + 01 + 02 = 0x1C3 → ~C3 = 0x3C
    expect(hex(encodeSyncRead(56, 2, [1, 2]))).toBe('FF FF FE 06 82 38 02 01 02 3C');
  });
  it('SYNC_WRITE Goal_Position: id 1 → 2048, id 2 → 1024', () => {
    // LEN = N·(len+1) + 4 = 2·3 + 4 = 10; sum = FE+0A+83+2A+02+01+00+08+02+00+04 = 0x1C6 → 0x39
    const data = new Map([
      [1, Uint8Array.of(0x00, 0x08)],
      [2, Uint8Array.of(0x00, 0x04)],
    ]);
    expect(hex(encodeSyncWrite(42, 2, data))).toBe('FF FF FE 0A 83 2A 02 01 00 08 02 00 04 39');
  });
  it('full-state SYNC_READ of 6 servos is 14 bytes', () => {
    const p = encodeSyncRead(FULL_STATE_BLOCK.address, FULL_STATE_BLOCK.length, [1, 2, 3, 4, 5, 6]);
    // sum = 254 + 10 + 130 + 56 + 15 + (1+…+6 = 21) = 486 = 0x1E6 → ~E6 = 0x19
    expect(hex(p)).toBe('FF FF FE 0A 82 38 0F 01 02 03 04 05 06 19');
  });
  it('refuses id 0xFF, out-of-range bytes and mismatched sync-write data', () => {
    expect(() => encodePacket(0xff, 1)).toThrow(RangeError);
    expect(() => encodeWrite(1, 300, [1])).toThrow(/param 0/);
    expect(() => encodeSyncWrite(42, 2, new Map([[1, Uint8Array.of(1)]]))).toThrow(/expected 2/);
  });
  it('checksum matches a naive reference on random packets', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 0xfe }),
        fc.integer({ min: 0, max: 255 }),
        fc.uint8Array({ maxLength: 40 }),
        (id, code, params) => {
          const p = encodePacket(id, code, params);
          const naive = 0xff - ((id + p[3]! + code + params.reduce((a, b) => a + b, 0)) % 256);
          expect(p[p.length - 1]).toBe(naive);
          expect(checksum(p, 2, p.length - 1)).toBe(naive);
        },
      ),
    );
  });
});

describe('status packets', () => {
  it('parses a READ reply: servo 1, no error, Present_Position 2048', () => {
    // sum = 01 + 04 + 00 + 00 + 08 = 0x0D → 0xF2
    const bytes = Uint8Array.from([0xff, 0xff, 0x01, 0x04, 0x00, 0x00, 0x08, 0xf2]);
    expect(encodeStatus(1, 0, [0x00, 0x08])).toEqual(bytes);
    const f = new PacketFramer();
    f.feed(bytes);
    const p = f.next()!;
    expect(p.id).toBe(1);
    expect(p.code).toBe(0);
    expect(decodeRegister(STS3215_REGISTERS.Present_Position, p.params)).toBe(2048);
  });
  it('surfaces error bits: overload + voltage', () => {
    // ERR = 0x21; sum = 01 + 02 + 21 = 0x24 → 0xDB
    const bytes = Uint8Array.from([0xff, 0xff, 0x01, 0x02, 0x21, 0xdb]);
    const f = new PacketFramer();
    f.feed(bytes);
    const p = f.next()!;
    expect(p.code).toBe(ERROR_BITS.overload | ERROR_BITS.voltage);
    expect(decodeErrorBits(p.code)).toEqual(['voltage', 'overload']);
  });
  it('names every documented bit and the undocumented ones', () => {
    expect(decodeErrorBits(0)).toEqual([]);
    expect(decodeErrorBits(0xff)).toEqual([
      'voltage',
      'angle',
      'overheat',
      'overcurrent',
      'overload',
      'bit4',
      'bit6',
      'bit7',
    ]);
  });
  it('decodes the full-state block by hand-placed bytes', () => {
    const block = new Uint8Array(FULL_STATE_BLOCK.length);
    // position -100 → sign bit 15: 0x8064; velocity 300 = 0x012C; load -250 → bit 10: 0x04FA
    block.set([0x64, 0x80, 0x2c, 0x01, 0xfa, 0x04, 74, 31, 0, 0x20, 1, 0, 0, 0x10, 0x01], 0);
    expect(decodeFullState(4, 0x20, block)).toEqual({
      id: 4,
      position: -100,
      velocity: 300,
      load: -250,
      voltage: 74,
      temperature: 31,
      status: 0x20,
      moving: true,
      current: 0x0110,
      errorByte: 0x20,
    });
  });
});

describe('sign-magnitude', () => {
  it('matches hand-computed encodings', () => {
    expect(encodeSignMagnitude(-100, 15)).toBe(0x8064);
    expect(encodeSignMagnitude(-1, 11)).toBe(0x0801);
    expect(encodeSignMagnitude(300, 10)).toBe(300);
    expect(decodeSignMagnitude(0x0400 | 300, 10)).toBe(-300);
    expect(Object.is(decodeSignMagnitude(0x8000, 15), 0)).toBe(true);
    expect(encodeSignMagnitude(2048, 11)).toBeUndefined();
    expect(encodeSignMagnitude(1.5, 15)).toBeUndefined();
  });
  it('round-trips every representable value (sign bits 10, 11, 15)', () => {
    fc.assert(
      fc.property(
        fc
          .constantFrom(10, 11, 15)
          .chain((bit) => fc.tuple(fc.constant(bit), fc.integer({ min: -((1 << bit) - 1), max: (1 << bit) - 1 }))),
        ([bit, v]) => {
          const raw = encodeSignMagnitude(v, bit)!;
          expect(raw).toBeLessThan(1 << (bit + 1));
          expect(decodeSignMagnitude(raw, bit)).toBe(v);
        },
      ),
    );
  });
  it('rejects magnitudes that do not fit', () => {
    fc.assert(
      fc.property(fc.constantFrom(10, 11, 15), fc.integer({ min: 1, max: 1e6 }), fc.boolean(), (bit, extra, neg) => {
        const v = ((1 << bit) - 1 + extra) * (neg ? -1 : 1);
        expect(encodeSignMagnitude(v, bit)).toBeUndefined();
      }),
    );
  });
});

describe('STS3215 register table', () => {
  it('has no overlapping registers and addresses within the image', () => {
    const owner = new Map<number, string>();
    for (const name of REGISTER_NAMES) {
      const spec: RegisterSpec = STS3215_REGISTERS[name];
      for (let i = 0; i < spec.size; i++) {
        expect(owner.get(spec.address + i), `${name} overlaps`).toBeUndefined();
        owner.set(spec.address + i, name);
      }
    }
  });
  it('matches hardware-facts §B2 for the registers the SO-101 uses', () => {
    const R = STS3215_REGISTERS;
    expect([R.Torque_Enable.address, R.Goal_Position.address, R.Lock.address, R.Present_Position.address]).toEqual([
      40, 42, 55, 56,
    ]);
    expect([R.Present_Load.address, R.Present_Load.signBit, R.Homing_Offset.signBit]).toEqual([60, 10, 11]);
    expect([R.Present_Current.address, R.Present_Current.size, R.Status.address, R.Moving.address]).toEqual([
      69, 2, 65, 66,
    ]);
    // The full-state block spans Present_Position .. end of Present_Current.
    expect(FULL_STATE_BLOCK.address).toBe(R.Present_Position.address);
    expect(FULL_STATE_BLOCK.address + FULL_STATE_BLOCK.length).toBe(R.Present_Current.address + R.Present_Current.size);
  });
  it('round-trips register values through encode/decode', () => {
    fc.assert(
      fc.property(fc.constantFrom(...REGISTER_NAMES), fc.integer({ min: -40000, max: 70000 }), (name, v) => {
        const spec: RegisterSpec = STS3215_REGISTERS[name];
        const bytes = encodeRegister(spec, v);
        const lim = spec.signBit !== undefined ? (1 << spec.signBit) - 1 : (1 << (8 * spec.size)) - 1;
        const fits = spec.signBit !== undefined ? Math.abs(v) <= lim : v >= 0 && v <= lim;
        if (!fits) expect(bytes).toBeUndefined();
        else expect(decodeRegister(spec, bytes!)).toBe(v);
      }),
    );
  });
  it('broadcast id is 0xFE', () => expect(BROADCAST_ID).toBe(254));
});
