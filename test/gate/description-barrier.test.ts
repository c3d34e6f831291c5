/**
 * descriptionBarrier: the pairs it builds from one robot description — one per obstacle group, the
 * self pair, the tilt faces — with every distance pair at its clearance + the planning margin.
 */
import { describe, expect, it } from 'vitest';
import { TILT_LEVER, descriptionBarrier, obstacleGroups } from '../../src/gate/index.js';
import { CapsuleModel, PANDA_DESCRIPTION, selfCollisionModel } from '../../src/kinematics/index.js';

const PANDA_HOME = Float64Array.of(0, -0.3, 0, -2.2, 0, 1.9, 0.79);

describe('descriptionBarrier', () => {
  const groups = obstacleGroups({
    planes: Float64Array.of(0, 0, 1, 0),
    spheres: Float64Array.of(0.5, 0, 0.3, 0.05),
    box: null,
  });
  const o = { groups, dSafe: 0.02, planningMargin: 0.003, selfClearance: 0.02 };

  it('pairs: obstacle groups, then self, then the faces; distances at clearance + δ; faces at L·s while nothing is held', () => {
    const d = descriptionBarrier(PANDA_DESCRIPTION, 'franka_hand', {
      ...o,
      heldTilt: { objectLimit: 0.2, pivotGain: 2, faces: 4 },
    });
    expect(d.barrier.pairs).toBe(2 + 1 + 4);
    expect(d.barrier.joints).toBe(7);
    const h = new Float64Array(7);
    d.barrier.h(PANDA_HOME, h);
    // the self pair is the self-collision model's nearest distance less (clearance + δ)
    const m = new CapsuleModel(selfCollisionModel(PANDA_DESCRIPTION, 'franka_hand'));
    m.update(PANDA_HOME);
    expect(h[2]).toBeCloseTo(m.minSelfDistance() - 0.023, 12);
    expect(d.distance.dSafe).toBeCloseTo(0.023, 15);
    // tool limit 0.2 / 2 = 0.1 rad; 4 faces: s = sin 0.1 · cos(π/4)
    for (let i = 3; i < 7; i++) expect(h[i]).toBeCloseTo(TILT_LEVER * Math.sin(0.1) * Math.cos(Math.PI / 4), 12);
  });

  it('without self and tilt it is the distance barrier alone; a bad margin is refused', () => {
    const d = descriptionBarrier(PANDA_DESCRIPTION, 'franka_hand', { ...o, selfClearance: null, heldTilt: null });
    expect(d.barrier).toBe(d.distance);
    expect(d.self).toBeNull();
    expect(d.tilt).toBeNull();
    expect(() =>
      descriptionBarrier(PANDA_DESCRIPTION, 'franka_hand', { ...o, planningMargin: -1, heldTilt: null }),
    ).toThrow(/planning margin/);
  });
});
