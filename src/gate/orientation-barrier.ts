/**
 * The held object's tilt as a CBF constraint on the end effector (SPEC §6; issue 15): while the
 * gripper holds an object, the tool frame's z-axis b_z(q) must stay within θ_max of its direction
 * at the grasp, a_ref:  b_z(q)·a_ref ≥ cos θ_max, with θ_max = τ − ε of held_object_tilt_world
 * (the tilt limit less its warning band). As a barrier pair in metres, like the distance pairs:
 *
 *   h(q) = L · (b_z(q)·a_ref − cos θ_max),   ∂h/∂q_j = L · (z_j × b_z)·a_ref  (joints moving the frame),
 *
 * with L a lever (m; the height of the held object's centre above the grasp is a natural choice:
 * L·(1 − cos θ) is how far its top has dropped). Linearised per step by the chunk filter like the
 * distance barrier. While nothing is held (`enabled` false) h is the constant L·(1 − cos θ_max)
 * ≥ 0 with zero gradient: the constraint is met by every chunk and bends nothing.
 */
import type { ForwardKinematics } from '../kinematics/chain.js';
import type { BarrierModel } from './cbf-types.js';

export class OrientationBarrier implements BarrierModel {
  readonly joints: number;
  readonly pairs = 1;
  /** Reference direction a_ref (unit, base frame): the tool z-axis at the grasp. */
  readonly reference = new Float64Array([0, 0, 1]);
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
  ) {
    if (!(frame > 0 && frame < fk.frameCount)) throw new RangeError(`orientation barrier: frame ${frame} out of range`);
    if (!(maxTilt > 0 && maxTilt < Math.PI)) throw new RangeError(`orientation barrier: θ_max must be in (0, π) rad, got ${maxTilt}`);
    if (!(lever > 0)) throw new RangeError(`orientation barrier: lever must be > 0 m, got ${lever}`);
    this.joints = fk.joints;
    this.cosMax = Math.cos(maxTilt);
  }

  set maxTilt(theta: number) {
    if (!(theta > 0 && theta < Math.PI)) throw new RangeError(`orientation barrier: θ_max must be in (0, π) rad, got ${theta}`);
    this.cosMax = Math.cos(theta);
  }

  /** Take the tool z-axis at q as the reference (call at the grasp) and enable the pair. */
  captureReference(q: ArrayLike<number>): void {
    this.fk.compute(q);
    const o = this.fk.offset(this.frame);
    const F = this.fk.frames;
    this.reference[0] = F[o + 2]!;
    this.reference[1] = F[o + 5]!;
    this.reference[2] = F[o + 8]!;
    this.enabled = true;
  }

  h(q: Float64Array, out: Float64Array): number {
    if (!this.enabled) return (out[0] = this.lever * (1 - this.cosMax));
    this.fk.compute(q);
    return (out[0] = this.value());
  }

  gradient(q: Float64Array, hOut: Float64Array, grad: Float64Array): void {
    const n = this.joints;
    if (!this.enabled) {
      hOut[0] = this.lever * (1 - this.cosMax);
      grad.fill(0, 0, n);
      return;
    }
    this.fk.compute(q);
    hOut[0] = this.value();
    const F = this.fk.frames;
    const o = this.fk.offset(this.frame);
    const bx = F[o + 2]!, by = F[o + 5]!, bz = F[o + 8]!;
    const [ax, ay, az] = this.reference as unknown as [number, number, number];
    for (let j = 0; j < n; j++) {
      if (!this.fk.jointMovesFrame(j, this.frame)) {
        grad[j] = 0;
        continue;
      }
      const z = this.fk.offset(j + 1);
      const zx = F[z + 2]!, zy = F[z + 5]!, zz = F[z + 8]!;
      // (z_j × b)·a
      grad[j] = this.lever * ((zy * bz - zz * by) * ax + (zz * bx - zx * bz) * ay + (zx * by - zy * bx) * az);
    }
  }

  private value(): number {
    const F = this.fk.frames;
    const o = this.fk.offset(this.frame);
    const r = this.reference;
    return this.lever * (F[o + 2]! * r[0]! + F[o + 5]! * r[1]! + F[o + 8]! * r[2]! - this.cosMax);
  }
}

/** Several barrier models over the same joints as one: their pairs side by side, in order. */
export class BarrierStack implements BarrierModel {
  readonly joints: number;
  readonly pairs: number;
  private readonly hs: Float64Array[];
  private readonly grads: Float64Array[];

  constructor(readonly models: readonly BarrierModel[]) {
    if (models.length === 0) throw new RangeError('BarrierStack needs at least one model');
    this.joints = models[0]!.joints;
    for (const m of models) if (m.joints !== this.joints) throw new RangeError(`BarrierStack: models over ${this.joints} and ${m.joints} joints`);
    this.pairs = models.reduce((a, m) => a + m.pairs, 0);
    this.hs = models.map((m) => new Float64Array(m.pairs));
    this.grads = models.map((m) => new Float64Array(m.pairs * this.joints));
  }

  h(q: Float64Array, out: Float64Array): number {
    let min = Infinity;
    let at = 0;
    for (let i = 0; i < this.models.length; i++) {
      const buf = this.hs[i]!;
      const v = this.models[i]!.h(q, buf);
      if (v < min || v !== v) min = v;
      out.set(buf, at);
      at += buf.length;
    }
    return min;
  }

  gradient(q: Float64Array, hOut: Float64Array, grad: Float64Array): void {
    let at = 0;
    for (let i = 0; i < this.models.length; i++) {
      const buf = this.hs[i]!;
      const g = this.grads[i]!;
      this.models[i]!.gradient(q, buf, g);
      hOut.set(buf, at);
      grad.set(g, at * this.joints);
      at += buf.length;
    }
  }
}
