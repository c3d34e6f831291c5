/**
 * The UDP pose datagram parser (drivers/tracking/udp-pose-feed.ts): property tests — any bytes
 * give a result, never a throw; a well-formed datagram gives back exactly its bodies; a datagram
 * with one bad body is rejected whole — and the feed over a real UDP socket into a SceneTracker.
 */
import { createSocket } from 'node:dgram';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_POSE_DATAGRAM, parsePoseDatagram, UdpPoseFeed } from '../../../drivers/tracking/udp-pose-feed.js';
import { SceneTracker } from '../../../drivers/tracking/scene-tracker.js';

const enc = (s: string) => new TextEncoder().encode(s);
const finite = fc.double({ min: -10, max: 10, noNaN: true });
const unitQuat = fc
  .tuple(finite, finite, finite, finite)
  .filter(([a, b, c, d]) => Math.hypot(a, b, c, d) > 0.1)
  .map(([a, b, c, d]) => {
    const n = Math.hypot(a, b, c, d);
    return [a / n, b / n, c / n, d / n];
  });
const body = fc.record({
  name: fc.string({ minLength: 1, maxLength: 12 }),
  p: fc.tuple(finite, finite, finite),
  q: unitQuat,
});

describe('parsePoseDatagram', () => {
  it('any bytes: a result, never a throw', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        const r = parsePoseDatagram(bytes);
        expect(typeof r.ok).toBe('boolean');
      }),
    );
  });

  it('a well-formed datagram gives back its bodies in order', () => {
    fc.assert(
      fc.property(fc.array(body, { maxLength: 5 }), (generated) => {
        const text = JSON.stringify({ v: 1, bodies: generated });
        // what the sender's JSON carries (−0 is written as 0)
        const bodies = (JSON.parse(text) as { bodies: typeof generated }).bodies;
        const r = parsePoseDatagram(enc(text));
        expect(r.ok).toBe(true);
        if (!r.ok) return;
        expect(r.value.map((b) => b.name)).toEqual(bodies.map((b) => b.name));
        r.value.forEach((b, i) => {
          expect([b.position.x, b.position.y, b.position.z]).toEqual(bodies[i]!.p);
          expect([b.orientation.x, b.orientation.y, b.orientation.z, b.orientation.w]).toEqual(bodies[i]!.q);
        });
      }),
    );
  });

  it('one bad body rejects the whole datagram, naming the field', () => {
    fc.assert(
      fc.property(
        fc.array(body, { minLength: 1, maxLength: 4 }),
        fc.nat(),
        fc.constantFrom(
          { p: [0, 0] },
          { p: [0, 0, null] },
          { q: [0, 0, 0, 2] },
          { q: [0, 0, 0] },
          { name: '' },
          { name: 3 },
        ),
        (bodies, at, bad) => {
          const i = at % bodies.length;
          const doc = { v: 1, bodies: bodies.map((b, k) => (k === i ? { ...b, ...bad } : b)) };
          const r = parsePoseDatagram(enc(JSON.stringify(doc)));
          expect(r.ok).toBe(false);
          if (!r.ok) expect(r.error).toMatch(new RegExp(`^bodies\\[${i}\\]\\.(p|q|name):`));
        },
      ),
    );
  });

  it('names the version, the shape and the size', () => {
    expect(parsePoseDatagram(enc('{"v":2,"bodies":[]}'))).toEqual({ ok: false, error: "field 'v': expected 1, got 2" });
    expect(parsePoseDatagram(enc('[1]'))).toEqual({ ok: false, error: 'expected a JSON object' });
    expect(parsePoseDatagram(enc('{"v":1}'))).toEqual({ ok: false, error: "field 'bodies': expected an array" });
    expect(parsePoseDatagram(Uint8Array.from([0xff, 0xfe]))).toMatchObject({ ok: false, error: /not UTF-8 JSON/ });
    expect(parsePoseDatagram(new Uint8Array(MAX_POSE_DATAGRAM + 1))).toMatchObject({
      ok: false,
      error: /at most 8192/,
    });
  });
});

describe('UdpPoseFeed over a real socket', () => {
  it('stamps each body with the arrival time on the given clock; another port in use is named', async () => {
    const tracker = new SceneTracker({ bystanders: [], obstacles: ['cup'], source: 'udp' });
    let t = 12.5;
    const feed = await UdpPoseFeed.open({ port: 0, tracker, now: () => t });
    const sock = createSocket('udp4');
    try {
      await new Promise<void>((r) =>
        sock.send(
          JSON.stringify({ v: 1, bodies: [{ name: 'cup', p: [0.1, 0.2, 0.3], q: [0, 0, 0, 1] }] }),
          feed.port,
          '127.0.0.1',
          () => r(),
        ),
      );
      const out = new Float64Array(3);
      for (let i = 0; i < 200 && feed.received === 0; i++) await new Promise((r) => setTimeout(r, 5));
      expect(feed.received).toBe(1);
      expect(tracker.positionOf('cup', out)).toBe(12.5);
      expect(Array.from(out)).toEqual([0.1, 0.2, 0.3]);
      t = 13;
      await expect(UdpPoseFeed.open({ port: feed.port, tracker, now: () => t })).rejects.toThrow(
        new RegExp(`cannot listen on UDP 127.0.0.1:${feed.port}: .*EADDRINUSE`),
      );
    } finally {
      sock.close();
      await feed.close();
    }
  });
});
