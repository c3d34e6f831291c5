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
import type { ChunkServerTransport, DecodedChunkRequest } from './chunk-transport.js';

export interface ChunkSubmitter {
  submitChunk(chunk: GateChunk, now: number): ExecutedChunk;
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
   * be: validated and answered exactly like a text request.
   */
  private handleDecoded(request: DecodedChunkRequest): void {
    if (!request.ok) {
      this.answer(
        { ok: false, error: { code: 'malformed', field: '(payload)', expected: request.error } },
        () => request.id,
      );
      return;
    }
    const v = request.value;
    this.answer(parseChunkMessage(v), () =>
      typeof v === 'object' && v !== null && 'id' in v && typeof v.id === 'string' ? v.id.slice(0, 128) : '',
    );
  }

  private answer(parsed: Result<GateChunk, ChunkRejection>, id: () => string): void {
    const now = this.clock.now();
    let result: ExecutedChunk;
    if (!parsed.ok) {
      result = { id: id(), verdict: 'rejected', code: parsed.error.code, reason: describeRejection(parsed.error) };
      this.onRejectedPayload?.(result, now);
    } else {
      result = this.pipeline.submitChunk(parsed.value, now);
    }
    this.transport.respond(JSON.stringify(toResultMessage(result, now, this.joints)));
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
