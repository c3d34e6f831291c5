import { describe, expect, it } from 'vitest';
import { CapsuleModel, minimumClearance, SO101_MODEL } from '../../src/kinematics/index.js';
import type { Clearance, ObstacleSet } from '../../src/kinematics/index.js';

const obstacles: ObstacleSet = {
  planes: Float64Array.from([0, 0, 1, 0]),
  spheres: Float64Array.from([0.25, 0.05, 0.12, 0.03]),
  box: Float64Array.from([-0.5, -0.5, -0.1, 0.5, 0.5, 0.6]),
};
const fresh = (): Clearance => ({ distance: Infinity, kind: 'none', capsule: -1, other: -1 });

describe('minimumClearance with NaN', () => {
  it('a NaN configuration gives NaN clearance (not Infinity), self pairs and environment alike', () => {
    const model = new CapsuleModel(SO101_MODEL);
    model.update(Float64Array.from([0, NaN, 0.5, 0.5, 0, 0.3]));
    expect(minimumClearance(model, obstacles, true, fresh()).distance).toBeNaN();
    expect(minimumClearance(model, obstacles, false, fresh()).distance).toBeNaN();
    expect(
      minimumClearance(model, { planes: new Float64Array(0), spheres: new Float64Array(0), box: null }, true, fresh())
        .distance,
    ).toBeNaN();
  });

  it('a NaN sphere wins over closer finite obstacles and is reported as the active sphere', () => {
    const model = new CapsuleModel(SO101_MODEL);
    model.update(Float64Array.from([0, -0.5, 0.5, 0.5, 0, 0.3]));
    const finite = minimumClearance(model, obstacles, true, fresh()).distance;
    expect(Number.isFinite(finite)).toBe(true);
    const withNaN: ObstacleSet = {
      ...obstacles,
      spheres: Float64Array.from([0.25, 0.05, 0.12, 0.03, NaN, NaN, NaN, NaN]),
    };
    const c = minimumClearance(model, withNaN, true, fresh());
    expect(c.distance).toBeNaN();
    expect(c.kind).toBe('sphere');
    expect(c.other).toBe(1);
    expect(model.environment[c.capsule]).toBe(1);
  });
});
