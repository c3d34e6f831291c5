/**
 * Chunk transports (design §7): the request/response channel between a policy process and the gate,
 * carrying JSON texts. MQTT and ROS 2 implementations live elsewhere; the in-process channel here
 * is a real implementation for tests and single-process setups (delivery is asynchronous, in order).
 */
/** A request decoded from JSON elsewhere (the network thread), or why it could not be. */
export type DecodedChunkRequest = { ok: true; value: unknown } | { ok: false; error: string; id: string };

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
