/**
 * Camera frames from ROS 2 topics (the Franka node's wrist or scene camera), through the ROS port
 * (drivers/ros2/interface.ts): `sensor_msgs/msg/Image` (rgb8, bgr8, rgba8, bgra8, mono8; downsampled
 * by an integer stride to at most `maxWidth` and stored as PNG) or `sensor_msgs/msg/CompressedImage`
 * (JPEG/PNG bytes kept as sent). Subscribed with the sensor-data QoS (best effort) that camera
 * drivers publish with. `grab` hands out the newest frame; none yet, one older than `maxAge`, or an
 * encoding it cannot read is a CameraFault.
 */
import type { CameraGrab, CameraSource } from '../../src/semantic/types.js';
import type { Header } from '../../src/mcap/messages.js';
import { QOS_SENSOR_DATA, type RosNode, type RosSubscription } from '../ros2/interface.js';
import { imageSize } from './image-size.js';
import { downsampleToRgb, encodePngRgb } from './png.js';

/** sensor_msgs/msg/Image, field names as in the .msg. */
export interface RosImage {
  header: Header;
  height: number;
  width: number;
  encoding: string;
  is_bigendian: number;
  step: number;
  data: Uint8Array | number[];
}

/** sensor_msgs/msg/CompressedImage. */
export interface RosCompressedImage {
  header: Header;
  format: string;
  data: Uint8Array | number[];
}

export const IMAGE_TYPE = 'sensor_msgs/msg/Image';
export const COMPRESSED_IMAGE_TYPE = 'sensor_msgs/msg/CompressedImage';
const RAW_ENCODINGS = ['rgb8', 'bgr8', 'rgba8', 'bgra8', 'mono8'] as const;

export interface RosImageCameraOptions {
  readonly topic: string;
  readonly type: typeof IMAGE_TYPE | typeof COMPRESSED_IMAGE_TYPE;
  readonly maxWidth: number;
  /** A frame older than this (s, on the node clock) is stale. */
  readonly maxAge: number;
}

export class RosImageCamera implements CameraSource {
  readonly name: string;
  private readonly sub: RosSubscription;
  private latest: { received: number; grab: CameraGrab } | undefined;

  constructor(
    private readonly node: RosNode,
    private readonly opts: RosImageCameraOptions,
  ) {
    this.name = `ros2:${opts.topic}`;
    this.sub =
      opts.type === IMAGE_TYPE
        ? node.createSubscription<RosImage>(IMAGE_TYPE, opts.topic, QOS_SENSOR_DATA, (m) => this.onImage(m))
        : node.createSubscription<RosCompressedImage>(COMPRESSED_IMAGE_TYPE, opts.topic, QOS_SENSOR_DATA, (m) =>
            this.onCompressed(m),
          );
  }

  private stamp(h: Header): number {
    return this.node.time.seconds(h.stamp);
  }

  private fault(detail: string): CameraGrab {
    return { ok: false, fault: { kind: 'camera', source: this.name, detail } };
  }

  private onImage(m: RosImage): void {
    const received = this.node.now();
    const enc = m.encoding as (typeof RAW_ENCODINGS)[number];
    const data = m.data instanceof Uint8Array ? m.data : Uint8Array.from(m.data);
    const px = enc === 'mono8' ? 1 : enc === 'rgba8' || enc === 'bgra8' ? 4 : 3;
    if (!RAW_ENCODINGS.includes(enc)) {
      this.latest = {
        received,
        grab: this.fault(`image encoding '${m.encoding}' is not one of ${RAW_ENCODINGS.join(', ')}`),
      };
    } else if (m.width < 1 || m.height < 1 || m.step < m.width * px || data.length < m.step * m.height) {
      this.latest = {
        received,
        grab: this.fault(`image ${m.width}×${m.height} step ${m.step} does not fit its ${data.length} data bytes`),
      };
    } else {
      const small = downsampleToRgb(data, m.width, m.height, m.step, enc, this.opts.maxWidth);
      const png = encodePngRgb(small.width, small.height, small.rgb);
      this.latest = {
        received,
        grab: {
          ok: true,
          frame: {
            t: this.stamp(m.header),
            source: this.name,
            mime: 'image/png',
            width: small.width,
            height: small.height,
            data: png,
          },
        },
      };
    }
  }

  private onCompressed(m: RosCompressedImage): void {
    const received = this.node.now();
    const data = m.data instanceof Uint8Array ? Uint8Array.from(m.data) : Uint8Array.from(m.data);
    const size = imageSize(data);
    this.latest = size
      ? {
          received,
          grab: {
            ok: true,
            frame: {
              t: this.stamp(m.header),
              source: this.name,
              mime: size.mime,
              width: size.width,
              height: size.height,
              data,
            },
          },
        }
      : { received, grab: this.fault(`compressed image (format '${m.format}') is not JPEG or PNG`) };
  }

  grab(_t: number): Promise<CameraGrab> {
    const l = this.latest;
    if (!l) return Promise.resolve(this.fault(`no frame on ${this.opts.topic} yet`));
    const age = this.node.now() - l.received;
    if (age > this.opts.maxAge)
      return Promise.resolve(
        this.fault(`newest frame on ${this.opts.topic} is ${age.toFixed(2)} s old (max ${this.opts.maxAge} s)`),
      );
    return Promise.resolve(l.grab);
  }

  close(): Promise<void> {
    this.sub.destroy();
    return Promise.resolve();
  }
}
