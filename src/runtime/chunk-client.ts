/**
 * Node client for the chunk interface (tests and Node policies): propose a chunk, await the
 * executed-chunk answer matched by id. Timeouts use injectable Timers (no real sleeps in tests).
 */
import type { ChunkMessage, ChunkResultMessage, ChunkVerdict } from '../gate/chunk.js';
import { ArmguardError } from '../util/errors.js';
import type { TimerHandle, Timers } from '../util/clock.js';
import type { ChunkClientTransport } from './chunk-transport.js';

const VERDICTS: readonly ChunkVerdict[] = ['executed', 'filtered', 'held', 'rejected'];

interface Pending {
  resolve: (r: ChunkResultMessage) => void;
  reject: (e: Error) => void;
  timer: TimerHandle;
}

export class ChunkClient {
  private readonly pending = new Map<string, Pending[]>();
  /** Answers that could not be matched or parsed (for diagnostics). */
  readonly unmatched: string[] = [];

  constructor(
    private readonly transport: ChunkClientTransport,
    private readonly timers: Timers,
    private readonly timeout = 1,
  ) {
    transport.onResponse((p) => this.onResponse(p));
  }

  /** Send a chunk message (or any payload text, for robustness tests) and await its answer. */
  propose(chunk: ChunkMessage | { id: string; raw: string }): Promise<ChunkResultMessage> {
    const id = chunk.id;
    const payload = 'raw' in chunk ? chunk.raw : JSON.stringify(chunk);
    return new Promise<ChunkResultMessage>((resolve, reject) => {
      const timer = this.timers.setTimeout(() => {
        this.remove(id, entry);
        reject(new ArmguardError(`no answer for chunk '${id}' within ${this.timeout} s`, { id }));
      }, this.timeout);
      const entry: Pending = { resolve, reject, timer };
      const list = this.pending.get(id) ?? [];
      list.push(entry);
      this.pending.set(id, list);
      this.transport.send(payload);
    });
  }

  private onResponse(payload: string): void {
    const msg = parseResult(payload);
    const list = msg ? this.pending.get(msg.id) : undefined;
    const entry = list?.shift();
    if (!msg || !entry) {
      this.unmatched.push(payload);
      return;
    }
    if (list!.length === 0) this.pending.delete(msg.id);
    entry.timer.cancel();
    entry.resolve(msg);
  }

  private remove(id: string, entry: Pending): void {
    const list = this.pending.get(id);
    if (!list) return;
    const i = list.indexOf(entry);
    if (i >= 0) list.splice(i, 1);
    if (list.length === 0) this.pending.delete(id);
  }
}

/** Validate a result message; undefined if it is not one. */
export function parseResult(payload: string): ChunkResultMessage | undefined {
  let v: unknown;
  try {
    v = JSON.parse(payload);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null) return undefined;
  const m = v as Partial<ChunkResultMessage>;
  if (m.v !== 1 || typeof m.id !== 'string' || typeof m.reason !== 'string' || typeof m.code !== 'string')
    return undefined;
  if (!VERDICTS.includes(m.verdict as ChunkVerdict) || typeof m.t !== 'number') return undefined;
  if (
    m.targets !== undefined &&
    !(Array.isArray(m.targets) && m.targets.every((r) => Array.isArray(r) && r.every((x) => typeof x === 'number')))
  )
    return undefined;
  return m as ChunkResultMessage;
}
