import { describe, expect, it } from 'vitest';
import { McapWriter } from '@mcap/core';
import { MemoryFileWritable, mcapWritable, scanBag, type FileWritable } from '../../src/mcap/index.js';

describe('mcapWritable (McapWriter over the one FileWritable)', () => {
  it('reports the bytes written as its position, and a rejected write does not move it', async () => {
    const mem = new MemoryFileWritable();
    let failNext = false;
    const flaky: FileWritable = {
      write: async (b) => {
        if (failNext) {
          failNext = false;
          throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
        }
        await mem.write(b);
      },
      sync: () => mem.sync(),
      close: () => mem.close(),
    };
    const w = mcapWritable(flaky);
    await w.write(new Uint8Array(5));
    expect(w.position()).toBe(5n);
    failNext = true;
    await expect(w.write(new Uint8Array(3))).rejects.toThrow(/ENOSPC/);
    expect(w.position()).toBe(5n);
    await w.write(new Uint8Array(7));
    expect(w.position()).toBe(12n);
    expect(mem.size).toBe(12);
  });

  it('an McapWriter over it writes a complete file the reader reads back', async () => {
    const mem = new MemoryFileWritable();
    const writer = new McapWriter({ writable: mcapWritable(mem) });
    await writer.start({ profile: 'test', library: 'file-writable.test' });
    const channelId = await writer.registerChannel({
      topic: '/x',
      messageEncoding: 'json',
      schemaId: 0,
      metadata: new Map(),
    });
    for (let i = 0; i < 3; i++)
      await writer.addMessage({
        channelId,
        sequence: i,
        logTime: BigInt(i),
        publishTime: BigInt(i),
        data: new TextEncoder().encode(`{"i":${i}}`),
      });
    await writer.end();
    const summary = await scanBag([mem.bytes()]);
    expect(summary.end.kind).toBe('complete');
    expect(summary.messageCount).toBe(3);
    expect(summary.library).toBe('file-writable.test');
  });
});
