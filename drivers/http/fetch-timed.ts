/**
 * One HTTP request with a deadline and a body size limit, for the drivers that fetch over HTTP
 * (the snapshot camera, the OpenAI-compatible judge). Never throws: the outcome says whether an
 * answer came (status and body, read up to `maxBytes`), the body was too large, the deadline
 * passed or the network failed (with the cause's code when there is one).
 */
import type { Timers } from '../../src/util/clock.js';
import { concatBytes } from '../../src/util/bytes.js';

export interface TimedFetchOptions {
  /** Seconds until the request is aborted. */
  timeout: number;
  timers: Timers;
  /** Larger bodies are not read further (bytes). */
  maxBytes: number;
  /** The fetch implementation (default the global one). */
  fetch?: typeof fetch;
}

export type TimedFetchOutcome =
  | { kind: 'answer'; ok: boolean; status: number; statusText: string; contentType: string | null; body: Uint8Array }
  | { kind: 'too-large'; status: number; statusText: string }
  | { kind: 'timeout' }
  | { kind: 'network'; detail: string };

export async function fetchTimed(url: string, init: RequestInit, o: TimedFetchOptions): Promise<TimedFetchOutcome> {
  const abort = new AbortController();
  let timedOut = false;
  const timer = o.timers.setTimeout(() => {
    timedOut = true;
    abort.abort();
  }, o.timeout);
  try {
    const res = await (o.fetch ?? fetch)(url, { ...init, signal: abort.signal });
    const body = await readCapped(res, o.maxBytes);
    if (body === undefined) return { kind: 'too-large', status: res.status, statusText: res.statusText };
    return {
      kind: 'answer',
      ok: res.ok,
      status: res.status,
      statusText: res.statusText,
      contentType: res.headers.get('content-type'),
      body,
    };
  } catch (e) {
    if (timedOut) return { kind: 'timeout' };
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    return {
      kind: 'network',
      detail: `${(e as Error).message}${cause?.code ? ` (${cause.code})` : cause?.message ? ` (${cause.message})` : ''}`,
    };
  } finally {
    timer.cancel();
  }
}

/** The body, or undefined (and the stream cancelled) once it passes `max` bytes. */
async function readCapped(res: Response, max: number): Promise<Uint8Array | undefined> {
  const reader = res.body?.getReader();
  if (!reader) return new Uint8Array(0);
  const parts: Uint8Array[] = [];
  let n = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    n += value.byteLength;
    if (n > max) {
      await reader.cancel();
      return undefined;
    }
    parts.push(value);
  }
  return concatBytes(parts);
}
