/**
 * The chunk request admission (src/telemetry/chunk-admission.ts): the token bucket against a naive
 * reference written from its rule (a request is admitted when, for every earlier moment s — the
 * start or an admitted request — the burst plus the rate times the time since s, minus the
 * requests admitted since s, leaves at least one token), over random arrival sequences on times
 * exact in binary (property); hand-computed cases; per-client buckets and their memory bound; and
 * the id scan of undecoded requests (property over ids and payload layouts, fuzz over bytes).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  ChunkAdmission,
  chunkIdOf,
  chunkRateLimit,
  chunkRateLimitProblem,
  RateLimitLedger,
  rateLimitAnswer,
  TokenBucket,
} from '../../src/telemetry/chunk-admission.js';

describe('TokenBucket', () => {
  it('admits exactly what the reference admits (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.constantFrom(1, 2, 4, 8),
        fc.array(fc.integer({ min: 0, max: 6 }), { maxLength: 60 }),
        (burst, rate, gaps) => {
          const limit = { ratePerS: rate, burst };
          const bucket = new TokenBucket(limit, 0);
          const admitted: number[] = [];
          let t = 0;
          for (const g of gaps) {
            t += g / 8; // eighths of a second: exact in binary
            const since = (s: number) => admitted.filter((a) => a >= s).length;
            const ref = [0, ...admitted].every((s) => burst + rate * (t - s) - since(s) >= 1);
            expect(bucket.take(t)).toBe(ref);
            if (ref) admitted.push(t);
          }
        },
      ),
    );
  });

  it('hand-computed: burst 2 at 4/s', () => {
    const b = new TokenBucket({ ratePerS: 4, burst: 2 }, 0);
    expect([b.take(0), b.take(0), b.take(0)]).toEqual([true, true, false]);
    expect(b.take(0.125)).toBe(false); // half a token back
    expect(b.take(0.25)).toBe(true); // one token back (0.5 at 0.125 + 0.5)
    expect(b.take(0.25)).toBe(false);
    expect([b.take(10), b.take(10), b.take(10)]).toEqual([true, true, false]); // never more than the burst
  });

  it('--max-chunk-rate: a burst of 0.2 s of the rate, at least one; bad limits are named', () => {
    expect(chunkRateLimit(100)).toEqual({ ratePerS: 100, burst: 20 });
    expect(chunkRateLimit(2)).toEqual({ ratePerS: 2, burst: 1 });
    expect(chunkRateLimitProblem({ ratePerS: 0, burst: 1 })).toMatch(/rate 0 is not a positive number/);
    expect(chunkRateLimitProblem({ ratePerS: 5, burst: 0.5 })).toMatch(/burst 0.5 is not a positive integer/);
    expect(chunkRateLimitProblem({ ratePerS: 5, burst: 1 })).toBeNull();
  });
});

describe('ChunkAdmission', () => {
  it("keeps one bucket per client: a flooding client does not use up another client's tokens", () => {
    const a = new ChunkAdmission({ ratePerS: 1, burst: 3 });
    const flood = Array.from({ length: 10 }, () => a.admit('flooder', 0));
    expect(flood.filter(Boolean)).toHaveLength(3);
    expect([a.admit('honest', 0), a.admit('honest', 0.5), a.admit('honest', 1)]).toEqual([true, true, true]);
  });

  it('forgets a closed client (it starts full again), and tracks at most 1,024 clients', () => {
    const a = new ChunkAdmission({ ratePerS: 1, burst: 1 });
    expect([a.admit('c', 0), a.admit('c', 0)]).toEqual([true, false]);
    a.forget('c');
    expect(a.admit('c', 0)).toBe(true);
    // 'c' is now the least recently used of 1,025 clients: dropped, so it starts full again.
    for (let i = 0; i < 1024; i++) a.admit(`k${i}`, 0);
    expect(a.admit('c', 0)).toBe(true);
    // 'k1023' was used last before 'c': still tracked (empty).
    expect(a.admit('k1023', 0)).toBe(false);
  });
});

describe('chunkIdOf (requests that are not decoded)', () => {
  const idChars = fc.stringMatching(/^[A-Za-z0-9_.:\- ]{0,128}$/);
  it("finds the request's id wherever the policy put it among the fields (property)", () => {
    fc.assert(
      fc.property(idChars, fc.integer({ min: 0, max: 3 }), fc.double({ noNaN: true }), (id, at, stamp) => {
        const fields: [string, unknown][] = [
          ['v', 1],
          ['stamp', stamp],
          ['horizon', 2],
          ['joints', 1],
        ];
        fields.splice(at, 0, ['id', id]);
        const text = JSON.stringify(Object.fromEntries(fields));
        expect(chunkIdOf(Buffer.from(text))).toBe(id);
      }),
    );
  });

  it('reads the id as the UTF-8 text the policy sent (not byte by byte), as the decoded path does', () => {
    for (const id of ['ß-1', 'チャンク-7', 'e\u0301', 'a🙂b']) {
      const text = JSON.stringify({ v: 1, id, stamp: 0 });
      expect(chunkIdOf(Buffer.from(text, 'utf8'))).toBe((JSON.parse(text) as { id: string }).id);
    }
  });

  it('never throws on arbitrary bytes and returns at most 128 characters (fuzz)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2000 }), (bytes) => {
        expect(chunkIdOf(bytes).length).toBeLessThanOrEqual(128);
      }),
    );
  });

  it("answers '' when the head of the payload has no id, and reads only a view (no copy of the payload)", () => {
    const big = Buffer.from(`{"v":1,"targets":[${'0,'.repeat(400)}0],"id":"late"}`);
    expect(chunkIdOf(big)).toBe('');
    const inner = Buffer.from('xx{"id":"c7"}yy');
    expect(chunkIdOf(inner.subarray(2, 13))).toBe('c7');
  });
});

describe('the answer and the record', () => {
  it('answers rejected / rate-limit naming the limit and the client', () => {
    const text = rateLimitAnswer('c9', { ratePerS: 40, burst: 8 }, { kind: 'client', clientId: 'vla-1' }, 12.5);
    expect(JSON.parse(text)).toEqual({
      v: 1,
      id: 'c9',
      verdict: 'rejected',
      code: 'rate-limit',
      reason:
        "more than 40 chunk requests a second from client 'vla-1' (burst 8; --max-chunk-rate): not decoded, not executed",
      t: 12.5,
    });
    const stream = JSON.parse(rateLimitAnswer('', { ratePerS: 40, burst: 8 }, { kind: 'stream' }, 0)) as {
      reason: string;
    };
    expect(stream.reason).toMatch(/on this broker connection \(all policies together\)/);
  });

  it('records per client: ids listed up to 16, every rejection counted, then starts again', () => {
    const l = new RateLimitLedger({ ratePerS: 40, burst: 8 });
    for (let i = 0; i < 20; i++) l.add({ kind: 'client', clientId: 'a' }, `f${i}`);
    l.add({ kind: 'client', clientId: 'b' }, 'g0');
    const [a, b] = l.take();
    expect(a).toMatch(
      /^20 chunk request\(s\) from client 'a' rejected above the rate limit \(40\/s, burst 8; --max-chunk-rate\)/,
    );
    expect(a).toMatch(/'f15' and 4 more$/);
    expect(a).not.toMatch(/'f16'/);
    expect(b).toMatch(/^1 chunk request\(s\) from client 'b' .*: 'g0'$/);
    expect(l.total).toBe(21);
    expect(l.empty).toBe(true);
    expect(l.take()).toEqual([]);
  });
});
