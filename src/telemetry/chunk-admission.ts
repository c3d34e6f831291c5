/**
 * Admission of chunk requests in the network worker, before they are decoded (issue 14 item 3):
 * a token bucket per policy connection (embedded broker: the publishing client; external broker:
 * armguard cannot tell connections apart, so one bucket for the stream). A request above the rate is
 * answered at once, here, with verdict `rejected`, code `rate-limit` and a reason naming the limit;
 * its JSON is never parsed (only its head is scanned for the id the answer needs), it is never
 * handed to the control thread and never filtered. Every request still gets exactly one answer.
 * The rejections are counted per client and recorded in the episode in one record per second at
 * most (`RateLimitLedger`), so a flood costs the control thread one message a second.
 *
 * A policy at its own rate never meets the limit: the default (100 requests a second, a burst of 20)
 * is above any VLA's chunk rate (30–50 Hz) and at the control loop's rate, the most the control
 * thread takes (one request per step: chunk-pacer.ts). Pure: time is passed in.
 */
import type { ChunkResultMessage } from '../gate/chunk.js';

export interface ChunkRateLimit {
  /** Sustained requests a second per connection. */
  readonly ratePerS: number;
  /** Requests a connection may send at once above the rate (the bucket's size). */
  readonly burst: number;
}

/** 100 a second (the control loop's rate), bursts of 20 (0.2 s of it). */
export const DEFAULT_CHUNK_RATE_LIMIT: ChunkRateLimit = { ratePerS: 100, burst: 20 };

/** The limit for `--max-chunk-rate <Hz>`: that rate, and a burst of 0.2 s of it (at least 1). */
export function chunkRateLimit(ratePerS: number): ChunkRateLimit {
  return { ratePerS, burst: Math.max(1, Math.ceil(ratePerS * 0.2)) };
}

/** Why a limit cannot be used, or null. */
export function chunkRateLimitProblem(l: ChunkRateLimit): string | null {
  if (!Number.isFinite(l.ratePerS) || l.ratePerS <= 0)
    return `rate ${l.ratePerS} is not a positive number (per second)`;
  if (!Number.isInteger(l.burst) || l.burst < 1) return `burst ${l.burst} is not a positive integer`;
  return null;
}

/** A token bucket: `take` succeeds while tokens are left; they come back at `ratePerS`, up to `burst`. */
export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly limit: ChunkRateLimit,
    now: number,
  ) {
    this.tokens = limit.burst;
    this.last = now;
  }

  take(now: number): boolean {
    if (now > this.last) {
      this.tokens = Math.min(this.limit.burst, this.tokens + (now - this.last) * this.limit.ratePerS);
      this.last = now;
    }
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

/** Buckets are kept for at most this many connections (the least recently used one is dropped). */
const MAX_TRACKED = 1024;

/** One bucket per key (a client id, or one key for the whole stream). */
export class ChunkAdmission {
  private readonly buckets = new Map<string, TokenBucket>();

  constructor(readonly limit: ChunkRateLimit) {}

  admit(key: string, now: number): boolean {
    let b = this.buckets.get(key);
    if (b) this.buckets.delete(key);
    else {
      b = new TokenBucket(this.limit, now);
      if (this.buckets.size >= MAX_TRACKED) this.buckets.delete(this.buckets.keys().next().value!);
    }
    this.buckets.set(key, b);
    return b.take(now);
  }

  /** A connection closed: its bucket goes (a reconnecting client starts full, as a new one does). */
  forget(key: string): void {
    this.buckets.delete(key);
  }
}

/** How much of a payload is scanned for the id of a request that is not decoded (by default). */
const ID_SCAN_BYTES = 512;
const ID_PATTERN = /"id"\s*:\s*"([^"\\]{0,128})"/;

/**
 * The id of a request that is not decoded (above the rate, or not JSON), for its answer: the first
 * `"id": "…"` in the payload's first `scanBytes` bytes (a policy writes its id near the start; the
 * chunk schema has no nested `id`), or '' when there is none there. Never parses the payload.
 */
export function chunkIdOf(payload: Uint8Array, scanBytes = ID_SCAN_BYTES): string {
  const head = Buffer.from(payload.buffer, payload.byteOffset, Math.min(payload.byteLength, scanBytes));
  // UTF-8, as JSON.parse reads it on the decoded path: the answer must carry the id the policy sent.
  return ID_PATTERN.exec(head.toString('utf8'))?.[1] ?? '';
}

/** Who a limit applies to, for the answer's reason: a client id, or the whole stream (external broker). */
export type RateLimitScope = { readonly kind: 'client'; readonly clientId: string } | { readonly kind: 'stream' };

function scopeText(s: RateLimitScope): string {
  return s.kind === 'client' ? `from client '${s.clientId}'` : 'on this broker connection (all policies together)';
}

/** The answer to a request above the limit (ChunkResultMessage JSON). */
export function rateLimitAnswer(id: string, limit: ChunkRateLimit, scope: RateLimitScope, t: number): string {
  const answer: ChunkResultMessage = {
    v: 1,
    id,
    verdict: 'rejected',
    code: 'rate-limit',
    reason: `more than ${limit.ratePerS} chunk requests a second ${scopeText(scope)} (burst ${limit.burst}; --max-chunk-rate): not decoded, not executed`,
    t,
  };
  return JSON.stringify(answer);
}

/** At most this many ids are listed per client per record (all are counted). */
export const RATE_LIMITED_IDS_LISTED = 16;

/**
 * The rejections since the last record, per scope: `take` returns the record texts (one per client)
 * and starts again. The caller records them at most once a second.
 */
export class RateLimitLedger {
  private readonly pending = new Map<string, { ids: string[]; count: number }>();
  /** Requests rejected since start. */
  total = 0;

  constructor(private readonly limit: ChunkRateLimit) {}

  add(scope: RateLimitScope, id: string): void {
    const key = scopeText(scope);
    let p = this.pending.get(key);
    if (!p) this.pending.set(key, (p = { ids: [], count: 0 }));
    p.count++;
    this.total++;
    if (p.ids.length < RATE_LIMITED_IDS_LISTED) p.ids.push(id);
  }

  get empty(): boolean {
    return this.pending.size === 0;
  }

  take(): string[] {
    const out = [...this.pending].map(([who, p]) => {
      const more = p.count - p.ids.length;
      const ids = p.ids.map((id) => `'${id}'`).join(', ') + (more > 0 ? ` and ${more} more` : '');
      return `${p.count} chunk request(s) ${who} rejected above the rate limit (${this.limit.ratePerS}/s, burst ${this.limit.burst}; --max-chunk-rate), not decoded or executed: ${ids}`;
    });
    this.pending.clear();
    return out;
  }
}
