import type { CapsuleModel } from './capsules.js';
import { capsuleInsideBoxDistance, capsulePlaneDistance, capsuleSphereDistance } from './distance.js';

/**
 * What the arm must keep clear of, in the base frame:
 * planes: 4 numbers each (nx, ny, nz, c) — free side n·x > c, n unit (the table: (0,0,1, z_table));
 * spheres: 4 numbers each (x, y, z, r) — tracked objects;
 * box: null or 6 numbers (xmin, ymin, zmin, xmax, ymax, zmax) — the workspace the capsules stay inside.
 */
export interface ObstacleSet {
  planes: Float64Array;
  spheres: Float64Array;
  box: Float64Array | null;
}

export function emptyObstacles(): ObstacleSet {
  return { planes: new Float64Array(0), spheres: new Float64Array(0), box: null };
}

/** Which distance produced the minimum (for reports and the filter's diagnostics). */
export type ClearanceKind = 'self' | 'plane' | 'sphere' | 'box' | 'none';

export interface Clearance {
  distance: number;
  kind: ClearanceKind;
  /** Capsule index (first capsule for 'self'). */
  capsule: number;
  /** Other capsule, plane or sphere index; -1 for the box. */
  other: number;
}

/**
 * Minimum signed surface distance over self pairs (when `includeSelf`) and environment capsules vs
 * obstacles, written into `out` (no allocation). The model must have been `update`d.
 * A NaN distance (NaN configuration, an unrefreshed tracked sphere) wins: the clearance is NaN,
 * never Infinity, so every `h >= 0` check fails on it.
 */
export function minimumClearance(
  model: CapsuleModel,
  obstacles: ObstacleSet,
  includeSelf: boolean,
  out: Clearance,
): Clearance {
  out.distance = Infinity;
  out.kind = 'none';
  out.capsule = -1;
  out.other = -1;
  if (includeSelf) {
    model.prepareBroadPhase();
    for (let p = 0; p < model.pairCount; p++) {
      // broad phase: skip a pair whose bounding spheres are no closer than the minimum so far
      if (model.pairCannotBeBelow(p, out.distance)) continue;
      const d = model.pairDistance(p);
      if (d < out.distance || d !== d) {
        out.distance = d;
        out.kind = 'self';
        out.capsule = model.selfPairs[2 * p]!;
        out.other = model.selfPairs[2 * p + 1]!;
      }
    }
  }
  const w = model.world;
  const { planes, spheres, box } = obstacles;
  for (let i = 0; i < model.count; i++) {
    if (!model.environment[i]) continue;
    const p = 6 * i,
      q = 6 * i + 3,
      r = model.radii[i]!;
    for (let k = 0; k + 3 < planes.length; k += 4) {
      const d = capsulePlaneDistance(w, p, q, r, planes[k]!, planes[k + 1]!, planes[k + 2]!, planes[k + 3]!);
      if (d < out.distance || d !== d) set(out, d, 'plane', i, k / 4);
    }
    for (let k = 0; k + 3 < spheres.length; k += 4) {
      const d = capsuleSphereDistance(w, p, q, r, spheres[k]!, spheres[k + 1]!, spheres[k + 2]!, spheres[k + 3]!);
      if (d < out.distance || d !== d) set(out, d, 'sphere', i, k / 4);
    }
    if (box) {
      const d = capsuleInsideBoxDistance(w, p, q, r, box, 0);
      if (d < out.distance || d !== d) set(out, d, 'box', i, -1);
    }
  }
  return out;
}

function set(out: Clearance, d: number, kind: ClearanceKind, capsule: number, other: number): void {
  out.distance = d;
  out.kind = kind;
  out.capsule = capsule;
  out.other = other;
}
