import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type ByteLink, openPtyPair, openSerialLink } from '../../../drivers/feetech/index.js';

/** Collect bytes from a link until `n` have arrived, or fail after `ms` (a guard, not a sleep). */
function receive(link: ByteLink, n: number, ms = 5000): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const got: number[] = [];
    const guard = setTimeout(() => reject(new Error(`only ${got.length}/${n} bytes within ${ms} ms`)), ms);
    link.onData((chunk) => {
      got.push(...chunk);
      if (got.length >= n) {
        clearTimeout(guard);
        resolve(Uint8Array.from(got));
      }
    });
  });
}

describe('socat pty pair', () => {
  it('carries bytes both ways through real serialport links, and vanishes when killed', async () => {
    const pair = await openPtyPair();
    try {
      const a = await openSerialLink({ path: pair.a });
      const b = await openSerialLink({ path: pair.b });
      if (!a.ok || !b.ok) throw new Error('open failed');
      const all = Uint8Array.from({ length: 256 }, (_, i) => i); // every byte value, raw mode
      const atB = receive(b.value, all.length);
      a.value.write(all);
      expect(await atB).toEqual(all);
      const atA = receive(a.value, 3);
      b.value.write(Uint8Array.of(0xff, 0xff, 0x01));
      expect(await atA).toEqual(Uint8Array.of(0xff, 0xff, 0x01));
      await a.value.close();
      await b.value.close();
    } finally {
      await pair.kill();
    }
    expect(existsSync(pair.a)).toBe(false);
    expect(existsSync(pair.b)).toBe(false);
  });

  it('reports a missing socat clearly', async () => {
    await expect(openPtyPair({ socatPath: '/nonexistent/socat' })).rejects.toThrow(/cannot run socat/);
  });
});
