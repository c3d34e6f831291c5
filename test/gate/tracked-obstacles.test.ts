import { describe, expect, it } from 'vitest';
import { CapsuleBarrier, TrackedObstacles, type TrackedPositionSource } from '../../src/gate/index.js';
import { CapsuleModel, SO101_MODEL, type ObstacleSet } from '../../src/kinematics/index.js';

class Positions implements TrackedPositionSource {
  readonly bodies = new Map<string, { p: [number, number, number]; t: number }>();
  positionOf(body: string, out: Float64Array): number {
    const b = this.bodies.get(body);
    if (!b) return NaN;
    out.set(b.p);
    return b.t;
  }
}
const group = (): ObstacleSet => ({ planes: new Float64Array(0), spheres: new Float64Array(4), box: null });

describe('tracked objects as barrier spheres', () => {
  it('moves each body from the tracking frame into the base frame (hand-computed) with its radius', () => {
    const src = new Positions();
    const groups = [group(), group()];
    // tracking frame at (0.5, 0, 0.1) in the base, turned +90° about z: base = (0.5 − y_t, x_t, 0.1 + z_t)
    const t = new TrackedObstacles(
      [
        { body: 'cup', radius: 0.05 },
        { body: 'bowl', radius: 0.08 },
      ],
      groups,
      src,
      [0.5, 0, 0.1, 0, 0, Math.PI / 2],
      0.1,
    );
    src.bodies.set('cup', { p: [0.2, 0.3, 0.0], t: 9.95 });
    src.bodies.set('bowl', { p: [-0.1, 0, 0.2], t: 10 });
    expect(t.refresh(10)).toBeNull();
    const cup = Array.from(groups[0]!.spheres);
    expect(cup[0]).toBeCloseTo(0.2, 12);
    expect(cup[1]).toBeCloseTo(0.2, 12);
    expect(cup[2]).toBeCloseTo(0.1, 12);
    expect(cup[3]).toBe(0.05);
    const bowl = Array.from(groups[1]!.spheres);
    expect(bowl[0]).toBeCloseTo(0.5, 12);
    expect(bowl[1]).toBeCloseTo(-0.1, 12);
    expect(bowl[2]).toBeCloseTo(0.3, 12);
    expect(bowl[3]).toBe(0.08);
  });

  it('a body never seen or older than maxAge is named, and its sphere is NaN so no barrier passes with it', () => {
    const src = new Positions();
    const groups = [group(), group()];
    const t = new TrackedObstacles(
      [
        { body: 'cup', radius: 0.05 },
        { body: 'bowl', radius: 0.08 },
      ],
      groups,
      src,
      [0, 0, 0, 0, 0, 0],
      0.1,
    );
    expect(groups[0]!.spheres.every(Number.isNaN)).toBe(true); // before any refresh
    const barrier = new CapsuleBarrier(new CapsuleModel(SO101_MODEL), groups, 0.02);
    const q = Float64Array.from([0, -0.5, 0.5, 0.5, 0, 0.3]);
    const h = new Float64Array(2);
    expect(barrier.h(q, h)).toBeNaN();
    expect(h[0]).toBeNaN();
    expect(h[1]).toBeNaN();
    src.bodies.set('cup', { p: [0, 0, 0], t: 10 });
    expect(t.refresh(10)).toEqual({ body: 'bowl', age: Infinity });
    src.bodies.set('bowl', { p: [1, 1, 1], t: 9.85 });
    expect(t.refresh(10)).toEqual({ body: 'bowl', age: expect.closeTo(0.15, 9) as number });
    expect(groups[1]!.spheres.every(Number.isNaN)).toBe(true);
    expect(barrier.h(q, h)).toBeNaN();
    expect(h[0]).toBeGreaterThan(0);
    expect(h[1]).toBeNaN();
    src.bodies.set('bowl', { p: [1, 1, 1], t: 9.95 });
    expect(t.refresh(10)).toBeNull();
    expect(Array.from(groups[1]!.spheres)).toEqual([1, 1, 1, 0.08]);
    expect(barrier.h(q, h)).toBeGreaterThan(0);
    src.bodies.set('cup', { p: [NaN, 0, 0], t: 10 });
    expect(t.refresh(10)?.body).toBe('cup');
  });

  it('refuses groups that do not hold exactly one sphere each', () => {
    expect(
      () => new TrackedObstacles([{ body: 'cup', radius: 0.05 }], [], new Positions(), [0, 0, 0, 0, 0, 0], 0.1),
    ).toThrow(/1 bodies but 0/);
    expect(
      () =>
        new TrackedObstacles(
          [{ body: 'cup', radius: 0.05 }],
          [{ planes: new Float64Array(0), spheres: new Float64Array(8), box: null }],
          new Positions(),
          [0, 0, 0, 0, 0, 0],
          0.1,
        ),
    ).toThrow(/one sphere/);
  });
});
