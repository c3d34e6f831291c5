/**
 * A tracking adapter for the MuJoCo testbed, the simulator's counterpart of the vrpn_mocap /
 * mocap4r2 / AprilTag adapters (ros-adapters.ts): once per control tick it reads the tracked
 * bodies' poses from the world and feeds them to a SceneTracker as pose samples stamped when they
 * were taken — `latencyTicks` ticks late, with seeded Gaussian position noise — so the gate sees
 * simulated objects through the same SceneTracker → TrackedObstacles path, and the same staleness
 * rules, as motion capture on hardware. `stop()` models a tracker that stops publishing (a crashed
 * mocap node, an occluded tag): the samples age and the gate's staleness check holds.
 */
import type { SimWorld } from '../sim/world.js';
import { boxMuller, mulberry32 } from '../../src/util/rng.js';
import type { SceneTracker } from './scene-tracker.js';

export interface SimTrackingOptions {
  /** World body names to track (the SceneTracker must track the same names). */
  readonly bodies: readonly string[];
  /** Delivery delay in control ticks (default 0). */
  readonly latencyTicks?: number;
  /** Position noise, m (standard deviation per axis; default 0). */
  readonly positionNoise?: number;
  readonly seed?: number;
}

export class SimTrackingAdapter {
  private readonly ids: Int32Array;
  private readonly ring: Float64Array;
  private readonly ringStamp: Float64Array;
  private count = 0;
  private lastSampleTime = NaN;
  private stopped = false;
  private readonly gauss: () => number;
  private readonly pos = new Float64Array(3);
  private readonly quat = new Float64Array(4);

  constructor(
    private readonly world: SimWorld,
    private readonly tracker: SceneTracker,
    readonly options: SimTrackingOptions,
  ) {
    this.ids = Int32Array.from(options.bodies, (name) => {
      const id = world.bodyIdOf(name);
      if (id < 0) throw new RangeError(`sim tracking: scene ${world.scene.id} has no body named '${name}'`);
      if (!tracker.tracks(name)) throw new RangeError(`sim tracking: the scene tracker does not track '${name}'`);
      return id;
    });
    const depth = Math.max(0, Math.floor(options.latencyTicks ?? 0)) + 1;
    // per slot and body: x, y, z, qw, qx, qy, qz
    this.ring = new Float64Array(depth * this.ids.length * 7);
    this.ringStamp = new Float64Array(depth);
    const rng = mulberry32(options.seed ?? 0);
    this.gauss = () => boxMuller(1 - rng(), rng());
  }

  /**
   * Fill the delay line with the bodies where they are now, stamped `latencyTicks` control periods
   * (`dt`) ago, and deliver the oldest: the tracker was running while the scene settled at rest, so
   * a gate starting now has a sample of every body. Call right after the world is reset.
   */
  prime(dt: number): void {
    const depth = this.ringStamp.length;
    const nb = this.ids.length;
    for (let slot = 0; slot < depth; slot++) {
      for (let i = 0; i < nb; i++) {
        this.world.bodyPos(this.ids[i]!, this.pos);
        this.world.bodyQuat(this.ids[i]!, this.quat);
        const o = (slot * nb + i) * 7;
        for (let a = 0; a < 3; a++) this.ring[o + a] = this.pos[a]!;
        for (let a = 0; a < 4; a++) this.ring[o + 3 + a] = this.quat[a]!;
      }
    }
    this.count = depth - 1;
    for (let k = 0; k < depth - 1; k++) this.ringStamp[k] = this.world.time - (depth - 1 - k) * dt;
    this.lastSampleTime = NaN;
    // deliver the sample that left the tracker latencyTicks ago
    for (let i = 0; i < nb; i++) {
      const o = i * 7;
      const r = this.ring;
      this.tracker.observe(
        this.options.bodies[i]!,
        { x: r[o]!, y: r[o + 1]!, z: r[o + 2]! },
        { w: r[o + 3]!, x: r[o + 4]!, y: r[o + 5]!, z: r[o + 6]! },
        this.world.time - (depth - 1) * dt,
      );
    }
  }

  /** The tracker stops publishing from now on (its last samples age). */
  stop(): void {
    this.stopped = true;
  }

  /** New episode: forget the delay line (call after the world is reset and the tracker's resetEpisode). */
  reset(): void {
    this.count = 0;
    this.stopped = false;
    this.lastSampleTime = NaN;
  }

  /** Sample the world now and deliver the sample that is `latencyTicks` old. Once per world tick (a repeat call at the same world time does nothing). */
  publish(): void {
    if (this.stopped || this.world.time === this.lastSampleTime) return;
    this.lastSampleTime = this.world.time;
    const depth = this.ringStamp.length;
    const nb = this.ids.length;
    const slot = this.count % depth;
    const sigma = this.options.positionNoise ?? 0;
    for (let i = 0; i < nb; i++) {
      this.world.bodyPos(this.ids[i]!, this.pos);
      this.world.bodyQuat(this.ids[i]!, this.quat);
      const o = (slot * nb + i) * 7;
      for (let a = 0; a < 3; a++) this.ring[o + a] = this.pos[a]! + (sigma > 0 ? sigma * this.gauss() : 0);
      for (let a = 0; a < 4; a++) this.ring[o + 3 + a] = this.quat[a]!;
    }
    this.ringStamp[slot] = this.world.time;
    this.count++;
    if (this.count < depth) return; // the first sample is still in transit
    const out = this.count % depth; // the oldest slot
    for (let i = 0; i < nb; i++) {
      const o = (out * nb + i) * 7;
      const r = this.ring;
      this.tracker.observe(
        this.options.bodies[i]!,
        { x: r[o]!, y: r[o + 1]!, z: r[o + 2]! },
        { w: r[o + 3]!, x: r[o + 4]!, y: r[o + 5]!, z: r[o + 6]! },
        this.ringStamp[out]!,
      );
    }
  }
}
