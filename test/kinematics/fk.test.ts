import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  ForwardKinematics,
  PointForceEstimator,
  PANDA_CHAIN,
  FR3_CHAIN,
  SO101_CHAIN,
  SO101_FRAMES,
  FRANKA_FRAMES,
  type ChainSpec,
} from '../../src/kinematics/index.js';

type M4 = number[][];
/** Naive 4×4 reference, written independently of src/kinematics/transform.ts. */
function mm(a: M4, b: M4): M4 {
  return a.map((row) => b[0]!.map((_, j) => row.reduce((s, v, k) => s + v * b[k]![j]!, 0)));
}
function rx(t: number): M4 {
  return [
    [1, 0, 0, 0],
    [0, Math.cos(t), -Math.sin(t), 0],
    [0, Math.sin(t), Math.cos(t), 0],
    [0, 0, 0, 1],
  ];
}
function ry(t: number): M4 {
  return [
    [Math.cos(t), 0, Math.sin(t), 0],
    [0, 1, 0, 0],
    [-Math.sin(t), 0, Math.cos(t), 0],
    [0, 0, 0, 1],
  ];
}
function rz(t: number): M4 {
  return [
    [Math.cos(t), -Math.sin(t), 0, 0],
    [Math.sin(t), Math.cos(t), 0, 0],
    [0, 0, 1, 0],
    [0, 0, 0, 1],
  ];
}
function tr(x: number, y: number, z: number): M4 {
  return [
    [1, 0, 0, x],
    [0, 1, 0, y],
    [0, 0, 1, z],
    [0, 0, 0, 1],
  ];
}
function naiveFk(chain: ChainSpec, q: number[], frame: string): M4 {
  const frames: M4[] = [tr(0, 0, 0)];
  chain.joints.forEach((j, i) => {
    const origin = mm(tr(...j.xyz), mm(rz(j.rpy[2]), mm(ry(j.rpy[1]), rx(j.rpy[0]))));
    frames.push(mm(mm(frames[j.parent]!, origin), rz(q[i]!)));
  });
  const f = chain.fixedFrames.find((x) => x.name === frame)!;
  return mm(frames[f.parent]!, mm(tr(...f.xyz), mm(rz(f.rpy[2]), mm(ry(f.rpy[1]), rx(f.rpy[0])))));
}

function position(fk: ForwardKinematics, k: number): [number, number, number] {
  const o = fk.offset(k);
  return [fk.frames[o + 9]!, fk.frames[o + 10]!, fk.frames[o + 11]!];
}
function expectClose(a: readonly number[], b: readonly number[], tol = 1e-9): void {
  a.forEach((v, i) => expect(Math.abs(v - b[i]!)).toBeLessThan(tol));
}

describe('Panda/FR3 forward kinematics (Franka modified DH)', () => {
  const fk = new ForwardKinematics(PANDA_CHAIN);
  it('zero pose: flange at (0.088, 0, 0.926) pointing down (hand-computed from the DH table)', () => {
    fk.compute([0, 0, 0, 0, 0, 0, 0]);
    expectClose(position(fk, FRANKA_FRAMES.flange), [0.088, 0, 0.926]);
    const o = fk.offset(FRANKA_FRAMES.flange);
    // R = RotX(π): x stays, y and z flip.
    expectClose(Array.from(fk.frames.subarray(o, o + 9)), [1, 0, 0, 0, -1, 0, 0, 0, -1]);
  });
  it('q1 = π/2 swings the flange to (0, 0.088, 0.926)', () => {
    fk.compute([Math.PI / 2, 0, 0, 0, 0, 0, 0]);
    expectClose(position(fk, FRANKA_FRAMES.flange), [0, 0.088, 0.926]);
  });
  it('q2 = π/2 pitches the arm about +y at the shoulder (0.333 m): flange (0.593, 0, 0.245)', () => {
    fk.compute([0, Math.PI / 2, 0, 0, 0, 0, 0]);
    expectClose(position(fk, FRANKA_FRAMES.flange), [0.593, 0, 0.245]);
  });
  it('q7 spins the flange about its own axis: position unchanged', () => {
    fk.compute([0, 0, 0, 0, 0, 0, 1.1]);
    expectClose(position(fk, FRANKA_FRAMES.flange), [0.088, 0, 0.926]);
  });
  it('FR3 shares the kinematics, TCP is 0.1034 m beyond the flange', () => {
    const f3 = new ForwardKinematics(FR3_CHAIN);
    f3.compute([0, 0, 0, 0, 0, 0, 0]);
    expectClose(position(f3, FRANKA_FRAMES.tcp), [0.088, 0, 0.926 - 0.1034]);
  });
});

describe('SO-101 forward kinematics (so101_new_calib.urdf)', () => {
  const fk = new ForwardKinematics(SO101_CHAIN);
  it('zero (mid-range) pose: TCP ≈ (0.391, 0, 0.227) m as in hardware-facts §B6', () => {
    fk.compute([0, 0, 0, 0, 0, 0]);
    expectClose(position(fk, SO101_FRAMES.tcp), [0.391, 0, 0.227], 1e-3);
  });
  it('shoulder_pan θ rotates the TCP by −θ about the vertical pan axis through (0.0388353, 0)', () => {
    fk.compute([0, 0, 0, 0, 0, 0]);
    const [x0, y0, z0] = position(fk, SO101_FRAMES.tcp);
    const th = 0.7;
    fk.compute([th, 0, 0, 0, 0, 0]);
    const px = 0.0388353;
    const c = Math.cos(-th),
      s = Math.sin(-th);
    expectClose(position(fk, SO101_FRAMES.tcp), [px + c * (x0 - px) - s * y0, s * (x0 - px) + c * y0, z0]);
  });
  it('the gripper (jaw) joint does not move the TCP', () => {
    fk.compute([0.1, -0.2, 0.3, 0.4, 0.5, 0]);
    const a = position(fk, SO101_FRAMES.tcp);
    fk.compute([0.1, -0.2, 0.3, 0.4, 0.5, 1.2]);
    expectClose(position(fk, SO101_FRAMES.tcp), a);
  });
  it('matches a naive 4×4 reference over random joint positions', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -Math.PI, max: Math.PI, noNaN: true }), { minLength: 6, maxLength: 6 }),
        (q) => {
          fk.compute(q);
          const ref = naiveFk(SO101_CHAIN, q, 'gripper_frame_link');
          const o = fk.offset(SO101_FRAMES.tcp);
          const got = Array.from(fk.frames.subarray(o, o + 12));
          const want = [
            ref[0]![0]!,
            ref[0]![1]!,
            ref[0]![2]!,
            ref[1]![0]!,
            ref[1]![1]!,
            ref[1]![2]!,
            ref[2]![0]!,
            ref[2]![1]!,
            ref[2]![2]!,
            ref[0]![3]!,
            ref[1]![3]!,
            ref[2]![3]!,
          ];
          expectClose(got, want, 1e-12);
        },
      ),
      { numRuns: 200 },
    );
  });
  it('point Jacobian matches central differences of the TCP position', () => {
    const q = [0.3, -0.5, 0.8, 0.2, -0.4, 0.1];
    fk.compute(q);
    const [x, y, z] = position(fk, SO101_FRAMES.tcp);
    const J = new Float64Array(18);
    fk.pointJacobian(J, SO101_FRAMES.tcp, x, y, z);
    const h = 1e-6;
    for (let j = 0; j < 6; j++) {
      const qp = q.slice();
      qp[j]! += h;
      fk.compute(qp);
      const p = position(fk, SO101_FRAMES.tcp);
      const qm = q.slice();
      qm[j]! -= h;
      fk.compute(qm);
      const m = position(fk, SO101_FRAMES.tcp);
      for (let r = 0; r < 3; r++) expect(Math.abs(J[r * 6 + j]! - (p[r]! - m[r]!) / (2 * h))).toBeLessThan(1e-7);
    }
    expect(J[5]).toBe(0); // the jaw does not move the TCP
  });
});

describe('missing inputs are NaN, not a guessed zero', () => {
  it('a joint vector one short leaves the frames before the missing joint exact and makes the flange NaN', () => {
    const fk = new ForwardKinematics(PANDA_CHAIN);
    fk.compute([0, 0, 0, 0, 0, 0]); // 6 of 7 joints
    expect(position(fk, 6).every(Number.isFinite)).toBe(true); // joint 6's frame does not depend on q7
    expect(position(fk, FRANKA_FRAMES.flange).every(Number.isNaN)).toBe(true);
  });
  it('a residual torque vector one short gives NaN force, not the force of a zero torque', () => {
    const fk = new ForwardKinematics(PANDA_CHAIN);
    fk.compute([0, -0.5, 0, -2, 0, 1.5, 0.8]);
    const est = new PointForceEstimator(fk, FRANKA_FRAMES.flange, 7, 1e-3);
    expect(est.estimate([1, 2, 3, 4, 5, 6, 7])).toBeGreaterThan(0);
    expect(est.estimate([1, 2, 3, 4, 5, 6])).toBeNaN();
  });
});
