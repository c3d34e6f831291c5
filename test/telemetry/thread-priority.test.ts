/**
 * niceThisThread (src/platform/thread-priority.ts) on Linux: a worker thread raises its own nice
 * value; the kernel reports it for that thread only (/proc/<pid>/task/<tid>/stat field 19), the main
 * thread keeps its own; it never lowers a value (that needs a privilege) and names bad values.
 */
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { currentThreadId } from '../../src/platform/thread-priority.js';

const niceOf = (tid: number) =>
  Number(readFileSync(`/proc/${process.pid}/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]);

describe('niceThisThread', () => {
  it('raises the calling worker thread alone, never lowers it, and names a bad value', async () => {
    const mainTid = currentThreadId()!;
    expect(mainTid).toBe(process.pid);
    const before = niceOf(mainTid);
    const entry = new URL('../../src/telemetry/network-worker-boot.mjs', import.meta.url);
    const script = `
      import { parentPort } from 'node:worker_threads';
      import { niceThisThread } from ${JSON.stringify(new URL('../../src/platform/thread-priority.ts', import.meta.url).href)};
      const raised = niceThisThread(Math.min(19, ${before} + 3));
      const again = niceThisThread(${before});
      parentPort.postMessage({ raised, again, bad: niceThisThread(20) });
      setTimeout(() => undefined, 2000);
    `;
    const dataUrl = `data:text/javascript,${encodeURIComponent(script)}`;
    const w = new Worker(entry, { workerData: { entry: dataUrl } });
    const m = await new Promise<{
      raised: { ok: true; tid: number; nice: number };
      again: { ok: true; nice: number };
      bad: { ok: false; reason: string };
    }>((resolve, reject) => (w.once('message', resolve), w.once('error', reject)));
    try {
      expect(m.raised.tid).not.toBe(mainTid);
      expect(m.raised.nice).toBe(Math.min(19, before + 3));
      expect(niceOf(m.raised.tid)).toBe(Math.min(19, before + 3));
      expect(niceOf(mainTid)).toBe(before);
      expect(m.again.nice).toBe(Math.min(19, before + 3)); // not lowered
      expect(m.bad.reason).toMatch(/nice value 20 is not an integer from -20 to 19/);
    } finally {
      await w.terminate();
    }
  });
});
