/**
 * The held object's tilt as a CBF constraint on the end effector (design §6; issue 15): while the
 * gripper holds an object, a tool-fixed direction b(q) = R(q)·v (by default the tool frame's
 * z-axis; after `captureReference`, the tool direction that was world-vertical at the grasp) must
 * stay within θ_max of the reference a_ref:  b(q)·a_ref ≥ cos θ_max, with θ_max = τ − ε of
 * held_object_tilt_world (the tilt limit less its warning band) — SPEC's b_z(q)·b_z(0) ≥ cos(τ − ε).
 * As a barrier pair in metres, like the distance pairs:
 *
 *   h(q) = L · (b(q)·a_ref − cos θ_max),   ∂h/∂q_j = L · (z_j × b)·a_ref  (joints moving the frame),
 *
 * with L a lever (m; the height of the held object's centre above the grasp is a natural choice:
 * L·(1 − cos θ) is how far its top has dropped). Linearised per step by the chunk filter like the
 * distance barrier. While nothing is held (`enabled` false) h is a constant ≥ 0 with zero gradient
 * (`idleH`, by default L·(1 − cos θ_max), the upright value): the constraint is met by every chunk
 * and bends nothing — though an interior-point solver sees the constant's distance, so another
 * constant moves its results at the solver's tolerance.
 */
import type { ForwardKinematics } from '../kinematics/chain.js';
import type { BarrierModel } from './cbf-types.js';

export class OrientationBarrier implements BarrierModel {
  readonly joints: number;
  readonly pairs = 1;
  /** Reference direction a_ref (unit, base frame). */
  readonly reference = new Float64Array([0, 0, 1]);
  /** The constrained direction v in the tool frame (unit). */
  readonly local = new Float64Array([0, 0, 1]);
  /** True while an object is held; false makes the pair inactive. */
  enabled = false;
  private cosMax: number;

  constructor(
    readonly fk: ForwardKinematics,
    /** The tool frame's index in fk (its z-axis is constrained). */
    readonly frame: number,
    /** θ_max (rad). */
    maxTilt: number,
    /** Lever L (m). */
    readonly lever: number,
    /** h while nothing is held (≥ 0); default L·(1 − cos θ_max). */
    private readonly idleH?: number,
  ) {
    if (!(frame > 0 && frame < fk.frameCount)) throw new RangeError(`orientation barrier: frame ${frame} out of range`);
    if (!(maxTilt > 0 && maxTilt < Math.PI))
      throw new RangeError(`orientation barrier: θ_max must be in (0, π) rad, got ${maxTilt}`);
    if (!(lever > 0)) throw new RangeError(`orientation barrier: lever must be > 0 m, got ${lever}`);
    if (idleH !== undefined && !(idleH >= 0 && idleH < Infinity))
      throw new RangeError(`orientation barrier: idle h must be finite and ≥ 0, got ${idleH}`);
    this.joints = fk.joints;
    this.cosMax = Math.cos(maxTilt);
  }

  set maxTilt(theta: number) {
    if (!(theta > 0 && theta < Math.PI))
      throw new RangeError(`orientation barrier: θ_max must be in (0, π) rad, got ${theta}`);
    this.cosMax = Math.cos(theta);
  }

  /**
   * At the grasp (joint positions q): constrain the tool direction that points along `up` (base
   * frame, default world vertical — the held object's axis at rest) to stay within θ_max of `up`,
   * and enable the pair.
   */
  captureReference(q: ArrayLike<number>, up: readonly [number, number, number] = [0, 0, 1]): void {
    this.fk.compute(q);
    const o = this.fk.offset(this.frame);
    const F = this.fk.frames;
    const n = Math.hypot(up[0], up[1], up[2]);
    for (let i = 0; i < 3; i++) this.reference[i] = up[i]! / n;
    // v = Rᵀ·up (R row-major: column c of R is the frame's axis c)
    for (let c = 0; c < 3; c++)
      this.local[c] =
        F[o + c]! * this.reference[0]! + F[o + 3 + c]! * this.reference[1]! + F[o + 6 + c]! * this.reference[2]!;
    this.enabled = true;
  }

  h(q: Float64Array, out: Float64Array): number {
    if (!this.enabled) return (out[0] = this.idle());
    this.fk.compute(q);
    return (out[0] = this.value());
  }

  gradient(q: Float64Array, hOut: Float64Array, grad: Float64Array): void {
    const n = this.joints;
    if (!this.enabled) {
      hOut[0] = this.idle();
      grad.fill(0, 0, n);
      return;
    }
    this.fk.compute(q);
    hOut[0] = this.value();
    const F = this.fk.frames;
    this.direction();
    const bx = this.b[0]!,
      by = this.b[1]!,
      bz = this.b[2]!;
    const [ax, ay, az] = this.reference as unknown as [number, number, number];
    for (let j = 0; j < n; j++) {
      if (!this.fk.jointMovesFrame(j, this.frame)) {
        grad[j] = 0;
        continue;
      }
      const z = this.fk.offset(j + 1);
      const zx = F[z + 2]!,
        zy = F[z + 5]!,
        zz = F[z + 8]!;
      // (z_j × b)·a
      grad[j] = this.lever * ((zy * bz - zz * by) * ax + (zz * bx - zx * bz) * ay + (zx * by - zy * bx) * az);
    }
  }

  private readonly b = new Float64Array(3);

  /** b := R·v at the last computed pose. */
  private direction(): void {
    const F = this.fk.frames;
    const o = this.fk.offset(this.frame);
    const v = this.local;
    for (let r = 0; r < 3; r++)
      this.b[r] = F[o + 3 * r]! * v[0]! + F[o + 3 * r + 1]! * v[1]! + F[o + 3 * r + 2]! * v[2]!;
  }

  private idle(): number {
    return this.idleH ?? this.lever * (1 - this.cosMax);
  }

  private value(): number {
    this.direction();
    const r = this.reference;
    return this.lever * (this.b[0]! * r[0]! + this.b[1]! * r[1]! + this.b[2]! * r[2]! - this.cosMax);
  }
}
