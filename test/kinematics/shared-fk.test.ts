/**
 * One ForwardKinematics shared by several capsule models (descriptionBarrier's distance, self and
 * tilt models): compute skips an unchanged q, so every model must still see the frames of the q it
 * was updated with, whatever the other models computed in between.
 */
import { describe, expect, it } from 'vitest';
import {
  CapsuleModel,
  ForwardKinematics,
  SO101_DESCRIPTION,
  armModel,
  selfCollisionModel,
} from '../../src/kinematics/index.js';

const A = [0.1, -0.7, 0.5, 1.2, 1.57, 1.75];
const B = [-0.4, 0.3, 1.1, 0.2, -1.0, 0.5];

describe('shared ForwardKinematics', () => {
  it('models updated in turn at different configurations each get their own frames', () => {
    const fk = new ForwardKinematics(SO101_DESCRIPTION.chain);
    const env = new CapsuleModel(armModel(SO101_DESCRIPTION, 'gripper'), fk);
    const self = new CapsuleModel(selfCollisionModel(SO101_DESCRIPTION, 'gripper'), fk);
    const envAlone = new CapsuleModel(armModel(SO101_DESCRIPTION, 'gripper'));
    const selfAlone = new CapsuleModel(selfCollisionModel(SO101_DESCRIPTION, 'gripper'));
    for (const [qa, qb] of [
      [A, B],
      [A, A],
      [B, A],
      [B, B],
    ] as const) {
      env.update(qa);
      self.update(qb);
      envAlone.update(qa);
      selfAlone.update(qb);
      expect(Array.from(env.world)).toEqual(Array.from(envAlone.world));
      expect(Array.from(self.world)).toEqual(Array.from(selfAlone.world));
      expect(self.minSelfDistance()).toBe(selfAlone.minSelfDistance());
    }
  });

  it('the same values in a mutated array are not recomputed, other values are, NaN always is', () => {
    const fk = new ForwardKinematics(SO101_DESCRIPTION.chain);
    const ref = new ForwardKinematics(SO101_DESCRIPTION.chain);
    const q = Float64Array.from(A);
    fk.compute(q);
    q[2] = 0.9; // in place: a different configuration in the same array
    fk.compute(q);
    ref.compute(q);
    expect(Array.from(fk.frames)).toEqual(Array.from(ref.frames));
    q[1] = NaN;
    fk.compute(q);
    expect(fk.frames.some((v) => Number.isNaN(v))).toBe(true);
    q[1] = -0.7;
    fk.compute(q);
    ref.compute(q);
    expect(Array.from(fk.frames)).toEqual(Array.from(ref.frames));
  });

  it('refuses kinematics of another chain', () => {
    const other = new ForwardKinematics({ ...SO101_DESCRIPTION.chain });
    expect(() => new CapsuleModel(armModel(SO101_DESCRIPTION, 'gripper'), other)).toThrow('another chain');
  });
});
