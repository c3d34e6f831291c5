/**
 * External tracking → scene signals (design §2, §5): bystander displacement from each body's first
 * pose of the episode (non_target_disp_max) and, when the target is tracked, its tilt from its
 * initial up axis and its height above the support surface. Adapters for vrpn_mocap PoseStamped,
 * mocap4r2 RigidBodies and AprilTag /tf feed `observe`.
 */
import { Validity, signalIndex, type SignalFrame } from '../../src/schema/signals.js';
import type { Pose, Quaternion, Vector3 } from '../../src/mcap/messages.js';
import { angleDeg, bodyZ, distance, finitePose } from './pose-math.js';

export interface SceneTrackerConfig {
  /** Names of the tracked bystander (non-target) bodies; all must be seen for the signal to be valid. */
  bystanders: readonly string[];
  /** Name of the tracked target body, if tagged. */
  target?: string;
  /** Source id written into frames, e.g. 'mocap' or 'apriltag'. */
  source: string;
  /** Bodies tracked only as CBF obstacles (positions through `positionOf`). */
  obstacles?: readonly string[];
  /** Bodies tracked only for their positions (`positionOf`): the semantic gate's actor and target. */
  positionsOnly?: readonly string[];
}

interface BodyTrack {
  initial: Vector3 | undefined;
  initialUp: Float64Array;
  current: Vector3;
  up: Float64Array;
  stamp: number;
}

const DISP = signalIndex('non_target_disp_max') ?? -1;
const TILT = signalIndex('target_obj_tilt_world_deg') ?? -1;
const HEIGHT = signalIndex('obj_above_table') ?? -1;

export class SceneTracker {
  private readonly bodies = new Map<string, BodyTrack>();
  private readonly bystanders: ReadonlySet<string>;

  constructor(readonly config: SceneTrackerConfig) {
    this.bystanders = new Set(config.bystanders);
    for (const name of [
      ...config.bystanders,
      ...(config.target ? [config.target] : []),
      ...(config.obstacles ?? []),
      ...(config.positionsOnly ?? []),
    ]) {
      this.bodies.set(name, {
        initial: undefined,
        initialUp: new Float64Array(3),
        current: { x: 0, y: 0, z: 0 },
        up: new Float64Array(3),
        stamp: -Infinity,
      });
    }
  }

  /** Bodies this tracker cares about (others are ignored). */
  tracks(name: string): boolean {
    return this.bodies.has(name);
  }

  /** A pose sample of a named body at `stamp` seconds. Non-finite poses are ignored (the signal goes stale). */
  observe(name: string, position: Vector3, orientation: Quaternion, stamp: number): void {
    const b = this.bodies.get(name);
    if (!b || !finitePose(position, orientation)) return;
    if (b.initial === undefined) {
      b.initial = { x: position.x, y: position.y, z: position.z };
      bodyZ(orientation, b.initialUp);
    }
    b.current = { x: position.x, y: position.y, z: position.z };
    bodyZ(orientation, b.up);
    b.stamp = stamp;
  }
  observePose(name: string, pose: Pose, stamp: number): void {
    this.observe(name, pose.position, pose.orientation, stamp);
  }

  /** Latest position of `body` into out (tracking frame); its stamp, or NaN if never seen / not tracked (the gate's TrackedPositionSource). */
  positionOf(body: string, out: Float64Array): number {
    const b = this.bodies.get(body);
    if (!b || b.stamp === -Infinity) return NaN;
    out[0] = b.current.x;
    out[1] = b.current.y;
    out[2] = b.current.z;
    return b.stamp;
  }

  /** Latest up (z) axis of `body` into out (unit, tracking frame); its stamp, or NaN if never seen / not tracked. */
  axisOf(body: string, out: Float64Array): number {
    const b = this.bodies.get(body);
    if (!b || b.stamp === -Infinity) return NaN;
    out[0] = b.up[0]!;
    out[1] = b.up[1]!;
    out[2] = b.up[2]!;
    return b.stamp;
  }

  /** New episode: displacements are measured from the next pose of each body. */
  resetEpisode(): void {
    for (const b of this.bodies.values()) {
      b.initial = undefined;
      b.stamp = -Infinity;
    }
  }

  /**
   * Write the tracked signals into `frame`. Displacement is valid only when every bystander has
   * been seen; its stamp is the oldest bystander sample so staleness of any body shows.
   */
  writeSignals(frame: SignalFrame): void {
    if (this.bystanders.size > 0) {
      let max = 0;
      let oldest = Infinity;
      let complete = true;
      for (const name of this.bystanders) {
        const b = this.bodies.get(name);
        if (!b || b.initial === undefined) {
          complete = false;
          break;
        }
        max = Math.max(max, distance(b.current, b.initial));
        oldest = Math.min(oldest, b.stamp);
      }
      if (complete) frame.set(DISP, max, oldest, this.config.source);
      else frame.validity[DISP] = Validity.Missing;
    }
    const target = this.config.target ? this.bodies.get(this.config.target) : undefined;
    if (target && target.initial !== undefined) {
      frame.set(TILT, angleDeg(target.initialUp, target.up), target.stamp, this.config.source);
      frame.set(HEIGHT, target.current.z - target.initial.z, target.stamp, this.config.source);
    }
  }
}
