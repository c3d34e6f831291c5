/**
 * Distances between capsules (segments with a radius) and simple obstacles. Points are triples in a
 * Float64Array at an offset; nothing allocates. Signed: negative means penetration depth.
 */

const EPS = 1e-24;

function clamp01(x: number): number {
  return x < 0 ? 0 : x > 1 ? 1 : x;
}

/**
 * Squared distance between segments p1–q1 and p2–q2 (Ericson, Real-Time Collision Detection §5.1.9,
 * "ClosestPtSegmentSegment"), robust to degenerate (zero-length) segments. The closest points are
 * p1 + s·(q1 − p1) and p2 + t·(q2 − p2); `st` (optional) receives [s, t].
 */
export function segmentSegmentDistanceSq(
  a: Float64Array,
  p1: number,
  q1: number,
  b: Float64Array,
  p2: number,
  q2: number,
  st: Float64Array = ST_SCRATCH,
): number {
  const d1x = a[q1]! - a[p1]!,
    d1y = a[q1 + 1]! - a[p1 + 1]!,
    d1z = a[q1 + 2]! - a[p1 + 2]!;
  const d2x = b[q2]! - b[p2]!,
    d2y = b[q2 + 1]! - b[p2 + 1]!,
    d2z = b[q2 + 2]! - b[p2 + 2]!;
  const rx = a[p1]! - b[p2]!,
    ry = a[p1 + 1]! - b[p2 + 1]!,
    rz = a[p1 + 2]! - b[p2 + 2]!;
  const aa = d1x * d1x + d1y * d1y + d1z * d1z;
  const e = d2x * d2x + d2y * d2y + d2z * d2z;
  const f = d2x * rx + d2y * ry + d2z * rz;
  let s: number;
  let t: number;
  if (aa <= EPS && e <= EPS) {
    s = 0;
    t = 0;
  } else if (aa <= EPS) {
    s = 0;
    t = clamp01(f / e);
  } else {
    const c = d1x * rx + d1y * ry + d1z * rz;
    if (e <= EPS) {
      t = 0;
      s = clamp01(-c / aa);
    } else {
      const bb = d1x * d2x + d1y * d2y + d1z * d2z;
      const denom = aa * e - bb * bb;
      if (denom <= 1e-12 * aa * e) return nearlyParallelDistanceSq(a, p1, q1, b, p2, q2, st);
      s = clamp01((bb * f - c * e) / denom);
      t = (bb * s + f) / e;
      if (t < 0) {
        t = 0;
        s = clamp01(-c / aa);
      } else if (t > 1) {
        t = 1;
        s = clamp01((bb - c) / aa);
      }
    }
  }
  st[0] = s;
  st[1] = t;
  const dx = rx + d1x * s - d2x * t;
  const dy = ry + d1y * s - d2y * t;
  const dz = rz + d1z * s - d2z * t;
  return dx * dx + dy * dy + dz * dz;
}

const ST_SCRATCH = new Float64Array(2);

/**
 * (Nearly) parallel segments: the interior critical point is ill-conditioned, but the minimum over
 * the boundary of [0,1]² — an endpoint of one segment against the other segment — is exact for
 * parallel segments and within length·sin(angle) otherwise.
 */
function nearlyParallelDistanceSq(
  a: Float64Array,
  p1: number,
  q1: number,
  b: Float64Array,
  p2: number,
  q2: number,
  st: Float64Array,
): number {
  let s = 0;
  let t = pointSegmentParameter(b, p2, q2, a[p1]!, a[p1 + 1]!, a[p1 + 2]!);
  let best = segmentPointDistanceSqAt(b, p2, q2, t, a[p1]!, a[p1 + 1]!, a[p1 + 2]!);
  const t1 = pointSegmentParameter(b, p2, q2, a[q1]!, a[q1 + 1]!, a[q1 + 2]!);
  const d1 = segmentPointDistanceSqAt(b, p2, q2, t1, a[q1]!, a[q1 + 1]!, a[q1 + 2]!);
  if (d1 < best) {
    best = d1;
    s = 1;
    t = t1;
  }
  const s2 = pointSegmentParameter(a, p1, q1, b[p2]!, b[p2 + 1]!, b[p2 + 2]!);
  const d2 = segmentPointDistanceSqAt(a, p1, q1, s2, b[p2]!, b[p2 + 1]!, b[p2 + 2]!);
  if (d2 < best) {
    best = d2;
    s = s2;
    t = 0;
  }
  const s3 = pointSegmentParameter(a, p1, q1, b[q2]!, b[q2 + 1]!, b[q2 + 2]!);
  const d3 = segmentPointDistanceSqAt(a, p1, q1, s3, b[q2]!, b[q2 + 1]!, b[q2 + 2]!);
  if (d3 < best) {
    best = d3;
    s = s3;
    t = 1;
  }
  st[0] = s;
  st[1] = t;
  return best;
}

/** Parameter t ∈ [0, 1] of the point p + t·(q − p) of segment p–q in `a` closest to (x,y,z). */
export function pointSegmentParameter(a: Float64Array, p: number, q: number, x: number, y: number, z: number): number {
  const dx = a[q]! - a[p]!,
    dy = a[q + 1]! - a[p + 1]!,
    dz = a[q + 2]! - a[p + 2]!;
  const len2 = dx * dx + dy * dy + dz * dz;
  return len2 <= EPS ? 0 : clamp01(((x - a[p]!) * dx + (y - a[p + 1]!) * dy + (z - a[p + 2]!) * dz) / len2);
}

function segmentPointDistanceSqAt(
  a: Float64Array,
  p: number,
  q: number,
  t: number,
  x: number,
  y: number,
  z: number,
): number {
  const ex = a[p]! + t * (a[q]! - a[p]!) - x;
  const ey = a[p + 1]! + t * (a[q + 1]! - a[p + 1]!) - y;
  const ez = a[p + 2]! + t * (a[q + 2]! - a[p + 2]!) - z;
  return ex * ex + ey * ey + ez * ez;
}

/** Squared distance from point (x,y,z) to segment p–q in `a`. */
export function pointSegmentDistanceSq(a: Float64Array, p: number, q: number, x: number, y: number, z: number): number {
  return segmentPointDistanceSqAt(a, p, q, pointSegmentParameter(a, p, q, x, y, z), x, y, z);
}

/** Signed surface distance between two capsules. */
export function capsuleCapsuleDistance(
  a: Float64Array,
  p1: number,
  q1: number,
  r1: number,
  b: Float64Array,
  p2: number,
  q2: number,
  r2: number,
): number {
  return Math.sqrt(segmentSegmentDistanceSq(a, p1, q1, b, p2, q2)) - r1 - r2;
}

/** Signed distance from a capsule to the half-space boundary n·x = c (n unit; the free side is n·x > c). */
export function capsulePlaneDistance(
  a: Float64Array,
  p: number,
  q: number,
  r: number,
  nx: number,
  ny: number,
  nz: number,
  c: number,
): number {
  const dp = nx * a[p]! + ny * a[p + 1]! + nz * a[p + 2]!;
  const dq = nx * a[q]! + ny * a[q + 1]! + nz * a[q + 2]!;
  return Math.min(dp, dq) - c - r;
}

/** Signed distance between a capsule and a sphere (centre x,y,z, radius rs). */
export function capsuleSphereDistance(
  a: Float64Array,
  p: number,
  q: number,
  r: number,
  x: number,
  y: number,
  z: number,
  rs: number,
): number {
  return Math.sqrt(pointSegmentDistanceSq(a, p, q, x, y, z)) - r - rs;
}

/**
 * Inside distance of a capsule to the walls of an axis-aligned box `box` = [xmin,ymin,zmin,xmax,ymax,zmax]
 * at offset bo: the clearance to the nearest wall (negative once any part of the capsule leaves the
 * box). A segment's extreme along each axis is at an endpoint, so endpoints suffice.
 */
export function capsuleInsideBoxDistance(
  a: Float64Array,
  p: number,
  q: number,
  r: number,
  box: Float64Array,
  bo: number,
): number {
  let m = Infinity;
  for (let k = 0; k < 3; k++) {
    const lo = box[bo + k]!,
      hi = box[bo + 3 + k]!;
    const u = a[p + k]!,
      v = a[q + k]!;
    const d = Math.min(u - lo, v - lo, hi - u, hi - v);
    if (d < m) m = d;
  }
  return m - r;
}
