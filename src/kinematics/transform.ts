/**
 * Rigid transforms as 12 float64s: a row-major 3×3 rotation followed by the translation,
 * [r00 r01 r02 r10 r11 r12 r20 r21 r22 px py pz]. Functions write into `out` at an offset so a
 * whole kinematic chain lives in one preallocated Float64Array.
 */
export const TF = 12;

export function setIdentity(out: Float64Array, o = 0): void {
  out[o] = 1;
  out[o + 1] = 0;
  out[o + 2] = 0;
  out[o + 3] = 0;
  out[o + 4] = 1;
  out[o + 5] = 0;
  out[o + 6] = 0;
  out[o + 7] = 0;
  out[o + 8] = 1;
  out[o + 9] = 0;
  out[o + 10] = 0;
  out[o + 11] = 0;
}

/** URDF origin: R = Rz(yaw)·Ry(pitch)·Rx(roll), then translation xyz. */
export function setFromXyzRpy(
  out: Float64Array,
  o: number,
  x: number,
  y: number,
  z: number,
  roll: number,
  pitch: number,
  yaw: number,
): void {
  const cr = Math.cos(roll),
    sr = Math.sin(roll);
  const cp = Math.cos(pitch),
    sp = Math.sin(pitch);
  const cy = Math.cos(yaw),
    sy = Math.sin(yaw);
  out[o] = cy * cp;
  out[o + 1] = cy * sp * sr - sy * cr;
  out[o + 2] = cy * sp * cr + sy * sr;
  out[o + 3] = sy * cp;
  out[o + 4] = sy * sp * sr + cy * cr;
  out[o + 5] = sy * sp * cr - cy * sr;
  out[o + 6] = -sp;
  out[o + 7] = cp * sr;
  out[o + 8] = cp * cr;
  out[o + 9] = x;
  out[o + 10] = y;
  out[o + 11] = z;
}

/**
 * out = a · b (compose: b expressed in a's frame). `out` may not alias `a` or `b` at the same offset.
 */
export function multiply(
  out: Float64Array,
  oo: number,
  a: Float64Array,
  ao: number,
  b: Float64Array,
  bo: number,
): void {
  const a00 = a[ao]!,
    a01 = a[ao + 1]!,
    a02 = a[ao + 2]!;
  const a10 = a[ao + 3]!,
    a11 = a[ao + 4]!,
    a12 = a[ao + 5]!;
  const a20 = a[ao + 6]!,
    a21 = a[ao + 7]!,
    a22 = a[ao + 8]!;
  const b00 = b[bo]!,
    b01 = b[bo + 1]!,
    b02 = b[bo + 2]!;
  const b10 = b[bo + 3]!,
    b11 = b[bo + 4]!,
    b12 = b[bo + 5]!;
  const b20 = b[bo + 6]!,
    b21 = b[bo + 7]!,
    b22 = b[bo + 8]!;
  const bx = b[bo + 9]!,
    by = b[bo + 10]!,
    bz = b[bo + 11]!;
  out[oo] = a00 * b00 + a01 * b10 + a02 * b20;
  out[oo + 1] = a00 * b01 + a01 * b11 + a02 * b21;
  out[oo + 2] = a00 * b02 + a01 * b12 + a02 * b22;
  out[oo + 3] = a10 * b00 + a11 * b10 + a12 * b20;
  out[oo + 4] = a10 * b01 + a11 * b11 + a12 * b21;
  out[oo + 5] = a10 * b02 + a11 * b12 + a12 * b22;
  out[oo + 6] = a20 * b00 + a21 * b10 + a22 * b20;
  out[oo + 7] = a20 * b01 + a21 * b11 + a22 * b21;
  out[oo + 8] = a20 * b02 + a21 * b12 + a22 * b22;
  out[oo + 9] = a00 * bx + a01 * by + a02 * bz + a[ao + 9]!;
  out[oo + 10] = a10 * bx + a11 * by + a12 * bz + a[ao + 10]!;
  out[oo + 11] = a20 * bx + a21 * by + a22 * bz + a[ao + 11]!;
}

/**
 * out = a · Rz(θ) with θ = angles[ai] (a revolute joint about its local +z). The angle is read from
 * an array rather than passed: a number argument to a call V8 does not inline is boxed into a new
 * heap object on every call — one per joint per forward kinematics, the bulk of the chunk filter's
 * garbage, which the collector then reclaimed inside later filter calls.
 */
export function multiplyRotZ(
  out: Float64Array,
  oo: number,
  a: Float64Array,
  ao: number,
  angles: Float64Array,
  ai: number,
): void {
  const theta = angles[ai]!;
  const c = Math.cos(theta),
    s = Math.sin(theta);
  for (let r = 0; r < 3; r++) {
    const x = a[ao + 3 * r]!,
      y = a[ao + 3 * r + 1]!;
    out[oo + 3 * r] = x * c + y * s;
    out[oo + 3 * r + 1] = -x * s + y * c;
    out[oo + 3 * r + 2] = a[ao + 3 * r + 2]!;
  }
  out[oo + 9] = a[ao + 9]!;
  out[oo + 10] = a[ao + 10]!;
  out[oo + 11] = a[ao + 11]!;
}

/** out[oo..oo+2] = T · p for a point p given as three numbers. */
export function transformPoint(
  out: Float64Array,
  oo: number,
  t: Float64Array,
  to: number,
  px: number,
  py: number,
  pz: number,
): void {
  out[oo] = t[to]! * px + t[to + 1]! * py + t[to + 2]! * pz + t[to + 9]!;
  out[oo + 1] = t[to + 3]! * px + t[to + 4]! * py + t[to + 5]! * pz + t[to + 10]!;
  out[oo + 2] = t[to + 6]! * px + t[to + 7]! * py + t[to + 8]! * pz + t[to + 11]!;
}

/**
 * transformPoint with the point read from p[po..po+2]. Doubles passed as arguments to a call that
 * V8 does not inline are boxed (a heap allocation each), so hot loops pass arrays and offsets.
 */
export function transformPointAt(
  out: Float64Array,
  oo: number,
  t: Float64Array,
  to: number,
  p: Float64Array,
  po: number,
): void {
  const px = p[po]!,
    py = p[po + 1]!,
    pz = p[po + 2]!;
  out[oo] = t[to]! * px + t[to + 1]! * py + t[to + 2]! * pz + t[to + 9]!;
  out[oo + 1] = t[to + 3]! * px + t[to + 4]! * py + t[to + 5]! * pz + t[to + 10]!;
  out[oo + 2] = t[to + 6]! * px + t[to + 7]! * py + t[to + 8]! * pz + t[to + 11]!;
}

/**
 * Euclidean length of (x, y, z). Math.hypot with three arguments allocates on V8 (about 100 B per
 * call measured in the chunk filter); its overflow guard is moot for lengths in metres.
 */
export function length3(x: number, y: number, z: number): number {
  return Math.sqrt(x * x + y * y + z * z);
}
