/**
 * The chunk request admission (src/telemetry/chunk-admission.ts): the token bucket against a naive
 * reference written from its rule (a request is admitted when, for every earlier moment s — the
 * start or an admitted request — the burst plus the rate times the time since s, minus the
 * requests admitted since s, leaves at least one token), over random arrival sequences on times
 * exact in binary (property); hand-computed cases; per-user buckets kept for good and the cap's
 * shared overflow bucket; the answer text against JSON.stringify of the message (also across the
 * reasons it keeps per user and client id); and the id scan of undecoded requests (property over
 * ids, escapes and payload layouts, fuzz over bytes, and against the scan's rule applied to the
 * whole decoded head, over payloads cut inside characters and with decoy "id" keys).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  ChunkAdmission,
  chunkIdOf,
  chunkRateLimit,
  chunkRateLimitProblem,
  MAX_CACHED_REASONS,
  MAX_TRACKED_KEYS,
  RateLimitAnswers,
  RateLimitLedger,
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
  it("keeps one bucket per key: a flooding user does not use up another user's tokens", () => {
    const a = new ChunkAdmission({ ratePerS: 1, burst: 3 });
    const flood = Array.from({ length: 10 }, () => a.admit('flooder', 0));
    expect(flood.filter(Boolean)).toHaveLength(3);
    expect([a.admit('honest', 0), a.admit('honest', 0.5), a.admit('honest', 1)]).toEqual([true, true, true]);
  });

  it('keeps a bucket for good: the same key later (a reconnect) continues it, never starts full', () => {
    const a = new ChunkAdmission({ ratePerS: 1, burst: 2 });
    expect([a.admit('vla', 0), a.admit('vla', 0), a.admit('vla', 0)]).toEqual([true, true, false]);
    // However many other keys came since, 'vla' gets back only what the rate returned.
    for (let i = 0; i < 100; i++) a.admit(`k${i}`, 0.25);
    expect(a.admit('vla', 0.5)).toBe(false); // half a token
    expect(a.admit('vla', 1)).toBe(true);
  });

  it(`past ${MAX_TRACKED_KEYS} keys, every further key shares one overflow bucket (limited, never a fresh burst)`, () => {
    const a = new ChunkAdmission({ ratePerS: 1, burst: 3 }, 4);
    for (const k of ['a', 'b', 'c', 'd']) expect(a.admit(k, 0)).toBe(true);
    expect(a.tracked).toBe(4);
    // Keys 5, 6, 7, … share the overflow bucket: 3 in all, not 3 each.
    const overflow = ['e', 'f', 'g', 'h', 'e', 'f'].map((k) => a.admit(k, 0));
    expect(overflow).toEqual([true, true, true, false, false, false]);
    expect(a.tracked).toBe(4);
    // The tracked keys keep their own buckets (2 tokens left each).
    expect([a.admit('a', 0), a.admit('a', 0), a.admit('a', 0)]).toEqual([true, true, false]);
    // The overflow bucket refills at the rate, like any other.
    expect(a.admit('zz', 1)).toBe(true);
    expect(a.admit('yy', 1)).toBe(false);
    // The default cap.
    const d = new ChunkAdmission({ ratePerS: 1, burst: 1 });
    for (let i = 0; i < MAX_TRACKED_KEYS; i++) expect(d.admit(`u${i}`, 0)).toBe(true);
    expect([d.admit('late-1', 0), d.admit('late-2', 0)]).toEqual([true, false]);
    expect(d.tracked).toBe(1024);
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

  it('decodes JSON escapes in the id as JSON.parse does (an escaped quote was an empty id before)', () => {
    for (const id of ['x1 "quoted"', 'back\\slash', 'tab\tnl\n', '\u00fc', 'é"']) {
      const text = JSON.stringify({ v: 1, id, stamp: 0 });
      expect(chunkIdOf(Buffer.from(text, 'utf8'))).toBe(id);
    }
    expect(chunkIdOf(Buffer.from('{"id":"bad \\x escape"}'))).toBe('');
  });

  it('finds the id JSON.parse finds for any id string of up to 128 characters (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 128 }), (id) => {
        const text = JSON.stringify({ v: 1, id, stamp: 0 });
        // Escaped forms may exceed the scan's 128 units: then '' (no id), never a wrong one.
        const got = chunkIdOf(Buffer.from(text, 'utf8'));
        expect(got === id || got === '').toBe(true);
        const plain = [...id].every((ch) => ch !== '"' && ch !== '\\' && ch.charCodeAt(0) >= 0x20);
        if (plain) expect(got).toBe(id);
      }),
    );
  });

  it('gives what the rule gives on the whole decoded head, for decoys, any characters and cuts inside a character (property)', () => {
    // The rule, applied naively: decode all of the first scanBytes bytes, take the first `"id": "…"`
    // (a JSON string of at most 128 characters or escapes), JSON-parse it; '' when there is none.
    const rule = (bytes: Uint8Array, scanBytes: number): string => {
      const text = Buffer.from(bytes.subarray(0, scanBytes)).toString('utf8');
      const m = /"id"\s*:\s*("(?:[^"\\]|\\.){0,128}")/.exec(text);
      if (!m) return '';
      try {
        const id = JSON.parse(m[1]!) as string;
        return id.length <= 128 ? id : '';
      } catch {
        return '';
      }
    };
    const piece = fc.oneof(
      fc.string({ maxLength: 40, unit: 'binary' }),
      fc.constantFrom('"id"', '"id":', '"id": 5,', '"id" : "', '"id":"a\\', '\\"id\\":"x"', ' ', '\t', 'é', '🙂', '"'),
      fc.string({ maxLength: 140, unit: 'binary' }).map((id) => `"id": ${JSON.stringify(id)}`),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), fc.integer({ min: 0, max: 700 }), (pieces, scanBytes) => {
        const bytes = Buffer.from(pieces.join(''), 'utf8');
        expect(chunkIdOf(bytes, scanBytes)).toBe(rule(bytes, scanBytes));
        expect(chunkIdOf(bytes)).toBe(rule(bytes, 512));
      }),
      { numRuns: 3000 },
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
  it('answers rejected / rate-limit naming the limit, the user and the client: the JSON of the message, field for field', () => {
    const answers = new RateLimitAnswers({ ratePerS: 40, burst: 8 });
    const text = answers.text('c9', { kind: 'user', username: 'vla', clientId: 'vla-1' }, 12.5);
    // The reference: the message object written out by hand, serialised by JSON.stringify.
    const expected = {
      v: 1,
      id: 'c9',
      verdict: 'rejected',
      code: 'rate-limit',
      reason:
        "more than 40 chunk requests a second from user 'vla' (client 'vla-1') (burst 8; --max-chunk-rate): not decoded, not executed",
      t: 12.5,
    };
    expect(text).toBe(JSON.stringify(expected));
    const stream = JSON.parse(answers.text('', { kind: 'stream' }, 0)) as { reason: string };
    expect(stream.reason).toMatch(/on this broker connection \(all policies together\)/);
  });

  it('writes any id, user, client id and time as valid JSON (property)', () => {
    const answers = new RateLimitAnswers({ ratePerS: 2.5, burst: 1 });
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), fc.double(), (id, username, clientId, t) => {
        const parsed = JSON.parse(answers.text(id, { kind: 'user', username, clientId }, t)) as Record<string, unknown>;
        expect(parsed).toMatchObject({ v: 1, id, verdict: 'rejected', code: 'rate-limit' });
        // JSON has no −0: it is written 0, as JSON.stringify writes it (== compares them equal)
        expect(parsed.t === (Number.isFinite(t) ? t : null)).toBe(true);
        expect(parsed.reason).toContain(`from user '${username}' (client '${clientId}')`);
      }),
    );
  });

  it(`answers as the message's JSON across repeated users and client ids, beyond the ${MAX_CACHED_REASONS} reasons it keeps`, () => {
    const answers = new RateLimitAnswers({ ratePerS: 40, burst: 8 });
    const reference = (id: string, who: string, t: number) =>
      JSON.stringify({
        v: 1,
        id,
        verdict: 'rejected',
        code: 'rate-limit',
        reason: `more than 40 chunk requests a second ${who} (burst 8; --max-chunk-rate): not decoded, not executed`,
        t,
      });
    // Names that run together the same way ('ab' + 'c', 'a' + 'bc') must not share a reason.
    const pairs: [string, string][] = [
      ['ab', 'c'],
      ['a', 'bc'],
      ['', 'abc'],
      ['abc', ''],
    ];
    for (let round = 0; round < 2; round++) {
      for (const [u, c] of pairs)
        expect(answers.text('p', { kind: 'user', username: u, clientId: c }, round)).toBe(
          reference('p', `from user '${u}' (client '${c}')`, round),
        );
      for (let i = 0; i < MAX_CACHED_REASONS + 40; i++) {
        const username = `u${i % 7}`;
        const clientId = `c${i % (MAX_CACHED_REASONS + 13)}`;
        expect(answers.text(`r${i}`, { kind: 'user', username, clientId }, i / 8)).toBe(
          reference(`r${i}`, `from user '${username}' (client '${clientId}')`, i / 8),
        );
      }
      expect(answers.text('s', { kind: 'stream' }, 1.5)).toBe(
        reference('s', 'on this broker connection (all policies together)', 1.5),
      );
    }
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(fc.constantFrom('a', 'ab', "o'k", '"q"', ''), fc.constantFrom('b', 'bc', 'c\\', ''), fc.string()),
          {
            maxLength: 30,
          },
        ),
        (calls) => {
          for (const [username, clientId, id] of calls)
            expect(answers.text(id, { kind: 'user', username, clientId }, 2)).toBe(
              reference(id, `from user '${username}' (client '${clientId}')`, 2),
            );
        },
      ),
    );
  });

  it('records per user (whichever client ids it used): ids listed up to 16, every rejection counted, then starts again', () => {
    const l = new RateLimitLedger({ ratePerS: 40, burst: 8 });
    for (let i = 0; i < 20; i++) l.add({ kind: 'user', username: 'a', clientId: `a-${i % 3}` }, `f${i}`);
    l.add({ kind: 'user', username: 'b', clientId: 'b-1' }, 'g0');
    const [a, b] = l.take();
    expect(a).toMatch(
      /^20 chunk request\(s\) from user 'a' rejected above the rate limit \(40\/s, burst 8; --max-chunk-rate\)/,
    );
    expect(a).toMatch(/'f15' and 4 more$/);
    expect(a).not.toMatch(/'f16'/);
    expect(b).toMatch(/^1 chunk request\(s\) from user 'b' .*: 'g0'$/);
    expect(l.total).toBe(21);
    expect(l.empty).toBe(true);
    expect(l.take()).toEqual([]);
  });
});
