import type { Quaternion, Vector3 } from '../../src/mcap/messages.js';

/** The body z axis of a unit quaternion (third column of its rotation matrix), written into `out`. */
export function bodyZ(q: Quaternion, out: Float64Array): Float64Array {
  const n = Math.hypot(q.x, q.y, q.z, q.w) || 1;
  const x = q.x / n;
  const y = q.y / n;
  const z = q.z / n;
  const w = q.w / n;
  out[0] = 2 * (x * z + w * y);
  out[1] = 2 * (y * z - w * x);
  out[2] = 1 - 2 * (x * x + y * y);
  return out;
}

/** Angle in degrees between two unit vectors (clamped so rounding never yields NaN). */
export function angleDeg(a: Float64Array, b: Float64Array): number {
  const dot = (a[0] ?? 0) * (b[0] ?? 0) + (a[1] ?? 0) * (b[1] ?? 0) + (a[2] ?? 0) * (b[2] ?? 0);
  return (Math.acos(Math.max(-1, Math.min(1, dot))) * 180) / Math.PI;
}

export function distance(a: Vector3, b: Vector3): number {
  return Math.hypot(a.x - b.x, a.y - b.y, a.z - b.z);
}

export function finitePose(p: Vector3, q?: Quaternion): boolean {
  const ok = Number.isFinite(p.x) && Number.isFinite(p.y) && Number.isFinite(p.z);
  return q ? ok && Number.isFinite(q.x) && Number.isFinite(q.y) && Number.isFinite(q.z) && Number.isFinite(q.w) : ok;
}
