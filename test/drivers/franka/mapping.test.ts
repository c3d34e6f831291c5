import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { SignalFrame, Validity, signalIndex } from '../../../src/schema/signals.js';
import type { Fault } from '../../../src/ports/index.js';
import { FrankaMapping, frankaMappingConfig, type FrankaMappingConfig } from '../../../drivers/franka/mapping.js';
import { ROBOT_MODE } from '../../../drivers/franka/messages.js';
import { gripperState, robotState } from './support/franka-messages.js';
import { loadSpec } from '../../safety/support/spec-fixture.js';

function map(states: ReturnType<typeof robotState>[], gripper?: number) {
  const m = new FrankaMapping();
  const frame = new SignalFrame();
  const faults: Fault[] = [];
  if (gripper !== undefined) m.applyGripper(gripperState(0, gripper), frame);
  for (const s of states) m.applyState(s, frame, (f) => faults.push(f));
  return { m, frame, faults };
}

describe('Franka mapping: joint torque against per-joint limits', () => {
  it('a wrist joint at its own 12 N·m limit reads as 87 on the clause scale', () => {
    const { frame } = map([robotState(0, { tau: [10, 0, 0, 0, 0, 12, 0] })]);
    expect(frame.get('max_joint_torque')).toBeCloseTo(87, 12);
  });
  it('a shoulder joint at 43.5 N·m reads 43.5 (half its 87 N·m limit)', () => {
    const { frame, m } = map([robotState(0, { tau: [0, -43.5, 0, 0, 3, 0, 0] })]);
    expect(frame.get('max_joint_torque')).toBeCloseTo(43.5, 12);
    expect(m.torqueRatios[1]).toBeCloseTo(0.5, 12);
    expect(m.torqueRatios[4]).toBeCloseTo(0.25, 12);
  });
  it('equals max_i |tau_i|·87/limit_i on random torques (independent recomputation)', () => {
    const limits = [87, 87, 87, 87, 12, 12, 12];
    fc.assert(
      fc.property(fc.array(fc.double({ min: -100, max: 100, noNaN: true }), { minLength: 7, maxLength: 7 }), (tau) => {
        const { frame } = map([robotState(1, { tau })]);
        const expected = Math.max(...tau.map((x, i) => (Math.abs(x) * 87) / limits[i]!));
        expect(frame.get('max_joint_torque')).toBeCloseTo(expected, 9);
      }),
    );
  });
  it('a torque vector of the wrong length is an invalid sample and a fault, not a number', () => {
    const { frame, faults } = map([robotState(0, { tau: [1, 2, 3] })]);
    expect(Number.isNaN(frame.get('max_joint_torque'))).toBe(true);
    expect(faults).toMatchObject([{ kind: 'invalid-sample', signal: 'max_joint_torque' }]);
  });
  it('a NaN torque propagates as invalid (never silently below the threshold)', () => {
    const { frame } = map([robotState(0, { tau: [NaN, 0, 0, 0, 0, 0, 0] })]);
    expect(Number.isNaN(frame.get('max_joint_torque'))).toBe(true);
    expect(frame.validity[signalIndex('max_joint_torque')!]).toBe(Validity.Invalid);
  });
});

describe('Franka mapping: contact forces', () => {
  it('attributes the external force to the arm when not holding', () => {
    const { frame } = map([robotState(0, { force: [3, 4, 12] })]);
    expect(frame.get('arm_furniture_contact_force')).toBeCloseTo(13, 12);
    expect(frame.get('target_furniture_contact_force')).toBe(0);
    expect(frame.get('contact_force_max')).toBeCloseTo(13, 12);
  });
  it('attributes it to the held target while the gripper holds', () => {
    const { frame } = map([robotState(0.1, { force: [0, 0, 50] })], 0.04);
    expect(frame.get('gripper_contact')).toBe(1);
    expect(frame.get('target_furniture_contact_force')).toBeCloseTo(50, 12);
    expect(frame.get('arm_furniture_contact_force')).toBe(0);
  });
});

describe('Franka mapping: held object from o_t_ee while the grasp is rigid', () => {
  it('height and tilt are measured from the pose when the grasp closed', () => {
    const s = Math.sin(Math.PI / 12); // 30° about x → half-angle 15°
    const c = Math.cos(Math.PI / 12);
    const { frame } = map(
      [
        robotState(0.1, { pos: [0.4, 0, 0.2] }),
        robotState(0.2, { pos: [0.4, 0, 0.35], quat: { x: s, y: 0, z: 0, w: c } }),
      ],
      0.04,
    );
    expect(frame.get('obj_above_table')).toBeCloseTo(0.15, 12);
    expect(frame.get('target_obj_tilt_world_deg')).toBeCloseTo(30, 9);
  });
  it('gripper width bands with hysteresis', () => {
    const m = new FrankaMapping();
    const f = new SignalFrame();
    const seq = [0.08, 0.074, 0.073, 0.0755, 0.0762, 0.0025, 0.0019];
    const out = seq.map((w, i) => (m.applyGripper(gripperState(i, w), f), f.get('gripper_contact')));
    expect(out).toEqual([0, 0, 1, 1, 0, 0, 0]);
  });
});

describe('Franka mapping: robot mode and errors', () => {
  it('REFLEX and USER_STOPPED raise one robot-mode fault each on entry', () => {
    const { faults } = map([
      robotState(0, { mode: ROBOT_MODE.MOVE }),
      robotState(0.001, { mode: ROBOT_MODE.REFLEX }),
      robotState(0.002, { mode: ROBOT_MODE.REFLEX }),
      robotState(0.003, { mode: ROBOT_MODE.IDLE }),
      robotState(0.004, { mode: ROBOT_MODE.USER_STOPPED }),
    ]);
    expect(faults).toEqual([
      { kind: 'robot-mode', source: 'franka', mode: 'REFLEX' },
      { kind: 'robot-mode', source: 'franka', mode: 'USER_STOPPED' },
    ]);
  });
  it('a safety error flag raises a fault when it appears', () => {
    const { faults } = map([
      robotState(0),
      robotState(0.001, { errors: { joint_reflex: true } }),
      robotState(0.002, { errors: { joint_reflex: true } }),
    ]);
    expect(faults).toEqual([{ kind: 'robot-mode', source: 'franka', mode: 'error:joint_reflex' }]);
  });
});

describe('Franka mapping: self-collision clearance from the robot description', () => {
  const clearance = (config: FrankaMappingConfig, q: number[]): number => {
    const m = new FrankaMapping(config);
    const frame = new SignalFrame();
    m.applyState(robotState(0, { q }), frame, () => {});
    return frame.get('self_collision_clearance');
  };
  it('the ready pose is clear by about 10 cm (link5–link7, the nearest pair not allowed to touch)', () => {
    const home = map([robotState(0, { q: [0, -0.785, 0, -2.356, 0, 1.571, 0.785] })]);
    expect(home.frame.get('self_collision_clearance')).toBeGreaterThan(0.09);
    expect(home.frame.get('self_collision_clearance')).toBeLessThan(0.12);
  });
  it('regression (#13): a Panda with the Franka Hand at a folded elbow (q4 = −2.67 rad) is clear, not a self-collision', () => {
    // The previous capsule envelope overlapped here (link1–hand 22.9 mm, link2–hand 12.9 mm) and the gate held on free motion.
    const folded = [0, -0.3, 0, -2.67, 0, 0.85, Math.PI / 4];
    expect(clearance(frankaMappingConfig('panda', 'franka_hand'), folded)).toBeGreaterThan(0.02);
  });
  it('the hand folded back against link5 (q6 = 0.11 rad) overlaps: a negative clearance', () => {
    const q = [0.54, -1.34, 0.65, -1.6, -0.7, 0.11, 2.08];
    expect(clearance(frankaMappingConfig('panda', 'franka_hand'), q)).toBeLessThan(-0.01);
    // The same configuration without a hand: nothing is near link5 (the end effector is configured, not assumed).
    expect(clearance(frankaMappingConfig('panda', 'none'), q)).toBeGreaterThan(0);
  });
  it('a position vector of the wrong size makes the clearance invalid, not a number', () => {
    const { frame } = map([robotState(0, { q: [0, 0, 0] })]);
    expect(Number.isNaN(frame.get('self_collision_clearance'))).toBe(true);
    expect(frame.validity[signalIndex('self_collision_clearance')!]).toBe(Validity.Invalid);
  });
});

describe('Franka mapping: end-effector speed and acceleration (from q, dq)', () => {
  // Arm straight up (q = 0): link7's origin at (0.088, 0, 1.033) with its z pointing down, so the
  // Franka Hand TCP is at (0.088, 0, 1.033 − 0.107 − 0.1034) = (0.088, 0, 0.8226) and the flange
  // at (0.088, 0, 0.926). Joint 1 turns about the base z; joint 2 about +y through (0, 0, 0.333).
  const Q0 = [0, 0, 0, 0, 0, 0, 0];
  const speed = (config: FrankaMappingConfig, dq: number[]): number => {
    const m = new FrankaMapping(config);
    const frame = new SignalFrame();
    m.applyState(robotState(0, { q: Q0, dq }), frame, () => {});
    return frame.get('ee_speed');
  };
  it('joint 1 at 0.5 rad/s moves the hand TCP at 0.5 · 0.088 m/s', () => {
    expect(speed(frankaMappingConfig('fr3', 'franka_hand'), [0.5, 0, 0, 0, 0, 0, 0])).toBeCloseTo(0.044, 12);
  });
  it('joint 2 at 1 rad/s: |ŷ × (0.088, 0, 0.8226 − 0.333)| = 0.49745 m/s; at the bare flange 0.59949 m/s', () => {
    expect(speed(frankaMappingConfig('fr3', 'franka_hand'), [0, 1, 0, 0, 0, 0, 0])).toBeCloseTo(
      Math.hypot(0.088, 0.8226 - 0.333),
      12,
    );
    expect(speed(frankaMappingConfig('fr3', 'none'), [0, 1, 0, 0, 0, 0, 0])).toBeCloseTo(
      Math.hypot(0.088, 0.926 - 0.333),
      12,
    );
  });
  it('no joint velocities: ee_speed and ee_acc are invalid, not 0', () => {
    const { frame } = map([robotState(0)]);
    expect(frame.validity[signalIndex('ee_speed')!]).toBe(Validity.Invalid);
    expect(frame.validity[signalIndex('ee_acc')!]).toBe(Validity.Invalid);
  });
  it('ee_acc is |v(t) − v(t − 5 samples)| / 5 ms: invalid for the first 5 samples and again after a gap', () => {
    const m = new FrankaMapping(frankaMappingConfig('fr3', 'franka_hand'));
    const frame = new SignalFrame();
    const acc: number[] = [];
    // Joint 1 accelerates at 10 rad/s² (pose held): the TCP's tangential acceleration is 10 · 0.088 m/s².
    const times = [0, 0.001, 0.002, 0.003, 0.004, 0.005, 0.006, 0.056, 0.057, 0.058, 0.059, 0.06, 0.061];
    for (const t of times) {
      m.applyState(robotState(t, { q: Q0, dq: [0.5 + 10 * t, 0, 0, 0, 0, 0, 0] }), frame, () => {});
      acc.push(frame.get('ee_acc'));
    }
    expect(acc.slice(0, 5).every(Number.isNaN)).toBe(true);
    expect(acc[5]).toBeCloseTo(0.88, 6);
    expect(acc[6]).toBeCloseTo(0.88, 6);
    // 50 ms without a sample: the window restarts (5 more invalid samples), then resumes.
    expect(acc.slice(7, 12).every(Number.isNaN)).toBe(true);
    expect(acc[12]).toBeCloseTo(0.88, 6);
  });
});

describe('Franka mapping: malformed messages (a wrong type on the topic) never throw', () => {
  it('a state without the wrench estimate maps torque and self-collision; the force signals are invalid and reported', () => {
    const s = robotState(1, { tau: [43.5, 0, 0, 0, 0, 0, 0] }) as Partial<ReturnType<typeof robotState>>;
    delete s.o_f_ext_hat_k;
    const { frame, faults } = map([s as ReturnType<typeof robotState>]);
    expect(frame.get('max_joint_torque')).toBeCloseTo(43.5, 9);
    expect(frame.get('self_collision_clearance')).toBeGreaterThan(0);
    for (const name of ['contact_force_max', 'arm_furniture_contact_force'] as const) {
      expect(Number.isNaN(frame.get(name))).toBe(true);
      expect(frame.validity[signalIndex(name)!]).toBe(Validity.Invalid);
    }
    expect(faults).toMatchObject([{ kind: 'invalid-sample', signal: 'contact_force_max' }]);
  });

  it('a state without a header writes nothing (its signals go stale) and is reported', () => {
    const m = new FrankaMapping();
    const frame = new SignalFrame();
    const faults: Fault[] = [];
    m.applyState(robotState(1, { tau: [10, 0, 0, 0, 0, 0, 0] }), frame, (f) => faults.push(f));
    const before = { values: Float64Array.from(frame.values), stamps: Float64Array.from(frame.stamps) };
    const s = robotState(2, { tau: [80, 0, 0, 0, 0, 0, 0] }) as Partial<ReturnType<typeof robotState>>;
    delete s.header;
    m.applyState(s as ReturnType<typeof robotState>, frame, (f) => faults.push(f));
    expect(Array.from(frame.values)).toEqual(Array.from(before.values));
    expect(Array.from(frame.stamps)).toEqual(Array.from(before.stamps));
    expect(faults).toMatchObject([{ kind: 'invalid-sample', signal: 'robot_state' }]);
  });

  it('property: deleting or mistyping any fields of a state never throws, and every written signal is stamped with the message time', () => {
    const paths = [
      'header',
      'measured_joint_state',
      'measured_joint_state.effort',
      'measured_joint_state.position',
      'o_f_ext_hat_k',
      'o_f_ext_hat_k.wrench',
      'o_f_ext_hat_k.wrench.force',
      'o_t_ee',
      'o_t_ee.pose',
      'o_t_ee.pose.position',
      'o_t_ee.pose.orientation',
      'current_errors',
      'robot_mode',
    ];
    fc.assert(
      fc.property(
        fc.subarray(paths),
        fc.constantFrom<unknown>(undefined, 'x', null, 7),
        fc.boolean(),
        (broken, replacement, holding) => {
          const m = new FrankaMapping();
          const frame = new SignalFrame();
          if (holding) m.applyGripper(gripperState(1, 0.04), frame);
          const s = robotState(1) as unknown as Record<string, unknown>;
          for (const path of broken) {
            const keys = path.split('.');
            let o = s;
            for (const k of keys.slice(0, -1)) o = (o[k] ?? {}) as Record<string, unknown>;
            if (typeof o === 'object' && o !== null) o[keys.at(-1)!] = replacement;
          }
          const faults: Fault[] = [];
          expect(() =>
            m.applyState(s as unknown as ReturnType<typeof robotState>, frame, (f) => faults.push(f)),
          ).not.toThrow();
          for (let i = 0; i < frame.stamps.length; i++)
            if (frame.stamps[i] !== -Infinity && i !== signalIndex('gripper_contact'))
              expect(frame.stamps[i]).toBeCloseTo(1, 9);
        },
      ),
    );
  });
});

describe('Franka mapping: every signal the fr3 and panda profiles declare is computed (issue 13 item 5)', () => {
  it('after six robot states with velocities and a gripper state, each declared signal is valid in the frame', () => {
    const profiles = loadSpec().platforms;
    for (const platform of ['fr3', 'panda'] as const) {
      const declared = profiles.get(platform)!.signals;
      expect(declared).toEqual(expect.arrayContaining(['ee_speed', 'ee_acc']));
      const m = new FrankaMapping(frankaMappingConfig(platform, 'franka_hand'));
      const frame = new SignalFrame();
      m.applyGripper(gripperState(0, 0.04), frame);
      for (let k = 0; k < 6; k++)
        m.applyState(
          robotState(k * 0.001, { q: [0, -0.785, 0, -2.356, 0, 1.571, 0.785], dq: [0.1, 0, 0, 0, 0, 0, 0] }),
          frame,
          () => {},
        );
      const notComputed = declared.filter((s) => frame.validity[signalIndex(s)!] !== Validity.Valid);
      expect(notComputed, `${platform} declares signals its mapping does not compute`).toEqual([]);
    }
  });
});

describe('Franka mapping: the ee_acc gap is decided in integer ns', () => {
  it('robot states exactly 10 ms apart (the gap limit) are not a gap — 0.30 − 0.29 is 0.010000000000000009 in floats', () => {
    const m = new FrankaMapping(frankaMappingConfig('fr3', 'franka_hand'));
    const frame = new SignalFrame();
    const q = [0, -0.785, 0, -2.356, 0, 1.571, 0.785];
    const acc: number[] = [];
    for (const t of [0.25, 0.26, 0.27, 0.28, 0.29, 0.3, 0.31]) {
      m.applyState(robotState(t, { q, dq: [0.5 + 10 * t, 0, 0, 0, 0, 0, 0] }), frame, () => {});
      acc.push(frame.get('ee_acc'));
    }
    expect(acc.slice(0, 5).every(Number.isNaN)).toBe(true);
    // 10 ms steps within EE_MAX_GAP_S: the window fills after 6 samples and stays full
    expect(acc[5]).not.toBeNaN();
    expect(acc[6]).not.toBeNaN();
  });
});

describe('Franka mapping: the grip attributes contact force while its state is younger than 1 s, in integer ns', () => {
  it('a gripper state exactly 1 s old no longer attributes the force to the held object — 1.4 − 0.4 is 0.9999999999999999 in floats', () => {
    const m = new FrankaMapping(frankaMappingConfig('fr3', 'franka_hand'));
    const frame = new SignalFrame();
    m.applyGripper(gripperState(0.4, 0.04), frame);
    expect(m.isHolding).toBe(true);
    m.applyState(robotState(0.9, { force: [0, 0, 30] }), frame, () => {});
    expect(frame.get('target_furniture_contact_force')).toBeCloseTo(30, 9); // 0.5 s old: holding
    m.applyState(robotState(1.4, { force: [0, 0, 30] }), frame, () => {});
    expect(frame.get('arm_furniture_contact_force')).toBeCloseTo(30, 9);
    expect(frame.get('target_furniture_contact_force')).toBe(0);
  });
});

describe('Franka mapping: holding is a closing hand that stopped inside the grasp band (the width plateau)', () => {
  /** franka_gripper's joint states at 15 Hz (state_publish_rate, hardware-facts §A3): widths from `t0`, one per sample. */
  function gripperAt15Hz(widths: readonly number[], t0 = 1) {
    const m = new FrankaMapping(frankaMappingConfig('fr3', 'franka_hand'));
    const frame = new SignalFrame();
    const held: boolean[] = [];
    const contact: number[] = [];
    widths.forEach((w, k) => {
      const t = t0 + k / 15;
      m.applyGripper(gripperState(t, w), frame);
      held.push(m.holdingAt(t));
      contact.push(frame.get('gripper_contact'));
    });
    return { m, held, contact };
  }
  /** Open (8 cm), then closing at franka_gripper's default 0.1 m/s (6.7 mm per sample) onto a 4.5 cm object. */
  const CLOSE_ONTO_CUP = [0.08, 0.08, 0.0733, 0.0667, 0.06, 0.0533, 0.0467, 0.045, 0.045, 0.045, 0.045];

  it('while the fingers close nothing is held; once they stop on the object it is, from the second still sample', () => {
    const { held, contact } = gripperAt15Hz(CLOSE_ONTO_CUP);
    // open, then moving inward inside the band (before: holding from 0.0733, the first width below open)
    expect(held.slice(0, 7)).toEqual([false, false, false, false, false, false, false]);
    // 0.0467 → 0.045 moved 1.7 mm (still closing); 0.045 again 67 ms later: still for ≥ 50 ms
    expect(held.slice(7)).toEqual([false, true, true, true]);
    expect(contact.slice(7)).toEqual([0, 1, 1, 1]);
  });

  it('held fingers that open let go: past 5 mm beyond the grasp width not holding, also when they stop part-way', () => {
    const { held } = gripperAt15Hz([...CLOSE_ONTO_CUP, 0.047, 0.0517, 0.058, 0.058, 0.058, 0.058]);
    expect(held[CLOSE_ONTO_CUP.length]).toBe(true); // 2 mm wider: a loosened grasp still holds
    // 0.0517 is 6.7 mm past 0.045: released; the fingers stopping at 5.8 cm (inside the band) are no grasp
    expect(held.slice(CLOSE_ONTO_CUP.length + 1)).toEqual([false, false, false, false, false]);
  });

  it('a held object slipping (fingers closing further) stays held until the fingers close on nothing', () => {
    const { held } = gripperAt15Hz([...CLOSE_ONTO_CUP, 0.04, 0.03, 0.01, 0.0025, 0.001]);
    expect(held.slice(CLOSE_ONTO_CUP.length)).toEqual([true, true, true, true, false]);
  });

  it('unsure is holding: a hand already inside the band when its state begins (or after a gap over 1 s) counts as holding at once', () => {
    const first = gripperAt15Hz([0.05]);
    expect(first.held).toEqual([true]);
    const m = first.m;
    const frame = new SignalFrame();
    // closing again after a 2 s gap: unknown motion, holding from the first state after the gap
    m.applyGripper(gripperState(3, 0.03), frame);
    expect(m.holdingAt(3)).toBe(true);
  });

  it('a closing fully to the closed width (nothing between the fingers) is never holding', () => {
    const { held } = gripperAt15Hz([0.08, 0.06, 0.04, 0.02, 0.0005, 0.0005, 0.0005]);
    expect(held).toEqual([false, false, false, false, false, false, false]);
  });
});
