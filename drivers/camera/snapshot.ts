/**
 * A camera behind a snapshot URL (IP cameras, mjpg-streamer's `?action=snapshot`, go2rtc's
 * `/api/frame.jpeg`): one GET per frame, JPEG or PNG, with a timeout. A non-2xx status, a body
 * that is not an image, or no answer in time is a CameraFault naming the cause.
 */
import type { CameraGrab, CameraSource } from '../../src/semantic/types.js';
import type { Timers } from '../../src/util/clock.js';
import { fetchTimed } from '../http/fetch-timed.js';
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
    const maxBytes = this.opts.maxBytes ?? 8 << 20;
    const r = await fetchTimed(this.opts.url, {}, { timeout: this.opts.timeout, timers: this.opts.timers, maxBytes });
    switch (r.kind) {
      case 'timeout':
        return fault(`no snapshot within ${this.opts.timeout} s`);
      case 'network':
        return fault(r.detail);
      case 'too-large':
        return fault(
          r.status >= 200 && r.status < 300
            ? `snapshot larger than the limit of ${maxBytes} bytes`
            : `HTTP ${r.status} ${r.statusText}`,
        );
      case 'answer': {
        if (!r.ok) return fault(`HTTP ${r.status} ${r.statusText}`);
        const data = r.body;
        const size = imageSize(data);
        if (!size)
          return fault(
            `the body (${data.byteLength} bytes, content-type ${r.contentType ?? 'none'}) is not a JPEG or PNG image`,
          );
        return {
          ok: true,
          frame: { t, source: this.name, mime: size.mime, width: size.width, height: size.height, data },
        };
      }
    }
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
