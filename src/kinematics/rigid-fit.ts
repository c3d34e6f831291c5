/**
 * Least-squares rigid transform between paired 3-D points (the mocap frame calibration of
 * hardware.md): find R, t minimising Σ |R·a_i + t − b_i|² with R a proper rotation. Horn's
 * closed-form quaternion method (J. Opt. Soc. Am. A 4(4), 1987): the optimal unit quaternion is the
 * eigenvector of the largest eigenvalue of a 4×4 symmetric matrix built from the cross-covariance of
 * the centred point sets (eigenvectors by cyclic Jacobi rotations). Pure: numbers in, numbers out.
 *
 * The fit is refused (a typed reason, never a throw) when the points cannot determine a rotation:
 * fewer than three pairs, or either set (nearly) on one line — its second principal spread below
 * `minSpread`.
 */

export interface RigidFitOptions {
  /** Minimum RMS spread of each point set across its main line (m). Default 0.02. */
  minSpread?: number;
}

export interface RigidFit {
  /** Row-major 3×3 rotation: b ≈ R·a + t. */
  rotation: Float64Array;
  translation: [number, number, number];
  /** x, y, z, roll, pitch, yaw with R = Rz(yaw)·Ry(pitch)·Rx(roll) (the URDF / tracking_frame_in_base convention). */
  xyzRpy: [number, number, number, number, number, number];
  /** |R·a_i + t − b_i| per pair (m). */
  residuals: number[];
  rms: number;
  max: number;
  /** The RMS spreads of the `a` set along its principal axes, largest first (m): how well the points span space. */
  spreadA: [number, number, number];
  spreadB: [number, number, number];
}

export type RigidFitResult = { ok: true; fit: RigidFit } | { ok: false; reason: string };

/** Eigen-decomposition of a symmetric n×n matrix (row-major) by cyclic Jacobi rotations: values and column eigenvectors. */
export function symmetricEigen(matrix: ArrayLike<number>, n: number): { values: Float64Array; vectors: Float64Array } {
  const a = Float64Array.from(matrix);
  const v = new Float64Array(n * n);
  for (let i = 0; i < n; i++) v[i * n + i] = 1;
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += a[p * n + q]! ** 2;
    if (off < 1e-30) break;
    for (let p = 0; p < n; p++) {
      for (let q = p + 1; q < n; q++) {
        const apq = a[p * n + q]!;
        if (Math.abs(apq) < 1e-300) continue;
        const theta = (a[q * n + q]! - a[p * n + p]!) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < n; k++) {
          // A ← Jᵀ A J, applied as column then row rotations
          const akp = a[k * n + p]!,
            akq = a[k * n + q]!;
          a[k * n + p] = c * akp - s * akq;
          a[k * n + q] = s * akp + c * akq;
        }
        for (let k = 0; k < n; k++) {
          const apk = a[p * n + k]!,
            aqk = a[q * n + k]!;
          a[p * n + k] = c * apk - s * aqk;
          a[q * n + k] = s * apk + c * aqk;
        }
        for (let k = 0; k < n; k++) {
          const vkp = v[k * n + p]!,
            vkq = v[k * n + q]!;
          v[k * n + p] = c * vkp - s * vkq;
          v[k * n + q] = s * vkp + c * vkq;
        }
      }
    }
  }
  const values = new Float64Array(n);
  for (let i = 0; i < n; i++) values[i] = a[i * n + i]!;
  return { values, vectors: v };
}

type Point = readonly [number, number, number];

function centroid(points: readonly Point[]): [number, number, number] {
  const c: [number, number, number] = [0, 0, 0];
  for (const p of points) for (let k = 0; k < 3; k++) c[k] = c[k]! + p[k]! / points.length;
  return c;
}

/** RMS spread along the principal axes, largest first. */
function spreads(points: readonly Point[], c: readonly number[]): [number, number, number] {
  const s = new Float64Array(9);
  for (const p of points)
    for (let i = 0; i < 3; i++)
      for (let j = 0; j < 3; j++) s[i * 3 + j] = s[i * 3 + j]! + ((p[i]! - c[i]!) * (p[j]! - c[j]!)) / points.length;
  const values = [...symmetricEigen(s, 3).values].map((x) => Math.sqrt(Math.max(0, x))).sort((x, y) => y - x);
  return [values[0]!, values[1]!, values[2]!];
}

/** Fit b ≈ R·a + t over the pairs (a_i, b_i). */
export function fitRigidTransform(
  a: readonly Point[],
  b: readonly Point[],
  options: RigidFitOptions = {},
): RigidFitResult {
  if (a.length !== b.length)
    return { ok: false, reason: `${a.length} points against ${b.length}: the sets must be paired` };
  if (a.length < 3)
    return {
      ok: false,
      reason: `${a.length} point pair(s): at least 3, not on one line, are needed to fix a rotation`,
    };
  for (const p of [...a, ...b])
    if (!p.every(Number.isFinite)) return { ok: false, reason: 'a coordinate is not a finite number' };
  const minSpread = options.minSpread ?? 0.02;
  const ca = centroid(a);
  const cb = centroid(b);
  const spreadA = spreads(a, ca);
  const spreadB = spreads(b, cb);
  for (const [name, s] of [
    ['first', spreadA],
    ['second', spreadB],
  ] as const) {
    if (s[1] < minSpread) {
      return {
        ok: false,
        reason: `the ${name} point set is (nearly) on one line: spread across it ${(s[1] * 1000).toFixed(1)} mm < ${(minSpread * 1000).toFixed(0)} mm — spread the points over the workspace, not along one line`,
      };
    }
  }
  // Cross-covariance S = Σ (a_i − ca)(b_i − cb)ᵀ
  const S = new Float64Array(9);
  for (let i = 0; i < a.length; i++) {
    for (let r = 0; r < 3; r++)
      for (let c = 0; c < 3; c++) S[r * 3 + c] = S[r * 3 + c]! + (a[i]![r]! - ca[r]!) * (b[i]![c]! - cb[c]!);
  }
  const [sxx, sxy, sxz, syx, syy, syz, szx, szy, szz] = S as unknown as number[];
  // Horn's N: the quaternion maximising Σ b'·(q a' q*) is its top eigenvector.
  const N = [
    sxx! + syy! + szz!,
    syz! - szy!,
    szx! - sxz!,
    sxy! - syx!,
    syz! - szy!,
    sxx! - syy! - szz!,
    sxy! + syx!,
    szx! + sxz!,
    szx! - sxz!,
    sxy! + syx!,
    -sxx! + syy! - szz!,
    syz! + szy!,
    sxy! - syx!,
    szx! + sxz!,
    syz! + szy!,
    -sxx! - syy! + szz!,
  ];
  const { values, vectors } = symmetricEigen(N, 4);
  let best = 0;
  for (let i = 1; i < 4; i++) if (values[i]! > values[best]!) best = i;
  let [w, x, y, z] = [vectors[best]!, vectors[4 + best]!, vectors[8 + best]!, vectors[12 + best]!];
  const norm = Math.hypot(w, x, y, z);
  [w, x, y, z] = [w / norm, x / norm, y / norm, z / norm];
  const R = Float64Array.of(
    w * w + x * x - y * y - z * z,
    2 * (x * y - w * z),
    2 * (x * z + w * y),
    2 * (x * y + w * z),
    w * w - x * x + y * y - z * z,
    2 * (y * z - w * x),
    2 * (x * z - w * y),
    2 * (y * z + w * x),
    w * w - x * x - y * y + z * z,
  );
  const apply = (p: readonly number[], k: number) => R[k * 3]! * p[0]! + R[k * 3 + 1]! * p[1]! + R[k * 3 + 2]! * p[2]!;
  const t: [number, number, number] = [cb[0] - apply(ca, 0), cb[1] - apply(ca, 1), cb[2] - apply(ca, 2)];
  const residuals = a.map((p, i) =>
    Math.hypot(apply(p, 0) + t[0] - b[i]![0], apply(p, 1) + t[1] - b[i]![1], apply(p, 2) + t[2] - b[i]![2]),
  );
  const rms = Math.sqrt(residuals.reduce((s, r) => s + r * r, 0) / residuals.length);
  const max = Math.max(...residuals);
  const pitch = Math.atan2(-R[6]!, Math.hypot(R[0]!, R[3]!));
  const roll = Math.atan2(R[7]!, R[8]!);
  const yaw = Math.atan2(R[3]!, R[0]!);
  return {
    ok: true,
    fit: {
      rotation: R,
      translation: t,
      xyzRpy: [t[0], t[1], t[2], roll, pitch, yaw],
      residuals,
      rms,
      max,
      spreadA,
      spreadB,
    },
  };
}
