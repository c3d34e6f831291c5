/**
 * Chunk transports (design §7): the request/response channel between a policy process and the gate,
 * carrying JSON texts. MQTT and ROS 2 implementations live elsewhere; the in-process channel here
 * is a real implementation for tests and single-process setups (delivery is asynchronous, in order).
 */
/** Requests answered `superseded` before they reached the control thread (src/telemetry/chunk-pacer.ts). */
export interface SupersededChunks {
  /** The first of their ids (a bounded list). */
  readonly ids: readonly string[];
  /** How many there were. */
  readonly count: number;
}

/**
 * A request decoded from JSON elsewhere (the network thread), or why it could not be; with the
 * requests it superseded while it waited for the control thread, if any.
 */
export type DecodedChunkRequest = ({ ok: true; value: unknown } | { ok: false; error: string; id: string }) & {
  superseded?: SupersededChunks;
};

/** The id an answer to `r` carries: the request's (at most 128 characters), '' when it has none. */
export function requestId(r: DecodedChunkRequest): string {
  if (!r.ok) return r.id;
  const v = r.value;
  return typeof v === 'object' && v !== null && 'id' in v && typeof v.id === 'string' ? v.id.slice(0, 128) : '';
}

export interface ChunkServerTransport {
  /** Called once per incoming chunk payload. */
  onRequest(handler: (payload: string) => void): void;
  /** Transports that decode requests off the control thread deliver them here instead. */
  onDecodedRequest?(handler: (request: DecodedChunkRequest) => void): void;
  /** Send one result payload back to the policy. */
  respond(payload: string): void;
}

export interface ChunkClientTransport {
  send(payload: string): void;
  onResponse(handler: (payload: string) => void): void;
}

/** Two ends of an in-process channel; messages are delivered on the microtask queue. */
export class InProcessChunkChannel {
  private requestHandlers: ((p: string) => void)[] = [];
  private responseHandlers: ((p: string) => void)[] = [];
  readonly server: ChunkServerTransport = {
    onRequest: (h) => void this.requestHandlers.push(h),
    respond: (p) => queueMicrotask(() => this.responseHandlers.forEach((h) => h(p))),
  };
  readonly client: ChunkClientTransport = {
    send: (p) => queueMicrotask(() => this.requestHandlers.forEach((h) => h(p))),
    onResponse: (h) => void this.responseHandlers.push(h),
  };
}
