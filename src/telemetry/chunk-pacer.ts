/**
 * Chunk requests paced onto the control thread (issue 14 item 3), in the network worker: at most
 * one request is handed to the control thread per credit, and the control thread returns the
 * credit once per control step (DecodedChunkTransport.stepped) — so however many requests arrive,
 * the control thread screens and filters at most one chunk per step, right after that step.
 *
 * While a request waits for the credit, a newer one supersedes it: only the newest waiting request
 * is evaluated, and the older one is answered at once, here, with verdict `rejected`, code
 * `superseded` (never screened, filtered or sent to the arm — a policy that sent a newer chunk
 * wants the newer plan). Every request gets exactly one answer. The ids superseded since the last
 * hand-over travel with the next one, so the control thread records them in the episode.
 */
import type { ChunkResultMessage } from '../gate/chunk.js';
import { requestId, type DecodedChunkRequest } from '../runtime/chunk-transport.js';

/** At most this many superseded ids are listed to the control thread per hand-over (all are counted). */
export const SUPERSEDED_IDS_LISTED = 16;

export interface ChunkPacerPorts {
  /** Hand a request to the control thread. */
  forward(request: DecodedChunkRequest): void;
  /** Publish a result text on `chunk/result`. */
  answer(text: string): void;
  /** The gate's clock (s), for the answers given here. */
  gateNow(): number;
}

export class ChunkPacer {
  private credit = true;
  private waiting: DecodedChunkRequest | undefined;
  private supersededIds: string[] = [];
  private supersededCount = 0;
  /** Requests answered `superseded` since start. */
  superseded = 0;

  constructor(private readonly ports: ChunkPacerPorts) {}

  /** A request arrived (decoded, or why not). */
  offer(request: DecodedChunkRequest): void {
    if (this.credit) {
      this.credit = false;
      this.hand(request);
      return;
    }
    if (this.waiting) this.supersede(this.waiting, request);
    this.waiting = request;
  }

  /** The control thread took its step: the newest waiting request goes now, or the next one that arrives. */
  grant(): void {
    const w = this.waiting;
    if (w === undefined) {
      this.credit = true;
      return;
    }
    this.waiting = undefined;
    this.hand(w);
  }

  /** Shutting down: the waiting request (if any) is answered, never evaluated. */
  drain(reason: string): void {
    const w = this.waiting;
    this.waiting = undefined;
    if (w) this.reply(requestId(w), 'shutdown', reason);
  }

  private hand(request: DecodedChunkRequest): void {
    if (this.supersededCount > 0) {
      request = { ...request, superseded: { ids: this.supersededIds, count: this.supersededCount } };
      this.supersededIds = [];
      this.supersededCount = 0;
    }
    this.ports.forward(request);
  }

  private supersede(old: DecodedChunkRequest, by: DecodedChunkRequest): void {
    const id = requestId(old);
    this.superseded++;
    this.supersededCount++;
    if (this.supersededIds.length < SUPERSEDED_IDS_LISTED) this.supersededIds.push(id);
    this.reply(
      id,
      'superseded',
      `superseded by chunk '${requestId(by)}', which arrived before this one was evaluated: not executed`,
    );
  }

  private reply(id: string, code: string, reason: string): void {
    const answer: ChunkResultMessage = { v: 1, id, verdict: 'rejected', code, reason, t: this.ports.gateNow() };
    this.ports.answer(JSON.stringify(answer));
  }
}
