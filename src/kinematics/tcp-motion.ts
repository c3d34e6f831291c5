import type { ForwardKinematics } from './chain.js';
import { length3 } from './transform.js';
import { secondsToNs } from '../util/time.js';

/**
 * Tool-centre-point speed and acceleration from measured joint velocities (arms that report dq,
 * such as a Franka at 1 kHz): v = J_p(q)·dq at the TCP — exact given the kinematics, no
 * differencing — and a = |v(t) − v(t₋ₙ)| / (t − t₋ₙ), the backward difference of that velocity over
 * the last `window` sample intervals (n = window), which averages the encoder noise of n samples.
 *
 * The acceleration is NaN until window + 1 consecutive samples have been seen, and again after a
 * gap: a time step that is not positive or exceeds `maxGap` (s), or an invalid velocity, restarts
 * the window. The speed is NaN only for an invalid q or dq. No allocation per sample.
 */
export class TcpMotion {
  speed = NaN;
  acc = NaN;
  private readonly jac: Float64Array;
  private readonly point = new Float64Array(3);
  /** Ring of the last window + 1 velocities (xyz) and their times. */
  private readonly vel: Float64Array;
  private readonly times: Float64Array;
  private count = 0;
  private head = 0;
  private readonly maxGapNs: number;

  constructor(
    readonly fk: ForwardKinematics,
    /** Chain frame the TCP is fixed to and its position in that frame (m). */
    readonly frame: number,
    readonly tcp: readonly [number, number, number],
    readonly window = 5,
    readonly maxGap = 0.01,
  ) {
    if (!(Number.isInteger(window) && window >= 1))
      throw new RangeError(`TcpMotion: window must be a positive integer, got ${window}`);
    this.maxGapNs = secondsToNs(maxGap);
    this.jac = new Float64Array(3 * fk.joints);
    this.vel = new Float64Array(3 * (window + 1));
    this.times = new Float64Array(window + 1);
  }

  /** Call after `fk.compute(q)` with the joint velocities (rad/s) measured at time t (s). */
  update(t: number, dq: ArrayLike<number>): void {
    const n = this.fk.joints;
    this.fk.pointInBase(this.point, 0, this.frame, this.tcp[0], this.tcp[1], this.tcp[2]);
    this.fk.pointJacobian(this.jac, this.frame, this.point[0]!, this.point[1]!, this.point[2]!);
    let vx = 0,
      vy = 0,
      vz = 0;
    for (let j = 0; j < n; j++) {
      const w = dq[j] ?? NaN;
      vx += this.jac[j]! * w;
      vy += this.jac[n + j]! * w;
      vz += this.jac[2 * n + j]! * w;
    }
    this.speed = length3(vx, vy, vz);
    const size = this.window + 1;
    const last = this.times[(this.head + size - 1) % size]!;
    // In integer ns (src/util/time.ts): a step exactly maxGap long is not a gap, whatever the float rounding.
    const dtNs = secondsToNs(t) - secondsToNs(last);
    if (!Number.isFinite(this.speed) || !Number.isFinite(t) || (this.count > 0 && !(dtNs > 0 && dtNs <= this.maxGapNs)))
      this.count = 0;
    if (!Number.isFinite(this.speed) || !Number.isFinite(t)) {
      this.acc = NaN;
      return;
    }
    const o = 3 * this.head;
    this.vel[o] = vx;
    this.vel[o + 1] = vy;
    this.vel[o + 2] = vz;
    this.times[this.head] = t;
    this.head = (this.head + 1) % size;
    if (this.count < size) this.count++;
    if (this.count < size) {
      this.acc = NaN;
      return;
    }
    // head now points at the oldest sample of the full ring (t₋ₙ).
    const p = 3 * this.head;
    const span = t - this.times[this.head]!;
    this.acc = length3(vx - this.vel[p]!, vy - this.vel[p + 1]!, vz - this.vel[p + 2]!) / span;
  }

  reset(): void {
    this.count = 0;
    this.speed = NaN;
    this.acc = NaN;
  }
}
