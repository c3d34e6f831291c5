import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { PacketFramer, type Packet, checksum, encodePacket, encodeStatus } from '../../../drivers/feetech/index.js';

interface Spec {
  id: number;
  code: number;
  params: Uint8Array;
}

const packetArb = (maxParams = 24, byte = fc.integer({ min: 0, max: 255 })): fc.Arbitrary<Spec> =>
  fc.record({
    id: fc.integer({ min: 0, max: 0xfe }),
    code: byte,
    params: fc.array(byte, { maxLength: maxParams }).map((a) => Uint8Array.from(a)),
  });

const concat = (parts: readonly Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
};

/** Split `bytes` at the given fractions (chunk boundaries as a serial port would deliver). */
const chunked = (bytes: Uint8Array, cuts: readonly number[]): Uint8Array[] => {
  const idx = [...new Set(cuts.map((c) => Math.floor(c * bytes.length)))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let prev = 0;
  for (const i of [...idx, bytes.length]) {
    out.push(bytes.subarray(prev, i));
    prev = i;
  }
  return out;
};

const runFramer = (chunks: readonly Uint8Array[], framer = new PacketFramer()): Packet[] => {
  const out: Packet[] = [];
  for (const c of chunks) framer.push(c, (p) => out.push(p));
  return out;
};

const plain = (p: Packet | Spec): Spec => ({ id: p.id, code: p.code, params: Uint8Array.from(p.params) });

/** Garbage biased towards header bytes so resynchronisation is really exercised. */
const garbageArb = fc
  .array(fc.oneof(fc.constant(0xff), fc.integer({ min: 0, max: 255 })), { maxLength: 120 })
  .map((a) => Uint8Array.from(a));
const cutsArb = fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 12 });

/** Longer than the longest packet (LEN ≤ 255 → 259 bytes): any candidate started before it completes inside it. */
const QUIET_GAP = new Uint8Array(300);

function occursIn(hay: Uint8Array, needle: Uint8Array): boolean {
  outer: for (let i = 0; i + needle.length <= hay.length; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

describe('PacketFramer', () => {
  it('yields exactly the packets of a clean stream, however it is chunked', () => {
    fc.assert(
      fc.property(fc.array(packetArb(), { maxLength: 10 }), cutsArb, (specs, cuts) => {
        const stream = concat(specs.map((s) => encodePacket(s.id, s.code, s.params)));
        const got = runFramer(chunked(stream, cuts)).map(plain);
        expect(got).toEqual(specs.map(plain));
      }),
    );
  });

  it('waits on a partial packet and completes it when the rest arrives', () => {
    const bytes = encodeStatus(3, 0, [1, 2, 3, 4]);
    const f = new PacketFramer();
    for (let i = 0; i < bytes.length - 1; i++) {
      f.feed(bytes.subarray(i, i + 1));
      expect(f.next()).toBeUndefined();
    }
    expect(f.buffered).toBe(bytes.length - 1);
    f.feed(bytes.subarray(bytes.length - 1));
    expect(plain(f.next()!)).toEqual({ id: 3, code: 0, params: Uint8Array.of(1, 2, 3, 4) });
  });

  it('never throws on random bytes and only yields byte sequences with a valid checksum', () => {
    fc.assert(
      fc.property(garbageArb, fc.uint8Array({ maxLength: 400 }), cutsArb, (g1, g2, cuts) => {
        const stream = concat([g1, g2]);
        const got = runFramer(chunked(stream, cuts));
        for (const p of got) {
          const bytes = encodePacket(p.id, p.code, p.params);
          // What it yields is literally in the input, with a checksum that matches a naive sum.
          expect(occursIn(stream, bytes)).toBe(true);
          const sum = bytes.subarray(2, bytes.length - 1).reduce((a, b) => a + b, 0);
          expect(bytes[bytes.length - 1]).toBe(0xff - (sum % 256));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('recovers every valid packet after garbage and a quiet gap, for any chunking', () => {
    fc.assert(
      fc.property(
        garbageArb,
        fc.array(packetArb(), { minLength: 1, maxLength: 6 }),
        cutsArb,
        (garbage, specs, cuts) => {
          const packets = specs.map((s) => encodePacket(s.id, s.code, s.params));
          const stream = concat([garbage, QUIET_GAP, ...packets]);
          const got = runFramer(chunked(stream, cuts)).map(plain);
          expect(got.slice(-specs.length)).toEqual(specs.map(plain));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('recovers after truncated packets followed by a quiet gap', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(packetArb(), fc.double({ min: 0, max: 0.99, noNaN: true })), { maxLength: 5 }),
        fc.array(packetArb(), { minLength: 1, maxLength: 4 }),
        cutsArb,
        (truncated, good, cuts) => {
          const stumps = truncated.map(([s, frac]) => {
            const b = encodePacket(s.id, s.code, s.params);
            return b.subarray(0, Math.floor(frac * b.length));
          });
          const stream = concat([...stumps, QUIET_GAP, ...good.map((s) => encodePacket(s.id, s.code, s.params))]);
          const got = runFramer(chunked(stream, cuts)).map(plain);
          expect(got.slice(-good.length)).toEqual(good.map(plain));
        },
      ),
    );
  });

  it('counts a corrupted byte as one checksum error and yields nothing from that packet', () => {
    const noFF = fc.integer({ min: 0, max: 0xfe });
    fc.assert(
      fc.property(packetArb(20, noFF), fc.nat(), fc.integer({ min: 1, max: 255 }), (s, pos, mask) => {
        const bytes = encodePacket(s.id, s.code, s.params);
        // Corrupt the instruction/error byte, a parameter or the checksum (not header, id or length).
        const i = 4 + (pos % (bytes.length - 4));
        bytes[i] = bytes[i]! ^ mask;
        const f = new PacketFramer();
        const got = runFramer([bytes, QUIET_GAP], f);
        expect(got).toEqual([]);
        expect(f.counters.checksumErrors).toBe(1);
      }),
    );
  });

  it('recovers the next packet right after a corrupt one (example)', () => {
    const bad = encodeStatus(1, 0, [0x00, 0x08]);
    bad[6] = 0x09; // corrupt a data byte
    const good = encodeStatus(2, 0, [0x00, 0x04]);
    const f = new PacketFramer();
    const got = runFramer([concat([Uint8Array.of(0x13, 0xff), bad, good])], f);
    expect(got.map(plain)).toEqual([{ id: 2, code: 0, params: Uint8Array.of(0x00, 0x04) }]);
    expect(f.counters.checksumErrors).toBe(1);
    expect(f.counters.droppedBytes).toBe(2 + bad.length);
  });

  it('resynchronises on a run of header bytes (FF FF FF …)', () => {
    const good = encodeStatus(7, 0x20, [5]);
    const got = runFramer([concat([Uint8Array.of(0xff, 0xff, 0xff, 0xff), good])]).map(plain);
    expect(got).toEqual([{ id: 7, code: 0x20, params: Uint8Array.of(5) }]);
  });

  it('a checksum over bytes[2..n-1] equals the naive formula', () => {
    expect(checksum([0xff, 0xff, 1, 2, 1], 2, 5)).toBe(0xfb);
  });
});

describe('PacketFramer with a tightened LEN bound', () => {
  it('drops a header whose LEN exceeds the bound instead of waiting on it', () => {
    const f = new PacketFramer();
    f.setMaxParams(2);
    // A noise header claiming 200 params, then a real 2-param reply.
    const got = runFramer([concat([Uint8Array.of(0xff, 0xff, 0x01, 202), encodeStatus(1, 0, [0, 8])])], f).map(plain);
    expect(got).toEqual([{ id: 1, code: 0, params: Uint8Array.of(0, 8) }]);
    // Without the bound the same stream stalls on the bogus header.
    expect(runFramer([concat([Uint8Array.of(0xff, 0xff, 0x01, 202), encodeStatus(1, 0, [0, 8])])])).toEqual([]);
  });
});
