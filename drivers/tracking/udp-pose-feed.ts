/**
 * Motion-capture / AprilTag poses over UDP for arms without a ROS graph (`armguard run so101
 * --tracking udp:<port>`; issue 15): a tracking bridge — a mocap SDK's stream, or an AprilTag
 * detector beside the camera — sends one JSON datagram per frame,
 *
 *   {"v":1,"bodies":[{"name":"cup","p":[x,y,z],"q":[x,y,z,w]}, …]}
 *
 * (positions in metres in the tracking frame, orientation as a unit quaternion), and every body
 * in it is fed to the SceneTracker as a pose sample stamped when the datagram arrived on the rig's
 * clock. The sender's own clock is not used (it is not the robot's); the transport delay is not
 * counted, so `--obstacle-max-age` must allow for it. A datagram that does not parse is dropped
 * whole and counted (nothing of it reaches the tracker): its bodies go stale and the gate holds
 * the next chunk, exactly as when the bridge stops sending.
 */
import { createSocket, type Socket } from 'node:dgram';
import type { Quaternion, Vector3 } from '../../src/mcap/messages.js';
import type { Result } from '../../src/util/result.js';
import type { SceneTracker } from './scene-tracker.js';

/** Largest datagram read (bytes); anything longer is rejected. */
export const MAX_POSE_DATAGRAM = 8192;

export interface BodyPose {
  readonly name: string;
  readonly position: Vector3;
  readonly orientation: Quaternion;
}

/** Parse one datagram; the error names the field and what was expected. */
export function parsePoseDatagram(bytes: Uint8Array): Result<BodyPose[], string> {
  if (bytes.length > MAX_POSE_DATAGRAM)
    return { ok: false, error: `datagram of ${bytes.length} bytes: expected at most ${MAX_POSE_DATAGRAM}` };
  let doc: unknown;
  try {
    doc = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (e) {
    return { ok: false, error: `not UTF-8 JSON: ${(e as Error).message}` };
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    return { ok: false, error: 'expected a JSON object' };
  const o = doc as Record<string, unknown>;
  if (o['v'] !== 1) return { ok: false, error: `field 'v': expected 1, got ${JSON.stringify(o['v'])}` };
  const bodies = o['bodies'];
  if (!Array.isArray(bodies)) return { ok: false, error: "field 'bodies': expected an array" };
  const out: BodyPose[] = [];
  for (let i = 0; i < bodies.length; i++) {
    const b = bodies[i] as Record<string, unknown> | null;
    const at = `bodies[${i}]`;
    if (typeof b !== 'object' || b === null || Array.isArray(b))
      return { ok: false, error: `${at}: expected an object` };
    const name = b['name'];
    if (typeof name !== 'string' || name === '') return { ok: false, error: `${at}.name: expected a non-empty string` };
    const p = numbers(b['p'], 3);
    if (!p) return { ok: false, error: `${at}.p: expected [x, y, z], 3 finite numbers (m)` };
    const q = numbers(b['q'], 4);
    const norm = q ? Math.hypot(q[0]!, q[1]!, q[2]!, q[3]!) : NaN;
    if (!q || !(Math.abs(norm - 1) <= 0.01))
      return {
        ok: false,
        error: `${at}.q: expected [x, y, z, w], a unit quaternion (4 finite numbers, |q| = 1 ± 0.01)`,
      };
    out.push({
      name,
      position: { x: p[0]!, y: p[1]!, z: p[2]! },
      orientation: { x: q[0]!, y: q[1]!, z: q[2]!, w: q[3]! },
    });
  }
  return { ok: true, value: out };
}

function numbers(v: unknown, n: number): number[] | undefined {
  if (!Array.isArray(v) || v.length !== n) return undefined;
  return v.every((x) => typeof x === 'number' && Number.isFinite(x)) ? (v as number[]) : undefined;
}

export interface UdpPoseFeedOptions {
  /** UDP port to listen on (0: any free port; `port` tells which). */
  readonly port: number;
  /** Address to bind (default 127.0.0.1; 0.0.0.0 to receive from a bridge on another host). */
  readonly host?: string;
  readonly tracker: SceneTracker;
  /** The rig's clock (s): samples are stamped when they arrive. */
  readonly now: () => number;
}

export class UdpPoseFeed {
  /** Datagrams applied, and rejected (with the last reason). */
  received = 0;
  rejected = 0;
  lastRejection = '';

  private constructor(
    private readonly socket: Socket,
    readonly port: number,
  ) {}

  /** Bind the socket; rejects with the bind error (e.g. EADDRINUSE) naming the port. */
  static open(o: UdpPoseFeedOptions): Promise<UdpPoseFeed> {
    const socket = createSocket('udp4');
    return new Promise((resolve, reject) => {
      const fail = (e: Error) => {
        socket.close();
        reject(new Error(`tracking: cannot listen on UDP ${o.host ?? '127.0.0.1'}:${o.port}: ${e.message}`));
      };
      socket.once('error', fail);
      socket.bind(o.port, o.host ?? '127.0.0.1', () => {
        socket.off('error', fail);
        const feed = new UdpPoseFeed(socket, socket.address().port);
        // After binding a socket error (rare for UDP) loses datagrams only: the bodies go stale and hold.
        socket.on('error', (e) => feed.reject(`socket: ${e.message}`));
        socket.on('message', (msg) => feed.apply(msg, o.tracker, o.now()));
        resolve(feed);
      });
    });
  }

  private apply(msg: Buffer, tracker: SceneTracker, now: number): void {
    const r = parsePoseDatagram(msg);
    if (!r.ok) return this.reject(r.error);
    this.received++;
    for (const b of r.value) tracker.observe(b.name, b.position, b.orientation, now);
  }

  private reject(reason: string): void {
    this.rejected++;
    this.lastRejection = reason;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }
}
