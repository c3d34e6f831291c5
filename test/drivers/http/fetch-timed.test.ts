import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { fetchTimed } from '../../../drivers/http/fetch-timed.js';
import { systemTimers } from '../../../src/platform/system-clock.js';
import { ManualClock, ManualTimers } from '../../../src/util/clock.js';

describe("fetchTimed (the drivers' one HTTP helper) on loopback", () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
    server = undefined;
  });
  const serve = async (handler: Parameters<typeof createServer>[1]): Promise<string> => {
    server = createServer(handler);
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };

  it('an answer carries status, content type and the whole body; a body past the limit is too large', async () => {
    const base = await serve((req, res) => {
      if (req.url === '/small') res.writeHead(201, { 'content-type': 'text/plain' }).end('hello');
      else res.writeHead(500).end('x'.repeat(100_000));
    });
    const small = await fetchTimed(`${base}/small`, {}, { timeout: 5, timers: systemTimers, maxBytes: 5 });
    expect(small).toEqual({
      kind: 'answer',
      ok: true,
      status: 201,
      statusText: 'Created',
      contentType: 'text/plain',
      body: new TextEncoder().encode('hello'),
    });
    expect(await fetchTimed(`${base}/big`, {}, { timeout: 5, timers: systemTimers, maxBytes: 1000 })).toEqual({
      kind: 'too-large',
      status: 500,
      statusText: 'Internal Server Error',
    });
  });

  it('aborts when its (injected) timer fires, and reports a refused connection with its code', async () => {
    const base = await serve(() => {}); // never answers
    const timers = new ManualTimers(new ManualClock());
    const pending = fetchTimed(`${base}/slow`, {}, { timeout: 3, timers, maxBytes: 10 });
    expect(timers.size).toBe(1);
    timers.advance(3);
    expect(await pending).toEqual({ kind: 'timeout' });
    const port = (server!.address() as AddressInfo).port;
    server!.closeAllConnections();
    await new Promise<void>((r) => server!.close(() => r()));
    server = undefined;
    const refused = await fetchTimed(
      `http://127.0.0.1:${port}/`,
      {},
      { timeout: 5, timers: systemTimers, maxBytes: 10 },
    );
    expect(refused).toEqual({ kind: 'network', detail: expect.stringContaining('(ECONNREFUSED)') });
  });
});
