import type { CapsuleModel } from './capsules.js';
import { pointSegmentParameter, segmentSegmentDistanceSq } from './distance.js';
import type { Clearance, ObstacleSet } from './obstacles.js';
import { length3 } from './transform.js';

/**
 * Analytic ∂d/∂q of the clearance term that {@link minimumClearance} reported as active, at the
 * model's current configuration. By the envelope theorem the closest points may be held fixed on
 * their links, so the gradient is n̂·J(x): the unit separation direction times the positional
 * Jacobian of the closest robot point (for self pairs, the difference of both points' Jacobians).
 * At a switch between active terms this is the active term's gradient — one element of the
 * generalised gradient of the min. No allocation.
 */
export class ClearanceGradient {
  private readonly jac: Float64Array;
  private readonly jacOther: Float64Array;
  private readonly st = new Float64Array(2);
  private readonly point = new Float64Array(3);

  constructor(readonly model: CapsuleModel) {
    this.jac = new Float64Array(3 * model.fk.joints);
    this.jacOther = new Float64Array(3 * model.fk.joints);
  }

  /** grad[offset .. offset + joints) ← ∂(active.distance)/∂q. `obstacles` is the set `active` came from. */
  compute(obstacles: ObstacleSet, active: Clearance, grad: Float64Array, offset: number): void {
    const n = this.model.fk.joints;
    const i = active.capsule;
    const k = active.other;
    switch (active.kind) {
      case 'sphere': {
        const s = obstacles.spheres;
        this.towardPoint(i, s, 4 * k, grad, offset);
        return;
      }
      case 'plane': {
        const pl = obstacles.planes;
        const nx = pl[4 * k]!,
          ny = pl[4 * k + 1]!,
          nz = pl[4 * k + 2]!;
        const w = this.model.world;
        const o = 6 * i;
        const onP = nx * w[o]! + ny * w[o + 1]! + nz * w[o + 2]! <= nx * w[o + 3]! + ny * w[o + 4]! + nz * w[o + 5]!;
        this.endpointDirection(i, onP ? o : o + 3, nx, ny, nz, grad, offset);
        return;
      }
      case 'box': {
        if (obstacles.box) this.boxWall(i, obstacles.box, grad, offset);
        else grad.fill(0, offset, offset + n);
        return;
      }
      case 'self': {
        this.betweenCapsules(i, k, grad, offset);
        return;
      }
      case 'none':
        grad.fill(0, offset, offset + n);
    }
  }

  /** Capsule i vs the point c = src[so..so+2]: n̂ = (x − c)/|x − c| at the closest point x of i's segment. */
  private towardPoint(i: number, src: Float64Array, so: number, grad: Float64Array, offset: number): void {
    const cx = src[so]!,
      cy = src[so + 1]!,
      cz = src[so + 2]!;
    const w = this.model.world;
    const o = 6 * i;
    const t = pointSegmentParameter(w, o, o + 3, cx, cy, cz);
    const x = w[o]! + t * (w[o + 3]! - w[o]!);
    const y = w[o + 1]! + t * (w[o + 4]! - w[o + 1]!);
    const z = w[o + 2]! + t * (w[o + 5]! - w[o + 2]!);
    const len = length3(x - cx, y - cy, z - cz);
    if (!(len > 0)) {
      grad.fill(0, offset, offset + this.model.fk.joints);
      return;
    }
    this.model.fk.pointJacobian(this.jac, this.model.frames[i]!, x, y, z);
    this.project(this.jac, (x - cx) / len, (y - cy) / len, (z - cz) / len, grad, offset);
  }

  /** d/dq of (direction · endpoint at world offset e of capsule i). */
  private endpointDirection(
    i: number,
    e: number,
    dx: number,
    dy: number,
    dz: number,
    grad: Float64Array,
    offset: number,
  ): void {
    const w = this.model.world;
    this.model.fk.pointJacobian(this.jac, this.model.frames[i]!, w[e]!, w[e + 1]!, w[e + 2]!);
    this.project(this.jac, dx, dy, dz, grad, offset);
  }

  /** The wall and endpoint that capsuleInsideBoxDistance found nearest (same scan order and ties). */
  private boxWall(i: number, box: Float64Array, grad: Float64Array, offset: number): void {
    const w = this.model.world;
    const p = 6 * i,
      q = p + 3;
    let best = Infinity;
    let axis = 0;
    let end = p;
    let sign = 1;
    for (let a = 0; a < 3; a++) {
      const lo = box[a]!,
        hi = box[3 + a]!;
      const u = w[p + a]!,
        v = w[q + a]!;
      for (let c = 0; c < 4; c++) {
        const d = c === 0 ? u - lo : c === 1 ? v - lo : c === 2 ? hi - u : hi - v;
        if (d < best) {
          best = d;
          axis = a;
          end = c % 2 === 0 ? p : q;
          sign = c < 2 ? 1 : -1;
        }
      }
    }
    this.endpointDirection(i, end, axis === 0 ? sign : 0, axis === 1 ? sign : 0, axis === 2 ? sign : 0, grad, offset);
  }

  private betweenCapsules(i: number, j: number, grad: Float64Array, offset: number): void {
    const w = this.model.world;
    const n = this.model.fk.joints;
    const a = 6 * i,
      b = 6 * j;
    segmentSegmentDistanceSq(w, a, a + 3, w, b, b + 3, this.st);
    const s = this.st[0]!,
      t = this.st[1]!;
    const pt = this.point;
    for (let c = 0; c < 3; c++) pt[c] = w[a + c]! + s * (w[a + 3 + c]! - w[a + c]!);
    const x2 = w[b]! + t * (w[b + 3]! - w[b]!);
    const y2 = w[b + 1]! + t * (w[b + 4]! - w[b + 1]!);
    const z2 = w[b + 2]! + t * (w[b + 5]! - w[b + 2]!);
    const dx = pt[0]! - x2,
      dy = pt[1]! - y2,
      dz = pt[2]! - z2;
    const len = length3(dx, dy, dz);
    if (!(len > 0)) {
      grad.fill(0, offset, offset + n);
      return;
    }
    const fk = this.model.fk;
    fk.pointJacobian(this.jac, this.model.frames[i]!, pt[0]!, pt[1]!, pt[2]!);
    fk.pointJacobian(this.jacOther, this.model.frames[j]!, x2, y2, z2);
    const J = this.jac,
      K = this.jacOther;
    for (let c = 0; c < 3 * n; c++) J[c] = J[c]! - K[c]!;
    this.project(J, dx / len, dy / len, dz / len, grad, offset);
  }

  private project(J: Float64Array, dx: number, dy: number, dz: number, grad: Float64Array, offset: number): void {
    const n = this.model.fk.joints;
    for (let j = 0; j < n; j++) grad[offset + j] = dx * J[j]! + dy * J[n + j]! + dz * J[2 * n + j]!;
  }
}
