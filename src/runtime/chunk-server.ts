/**
 * Binds a chunk transport to the pipeline: JSON chunk in → parse → pipeline → JSON result out.
 * Every payload gets exactly one answer; malformed payloads are rejected with the field named.
 */
import { parseChunkMessage, parseChunkText } from '../gate/chunk-parse.js';
import type { Result } from '../util/result.js';
import type { ChunkRejection } from '../gate/chunk.js';
import { describeRejection, toResultMessage } from '../gate/chunk.js';
import type { ExecutedChunk, GateChunk } from '../gate/chunk.js';
import type { Clock } from '../util/clock.js';
import { requestId, type ChunkServerTransport, type DecodedChunkRequest } from './chunk-transport.js';

export interface ChunkSubmitter {
  submitChunk(chunk: GateChunk, now: number): ExecutedChunk;
  /** Submitters whose decision may arrive later (the chunk filter off the control thread) answer through `done`. */
  submitChunkAsync?(chunk: GateChunk, now: number, done: (result: ExecutedChunk, t: number) => void): void;
}

export class ChunkServer {
  constructor(
    private readonly transport: ChunkServerTransport,
    private readonly pipeline: ChunkSubmitter,
    private readonly clock: Clock,
    private readonly joints: number,
    private readonly onRejectedPayload?: (result: ExecutedChunk, now: number) => void,
  ) {
    transport.onRequest((payload) => this.handle(payload));
    transport.onDecodedRequest?.((request) => this.handleDecoded(request));
  }

  private handle(payload: string): void {
    this.answer(parseChunkText(payload), () => idOf(payload));
  }

  /**
   * A request already decoded from JSON elsewhere (the network thread), or the reason it could not
   * be: validated and answered exactly like a text request. The requests it superseded (already
   * answered `superseded` there) are recorded as rejected payloads, in one record.
   */
  private handleDecoded(request: DecodedChunkRequest): void {
    const s = request.superseded;
    if (s && s.count > 0) {
      const more = s.count - s.ids.length;
      const ids = s.ids.map((id) => `'${id}'`).join(', ') + (more > 0 ? ` and ${more} more` : '');
      this.onRejectedPayload?.(
        {
          id: ids,
          verdict: 'rejected',
          code: 'superseded',
          reason: `superseded by '${requestId(request)}' while waiting for the control thread: answered 'superseded', not executed`,
        },
        this.clock.now(),
      );
    }
    if (!request.ok) {
      this.answer(
        { ok: false, error: { code: 'malformed', field: '(payload)', expected: request.error } },
        () => request.id,
      );
      return;
    }
    this.answer(parseChunkMessage(request.value), () => requestId(request));
  }

  private answer(parsed: Result<GateChunk, ChunkRejection>, id: () => string): void {
    const now = this.clock.now();
    if (!parsed.ok) {
      const result: ExecutedChunk = {
        id: id(),
        verdict: 'rejected',
        code: parsed.error.code,
        reason: describeRejection(parsed.error),
      };
      this.onRejectedPayload?.(result, now);
      return this.respond(result, now);
    }
    if (this.pipeline.submitChunkAsync)
      return this.pipeline.submitChunkAsync(parsed.value, now, (r, t) => this.respond(r, t));
    this.respond(this.pipeline.submitChunk(parsed.value, now), now);
  }

  private respond(result: ExecutedChunk, t: number): void {
    this.transport.respond(JSON.stringify(toResultMessage(result, t, this.joints)));
  }
}

/** Best effort: the id of a payload that failed validation, so the client can match the answer. */
function idOf(payload: string): string {
  try {
    const v: unknown = JSON.parse(payload);
    if (typeof v === 'object' && v !== null && 'id' in v && typeof v.id === 'string') return v.id.slice(0, 128);
  } catch {
    // not JSON: no id
  }
  return '';
}
