/**
 * Points along a tracked body's up axis as obstacle positions (the gate's TrackedPositionSource
 * port, met structurally: drivers import nothing from the gate): `<body>#i` is the body's tracked
 * position plus `offsets[i]` times its tracked z-axis, with the body's sample stamp — so a long object (the fragile scenario's bottle) covered by several
 * barrier spheres goes through the same SceneTracker, and the same staleness rules, as any tracked
 * body on hardware.
 */
import type { SceneTracker } from './scene-tracker.js';

export class BodyAxisPoints {
  private readonly axis = new Float64Array(3);
  private readonly prefix: string;

  constructor(
    private readonly tracker: SceneTracker,
    readonly body: string,
    readonly offsets: readonly number[],
  ) {
    if (!tracker.tracks(body)) throw new RangeError(`axis points: the scene tracker does not track '${body}'`);
    this.prefix = `${body}#`;
  }

  positionOf(name: string, out: Float64Array): number {
    if (!name.startsWith(this.prefix)) return NaN;
    const tail = name.slice(this.prefix.length);
    const off = /^\d+$/.test(tail) ? this.offsets[Number(tail)] : undefined;
    if (off === undefined) return NaN;
    const stamp = this.tracker.positionOf(this.body, out);
    if (stamp !== stamp || this.tracker.axisOf(this.body, this.axis) !== stamp) return NaN;
    for (let a = 0; a < 3; a++) out[a] = out[a]! + this.axis[a]! * off;
    return stamp;
  }
}
