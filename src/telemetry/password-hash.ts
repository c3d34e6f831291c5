/**
 * Password hashes for access files: scrypt (RFC 7914) with a random 16-byte salt, encoded as
 * `scrypt$<N>$<r>$<p>$<salt base64>$<key base64>`. Hashing and checking run on libuv's thread
 * pool (async crypto.scrypt), never on the thread that calls them: a login does not stall the
 * event loop it arrives on.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type { Result } from '../util/result.js';

export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}
/** 2^15 × 8 × 1: about 32 MB and tens of milliseconds per check on a laptop core. */
export const DEFAULT_SCRYPT: ScryptParams = { N: 1 << 15, r: 8, p: 1 };
const KEY_BYTES = 32;
const PREFIX = 'scrypt$';

export interface ParsedHash extends ScryptParams {
  salt: Buffer;
  key: Buffer;
}

function derive(password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  const options: ScryptOptions = {
    N: params.N,
    r: params.r,
    p: params.p,
    maxmem: 256 * params.N * params.r + (1 << 20),
  };
  return new Promise((resolve, reject) =>
    scrypt(password, salt, KEY_BYTES, options, (e, key) => (e ? reject(e) : resolve(key))),
  );
}

export async function hashPassword(
  password: string,
  params: ScryptParams = DEFAULT_SCRYPT,
  salt: Buffer = randomBytes(16),
): Promise<string> {
  const key = await derive(password, salt, params);
  return `${PREFIX}${params.N}$${params.r}$${params.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

/** Decode a hash, or say what is wrong with it. */
export function parsePasswordHash(encoded: string): Result<ParsedHash, string> {
  const parts = encoded.split('$');
  const expected = `expected scrypt$<N>$<r>$<p>$<salt>$<key> (made by 'armguard access add-user')`;
  if (parts.length !== 6 || parts[0] !== 'scrypt') return { ok: false, error: expected };
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (!Number.isInteger(N) || N < 2 || (N & (N - 1)) !== 0 || N > 1 << 20)
    return { ok: false, error: `${expected}: N must be a power of two ≤ 2^20` };
  if (!Number.isInteger(r) || r < 1 || r > 32 || !Number.isInteger(p) || p < 1 || p > 16)
    return { ok: false, error: `${expected}: r in 1..32, p in 1..16` };
  const b64 = /^[A-Za-z0-9+/]+={0,2}$/;
  if (!b64.test(parts[4]!) || !b64.test(parts[5]!)) return { ok: false, error: `${expected}: salt and key in base64` };
  const salt = Buffer.from(parts[4]!, 'base64');
  const key = Buffer.from(parts[5]!, 'base64');
  if (salt.length < 8 || key.length < 16) return { ok: false, error: `${expected}: salt ≥ 8 bytes, key ≥ 16 bytes` };
  return { ok: true, value: { N, r, p, salt, key } };
}

/** Does `password` match `encoded`? False (never a throw) for a malformed hash. */
export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  const h = parsePasswordHash(encoded);
  if (!h.ok) return false;
  const key = await derive(password, h.value.salt, h.value);
  return key.length === h.value.key.length && timingSafeEqual(key, h.value.key);
}
