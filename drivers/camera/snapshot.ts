/**
 * A camera behind a snapshot URL (IP cameras, mjpg-streamer's `?action=snapshot`, go2rtc's
 * `/api/frame.jpeg`): one GET per frame, JPEG or PNG, with a timeout. A non-2xx status, a body
 * that is not an image, or no answer in time is a CameraFault naming the cause.
 */
import type { CameraGrab, CameraSource } from '../../src/semantic/types.js';
import type { Timers } from '../../src/util/clock.js';
import { imageSize } from './image-size.js';

export interface SnapshotCameraOptions {
  readonly url: string;
  readonly timeout: number;
  readonly timers: Timers;
  /** Larger bodies are refused (bytes; default 8 MiB). */
  readonly maxBytes?: number;
}

export class SnapshotCamera implements CameraSource {
  readonly name: string;
  constructor(private readonly opts: SnapshotCameraOptions) {
    this.name = `snapshot:${opts.url}`;
  }

  async grab(t: number): Promise<CameraGrab> {
    const fault = (detail: string): CameraGrab => ({ ok: false, fault: { kind: 'camera', source: this.name, detail } });
    const abort = new AbortController();
    let timedOut = false;
    const timer = this.opts.timers.setTimeout(() => {
      timedOut = true;
      abort.abort();
    }, this.opts.timeout);
    try {
      const res = await fetch(this.opts.url, { signal: abort.signal });
      if (!res.ok) return fault(`HTTP ${res.status} ${res.statusText}`);
      const data = new Uint8Array(await res.arrayBuffer());
      if (data.byteLength > (this.opts.maxBytes ?? 8 << 20)) return fault(`snapshot of ${data.byteLength} bytes is larger than the limit`);
      const size = imageSize(data);
      if (!size) return fault(`the body (${data.byteLength} bytes, content-type ${res.headers.get('content-type') ?? 'none'}) is not a JPEG or PNG image`);
      return { ok: true, frame: { t, source: this.name, mime: size.mime, width: size.width, height: size.height, data } };
    } catch (e) {
      return fault(timedOut ? `no snapshot within ${this.opts.timeout} s` : `${(e as Error).message}${(e as { cause?: { code?: string } }).cause?.code ? ` (${(e as { cause: { code: string } }).cause.code})` : ''}`);
    } finally {
      timer.cancel();
    }
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
