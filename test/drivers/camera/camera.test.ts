import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inflateSync } from 'node:zlib';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { FfmpegCamera } from '../../../drivers/camera/ffmpeg.js';
import { imageSize } from '../../../drivers/camera/image-size.js';
import { downsampleToRgb, encodePngRgb } from '../../../drivers/camera/png.js';
import {
  COMPRESSED_IMAGE_TYPE,
  IMAGE_TYPE,
  RosImageCamera,
  type RosCompressedImage,
  type RosImage,
} from '../../../drivers/camera/ros-image.js';
import { SnapshotCamera } from '../../../drivers/camera/snapshot.js';
import { FakeRosGraph } from '../../../drivers/ros2/fake-ros-graph.js';
import { QOS_SENSOR_DATA } from '../../../drivers/ros2/interface.js';
import { systemTimers } from '../../../src/platform/system-clock.js';
import { ManualClock, ManualTimers } from '../../../src/util/clock.js';

/** CRC-32 (IEEE, reflected, poly 0xEDB88320) bit by bit, written from its definition. */
function naiveCrc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return (c ^ 0xffffffff) >>> 0;
}

/** Split a PNG into its chunks, checking each CRC with the naive CRC. */
function pngChunks(png: Uint8Array): { type: string; data: Buffer }[] {
  const b = Buffer.from(png);
  expect([...b.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const out: { type: string; data: Buffer }[] = [];
  for (let i = 8; i < b.length; ) {
    const len = b.readUInt32BE(i);
    const type = b.toString('latin1', i + 4, i + 8);
    const data = b.subarray(i + 8, i + 8 + len);
    expect(b.readUInt32BE(i + 8 + len)).toBe(naiveCrc32(b.subarray(i + 4, i + 8 + len)));
    out.push({ type, data });
    i += 12 + len;
  }
  return out;
}

/** Decode an 8-bit RGB, filter-0 PNG as written by encodePngRgb. */
function decodePng(png: Uint8Array): { width: number; height: number; rgb: Uint8Array } {
  const chunks = pngChunks(png);
  const ihdr = chunks[0]!;
  expect(ihdr.type).toBe('IHDR');
  const width = ihdr.data.readUInt32BE(0);
  const height = ihdr.data.readUInt32BE(4);
  expect([ihdr.data[8], ihdr.data[9]]).toEqual([8, 2]);
  expect(chunks[chunks.length - 1]!.type).toBe('IEND');
  const raw = inflateSync(Buffer.concat(chunks.filter((c) => c.type === 'IDAT').map((c) => c.data)));
  const rgb = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    expect(raw[y * (width * 3 + 1)]).toBe(0);
    rgb.set(raw.subarray(y * (width * 3 + 1) + 1, (y + 1) * (width * 3 + 1)), y * width * 3);
  }
  return { width, height, rgb };
}

/** A JPEG test frame from ffmpeg's lavfi test source. */
function ffmpegJpeg(size = '320x240'): Uint8Array {
  return new Uint8Array(
    execFileSync('ffmpeg', [
      '-hide_banner',
      '-loglevel',
      'error',
      '-f',
      'lavfi',
      '-i',
      `testsrc=size=${size}:rate=1`,
      '-frames:v',
      '1',
      '-f',
      'image2pipe',
      '-vcodec',
      'mjpeg',
      'pipe:1',
    ]),
  );
}

describe('PNG encoding and downsampling', () => {
  it('round-trips pixels through an independent decoder (naive CRC-32, zlib inflate)', () => {
    const rgb = Uint8Array.from({ length: 5 * 3 * 3 }, (_, i) => (i * 37) % 256);
    expect(decodePng(encodePngRgb(5, 3, rgb))).toEqual({ width: 5, height: 3, rgb });
    expect(imageSize(encodePngRgb(5, 3, rgb))).toEqual({ mime: 'image/png', width: 5, height: 3 });
    expect(() => encodePngRgb(5, 3, rgb.subarray(1))).toThrow(RangeError);
  });

  it('downsamples by an integer stride and converts bgr8 and mono8 to RGB', () => {
    // 4×2 bgr8 image, pixel (x, y) = [b, g, r] = [10x+y, 100+x, 200+y]; row padding of 2 bytes.
    const step = 4 * 3 + 2;
    const src = new Uint8Array(step * 2);
    for (let y = 0; y < 2; y++) for (let x = 0; x < 4; x++) src.set([10 * x + y, 100 + x, 200 + y], y * step + x * 3);
    const half = downsampleToRgb(src, 4, 2, step, 'bgr8', 2);
    expect(half).toEqual({ width: 2, height: 1, rgb: Uint8Array.from([200, 100, 0, 200, 102, 20]) });
    const mono = downsampleToRgb(Uint8Array.from([1, 2, 3, 4]), 2, 2, 2, 'mono8', 8);
    expect(mono.rgb).toEqual(Uint8Array.from([1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4]));
  });

  it('imageSize never throws on arbitrary bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (b) => {
        imageSize(b);
        imageSize(Uint8Array.from([0xff, 0xd8, ...b]));
      }),
      { numRuns: 500 },
    );
  });
});

describe('FfmpegCamera (Debian ffmpeg)', () => {
  it('grabs one frame from an ffmpeg input, scaled to maxWidth, as JPEG', async () => {
    const cam = new FfmpegCamera({
      input: ['-f', 'lavfi', '-i', 'testsrc=size=640x480:rate=5'],
      name: 'testsrc',
      maxWidth: 160,
      timeout: 20,
      timers: systemTimers,
    });
    const g = await cam.grab(1.5);
    expect(g).toMatchObject({
      ok: true,
      frame: { t: 1.5, source: 'ffmpeg:testsrc', mime: 'image/jpeg', width: 160, height: 120 },
    });
  });

  it('a device that does not exist, and a missing ffmpeg, are camera faults with the cause', async () => {
    const bad = await new FfmpegCamera({
      input: ['-f', 'v4l2', '-i', '/dev/video-armguard-none'],
      name: 'none',
      maxWidth: 160,
      timeout: 20,
      timers: systemTimers,
    }).grab(0);
    expect(bad).toMatchObject({
      ok: false,
      fault: {
        kind: 'camera',
        detail: expect.stringMatching(/ffmpeg exited with 1?.*video-armguard-none|No such file/),
      },
    });
    const missing = await new FfmpegCamera({
      input: ['-i', 'x'],
      name: 'x',
      maxWidth: 160,
      timeout: 5,
      timers: systemTimers,
      ffmpeg: '/nonexistent/ffmpeg',
    }).grab(0);
    expect(missing).toMatchObject({ ok: false, fault: { detail: expect.stringContaining('cannot run ffmpeg') } });
  });
});

describe('SnapshotCamera on loopback', () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
    server = undefined;
  });

  it('a JPEG snapshot is a frame with its size; 404 and a non-image body are faults', async () => {
    const jpeg = ffmpegJpeg();
    server = createServer((req, res) => {
      if (req.url === '/snapshot.jpg') res.writeHead(200, { 'content-type': 'image/jpeg' }).end(Buffer.from(jpeg));
      else if (req.url === '/html') res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>');
      else res.writeHead(404).end();
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const cam = (p: string) => new SnapshotCamera({ url: base + p, timeout: 5, timers: systemTimers });
    expect(await cam('/snapshot.jpg').grab(2)).toMatchObject({
      ok: true,
      frame: { t: 2, mime: 'image/jpeg', width: 320, height: 240, data: jpeg },
    });
    expect(await cam('/missing').grab(2)).toMatchObject({
      ok: false,
      fault: { detail: expect.stringContaining('HTTP 404') },
    });
    expect(await cam('/html').grab(2)).toMatchObject({
      ok: false,
      fault: { detail: expect.stringContaining('not a JPEG or PNG') },
    });
  });
});

describe('RosImageCamera on the fake ROS graph', () => {
  const header = (sec: number) => ({ stamp: { sec, nanosec: 500_000_000 }, frame_id: 'scene_camera' });

  it('raw rgb8 images become downsampled PNG frames; stale, missing and unreadable frames are faults', async () => {
    const clock = new ManualClock(10);
    const timers = new ManualTimers(clock);
    const graph = new FakeRosGraph(clock, timers);
    const node = graph.createNode('armguard');
    const cam = new RosImageCamera(node, {
      topic: '/scene_camera/image_raw',
      type: IMAGE_TYPE,
      maxWidth: 2,
      maxAge: 0.5,
    });
    expect(await cam.grab(10)).toMatchObject({
      ok: false,
      fault: { detail: 'no frame on /scene_camera/image_raw yet' },
    });
    const pub = graph
      .createNode('camera')
      .createPublisher<RosImage>(IMAGE_TYPE, '/scene_camera/image_raw', QOS_SENSOR_DATA);
    timers.advanceTo(10.05); // discovery
    const data = new Uint8Array(4 * 2 * 3);
    for (let i = 0; i < 8; i++) data.set([i, 2 * i, 3 * i], i * 3);
    pub.publish({ header: header(9), height: 2, width: 4, encoding: 'rgb8', is_bigendian: 0, step: 12, data });
    const g = await cam.grab(10);
    expect(g.ok).toBe(true);
    if (g.ok) {
      expect(g.frame).toMatchObject({
        t: 9.5,
        mime: 'image/png',
        width: 2,
        height: 1,
        source: 'ros2:/scene_camera/image_raw',
      });
      expect(decodePng(g.frame.data).rgb).toEqual(Uint8Array.from([0, 0, 0, 2, 4, 6]));
    }
    clock.advance(0.6);
    expect(await cam.grab(10.6)).toMatchObject({ ok: false, fault: { detail: expect.stringContaining('0.60 s old') } });
    pub.publish({
      header: header(10),
      height: 2,
      width: 4,
      encoding: '16UC1',
      is_bigendian: 0,
      step: 8,
      data: new Uint8Array(16),
    });
    expect(await cam.grab(10.6)).toMatchObject({
      ok: false,
      fault: { detail: expect.stringContaining("encoding '16UC1'") },
    });
    pub.publish({
      header: header(10),
      height: 2,
      width: 4,
      encoding: 'rgb8',
      is_bigendian: 0,
      step: 12,
      data: new Uint8Array(5),
    });
    expect(await cam.grab(10.6)).toMatchObject({
      ok: false,
      fault: { detail: expect.stringContaining('does not fit') },
    });
    await cam.close();
  });

  it('CompressedImage JPEG bytes are kept as sent', async () => {
    const clock = new ManualClock(0);
    const timers = new ManualTimers(clock);
    const graph = new FakeRosGraph(clock, timers);
    const cam = new RosImageCamera(graph.createNode('armguard'), {
      topic: '/wrist/image/compressed',
      type: COMPRESSED_IMAGE_TYPE,
      maxWidth: 160,
      maxAge: 1,
    });
    const jpeg = ffmpegJpeg('64x48');
    const pub = graph
      .createNode('cam')
      .createPublisher<RosCompressedImage>(COMPRESSED_IMAGE_TYPE, '/wrist/image/compressed', QOS_SENSOR_DATA);
    timers.advanceTo(0.05); // discovery
    pub.publish({ header: header(0), format: 'rgb8; jpeg compressed bgr8', data: jpeg });
    expect(await cam.grab(0)).toMatchObject({
      ok: true,
      frame: { mime: 'image/jpeg', width: 64, height: 48, data: jpeg },
    });
  });
});
