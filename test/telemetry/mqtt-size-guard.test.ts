/**
 * The MQTT size guard against a naive reference written from the MQTT 3.1.1 framing rules (§2.2:
 * fixed header byte, remaining-length varint of 1–4 bytes, body): any stream of well-formed
 * packets split into arbitrary chunks gets the same verdict as the reference computes on the whole
 * stream, and the guard never throws on random bytes (fuzz).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MqttSizeGuard } from '../../src/telemetry/mqtt-size-guard.js';
import { remainingLength as encodeLength } from '../support/mqtt-raw.js';

const LIMITS = { maxPacketBytes: 300, maxConnectBytes: 40 };

/** Reference: index of the first packet over its limit, or -1 when all pass. */
function firstOversize(packets: { type: number; length: number }[]): number {
  return packets.findIndex((p, i) =>
    i === 0 ? p.type !== 1 || p.length > LIMITS.maxConnectBytes : p.length > LIMITS.maxPacketBytes,
  );
}

const packet = fc.record({
  type: fc.integer({ min: 1, max: 14 }),
  length: fc.oneof(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 250, max: 400 })),
});

describe('MqttSizeGuard', () => {
  it('refuses exactly when the reference finds a packet over its limit, however the stream is chunked (property)', () => {
    fc.assert(
      fc.property(
        fc.array(packet, { minLength: 1, maxLength: 12 }),
        fc.array(fc.integer({ min: 1, max: 50 }), { minLength: 1, maxLength: 20 }),
        (packets, cuts) => {
          const bytes: number[] = [];
          for (const p of packets)
            bytes.push(p.type << 4, ...encodeLength(p.length), ...new Array<number>(p.length).fill(0x41));
          const stream = Uint8Array.from(bytes);
          const guard = new MqttSizeGuard(LIMITS);
          let refused = false;
          let at = 0;
          for (let k = 0; at < stream.length; k++) {
            const n = cuts[k % cuts.length]!;
            if (!guard.push(stream.subarray(at, at + n)).ok) {
              refused = true;
              break;
            }
            at += n;
          }
          const bad = firstOversize(packets);
          expect(refused).toBe(bad >= 0);
          if (bad < 0) expect(guard.packetCount).toBe(packets.length);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('refuses a 200 MB PUBLISH from its 5 header bytes, before any of its body', () => {
    const guard = new MqttSizeGuard({ maxPacketBytes: 1 << 20, maxConnectBytes: 8192 });
    const connect = [0x10, 12, 0, 4, 0x4d, 0x51, 0x54, 0x54, 4, 2, 0, 60, 0, 0];
    expect(guard.push(Uint8Array.from(connect))).toEqual({ ok: true });
    const r = guard.push(Uint8Array.from([0x30, ...encodeLength(200e6)]));
    expect(r).toEqual({ ok: false, reason: 'packet (type 3) of 200000000 bytes exceeds the limit of 1048576 bytes' });
    expect(guard.push(Uint8Array.of(0)).ok).toBe(false);
  });

  it('refuses a first packet that is not CONNECT and a 5-byte length', () => {
    expect(new MqttSizeGuard(LIMITS).push(Uint8Array.of(0x30, 0))).toEqual({
      ok: false,
      reason: 'first packet is type 3, not CONNECT',
    });
    expect(new MqttSizeGuard(LIMITS).push(Uint8Array.of(0x10, 0xff, 0xff, 0xff, 0xff, 0x01)).ok).toBe(false);
  });

  it('never throws on random bytes (fuzz)', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 64 }), { maxLength: 8 }), (chunks) => {
        const guard = new MqttSizeGuard(LIMITS);
        for (const c of chunks) guard.push(c);
      }),
      { numRuns: 500 },
    );
  });
});
