/**
 * Tracked objects as CBF obstacles (design §6: obstacles = tracked objects, table plane, workspace):
 * each tracked body is a sphere of a configured radius around its tracked position, moved from the
 * tracking frame into the robot base frame and written into the barrier's obstacle group before a
 * chunk is filtered. A body not seen recently enough cannot be certified clear: `refresh` names it
 * and the chunk is held (fail safe). Pure: the tracking source is a port, time is passed in.
 */
import { TF, setFromXyzRpy, transformPoint } from '../kinematics/transform.js';
import type { ObstacleSet } from '../kinematics/obstacles.js';

/** Where tracked positions come from (the scene tracker). */
export interface TrackedPositionSource {
  /** Writes the latest position of `body` (tracking frame, m) into out[0..2]; returns its stamp (s), or NaN if never seen. */
  positionOf(body: string, out: Float64Array): number;
}

export interface TrackedObstacleSpec {
  readonly body: string;
  /** Sphere radius around the tracked point (m): the object's extent plus tracking error. */
  readonly radius: number;
}

export interface StaleObstacle {
  readonly body: string;
  /** Age of its last sample (s); Infinity if never seen. */
  readonly age: number;
}

export class TrackedObstacles {
  private readonly baseFromTracking = new Float64Array(TF);
  private readonly position = new Float64Array(3);
  private readonly centre = new Float64Array(3);

  /**
   * `groups[k]` receives body k's sphere (its `spheres` array must hold exactly one sphere);
   * `trackingInBase` = [x, y, z, roll, pitch, yaw] of the tracking frame in the robot base frame.
   */
  constructor(
    readonly specs: readonly TrackedObstacleSpec[],
    private readonly groups: readonly ObstacleSet[],
    private readonly source: TrackedPositionSource,
    trackingInBase: readonly [number, number, number, number, number, number],
    readonly maxAge: number,
  ) {
    if (groups.length !== specs.length)
      throw new RangeError(`TrackedObstacles: ${specs.length} bodies but ${groups.length} obstacle groups`);
    groups.forEach((g, k) => {
      if (g.spheres.length !== 4)
        throw new RangeError(`TrackedObstacles: group ${k} must hold one sphere (4 numbers), has ${g.spheres.length}`);
      g.spheres.fill(NaN); // unknown until refreshed: the barrier is NaN, so nothing passes unrefreshed
    });
    setFromXyzRpy(this.baseFromTracking, 0, ...trackingInBase);
  }

  /** Moves every sphere to its body's latest position; returns the first body that is stale, else null. */
  refresh(now: number): StaleObstacle | null {
    for (let k = 0; k < this.specs.length; k++) {
      const spec = this.specs[k]!;
      const stamp = this.source.positionOf(spec.body, this.position);
      const age = now - stamp;
      const s = this.groups[k]!.spheres;
      if (!(age <= this.maxAge) || !Number.isFinite(this.position[0]! + this.position[1]! + this.position[2]!)) {
        s.fill(NaN);
        return { body: spec.body, age: Number.isNaN(stamp) ? Infinity : age };
      }
      transformPoint(this.centre, 0, this.baseFromTracking, 0, this.position[0]!, this.position[1]!, this.position[2]!);
      s[0] = this.centre[0]!;
      s[1] = this.centre[1]!;
      s[2] = this.centre[2]!;
      s[3] = spec.radius;
    }
    return null;
  }
}
