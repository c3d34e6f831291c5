import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  armModel,
  CapsuleModel,
  ForwardKinematics,
  FR3_DESCRIPTION,
  minimumClearance,
  PANDA_DESCRIPTION,
  SO101_DESCRIPTION,
  TF,
  transformPoint,
  type RobotDescription,
} from '../../src/kinematics/index.js';
import { readPandaGoodConfs } from '../support/panda-good-confs.js';

/**
 * Naive reference from the semantics: every pair of volumes on different links that the allowed
 * list does not name, each volume's axis sampled at 401 points, surface distance = min point–point
 * distance − both radii (within (L₁ + L₂)/800 of the exact segment distance).
 */
function naiveClearance(desc: RobotDescription, endEffector: string, q: number[]): number {
  const ee = desc.endEffectors[endEffector]!;
  const volumes = [...desc.selfCollision.volumes, ...ee.volumes];
  const allowed = [...desc.selfCollision.allowed, ...ee.allowed].map((a) => [...a.links].sort().join('|'));
  const fk = new ForwardKinematics(desc.chain);
  fk.compute(q);
  const world = volumes.map((v) => {
    const a = new Float64Array(3),
      b = new Float64Array(3);
    transformPoint(a, 0, fk.frames, TF * v.frame, v.a[0], v.a[1], v.a[2]);
    transformPoint(b, 0, fk.frames, TF * v.frame, v.b[0], v.b[1], v.b[2]);
    return { a, b };
  });
  const N = 400;
  let best = Infinity;
  for (let i = 0; i < volumes.length; i++) {
    for (let j = i + 1; j < volumes.length; j++) {
      const vi = volumes[i]!,
        vj = volumes[j]!;
      if (vi.link === vj.link || allowed.includes([vi.link, vj.link].sort().join('|'))) continue;
      const A = world[i]!,
        B = world[j]!;
      let d2 = Infinity;
      for (let s = 0; s <= N; s++) {
        const px = A.a[0]! + (s / N) * (A.b[0]! - A.a[0]!),
          py = A.a[1]! + (s / N) * (A.b[1]! - A.a[1]!),
          pz = A.a[2]! + (s / N) * (A.b[2]! - A.a[2]!);
        for (let t = 0; t <= N; t++) {
          const dx = px - (B.a[0]! + (t / N) * (B.b[0]! - B.a[0]!));
          const dy = py - (B.a[1]! + (t / N) * (B.b[1]! - B.a[1]!));
          const dz = pz - (B.a[2]! + (t / N) * (B.b[2]! - B.a[2]!));
          const e = dx * dx + dy * dy + dz * dz;
          if (e < d2) d2 = e;
        }
      }
      best = Math.min(best, Math.sqrt(d2) - vi.radius - vj.radius);
    }
  }
  return best;
}

const limits = (desc: RobotDescription) =>
  desc.chain.joints.map((j) => fc.double({ min: j.lower, max: j.upper, noNaN: true }));

describe('robot descriptions: self-collision clearance', () => {
  it('equals a naive sampled reference on random Panda configurations, with and without the hand', () => {
    for (const ee of ['franka_hand', 'none']) {
      const model = new CapsuleModel(armModel(PANDA_DESCRIPTION, ee));
      fc.assert(
        fc.property(fc.tuple(...limits(PANDA_DESCRIPTION)), (q) => {
          model.update(q);
          expect(Math.abs(model.minSelfDistance() - naiveClearance(PANDA_DESCRIPTION, ee, q))).toBeLessThan(1.5e-3);
        }),
        { numRuns: 15 },
      );
    }
  });

  it('the allowed-collision list removes exactly the named link pairs (and same-link volumes)', () => {
    const model = new CapsuleModel(armModel(PANDA_DESCRIPTION, 'franka_hand'));
    const checked = new Set(Array.from({ length: model.pairCount }, (_, p) => model.pairName(p).replace(/#\d+/g, '')));
    // MoveIt's Panda SRDF leaves link0/1/2 against link5/6/7 and link5–link7 checked, and the hand against link0, 1, 2, 5.
    expect([...checked].sort()).toEqual([
      'link0–hand',
      'link0–link5',
      'link0–link6',
      'link0–link7',
      'link1–hand',
      'link1–link5',
      'link1–link6',
      'link1–link7',
      'link2–hand',
      'link2–link5',
      'link2–link7',
      'link5–hand',
      'link5–link7',
    ]);
  });

  it('the end effector is named, never assumed: an unknown one is refused with the choices', () => {
    expect(() => armModel(FR3_DESCRIPTION, 'robotiq')).toThrow(/unknown end effector 'robotiq'.*franka_hand, none/);
    const bad: RobotDescription = {
      ...SO101_DESCRIPTION,
      selfCollision: { ...SO101_DESCRIPTION.selfCollision, allowed: [{ links: ['base', 'elbow'], reason: 'never' }] },
    };
    expect(() => armModel(bad, 'gripper')).toThrow(/unknown link 'elbow'/);
  });

  it('a NaN joint position gives a NaN clearance, never a clear one', () => {
    const model = new CapsuleModel(armModel(PANDA_DESCRIPTION, 'franka_hand'));
    model.update([0, NaN, 0, -2, 0, 2, 0.8]);
    expect(model.minSelfDistance()).toBeNaN();
  });

  it('regression (#13): the folded elbow of a real Panda with the hand (q4 = −2.67) is clear; the old envelope overlapped there', () => {
    const model = new CapsuleModel(armModel(PANDA_DESCRIPTION, 'franka_hand'));
    model.update([0, -0.3, 0, -2.67, 0, 0.85, Math.PI / 4]);
    expect(model.minSelfDistance()).toBeGreaterThan(0.02);
    expect(model.pairName(model.nearestPair)).toMatch(/^link2#0–hand#1$/);
  });

  it('the SO-101 at mid-range and at the LeRobot folded rest pose reads clear', () => {
    const model = new CapsuleModel(armModel(SO101_DESCRIPTION, 'gripper'));
    model.update([0, 0, 0, 0, 0, 0]);
    expect(model.minSelfDistance()).toBeGreaterThan(0);
    model.update([0, (-100 * Math.PI) / 180, (97 * Math.PI) / 180, (72 * Math.PI) / 180, 0, 0]);
    expect(model.minSelfDistance()).toBeGreaterThan(0);
  });
});

describe('1,010 real Panda configurations (shared/data/franka-panda-good-confs)', () => {
  const confs = readPandaGoodConfs();

  it('the arm model (no end effector, as in the identification study) flags none of them', () => {
    expect(confs.length).toBe(1010);
    const model = new CapsuleModel(armModel(PANDA_DESCRIPTION, 'none'));
    let min = Infinity;
    for (const q of confs) {
      model.update(q);
      min = Math.min(min, model.minSelfDistance());
    }
    expect(min).toBeGreaterThan(0.01); // 13.6 mm, link5's side volume to link7's
  });

  it('with a Franka Hand configured, every overlap involves the hand (those poses were run without one)', () => {
    const model = new CapsuleModel(armModel(PANDA_DESCRIPTION, 'franka_hand'));
    const flagged: string[] = [];
    for (const q of confs) {
      model.update(q);
      if (model.minSelfDistance() < 0) flagged.push(model.pairName(model.nearestPair));
    }
    expect(flagged.length).toBe(21);
    expect(flagged.every((p) => /hand/.test(p))).toBe(true);
  });
});

describe('Franka Hand environment volumes (issue 15)', () => {
  // A point 0.10 m to the side of the hand's axis, across the fingers (hand frame y), 0.04 m out
  // from the flange — beside the palm's edge. By hand: the palm capsule of franka_hand.xacro
  // (segment y ∈ [−0.05, 0.05] at z = 0.04, r = 0.04) is 0.10 − 0.05 − 0.04 = 0.01 m away; the
  // finger capsule (z = 0.10, r = 0.02) √(0.05² + 0.06²) − 0.02 ≈ 0.058 m; the axial capsule
  // (r = 0.05) 0.05 m. The old description had the axial capsule only and read 0.05 m.
  it('a point beside the palm is 1 cm from the hand, not 5 cm', () => {
    const model = new CapsuleModel(armModel(PANDA_DESCRIPTION, 'franka_hand'));
    const q = [0.3, -0.4, 0.2, -2.0, 0.1, 1.7, 0.5];
    model.update(Float64Array.from(q));
    const fk = new ForwardKinematics(PANDA_DESCRIPTION.chain);
    fk.compute(q);
    // hand frame = link7 frame turned by −π/4 about z and shifted 0.107 m along it (the flange)
    const yaw = -Math.PI / 4;
    const [hx, hy, hz] = [0, 0.1, 0.04];
    const local = [Math.cos(yaw) * hx - Math.sin(yaw) * hy, Math.sin(yaw) * hx + Math.cos(yaw) * hy, hz + 0.107];
    const p = new Float64Array(3);
    transformPoint(p, 0, fk.frames, TF * 7, local[0]!, local[1]!, local[2]!);
    const c = minimumClearance(
      model,
      { planes: new Float64Array(0), spheres: Float64Array.from([p[0]!, p[1]!, p[2]!, 0]), box: null },
      false,
      { distance: Infinity, kind: 'none', capsule: -1, other: -1 },
    );
    expect(c.distance).toBeCloseTo(0.01, 9);
    expect(c.kind).toBe('sphere');
  });
});
