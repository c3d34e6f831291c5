/**
 * scrypt password hashes of access files, checked against published and independently computed
 * values: RFC 7914 §12 (P="password", S="NaCl", N=1024, r=8, p=16; the first 32 bytes of its 64-byte
 * key, PBKDF2 blocks being independent) and Python's hashlib.scrypt for N=1024, r=8, p=1.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { hashPassword, parsePasswordHash, verifyPassword } from '../../src/telemetry/password-hash.js';

const keyOf = (encoded: string) => Buffer.from(encoded.split('$')[5]!, 'base64').toString('hex');

describe('password hashes (scrypt)', () => {
  it('matches RFC 7914 test vector 2 (first 32 bytes)', async () => {
    const h = await hashPassword('password', { N: 1024, r: 8, p: 16 }, Buffer.from('NaCl'));
    expect(keyOf(h)).toBe('fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b373162');
    expect(h.startsWith('scrypt$1024$8$16$TmFDbA==$')).toBe(true);
  });

  it("matches Python's hashlib.scrypt", async () => {
    const h = await hashPassword('correct horse', { N: 1024, r: 8, p: 1 }, Buffer.from('0123456789abcdef'));
    expect(h.split('$')[5]).toBe('6g3umF+uVrJsObaTZhIbbTlgrvOEFcCItdwSjtPF67M=');
    expect(await verifyPassword('correct horse', h)).toBe(true);
    expect(await verifyPassword('correct horse ', h)).toBe(false);
  });

  it('a fresh hash has a random salt and verifies only its own password', async () => {
    const a = await hashPassword('alice-secret', { N: 1024, r: 8, p: 1 });
    const b = await hashPassword('alice-secret', { N: 1024, r: 8, p: 1 });
    expect(a).not.toBe(b);
    expect(await verifyPassword('alice-secret', a)).toBe(true);
    expect(await verifyPassword('alice-secreT', a)).toBe(false);
  });

  it('malformed hashes are refused with what was expected, and never verify', async () => {
    for (const bad of [
      '',
      'scrypt$',
      'bcrypt$1$2$3$4$5',
      'scrypt$1000$8$1$AAAAAAAAAAA=$AAAAAAAAAAAAAAAAAAAAAA==',
      'scrypt$1024$8$1$!!$AAAA',
      'scrypt$1024$99$1$AAAAAAAAAAA=$AAAAAAAAAAAAAAAAAAAAAA==',
    ]) {
      const p = parsePasswordHash(bad);
      expect(p.ok, bad).toBe(false);
      if (!p.ok) expect(p.error).toMatch(/expected scrypt\$<N>/);
      expect(await verifyPassword('x', bad)).toBe(false);
    }
  });

  it('parsePasswordHash never throws on arbitrary text (property)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.array(fc.string(), { maxLength: 7 }).map((a) => ['scrypt', ...a].join('$')),
        ),
        (s) => {
          const p = parsePasswordHash(s);
          expect(typeof p.ok).toBe('boolean');
        },
      ),
      { numRuns: 500 },
    );
  });
});
