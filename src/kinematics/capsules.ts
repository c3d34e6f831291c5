import { ForwardKinematics, type ChainSpec } from './chain.js';
import { capsuleCapsuleDistance } from './distance.js';
import { TF, transformPointAt } from './transform.js';

/**
 * Rounding allowance of the bounding-sphere test (m): far above the few ulps the bound and the exact
 * distance can differ by, far below any clearance. A pair is skipped only when its exact distance
 * could not have replaced the minimum, so the minimum and its pair are the same as without the test.
 */
const PAIR_BOUND_SLACK = 1e-9;

/** A capsule rigidly attached to a frame of the chain: segment a–b (frame coordinates, m) + radius. */
export interface CapsuleSpec {
  readonly name: string;
  readonly frame: number;
  readonly a: readonly [number, number, number];
  readonly b: readonly [number, number, number];
  readonly radius: number;
  /**
   * false for links that are mounted and never approach the environment (base, shoulder): they are
   * excluded from table/obstacle distances but still take part in self-collision.
   */
  readonly environment: boolean;
  /** false for clearance-only capsules that take no part in self-collision (default true). */
  readonly self?: boolean;
  /** The link the capsule belongs to (robot descriptions); defaults to its name. */
  readonly link?: string;
}

export interface ArmModelSpec {
  readonly chain: ChainSpec;
  readonly capsules: readonly CapsuleSpec[];
  /** Capsule-name pairs never checked against each other (beyond the automatic adjacent-link skip). */
  readonly ignorePairs: readonly (readonly [string, string])[];
}

/**
 * The environment capsules of a model alone (in their order, taking no part in self-collision): a
 * model kept clear of obstacles only. Its update transforms only these — the SO-101 description's
 * arm model has 5 of them beside 161 published self volumes. Obstacle distances only ever use
 * environment capsules, in this order, so every clearance and its gradient are the same as the whole
 * model's (in a description's arm model, armModel, they come first: even the indices are).
 */
export function environmentOnly(spec: ArmModelSpec): ArmModelSpec {
  return {
    chain: spec.chain,
    capsules: spec.capsules.filter((c) => c.environment).map((c) => ({ ...c, self: false })),
    ignorePairs: [],
  };
}

/**
 * Capsules in the base frame for the current joint positions. `world` holds, per capsule, the two
 * endpoints (6 numbers); `selfPairs` the capsule index pairs checked for self-collision: every pair
 * of self capsules except capsules on the same frame, on frames joined by one joint (adjacent
 * links), and ignorePairs.
 */
export class CapsuleModel {
  readonly fk: ForwardKinematics;
  readonly count: number;
  readonly world: Float64Array;
  readonly radii: Float64Array;
  readonly environment: Uint8Array;
  readonly selfPairs: Int32Array;
  /** Chain frame each capsule is attached to. */
  readonly frames: Int32Array;
  /**
   * Per capsule, a bounding sphere: centre (3) and radius (half the segment's length + the
   * capsule's radius), for the last update once prepareBroadPhase (or pairLowerBound) has run.
   * Broad phase of the self pairs.
   */
  readonly bounds: Float64Array;
  private readonly local: Float64Array;
  private boundsValid = false;

  /**
   * `fk` (optional): a ForwardKinematics of the same chain shared with other models evaluated at the
   * same configurations (it skips recomputing an unchanged q); by default the model's own.
   */
  constructor(
    readonly spec: ArmModelSpec,
    fk?: ForwardKinematics,
  ) {
    if (fk !== undefined && fk.spec !== spec.chain)
      throw new RangeError(`CapsuleModel: the shared kinematics are of another chain (${fk.spec.name})`);
    this.fk = fk ?? new ForwardKinematics(spec.chain);
    const caps = spec.capsules;
    this.count = caps.length;
    this.world = new Float64Array(6 * caps.length);
    this.radii = Float64Array.from(caps, (c) => c.radius);
    this.environment = Uint8Array.from(caps, (c) => (c.environment ? 1 : 0));
    this.local = new Float64Array(6 * caps.length);
    this.bounds = new Float64Array(4 * caps.length);
    this.frames = Int32Array.from(caps, (c) => c.frame);
    caps.forEach((c, i) => {
      if (c.frame < 0 || c.frame >= this.fk.frameCount)
        throw new RangeError(`capsule ${c.name}: frame ${c.frame} out of range`);
      this.local.set([...c.a, ...c.b], 6 * i);
    });
    const names = caps.map((c) => c.name);
    for (const [x, y] of spec.ignorePairs) {
      for (const n of [x, y]) if (!names.includes(n)) throw new RangeError(`ignorePairs: unknown capsule '${n}'`);
    }
    const ignored = new Set(spec.ignorePairs.map(([x, y]) => (x < y ? `${x}\u0000${y}` : `${y}\u0000${x}`)));
    const pairs: number[] = [];
    for (let i = 0; i < caps.length; i++) {
      for (let j = i + 1; j < caps.length; j++) {
        const ci = caps[i]!,
          cj = caps[j]!;
        if (ci.self === false || cj.self === false) continue;
        if (this.adjacentFrames(ci.frame, cj.frame)) continue;
        const key = ci.name < cj.name ? `${ci.name}\u0000${cj.name}` : `${cj.name}\u0000${ci.name}`;
        if (ignored.has(key)) continue;
        pairs.push(i, j);
      }
    }
    this.selfPairs = Int32Array.from(pairs);
  }

  /** Same frame, or one frame is the child of the other through a single joint. */
  adjacentFrames(f: number, g: number): boolean {
    if (f === g) return true;
    const joints = this.spec.chain.joints;
    const parentOf = (k: number): number => (k >= 1 && k <= joints.length ? joints[k - 1]!.parent : -1);
    return parentOf(f) === g || parentOf(g) === f;
  }

  /** Forward kinematics + capsule endpoints for q (rad). No allocation. */
  update(q: ArrayLike<number>): void {
    this.fk.compute(q);
    for (let i = 0; i < this.count; i++) {
      const k = this.frames[i]!;
      const l = 6 * i;
      const L = this.local;
      transformPointAt(this.world, l, this.fk.frames, TF * k, L, l);
      transformPointAt(this.world, l + 3, this.fk.frames, TF * k, L, l + 3);
    }
    this.boundsValid = false;
  }

  /** The bounding spheres for the last update (computed once, when a self-pair loop first needs them). */
  private refreshBounds(): void {
    if (this.boundsValid) return;
    this.boundsValid = true;
    const w = this.world;
    const b = this.bounds;
    for (let i = 0; i < this.count; i++) {
      const l = 6 * i;
      const dx = w[l + 3]! - w[l]!,
        dy = w[l + 4]! - w[l + 1]!,
        dz = w[l + 5]! - w[l + 2]!;
      b[4 * i] = w[l]! + 0.5 * dx;
      b[4 * i + 1] = w[l + 1]! + 0.5 * dy;
      b[4 * i + 2] = w[l + 2]! + 0.5 * dz;
      b[4 * i + 3] = 0.5 * Math.sqrt(dx * dx + dy * dy + dz * dz) + this.radii[i]!;
    }
  }

  /**
   * A lower bound of self pair p's surface distance (pairDistance) from the bounding spheres, less
   * PAIR_BOUND_SLACK for rounding: a pair whose bound is not below the smallest distance found so
   * far cannot give a smaller one. NaN (a NaN configuration) compares false, so nothing is skipped.
   */
  pairLowerBound(p: number): number {
    this.refreshBounds();
    const b = this.bounds;
    const i = 4 * this.selfPairs[2 * p]!,
      j = 4 * this.selfPairs[2 * p + 1]!;
    const dx = b[i]! - b[j]!,
      dy = b[i + 1]! - b[j + 1]!,
      dz = b[i + 2]! - b[j + 2]!;
    return Math.sqrt(dx * dx + dy * dy + dz * dz) - b[i + 3]! - b[j + 3]! - PAIR_BOUND_SLACK;
  }

  /**
   * pairLowerBound(p) ≥ best, without the square root: the centres at least best + both bounding
   * radii + PAIR_BOUND_SLACK apart. False for a NaN best or NaN bounds.
   */
  pairCannotBeBelow(p: number, best: number): boolean {
    const b = this.bounds;
    const i = 4 * this.selfPairs[2 * p]!,
      j = 4 * this.selfPairs[2 * p + 1]!;
    const reach = best + b[i + 3]! + b[j + 3]! + PAIR_BOUND_SLACK;
    if (!(reach > 0)) return reach <= 0; // NaN: false; a non-positive reach is exceeded by any distance
    const dx = b[i]! - b[j]!,
      dy = b[i + 1]! - b[j + 1]!,
      dz = b[i + 2]! - b[j + 2]!;
    return dx * dx + dy * dy + dz * dz >= reach * reach;
  }

  /** Call before a loop of pairCannotBeBelow after an update. */
  prepareBroadPhase(): void {
    this.refreshBounds();
  }

  /** Surface distance of self-collision pair p (index into selfPairs / 2). */
  pairDistance(p: number): number {
    const i = this.selfPairs[2 * p]!,
      j = this.selfPairs[2 * p + 1]!;
    const w = this.world;
    return capsuleCapsuleDistance(w, 6 * i, 6 * i + 3, this.radii[i]!, w, 6 * j, 6 * j + 3, this.radii[j]!);
  }

  get pairCount(): number {
    return this.selfPairs.length / 2;
  }

  /** Number of checked capsule pairs closer than `margin` (0 = touching or overlapping). Call update first. */
  selfCollisionCount(margin = 0): number {
    let n = 0;
    for (let p = 0; p < this.pairCount; p++) if (this.pairDistance(p) < margin) n++;
    return n;
  }

  /**
   * Self-collision clearance: the smallest surface distance over the checked pairs (m; negative =
   * penetration depth; Infinity when there are no pairs). A NaN pair distance (a NaN joint position)
   * wins, so a bad configuration never reads as clear. `nearestPair` is left at the pair that gave
   * it (-1 when none). Call update first.
   */
  minSelfDistance(): number {
    let m = Infinity;
    this.nearestPair = -1;
    this.refreshBounds();
    for (let p = 0; p < this.pairCount; p++) {
      if (this.pairCannotBeBelow(p, m)) continue;
      const d = this.pairDistance(p);
      if (d < m || d !== d) {
        m = d;
        this.nearestPair = p;
        if (d !== d) break;
      }
    }
    return m;
  }

  /** Pair index (into selfPairs / 2) of the last minSelfDistance, or -1. */
  nearestPair = -1;

  /** Capsule names of self pair p, for reports ("link2#0–hand#1"). */
  pairName(p: number): string {
    const caps = this.spec.capsules;
    return `${caps[this.selfPairs[2 * p]!]?.name ?? '?'}–${caps[this.selfPairs[2 * p + 1]!]?.name ?? '?'}`;
  }
}
