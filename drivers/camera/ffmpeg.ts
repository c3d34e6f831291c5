/**
 * A camera read through Debian's ffmpeg: a V4L2 device (`/dev/video0`) or any other ffmpeg input
 * (an RTSP URL; `-f lavfi -i testsrc` in tests). Each grab runs ffmpeg once for one frame, scaled
 * down to at most `maxWidth` pixels wide and encoded as JPEG on stdout (image2pipe/mjpeg). A
 * missing ffmpeg, a device error, a non-zero exit or no frame within the timeout is a CameraFault
 * carrying ffmpeg's last stderr line.
 */
import { spawn } from 'node:child_process';
import type { CameraGrab, CameraSource } from '../../src/semantic/types.js';
import type { Timers } from '../../src/util/clock.js';
import { imageSize } from './image-size.js';

export interface FfmpegCameraOptions {
  /** ffmpeg input arguments, e.g. ['-f', 'v4l2', '-i', '/dev/video0']; see `v4l2Input`. */
  readonly input: readonly string[];
  readonly name: string;
  readonly maxWidth: number;
  readonly timeout: number;
  readonly timers: Timers;
  /** The ffmpeg executable (default `ffmpeg` on the PATH). */
  readonly ffmpeg?: string;
}

/** ffmpeg input arguments for a V4L2 device. */
export function v4l2Input(device: string, size?: string): string[] {
  return ['-f', 'v4l2', ...(size ? ['-video_size', size] : []), '-i', device];
}

export class FfmpegCamera implements CameraSource {
  readonly name: string;
  constructor(private readonly opts: FfmpegCameraOptions) {
    if (!Number.isInteger(opts.maxWidth) || opts.maxWidth < 16)
      throw new RangeError('maxWidth must be an integer >= 16');
    this.name = `ffmpeg:${opts.name}`;
  }

  grab(t: number): Promise<CameraGrab> {
    const args = [
      '-hide_banner',
      '-loglevel',
      'error',
      '-nostdin',
      ...this.opts.input,
      '-frames:v',
      '1',
      '-vf',
      `scale='min(${this.opts.maxWidth},iw)':-2`,
      '-f',
      'image2pipe',
      '-vcodec',
      'mjpeg',
      '-q:v',
      '5',
      'pipe:1',
    ];
    return new Promise<CameraGrab>((resolve) => {
      const fault = (detail: string): void =>
        resolve({ ok: false, fault: { kind: 'camera', source: this.name, detail } });
      const out: Buffer[] = [];
      let err = '';
      let settled = false;
      const child = spawn(this.opts.ffmpeg ?? 'ffmpeg', args, { stdio: ['ignore', 'pipe', 'pipe'] });
      const timer = this.opts.timers.setTimeout(() => {
        if (settled) return;
        settled = true;
        child.kill('SIGKILL');
        fault(`no frame within ${this.opts.timeout} s${err ? `: ${lastLine(err)}` : ''}`);
      }, this.opts.timeout);
      child.stdout.on('data', (c: Buffer) => out.push(c));
      child.stderr.on('data', (c: Buffer) => {
        if (err.length < 4096) err += c.toString('utf8');
      });
      child.on('error', (e) => {
        if (settled) return;
        settled = true;
        timer.cancel();
        fault(`cannot run ffmpeg: ${e.message}`);
      });
      child.on('close', (code, signal) => {
        if (settled) return;
        settled = true;
        timer.cancel();
        if (code !== 0) return fault(`ffmpeg exited with ${code ?? signal}${err ? `: ${lastLine(err)}` : ''}`);
        const data = new Uint8Array(Buffer.concat(out));
        const size = imageSize(data);
        if (!size) return fault(`ffmpeg gave ${data.byteLength} bytes that are not a JPEG image`);
        resolve({
          ok: true,
          frame: { t, source: this.name, mime: size.mime, width: size.width, height: size.height, data },
        });
      });
    });
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

function lastLine(s: string): string {
  const lines = s.trim().split('\n');
  return (lines[lines.length - 1] ?? '').slice(0, 300);
}
