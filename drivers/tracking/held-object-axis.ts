/**
 * A tracked body's up axis as the held object's measured orientation (the gate's HeldObjectAxis
 * port, src/gate/held-tilt.ts, met structurally: drivers import nothing from the gate): the body's
 * latest tracked z axis, turned from the tracking frame into the robot base frame, when its sample
 * is at most `maxAge` old by the injected clock — the held-tilt filter then references the
 * object's tilt as measured at the grasp instead of assuming it stood upright in the fingers. A
 * body never seen, stale or non-finite is no measurement (the filter keeps the tool-pose
 * reference). The same SceneTracker, and the same staleness rule, as the tracked obstacles.
 */
import { TF, setFromXyzRpy, transformPoint } from '../../src/kinematics/transform.js';
import type { Clock } from '../../src/util/clock.js';
import type { SceneTracker } from './scene-tracker.js';

export class TrackedHeldObjectAxis {
  private readonly baseFromTracking = new Float64Array(TF);
  private readonly up = new Float64Array(3);

  constructor(
    private readonly tracker: SceneTracker,
    readonly body: string,
    /** A sample older than this (s) is no measurement. */
    readonly maxAge: number,
    private readonly clock: Clock,
    /** Orientation of the tracking frame in the robot base frame: roll, pitch, yaw (rad). */
    trackingInBase: readonly [number, number, number] = [0, 0, 0],
  ) {
    if (!tracker.tracks(body)) throw new RangeError(`held object axis: the scene tracker does not track '${body}'`);
    if (!(maxAge > 0 && maxAge < Infinity))
      throw new RangeError(`held object axis: max age must be finite and > 0 s, got ${maxAge}`);
    // a rotation only: an axis is a direction
    setFromXyzRpy(this.baseFromTracking, 0, 0, 0, 0, ...trackingInBase);
  }

  /** The body's up axis now (base frame, unit) into out; false when never seen, stale or not finite. */
  axis(out: Float64Array): boolean {
    const stamp = this.tracker.axisOf(this.body, this.up);
    if (!(this.clock.now() - stamp <= this.maxAge)) return false;
    const [x, y, z] = this.up as unknown as [number, number, number];
    if (!Number.isFinite(x + y + z)) return false;
    transformPoint(out, 0, this.baseFromTracking, 0, x, y, z);
    return true;
  }
}
