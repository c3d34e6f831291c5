import { describe, expect, it } from 'vitest';
import { So101Mapping, createRawState } from '../../../drivers/so101/mapping.js';
import { defaultSo101Calibration } from '../../../src/calibration/so101-defaults.js';
import { AnalyticFreeMotionModel } from '../../../src/calibration/free-motion.js';
import { radiansToRaw, unnormalize } from '../../../src/calibration/lerobot.js';
import { ForwardKinematics, SO101_CHAIN, SO101_FRAMES } from '../../../src/kinematics/index.js';
import { SignalFrame } from '../../../src/schema/signals.js';

const cal = defaultSo101Calibration('map', 12);
const names = cal.joints.map((j) => j.name);

function mapping(): So101Mapping {
  return new So101Mapping(cal, new AnalyticFreeMotionModel(cal.freeMotion));
}
function rawAt(q: readonly number[], gripperPct = 50): ReturnType<typeof createRawState> {
  const raw = createRawState();
  q.forEach((v, j) => (raw.position[j] = radiansToRaw(v, cal.lerobot[names[j]!])));
  raw.position[5] = unnormalize(gripperPct, cal.lerobot.gripper, 'range_0_100');
  return raw;
}

describe('SO-101 signal mapping', () => {
  it('joint torque = constant × load; max over the five body joints only', () => {
    const m = mapping();
    const raw = rawAt([0, 0, 0, 0, 0]);
    raw.load.set([100, -400, 250, 0, 10, 900]);
    m.update(raw);
    expect(m.tau[1]).toBeCloseTo(-400 * 0.00294, 12);
    expect(m.maxJointTorque).toBeCloseTo(400 * 0.00294, 12); // the gripper's 900 is not a joint torque
    const f = new SignalFrame();
    m.writeFrame(f, 1.5);
    expect(f.get('max_joint_torque')).toBeCloseTo(1.176, 12);
    expect(f.stamps[f.values.length - 1]).toBe(-Infinity);
  });

  it('gripper contact: stalled with load ≥ load_on, held until load < load_off (hysteresis), not when closed on nothing', () => {
    const m = mapping();
    const step = (load: number, vel: number, pct = 40): boolean => {
      const raw = rawAt([0, 0, 0, 0, 0], pct);
      raw.load[5] = load;
      raw.velocity[5] = vel;
      m.update(raw);
      return m.gripping;
    };
    expect(step(200, 300)).toBe(false); // closing fast: not stalled
    expect(step(149, 0)).toBe(false); // below load_on
    expect(step(-160, 5)).toBe(true); // stalled on an object (load sign irrelevant)
    expect(step(100, 0)).toBe(true); // between off and on: stays held
    expect(step(79, 0)).toBe(false); // below load_off: released
    expect(step(300, 0, 1)).toBe(false); // closed past empty_closed_pct: nothing in the jaws
  });

  it('while gripping, tilt is the rotation of the gripper z-axis since grasp and height the lift since grasp', () => {
    const m = mapping();
    const q0 = [0.2, -0.4, 0.5, 0.6, 0.1];
    m.updatePositions([...q0, 0], 40, true);
    expect(m.tiltDeg).toBe(0);
    expect(m.objAboveTable).toBe(0);
    // Independent reference: rotating v about unit axis a by Δ gives cos θ = (a·v)² + (1 − (a·v)²)·cos Δ.
    const fk = new ForwardKinematics(SO101_CHAIN);
    fk.compute([...q0, 0]);
    const F = fk.frames,
      a = fk.offset(SO101_FRAMES.wrist),
      g = fk.offset(SO101_FRAMES.gripper);
    const av = F[a + 2]! * F[g + 2]! + F[a + 5]! * F[g + 5]! + F[a + 8]! * F[g + 8]!;
    const d = 0.35;
    m.updatePositions([0.2, -0.4, 0.5, 0.6 + d, 0.1, 0], 40, true);
    expect(m.tiltDeg).toBeCloseTo((Math.acos(av * av + (1 - av * av) * Math.cos(d)) * 180) / Math.PI, 9);
    // Rolling about the gripper's own z does not tilt it; panning about the vertical keeps the height.
    m.updatePositions([0.2, -0.4, 0.5, 0.6, 1.1, 0], 40, true);
    expect(m.tiltDeg).toBeCloseTo(0, 6);
    m.updatePositions([0.9, -0.4, 0.5, 0.6, 0.1, 0], 40, true);
    expect(m.objAboveTable).toBeCloseTo(0, 12);
    m.updatePositions([0.2, -0.6, 0.5, 0.6, 0.1, 0], 40, true);
    const tcp = new Float64Array(3);
    m.tcp(tcp);
    fk.compute([...q0, 0]);
    expect(m.objAboveTable).toBeCloseTo(tcp[2]! - F[fk.offset(SO101_FRAMES.tcp) + 11]!, 12);
    expect(m.objAboveTable).toBeGreaterThan(0.02); // lifting the shoulder raised it
    m.updatePositions([0.2, -0.6, 0.5, 0.6, 0.1, 0], 40, false);
    expect([m.tiltDeg, m.objAboveTable]).toEqual([0, 0]);
  });

  it('a known TCP force shows up through the residual and the damped Jᵀ pseudo-inverse', () => {
    const cal2 = { ...cal, contactForce: { damping: 1e-9, deadbandN: 0.5 } };
    const m = new So101Mapping(cal2, new AnalyticFreeMotionModel(cal.freeMotion)); // zero free-motion model
    const q = [0.3, -0.5, 0.7, 0.4, 0];
    const raw = rawAt(q);
    // Joint angles after the raw round trip, for the reference Jacobian by central differences of the FK.
    m.update(raw);
    const qr = Array.from(m.q);
    const fk = new ForwardKinematics(SO101_CHAIN);
    const tcpZ = (qq: number[]): [number, number, number] => {
      fk.compute(qq);
      const o = fk.offset(SO101_FRAMES.tcp);
      return [fk.frames[o + 9]!, fk.frames[o + 10]!, fk.frames[o + 11]!];
    };
    const Fext = [1.5, -2, 4];
    for (let j = 0; j < 5; j++) {
      const p = qr.slice(),
        n = qr.slice();
      p[j]! += 1e-6;
      n[j]! -= 1e-6;
      const dp = tcpZ(p),
        dn = tcpZ(n);
      const tau = [0, 1, 2].reduce((s, r) => s + ((dp[r]! - dn[r]!) / 2e-6) * Fext[r]!, 0); // (Jᵀ F)_j
      raw.load[j] = tau / cal.torque.constants[j]!;
    }
    m.update(raw);
    expect(m.contactForce).toBeCloseTo(Math.hypot(...Fext) - 0.5, 5);
    const f = new SignalFrame();
    m.writeFrame(f, 2);
    expect(f.get('arm_furniture_contact_force')).toBeCloseTo(m.contactForce, 12);
    expect(f.get('contact_force_max')).toBeCloseTo(m.contactForce, 12);
  });
});
