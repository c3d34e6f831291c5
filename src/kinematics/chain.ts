import { TF, multiply, multiplyRotZ, setFromXyzRpy, setIdentity, transformPoint } from './transform.js';

/**
 * A kinematic tree of revolute joints, each rotating about its own local +z after a fixed origin
 * transform from its parent frame (the URDF convention; modified DH maps onto it with
 * `originFromModifiedDH`). Frame 0 is the base; joint i creates frame i + 1.
 */
export interface JointSpec {
  readonly name: string;
  /** Frame the joint's origin is expressed in (0 = base, k = child frame of joint k − 1). */
  readonly parent: number;
  readonly xyz: readonly [number, number, number];
  readonly rpy: readonly [number, number, number];
  /** Position limits (rad). */
  readonly lower: number;
  readonly upper: number;
}

/** A fixed frame (tool centre point, flange) rigidly attached to a frame of the chain. */
export interface FixedFrameSpec {
  readonly name: string;
  readonly parent: number;
  readonly xyz: readonly [number, number, number];
  readonly rpy: readonly [number, number, number];
}

export interface ChainSpec {
  readonly name: string;
  readonly joints: readonly JointSpec[];
  readonly fixedFrames: readonly FixedFrameSpec[];
}

/**
 * Modified (Craig) DH row → URDF-style origin: RotX(α)·TransX(a)·TransZ(d), then the joint's Rz(θ).
 * Translation = (a, −d·sin α, d·cos α), rotation = RotX(α).
 */
export function originFromModifiedDH(
  a: number,
  d: number,
  alpha: number,
): {
  xyz: [number, number, number];
  rpy: [number, number, number];
} {
  return { xyz: [a, -d * Math.sin(alpha), d * Math.cos(alpha)], rpy: [alpha, 0, 0] };
}

/**
 * Forward kinematics with preallocated storage: `compute(q)` fills every frame's pose in the base
 * frame. Frame layout: [base, joint frames 1..n, fixed frames...], each TF (12) numbers.
 */
export class ForwardKinematics {
  readonly joints: number;
  readonly frameCount: number;
  /** All frame poses, TF numbers each (see transform.ts). */
  readonly frames: Float64Array;
  private readonly origins: Float64Array;
  private readonly fixedOrigins: Float64Array;
  private readonly scratch = new Float64Array(TF);
  /** The joint positions of the last compute (NaN until the first): the same q again is not recomputed. */
  private readonly lastQ: Float64Array;

  constructor(readonly spec: ChainSpec) {
    this.joints = spec.joints.length;
    this.frameCount = 1 + this.joints + spec.fixedFrames.length;
    this.frames = new Float64Array(TF * this.frameCount);
    this.lastQ = new Float64Array(this.joints).fill(NaN);
    this.origins = new Float64Array(TF * this.joints);
    this.fixedOrigins = new Float64Array(TF * spec.fixedFrames.length);
    spec.joints.forEach((j, i) => {
      if (j.parent < 0 || j.parent > i)
        throw new RangeError(`joint ${j.name}: parent frame ${j.parent} must precede it`);
      setFromXyzRpy(this.origins, TF * i, j.xyz[0], j.xyz[1], j.xyz[2], j.rpy[0], j.rpy[1], j.rpy[2]);
    });
    spec.fixedFrames.forEach((f, i) => {
      if (f.parent < 0 || f.parent > this.joints)
        throw new RangeError(`frame ${f.name}: parent ${f.parent} out of range`);
      setFromXyzRpy(this.fixedOrigins, TF * i, f.xyz[0], f.xyz[1], f.xyz[2], f.rpy[0], f.rpy[1], f.rpy[2]);
    });
    setIdentity(this.frames, 0);
  }

  /** Index of a named frame: 'base', a joint's child frame by joint name, or a fixed frame. */
  frameIndex(name: string): number {
    if (name === 'base') return 0;
    const j = this.spec.joints.findIndex((x) => x.name === name);
    if (j >= 0) return j + 1;
    const f = this.spec.fixedFrames.findIndex((x) => x.name === name);
    if (f >= 0) return 1 + this.joints + f;
    return -1;
  }

  /** Fill all frames for joint positions q (rad, length ≥ joints; a missing one makes the poses after it NaN, not a guess). No allocation. */
  compute(q: ArrayLike<number>): void {
    const { frames, origins, scratch, lastQ } = this;
    // Several models sharing one chain (a description's distance, self and tilt barriers) compute
    // the same q in turn; the frames depend on q alone, so an unchanged q keeps them. A NaN never
    // equals itself: a NaN configuration is always recomputed.
    let same = true;
    for (let i = 0; i < this.joints; i++) {
      const v = q[i] ?? NaN;
      if (v !== lastQ[i]) same = false;
      lastQ[i] = v;
    }
    if (same) return;
    const joints = this.spec.joints;
    for (let i = 0; i < this.joints; i++) {
      multiply(scratch, 0, frames, TF * joints[i]!.parent, origins, TF * i);
      multiplyRotZ(frames, TF * (i + 1), scratch, 0, lastQ, i);
    }
    const fixed = this.spec.fixedFrames;
    for (let i = 0; i < fixed.length; i++) {
      multiply(frames, TF * (1 + this.joints + i), frames, TF * fixed[i]!.parent, this.fixedOrigins, TF * i);
    }
  }

  /** Offset of frame k's pose in `frames`. */
  offset(k: number): number {
    return TF * k;
  }

  /** True when joint j moves frame k (j's child frame is k or one of k's ancestors). */
  jointMovesFrame(j: number, k: number): boolean {
    let f = k;
    while (f > 0) {
      if (f > this.joints) {
        f = this.spec.fixedFrames[f - 1 - this.joints]!.parent;
        continue;
      }
      if (f === j + 1) return true;
      f = this.spec.joints[f - 1]!.parent;
    }
    return false;
  }

  /**
   * Positional Jacobian (3 × joints, row-major into out) of the base-frame point (px,py,pz) rigidly
   * attached to frame k, at the last computed q: column j = z_j × (p − o_j) for joints that move k.
   */
  pointJacobian(out: Float64Array, k: number, px: number, py: number, pz: number): void {
    const n = this.joints;
    const F = this.frames;
    for (let j = 0; j < n; j++) {
      if (!this.jointMovesFrame(j, k)) {
        out[j] = 0;
        out[n + j] = 0;
        out[2 * n + j] = 0;
        continue;
      }
      const o = TF * (j + 1);
      const zx = F[o + 2]!,
        zy = F[o + 5]!,
        zz = F[o + 8]!;
      const rx = px - F[o + 9]!,
        ry = py - F[o + 10]!,
        rz = pz - F[o + 11]!;
      out[j] = zy * rz - zz * ry;
      out[n + j] = zz * rx - zx * rz;
      out[2 * n + j] = zx * ry - zy * rx;
    }
  }

  /** out[oo..oo+2] = position of local point p in frame k, in the base frame. */
  pointInBase(out: Float64Array, oo: number, k: number, px: number, py: number, pz: number): void {
    transformPoint(out, oo, this.frames, TF * k, px, py, pz);
  }
}
