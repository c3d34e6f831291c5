/**
 * Admission of chunk requests in the network worker, before they are decoded (issue 14 item 3):
 * a token bucket per policy identity (embedded broker: the authenticated user — not the MQTT client
 * id, which the client chooses; external broker: armguard cannot tell connections apart, so one
 * bucket for the stream). A request above the rate is answered at once, here, with verdict
 * `rejected`, code `rate-limit` and a reason naming the limit; its JSON is never parsed (only its
 * head is scanned for the id the answer needs), it is never handed to the control thread and never
 * filtered. Every request still gets exactly one answer. The rejections are counted per user and
 * recorded in the episode in one record per second at most (`RateLimitLedger`), so a flood costs the
 * control thread one message a second.
 *
 * Buckets are kept for the process's life, across reconnects: a flooder that reconnects (with the
 * same client id or a new one) gets no fresh burst. Their number is bounded (MAX_TRACKED_KEYS); past
 * it, every further identity shares one overflow bucket — never a fresh bucket, never no limit.
 *
 * A policy at its own rate never meets the limit: the default (100 requests a second, a burst of 20)
 * is above any VLA's chunk rate (30–50 Hz) and at the control loop's rate, the most the control
 * thread takes (one request per step: chunk-pacer.ts). Policies that must not share a limit log in
 * as different users. Pure: time is passed in.
 */
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

/** Buckets are kept for at most this many identities; the ones after share OVERFLOW_KEY's bucket. */
export const MAX_TRACKED_KEYS = 1024;

/** One bucket per key (an authenticated user, or one key for the whole stream), kept across reconnects. */
export class ChunkAdmission {
  private readonly buckets = new Map<string, TokenBucket>();
  /** The bucket every identity beyond MAX_TRACKED_KEYS shares (created when the first one comes). */
  private overflow: TokenBucket | undefined;

  constructor(
    readonly limit: ChunkRateLimit,
    private readonly maxKeys = MAX_TRACKED_KEYS,
  ) {}

  /** Whether `key`'s request at `now` (s) is within the rate. */
  admit(key: string, now: number): boolean {
    let b = this.buckets.get(key);
    if (!b) {
      // Fail safe at the cap: a shared, already-used bucket — dropping a tracked one would hand its
      // owner a fresh burst when it came back, and no bucket would mean no limit.
      if (this.buckets.size >= this.maxKeys) b = this.overflow ??= new TokenBucket(this.limit, now);
      else this.buckets.set(key, (b = new TokenBucket(this.limit, now)));
    }
    return b.take(now);
  }

  /** Identities with a bucket of their own. */
  get tracked(): number {
    return this.buckets.size;
  }
}

/** How much of a payload is scanned for the id of a request that is not decoded (by default). */
const ID_SCAN_BYTES = 512;
/** A JSON string of at most 128 characters or escapes, after `"id":`. */
const ID_PATTERN = /"id"\s*:\s*("(?:[^"\\]|\\.){0,128}")/;
/** The same, only where the text begins. */
const ID_PATTERN_AT_START = /^"id"\s*:\s*("(?:[^"\\]|\\.){0,128}")/;
const ID_KEY = Buffer.from('"id"');
/** How much is decoded first, from the first `"id"` on (a typical id is a few dozen bytes). */
const ID_FIRST_LOOK_BYTES = 160;

/**
 * The id of a request that is not decoded (above the rate, or not JSON), for its answer: the first
 * `"id": "…"` in the payload's first `scanBytes` bytes (a policy writes its id near the start; the
 * chunk schema has no nested `id`), with its JSON escapes decoded as the decoded path would, or ''
 * when there is none there (or it is not a valid JSON string). Parses only that string.
 *
 * Decodes only from the first `"id"` on (no match can begin before it, and an ASCII byte decodes to
 * itself whatever precedes it), and first only a short stretch: a match that begins at that `"id"`
 * and ends inside the stretch is the one the whole head gives (an id's string ends at its first
 * unescaped quote, so a truncated character at the stretch's end cannot be inside it); otherwise the
 * rest of the head is searched as before. (Under a flood this runs once per refused request.)
 */
export function chunkIdOf(payload: Uint8Array, scanBytes = ID_SCAN_BYTES): string {
  const head = Buffer.from(payload.buffer, payload.byteOffset, Math.min(payload.byteLength, scanBytes));
  const at = head.indexOf(ID_KEY);
  if (at < 0) return '';
  // UTF-8, as JSON.parse reads it on the decoded path: the answer must carry the id the policy sent.
  const quoted =
    ID_PATTERN_AT_START.exec(head.toString('utf8', at, Math.min(head.length, at + ID_FIRST_LOOK_BYTES)))?.[1] ??
    ID_PATTERN.exec(head.toString('utf8', at))?.[1];
  if (quoted === undefined) return '';
  try {
    const id = JSON.parse(quoted) as string;
    return id.length <= 128 ? id : '';
  } catch {
    return '';
  }
}

/** Who a limit applies to, for the answer's reason: a user (and the client that sent it), or the whole stream (external broker). */
export type RateLimitScope =
  | { readonly kind: 'user'; readonly username: string; readonly clientId: string }
  | { readonly kind: 'stream' };

/** Whose limit it is (the ledger's key: one record per user, whichever client ids it used). */
function limitOwner(s: RateLimitScope): string {
  return s.kind === 'user' ? `from user '${s.username}'` : 'on this broker connection (all policies together)';
}

function scopeText(s: RateLimitScope): string {
  return s.kind === 'user' ? `${limitOwner(s)} (client '${s.clientId}')` : limitOwner(s);
}

/** Reasons kept (one per user and client id seen); past this many the cache starts again. */
export const MAX_CACHED_REASONS = 1024;

/**
 * The answer to a request above the limit (ChunkResultMessage JSON, the fields in the order
 * JSON.stringify of the message writes it), built from text made once per limit and, for the
 * reason, once per user and client id: a flood's thousands of answers cost two map lookups and a
 * string concatenation each (the reason was written and JSON-escaped for every answer before).
 */
export class RateLimitAnswers {
  private readonly limitText: string;
  /** `,"verdict":…,"reason":"…","t":` per user, per client id (and for the whole stream). */
  private readonly middles = new Map<string, Map<string, string>>();
  private cached = 0;
  private streamMiddle: string | undefined;

  constructor(readonly limit: ChunkRateLimit) {
    this.limitText = ` (burst ${limit.burst}; --max-chunk-rate): not decoded, not executed`;
  }

  text(id: string, scope: RateLimitScope, t: number): string {
    return `{"v":1,"id":${JSON.stringify(id)}${this.middle(scope)}${JSON.stringify(t)}}`;
  }

  private middle(scope: RateLimitScope): string {
    if (scope.kind === 'stream') return (this.streamMiddle ??= this.written(scope));
    let byClient = this.middles.get(scope.username);
    const cached = byClient?.get(scope.clientId);
    if (cached !== undefined) return cached;
    if (this.cached >= MAX_CACHED_REASONS) {
      this.middles.clear();
      this.cached = 0;
      byClient = undefined;
    }
    if (!byClient) this.middles.set(scope.username, (byClient = new Map()));
    const middle = this.written(scope);
    byClient.set(scope.clientId, middle);
    this.cached++;
    return middle;
  }

  private written(scope: RateLimitScope): string {
    const reason = `more than ${this.limit.ratePerS} chunk requests a second ${scopeText(scope)}${this.limitText}`;
    return `,"verdict":"rejected","code":"rate-limit","reason":${JSON.stringify(reason)},"t":`;
  }
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
    const key = limitOwner(scope);
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
