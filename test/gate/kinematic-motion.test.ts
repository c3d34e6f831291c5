/**
 * KinematicChunkMotion against hand-computed geometry: a one-joint arm whose joint (at 0.3 m,
 * axis −y) swings a 0.4 m capsule of radius 2 cm in the x–z plane, so its tip is at
 * (0.4 cos q, 0, 0.3 + 0.4 sin q) — and against the SO-101 description at its zero pose
 * (hardware-facts B6: TCP ≈ (0.391, 0, 0.227) m in base_link).
 */
import { describe, expect, it } from 'vitest';
import { KinematicChunkMotion } from '../../src/gate/kinematic-motion.js';
import type { MotionTrace } from '../../src/gate/warning-band.js';
import { CapsuleModel, SO101_DESCRIPTION, SO101_MODEL } from '../../src/kinematics/index.js';

const L = 0.4;
const R = 0.02;
const swing = new CapsuleModel({
  chain: {
    name: 'swing',
    joints: [{ name: 'j', parent: 0, xyz: [0, 0, 0.3], rpy: [Math.PI / 2, 0, 0], lower: -2, upper: 2 }],
    fixedFrames: [],
  },
  capsules: [{ name: 'link', frame: 1, a: [0, 0, 0], b: [L, 0, 0], radius: R, environment: true }],
  ignorePairs: [],
});

const traceOf = (n: number): MotionTrace => ({
  surfaceClearance: new Float64Array(n + 1),
  tcpHeight: new Float64Array(n + 1),
  gravityLoad: new Float64Array(n + 1),
});

describe('KinematicChunkMotion', () => {
  it('clearance to the table plane and TCP height per row from the forward kinematics', () => {
    const table = 0.05;
    const motion = new KinematicChunkMotion({
      model: swing,
      plane: [0, 0, 1, table],
      tcp: { frame: 1, xyz: [L, 0, 0] },
    });
    // rows carry a second (gripper) column the arm's chain ignores
    const qs = [0.3, -0.2, -0.6, -1.0];
    const targets = Float64Array.from(qs.flatMap((q) => [q, 42]));
    const out = traceOf(qs.length);
    motion.trace([0.5], targets, qs.length, 2, out);
    [0.5, ...qs].forEach((q, i) => {
      const tipZ = 0.3 + L * Math.sin(q);
      expect(out.tcpHeight[i]).toBeCloseTo(tipZ, 12);
      expect(out.surfaceClearance[i]).toBeCloseTo(Math.min(0.3, tipZ) - table - R, 12);
      expect(out.gravityLoad[i]).toBe(0);
    });
    expect(out.surfaceClearance[4]).toBeLessThan(0); // q = −1: the tip 6.3 cm below the table top
    expect(motion.gravityModelled).toBe(false);
  });

  it('gravity load is the largest |torque| of the gravity model at rest (q̇ = 0)', () => {
    const seen: number[][] = [];
    const gravity = {
      joints: 2,
      predict(q: ArrayLike<number>, qd: ArrayLike<number>, out: Float64Array) {
        seen.push([qd[0]!, qd[1]!]);
        out[0] = 2 * Math.cos(q[0]!);
        out[1] = -3 * Math.cos(q[0]!);
      },
    };
    const motion = new KinematicChunkMotion({
      model: swing,
      plane: [0, 0, 1, 0],
      tcp: { frame: 1, xyz: [L, 0, 0] },
      gravity,
    });
    const out = traceOf(2);
    motion.trace([0], Float64Array.from([Math.PI / 3, Math.PI / 2]), 2, 1, out);
    expect(Array.from(out.gravityLoad)).toEqual(
      [3, 3 * Math.cos(Math.PI / 3), 3 * Math.cos(Math.PI / 2)].map((x) => expect.closeTo(x, 12) as unknown as number),
    );
    expect(seen.every(([a, b]) => a === 0 && b === 0)).toBe(true);
    expect(motion.gravityModelled).toBe(true);
  });

  it('a NaN target reads as NaN clearance and height, never clear', () => {
    const motion = new KinematicChunkMotion({ model: swing, plane: [0, 0, 1, 0], tcp: { frame: 1, xyz: [L, 0, 0] } });
    const out = traceOf(1);
    motion.trace([0], Float64Array.from([NaN]), 1, 1, out);
    expect(out.surfaceClearance[1]).toBeNaN();
    expect(out.tcpHeight[1]).toBeNaN();
  });

  it('the SO-101 description at zero: TCP at about 0.227 m (hardware-facts B6)', () => {
    const tcp = SO101_DESCRIPTION.endEffectors.gripper!.tcp;
    const motion = new KinematicChunkMotion({ model: new CapsuleModel(SO101_MODEL), plane: [0, 0, 1, 0], tcp });
    const out = traceOf(0);
    motion.trace(new Float64Array(6), new Float64Array(0), 0, 6, out);
    expect(out.tcpHeight[0]).toBeCloseTo(0.227, 2);
    expect(out.surfaceClearance[0]).toBeGreaterThan(0);
  });

  it('refuses a plane without a unit normal and a TCP frame outside the chain', () => {
    expect(
      () => new KinematicChunkMotion({ model: swing, plane: [0, 0, 2, 0], tcp: { frame: 1, xyz: [0, 0, 0] } }),
    ).toThrow(/unit normal/);
    expect(
      () => new KinematicChunkMotion({ model: swing, plane: [0, 0, 1, 0], tcp: { frame: 9, xyz: [0, 0, 0] } }),
    ).toThrow(/TCP frame 9/);
  });
});
