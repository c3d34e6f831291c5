import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  capsuleInsideBoxDistance,
  capsulePlaneDistance,
  capsuleSphereDistance,
  pointSegmentDistanceSq,
  segmentSegmentDistanceSq,
  capsuleCapsuleDistance,
} from '../../src/kinematics/index.js';

const coord = fc.double({ min: -1, max: 1, noNaN: true });
const point = fc.tuple(coord, coord, coord);
const N = 200;

function lerp(a: number[], b: number[], s: number): number[] {
  return [a[0]! + (b[0]! - a[0]!) * s, a[1]! + (b[1]! - a[1]!) * s, a[2]! + (b[2]! - a[2]!) * s];
}
function dist(a: number[], b: number[]): number {
  return Math.hypot(a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!);
}
function len(a: number[], b: number[]): number {
  return dist(a, b);
}
/** Brute force: minimum over an N×N grid of points on both segments (an upper bound within the grid step). */
function bruteSegSeg(p1: number[], q1: number[], p2: number[], q2: number[]): number {
  let m = Infinity;
  for (let i = 0; i <= N; i++) {
    const a = lerp(p1, q1, i / N);
    for (let j = 0; j <= N; j++) m = Math.min(m, dist(a, lerp(p2, q2, j / N)));
  }
  return m;
}

describe('segment–segment distance', () => {
  it('agrees with a brute-force sampled minimum', () => {
    fc.assert(
      fc.property(point, point, point, point, (p1, q1, p2, q2) => {
        const buf = Float64Array.from([...p1, ...q1, ...p2, ...q2]);
        const exact = Math.sqrt(segmentSegmentDistanceSq(buf, 0, 3, buf, 6, 9));
        const brute = bruteSegSeg(p1, q1, p2, q2);
        expect(exact).toBeLessThanOrEqual(brute + 1e-9);
        expect(brute - exact).toBeLessThanOrEqual((len(p1, q1) + len(p2, q2)) / N + 1e-9);
      }),
      { numRuns: 60 },
    );
  });
  it('handles parallel, crossing and degenerate segments (hand-computed)', () => {
    const b = (...xs: number[]) => Float64Array.from(xs);
    // Parallel, offset 0.5 in y, overlapping in x.
    expect(
      Math.sqrt(
        segmentSegmentDistanceSq(
          b(0, 0, 0, 1, 0, 0, 0.5, 0.5, 0, 2, 0.5, 0),
          0,
          3,
          b(0, 0, 0, 1, 0, 0, 0.5, 0.5, 0, 2, 0.5, 0),
          6,
          9,
        ),
      ),
    ).toBeCloseTo(0.5, 12);
    // Skew lines crossing at distance 0.3 in z.
    const skew = b(-1, 0, 0, 1, 0, 0, 0, -1, 0.3, 0, 1, 0.3);
    expect(Math.sqrt(segmentSegmentDistanceSq(skew, 0, 3, skew, 6, 9))).toBeCloseTo(0.3, 12);
    // Nearly parallel (angle 1e-9 rad) and meeting at their far ends: distance 0, not the 1e-9 gap at the near ends.
    const meet = b(0, -1e-9, 0, -1, 0, 0, 0, 0, 0, -1, 0, 0);
    expect(Math.sqrt(segmentSegmentDistanceSq(meet, 0, 3, meet, 6, 9))).toBeLessThan(1e-15);
    // Two points.
    const pts = b(0, 0, 0, 0, 0, 0, 3, 4, 0, 3, 4, 0);
    expect(Math.sqrt(segmentSegmentDistanceSq(pts, 0, 3, pts, 6, 9))).toBeCloseTo(5, 12);
    // Capsules with radii 0.1 and 0.15 at 0.3 apart: surface distance 0.05.
    expect(capsuleCapsuleDistance(skew, 0, 3, 0.1, skew, 6, 9, 0.15)).toBeCloseTo(0.05, 12);
  });
});

describe('capsule vs plane, sphere and box', () => {
  it('point–segment and capsule–sphere agree with sampling', () => {
    fc.assert(
      fc.property(point, point, point, fc.double({ min: 0, max: 0.3, noNaN: true }), (p, q, c, r) => {
        const buf = Float64Array.from([...p, ...q]);
        let brute = Infinity;
        for (let i = 0; i <= 4 * N; i++) brute = Math.min(brute, dist(lerp(p, q, i / (4 * N)), c));
        const exact = Math.sqrt(pointSegmentDistanceSq(buf, 0, 3, c[0]!, c[1]!, c[2]!));
        expect(exact).toBeLessThanOrEqual(brute + 1e-9);
        expect(brute - exact).toBeLessThanOrEqual(len(p, q) / (4 * N) + 1e-9);
        expect(capsuleSphereDistance(buf, 0, 3, r, c[0]!, c[1]!, c[2]!, 0.05)).toBeCloseTo(exact - r - 0.05, 12);
      }),
      { numRuns: 200 },
    );
  });
  it('capsule–plane is the sampled minimum height above the plane minus the radius', () => {
    fc.assert(
      fc.property(point, point, point, coord, (p, q, n0, c) => {
        const nl = Math.hypot(...n0);
        fc.pre(nl > 1e-3);
        const n = n0.map((v) => v / nl);
        const buf = Float64Array.from([...p, ...q]);
        let brute = Infinity;
        for (let i = 0; i <= N; i++) {
          const x = lerp(p, q, i / N);
          brute = Math.min(brute, n[0]! * x[0]! + n[1]! * x[1]! + n[2]! * x[2]! - c);
        }
        expect(capsulePlaneDistance(buf, 0, 3, 0.02, n[0]!, n[1]!, n[2]!, c)).toBeCloseTo(brute - 0.02, 12);
      }),
      { numRuns: 200 },
    );
  });
  it('capsule inside a box: clearance to the nearest wall, negative once outside', () => {
    const box = Float64Array.from([-1, -1, 0, 1, 1, 2]);
    fc.assert(
      fc.property(point, point, (p, q) => {
        const buf = Float64Array.from([...p, ...q]);
        let brute = Infinity;
        for (let i = 0; i <= N; i++) {
          const x = lerp(p, q, i / N);
          brute = Math.min(brute, x[0]! + 1, 1 - x[0]!, x[1]! + 1, 1 - x[1]!, x[2]!, 2 - x[2]!);
        }
        expect(capsuleInsideBoxDistance(buf, 0, 3, 0.05, box, 0)).toBeCloseTo(brute - 0.05, 12);
      }),
      { numRuns: 200 },
    );
    expect(capsuleInsideBoxDistance(Float64Array.from([0, 0, 1, 0, 0, 2.5]), 0, 3, 0.1, box, 0)).toBeCloseTo(-0.6, 12);
  });
});
