/**
 * Incremental packet framer: feed it byte chunks as they arrive; it yields complete packets whose
 * checksum is valid, waits on a partial packet, and resynchronises after garbage or a corrupt
 * packet by dropping one byte and searching for the next FF FF header. It never throws.
 */
import { HEADER_BYTE, MAX_PARAMS, type Packet, checksum } from './protocol.js';

export interface FramerCounters {
  /** Packets yielded. */
  readonly packets: number;
  /** Candidates with a well-formed header whose checksum did not match. */
  readonly checksumErrors: number;
  /** Bytes discarded while searching for a header (garbage, corrupt packets, bad lengths). */
  readonly droppedBytes: number;
}

export class PacketFramer {
  private buf: Uint8Array;
  private start = 0;
  private end = 0;
  private packetCount = 0;
  private checksumErrorCount = 0;
  private droppedByteCount = 0;

  /** `maxParams` bounds LEN so a corrupt length byte cannot make the framer wait for long. */
  constructor(private maxParams: number = MAX_PARAMS) {
    this.buf = new Uint8Array(512);
  }

  /**
   * Tighten (or relax) the LEN bound, e.g. to the reply length a master expects: a header with a
   * longer LEN is then dropped at once instead of swallowing the real reply while it waits.
   */
  setMaxParams(maxParams: number): void {
    this.maxParams = Math.max(0, Math.min(MAX_PARAMS, Math.floor(maxParams)));
  }

  get counters(): FramerCounters {
    return { packets: this.packetCount, checksumErrors: this.checksumErrorCount, droppedBytes: this.droppedByteCount };
  }

  /** Bytes held waiting for the rest of a packet. */
  get buffered(): number {
    return this.end - this.start;
  }

  /** Append received bytes (copied). */
  feed(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    if (this.end + chunk.length > this.buf.length) {
      const live = this.end - this.start;
      if (live + chunk.length > this.buf.length) {
        const grown = new Uint8Array(Math.max(this.buf.length * 2, live + chunk.length));
        grown.set(this.buf.subarray(this.start, this.end));
        this.buf = grown;
      } else {
        this.buf.copyWithin(0, this.start, this.end);
      }
      this.start = 0;
      this.end = live;
    }
    this.buf.set(chunk, this.end);
    this.end += chunk.length;
  }

  /** Discard buffered bytes (a stale partial packet); counted as dropped. */
  discard(): void {
    this.droppedByteCount += this.end - this.start;
    this.start = 0;
    this.end = 0;
  }

  /** The next complete valid packet, or undefined if more bytes are needed. */
  next(): Packet | undefined {
    const b = this.buf;
    for (;;) {
      const avail = this.end - this.start;
      if (avail === 0) {
        this.start = 0;
        this.end = 0;
        return undefined;
      }
      const s = this.start;
      if (b[s] !== HEADER_BYTE) {
        this.drop(1);
        continue;
      }
      if (avail < 2) return undefined;
      if (b[s + 1] !== HEADER_BYTE) {
        this.drop(1);
        continue;
      }
      if (avail < 3) return undefined;
      if (b[s + 2] === HEADER_BYTE) {
        // FF FF FF: the header may start one byte later.
        this.drop(1);
        continue;
      }
      if (avail < 4) return undefined;
      const len = b[s + 3] ?? 0;
      if (len < 2 || len > this.maxParams + 2) {
        this.drop(1);
        continue;
      }
      const total = len + 4;
      if (avail < total) return undefined;
      if (checksum(b, s + 2, s + total - 1) !== b[s + total - 1]) {
        this.checksumErrorCount++;
        this.drop(1);
        continue;
      }
      const packet: Packet = { id: b[s + 2] ?? 0, code: b[s + 4] ?? 0, params: b.slice(s + 5, s + total - 1) };
      this.start += total;
      this.packetCount++;
      return packet;
    }
  }

  /** Feed a chunk and hand every complete packet to `onPacket`. */
  push(chunk: Uint8Array, onPacket: (packet: Packet) => void): void {
    this.feed(chunk);
    for (let p = this.next(); p !== undefined; p = this.next()) onPacket(p);
  }

  private drop(n: number): void {
    this.start += n;
    this.droppedByteCount += n;
  }
}
