/**
 * The held object's tilt as a CBF constraint on the end effector (SPEC §6 prevention table, issue
 * 15): while an object is held, its up axis — fixed in the TCP frame at the grasp, `reference` —
 * must stay within the tilt limit of world vertical:
 *   h(q) = (R_tcp(q)·c)_z − cos(limit) ≥ 0,  c = R_tcp(q_grasp)ᵀ·ẑ.
 * Its gradient is analytic: ∂(R c)/∂q_j = z_j × (R c) for every joint that moves the TCP frame.
 * One barrier pair; while nothing is held (`active` false) h is a constant 1 with zero gradient.
 * Stacked with the distance barrier by {@link StackedBarrier}. Pure; TiltBarrier allocates nothing
 * per call (StackedBarrier makes subarray views).
 */
import { ForwardKinematics, type ChainSpec } from '../kinematics/chain.js';
import type { BarrierModel } from './cbf-types.js';

export class TiltBarrier implements BarrierModel {
  readonly joints: number;
  readonly pairs = 1;
  /** Whether an object is held (the constraint applies). */
  active = false;
  /** The object's up axis in the TCP frame (unit). */
  readonly reference = new Float64Array([0, 0, 1]);
  private readonly fk: ForwardKinematics;
  private readonly v = new Float64Array(3);
  readonly cosLimit: number;

  constructor(
    chain: ChainSpec,
    /** Chain frame of the TCP (ForwardKinematics index). */
    readonly tcpFrame: number,
    /** Largest tilt allowed (rad). */
    readonly limit: number,
  ) {
    this.fk = new ForwardKinematics(chain);
    this.joints = this.fk.joints;
    if (tcpFrame < 0 || tcpFrame >= this.fk.frameCount) throw new RangeError(`tilt barrier: TCP frame ${tcpFrame} out of range`);
    if (!(limit > 0 && limit < Math.PI / 2)) throw new RangeError(`tilt barrier: limit must be in (0, π/2), got ${limit}`);
    this.cosLimit = Math.cos(limit);
  }

  /** Takes the object's present up direction (world vertical) at configuration q as the reference. */
  grasp(q: ArrayLike<number>): void {
    this.fk.compute(q);
    const F = this.fk.frames;
    const o = this.fk.offset(this.tcpFrame);
    // c = Rᵀ ẑ: the third row of R
    this.reference[0] = F[o + 6]!;
    this.reference[1] = F[o + 7]!;
    this.reference[2] = F[o + 8]!;
    this.active = true;
  }

  h(q: Float64Array, out: Float64Array): number {
    if (!this.active) return (out[0] = 1);
    this.fk.compute(q);
    this.upAxis();
    return (out[0] = this.v[2]! - this.cosLimit);
  }

  gradient(q: Float64Array, hOut: Float64Array, grad: Float64Array): void {
    const n = this.joints;
    if (!this.active) {
      hOut[0] = 1;
      grad.fill(0, 0, n);
      return;
    }
    this.fk.compute(q);
    this.upAxis();
    const [vx, vy] = [this.v[0]!, this.v[1]!];
    hOut[0] = this.v[2]! - this.cosLimit;
    const F = this.fk.frames;
    for (let j = 0; j < n; j++) {
      if (!this.fk.jointMovesFrame(j, this.tcpFrame)) {
        grad[j] = 0;
        continue;
      }
      const o = this.fk.offset(j + 1);
      // z component of z_j × v
      grad[j] = F[o + 2]! * vy - F[o + 5]! * vx;
    }
  }

  /** v = R_tcp · reference (world), at the last computed configuration. */
  private upAxis(): void {
    const F = this.fk.frames;
    const o = this.fk.offset(this.tcpFrame);
    const c = this.reference;
    for (let i = 0; i < 3; i++) this.v[i] = F[o + 3 * i]! * c[0]! + F[o + 3 * i + 1]! * c[1]! + F[o + 3 * i + 2]! * c[2]!;
  }
}

/** Several barrier models over the same joints as one: their pairs one after the other. */
export class StackedBarrier implements BarrierModel {
  readonly joints: number;
  readonly pairs: number;
  private readonly offsets: number[];

  constructor(readonly parts: readonly BarrierModel[]) {
    if (parts.length === 0) throw new RangeError('StackedBarrier needs at least one barrier');
    this.joints = parts[0]!.joints;
    for (const p of parts) if (p.joints !== this.joints) throw new RangeError(`StackedBarrier: barriers over ${this.joints} and ${p.joints} joints`);
    this.offsets = [];
    let m = 0;
    for (const p of parts) {
      this.offsets.push(m);
      m += p.pairs;
    }
    this.pairs = m;
  }

  h(q: Float64Array, out: Float64Array): number {
    let min = Infinity;
    for (let i = 0; i < this.parts.length; i++) {
      const p = this.parts[i]!;
      const v = p.h(q, out.subarray(this.offsets[i]!, this.offsets[i]! + p.pairs));
      if (v < min || v !== v) min = v;
    }
    return min;
  }

  gradient(q: Float64Array, hOut: Float64Array, grad: Float64Array): void {
    const n = this.joints;
    for (let i = 0; i < this.parts.length; i++) {
      const p = this.parts[i]!;
      const o = this.offsets[i]!;
      p.gradient(q, hOut.subarray(o, o + p.pairs), grad.subarray(o * n, (o + p.pairs) * n));
    }
  }
}
