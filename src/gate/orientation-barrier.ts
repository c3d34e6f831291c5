/**
 * The held object's tilt as a CBF constraint on the end effector (design §6; issue 15): while the
 * gripper holds an object, a tool-fixed direction b(q) = R(q)·v (by default the tool frame's
 * z-axis; after `captureReference`, the tool direction that was world-vertical at the grasp, or
 * the one along the held object's measured axis there — the object's axis predicted from q) must
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
  readonly pairs: number = 1;
  /** Reference direction a_ref (unit, base frame). */
  readonly reference = new Float64Array([0, 0, 1]);
  /** The constrained direction v in the tool frame (unit). */
  readonly local = new Float64Array([0, 0, 1]);
  /** True while an object is held; false makes the pair inactive. */
  enabled = false;
  protected cosMax: number;

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
   *
   * `held`: the held object's axis as measured at q (base frame, any length), when the object sits
   * tilted in the fingers. The tool direction that points along it is fixed instead (the object
   * turns with the tool), so b(q) predicts the object's axis at any pose and the pair keeps the
   * OBJECT within θ_max of `up` — at q itself b·up is the measured tilt, not 0.
   */
  captureReference(
    q: ArrayLike<number>,
    up: readonly [number, number, number] = [0, 0, 1],
    held?: ArrayLike<number>,
  ): void {
    this.fk.compute(q);
    const o = this.fk.offset(this.frame);
    const F = this.fk.frames;
    const n = Math.hypot(up[0], up[1], up[2]);
    for (let i = 0; i < 3; i++) this.reference[i] = up[i]! / n;
    const a = held ?? this.reference;
    const m = held ? Math.hypot(a[0]!, a[1]!, a[2]!) : 1;
    // v = Rᵀ·a / |a| (R row-major: column c of R is the frame's axis c)
    for (let c = 0; c < 3; c++) this.local[c] = (F[o + c]! * a[0]! + F[o + 3 + c]! * a[1]! + F[o + 6 + c]! * a[2]!) / m;
    // the held object's lean: its unit axis's part across the reference (zero when not measured)
    const r = this.reference;
    const d = held ? (a[0]! * r[0]! + a[1]! * r[1]! + a[2]! * r[2]!) / m : 1;
    for (let i = 0; i < 3; i++) this.lean[i] = held ? a[i]! / m - d * r[i]! : 0;
    this.enabled = true;
    this.referenceChanged();
  }

  /**
   * The held object's lean at the last captureReference given its measured axis (base frame,
   * across the reference; its length is the sine of the object's tilt); zero when not measured.
   */
  protected readonly lean = new Float64Array(3);

  /** Called after captureReference set a new reference (subclasses derive their frame from it). */
  protected referenceChanged(): void {}

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

  protected readonly b = new Float64Array(3);

  /** b := R·v at the last computed pose. */
  protected direction(): void {
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

/**
 * The held object's tilt cone as a polygon of `faces` half-spaces (issue 15): with e_1, e_2 an
 * orthonormal pair perpendicular to the reference a_ref and n_i = cos φ_i e_1 + sin φ_i e_2,
 * φ_i = 2πi/faces, one pair per face
 *
 *   h_i(q) = L · (s − b(q)·n_i),   s = sin θ_max · cos(π/faces),   ∂h_i/∂q_j = −L · (z_j × b)·n_i,
 *
 * so the horizontal part of b stays inside the regular polygon inscribed in the circle of radius
 * sin θ_max: every face met (and b on a_ref's side, which a continuous motion cannot leave without
 * crossing the polygon) means tilt ≤ θ_max; along a face normal the polygon allows
 * asin(s) ≈ θ_max·cos(π/faces). Why faces and not the cone's single pair L·(b·a_ref − cos θ_max):
 * the cone's gradient is L·sin(tilt) times a unit vector — zero at upright — so the chunk filter,
 * which linearises h at the nominal chunk and then at its own results, gets a linear model that
 * is flat near upright and overshoots far from it (measured on the SO-101 tilt_held chunk: three
 * rounds left the tool 22° over a 6.75° limit). Each face's h is linear in the horizontal tilt
 * (≈ L·(s − θ·cos(angle to n_i))), with a gradient that does not vanish at upright.
 * While nothing is held the pairs are the constant L·s (the upright value) with zero gradient.
 */
export class TiltPolygonBarrier extends OrientationBarrier {
  override readonly pairs: number;
  /** Face normals n_i (3 numbers each, base frame), from the reference. */
  private readonly normals: Float64Array;
  private s: number;

  constructor(
    fk: ForwardKinematics,
    frame: number,
    maxTilt: number,
    lever: number,
    readonly faces = 4,
  ) {
    super(fk, frame, maxTilt, lever);
    if (!(Number.isInteger(faces) && faces >= 3))
      throw new RangeError(`tilt polygon barrier: need an integer ≥ 3 faces, got ${faces}`);
    this.pairs = faces;
    this.normals = new Float64Array(3 * faces);
    this.s = Math.sin(maxTilt) * Math.cos(Math.PI / faces);
    this.referenceChanged();
  }

  override set maxTilt(theta: number) {
    if (!(theta > 0 && theta < Math.PI))
      throw new RangeError(`orientation barrier: θ_max must be in (0, π) rad, got ${theta}`);
    this.cosMax = Math.cos(theta);
    this.s = Math.sin(theta) * Math.cos(Math.PI / this.faces);
  }

  protected override referenceChanged(): void {
    // constructor order: the base class's field initialisers run before ours exist
    if (this.normals === undefined) return;
    const a = this.reference;
    // e1: the base axis least aligned with a, made perpendicular to it
    const ax = Math.abs(a[0]!),
      ay = Math.abs(a[1]!),
      az = Math.abs(a[2]!);
    const u = ax <= ay && ax <= az ? [1, 0, 0] : ay <= az ? [0, 1, 0] : [0, 0, 1];
    const d = u[0]! * a[0]! + u[1]! * a[1]! + u[2]! * a[2]!;
    const m = Math.hypot(u[0]! - d * a[0]!, u[1]! - d * a[1]!, u[2]! - d * a[2]!);
    this.facesFrom((u[0]! - d * a[0]!) / m, (u[1]! - d * a[1]!) / m, (u[2]! - d * a[2]!) / m);
    // A held object measured leaning (captureReference's `held`) that this polygon leaves less
    // than half its room (its lean along the nearest face normal past s/2): the polygon is turned
    // so a VERTEX points along the lean, where it reaches the full θ_max — along a face normal it
    // allows only asin(s), less than θ_max (9.5° of 13.5° with 4 faces), and an object gripped 11°
    // off upright along a normal would start outside. Vertices lie at φ_i + π/faces, so
    // e1 = l̂ turned by −π/faces about a: cos(π/faces)·l̂ − sin(π/faces)·(a × l̂). A smaller lean
    // keeps the fixed polygon (the orientation of a near-upright object's lean is noise).
    const l = this.lean;
    const ln = Math.hypot(l[0]!, l[1]!, l[2]!);
    let most = -Infinity;
    for (let i = 0; i < this.faces; i++) most = Math.max(most, this.dotNormal(i, l));
    if (!(ln > 0 && most > this.s / 2)) return;
    const lx = l[0]! / ln,
      ly = l[1]! / ln,
      lz = l[2]! / ln;
    const c = Math.cos(Math.PI / this.faces),
      sn = Math.sin(Math.PI / this.faces);
    this.facesFrom(
      c * lx - sn * (a[1]! * lz - a[2]! * ly),
      c * ly - sn * (a[2]! * lx - a[0]! * lz),
      c * lz - sn * (a[0]! * ly - a[1]! * lx),
    );
  }

  /** The face normals n_i = cos φ_i e1 + sin φ_i e2 from e1 (unit, across a), e2 = a × e1. */
  private facesFrom(e1x: number, e1y: number, e1z: number): void {
    const a = this.reference;
    const e2x = a[1]! * e1z - a[2]! * e1y,
      e2y = a[2]! * e1x - a[0]! * e1z,
      e2z = a[0]! * e1y - a[1]! * e1x;
    for (let i = 0; i < this.faces; i++) {
      const phi = (2 * Math.PI * i) / this.faces;
      const c = Math.cos(phi),
        sn = Math.sin(phi);
      this.normals[3 * i] = c * e1x + sn * e2x;
      this.normals[3 * i + 1] = c * e1y + sn * e2y;
      this.normals[3 * i + 2] = c * e1z + sn * e2z;
    }
  }

  /** v·n_i. */
  private dotNormal(i: number, v: ArrayLike<number>): number {
    const N = this.normals;
    return v[0]! * N[3 * i]! + v[1]! * N[3 * i + 1]! + v[2]! * N[3 * i + 2]!;
  }

  override h(q: Float64Array, out: Float64Array): number {
    const L = this.lever;
    if (!this.enabled) {
      out.fill(L * this.s, 0, this.faces);
      return L * this.s;
    }
    this.fk.compute(q);
    this.direction();
    let min = Infinity;
    for (let i = 0; i < this.faces; i++) {
      const v = L * (this.s - this.dot(i));
      out[i] = v;
      if (v < min || v !== v) min = v;
    }
    return min;
  }

  override gradient(q: Float64Array, hOut: Float64Array, grad: Float64Array): void {
    const n = this.joints;
    const L = this.lever;
    if (!this.enabled) {
      hOut.fill(L * this.s, 0, this.faces);
      grad.fill(0, 0, n * this.faces);
      return;
    }
    this.fk.compute(q);
    this.direction();
    const F = this.fk.frames;
    const bx = this.b[0]!,
      by = this.b[1]!,
      bz = this.b[2]!;
    const N = this.normals;
    for (let i = 0; i < this.faces; i++) hOut[i] = L * (this.s - this.dot(i));
    for (let j = 0; j < n; j++) {
      const moves = this.fk.jointMovesFrame(j, this.frame);
      const z = this.fk.offset(j + 1);
      const zx = F[z + 2]!,
        zy = F[z + 5]!,
        zz = F[z + 8]!;
      // db/dq_j = z_j × b
      const dx = zy * bz - zz * by,
        dy = zz * bx - zx * bz,
        dz = zx * by - zy * bx;
      for (let i = 0; i < this.faces; i++)
        grad[i * n + j] = moves ? -L * (dx * N[3 * i]! + dy * N[3 * i + 1]! + dz * N[3 * i + 2]!) : 0;
    }
  }

  /** b·n_i at the last computed pose. */
  private dot(i: number): number {
    return this.dotNormal(i, this.b);
  }
}
