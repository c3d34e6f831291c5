/**
 * MQTT packet size limit applied to the raw byte stream before the broker sees it. MQTT frames
 * are a fixed header byte, a "remaining length" varint (1–4 bytes, 7 bits each, little-endian
 * groups) and that many bytes. The guard follows the frame boundaries across chunks and refuses a
 * packet as soon as its declared remaining length exceeds the limit — the bytes of that packet are
 * never passed on, so the broker never buffers them. The first packet (CONNECT, before any
 * authentication) has its own, smaller limit. Pure: bytes in, verdict out.
 */
import type { Verdict } from '../util/result.js';

export interface SizeGuardLimits {
  /** Largest packet (fixed header excluded) after CONNECT, bytes. */
  maxPacketBytes: number;
  /** Largest CONNECT packet, bytes (client id, will, username, password). */
  maxConnectBytes: number;
}

const enum State {
  Header,
  Length,
  Body,
}

export class MqttSizeGuard {
  private state: State = State.Header;
  private packetType = 0;
  private length = 0;
  private multiplier = 1;
  private lengthBytes = 0;
  private remaining = 0;
  private packets = 0;
  private refused: string | null = null;

  constructor(readonly limits: SizeGuardLimits) {}

  /** Complete packets seen so far. */
  get packetCount(): number {
    return this.packets;
  }

  /** Check the next bytes of the stream; once refused, every later call is refused too. */
  push(bytes: Uint8Array): Verdict {
    if (this.refused !== null) return { ok: false, reason: this.refused };
    let i = 0;
    while (i < bytes.length) {
      switch (this.state) {
        case State.Header:
          this.packetType = bytes[i]! >> 4;
          this.length = 0;
          this.multiplier = 1;
          this.lengthBytes = 0;
          this.state = State.Length;
          i++;
          break;
        case State.Length: {
          const b = bytes[i]!;
          i++;
          this.length += (b & 0x7f) * this.multiplier;
          this.multiplier *= 128;
          this.lengthBytes++;
          if (b & 0x80) {
            if (this.lengthBytes === 4) return this.refuse('malformed remaining length (more than 4 bytes)');
            break;
          }
          const first = this.packets === 0;
          if (first && this.packetType !== 1)
            return this.refuse(`first packet is type ${this.packetType}, not CONNECT`);
          const limit = first ? this.limits.maxConnectBytes : this.limits.maxPacketBytes;
          if (this.length > limit)
            return this.refuse(
              `${first ? 'CONNECT' : `packet (type ${this.packetType})`} of ${this.length} bytes exceeds the limit of ${limit} bytes`,
            );
          this.remaining = this.length;
          if (this.remaining === 0) this.endPacket();
          else this.state = State.Body;
          break;
        }
        case State.Body: {
          const take = Math.min(this.remaining, bytes.length - i);
          i += take;
          this.remaining -= take;
          if (this.remaining === 0) this.endPacket();
          break;
        }
      }
    }
    return { ok: true };
  }

  private endPacket(): void {
    this.packets++;
    this.state = State.Header;
  }

  private refuse(reason: string): Verdict {
    this.refused = reason;
    return { ok: false, reason };
  }
}
