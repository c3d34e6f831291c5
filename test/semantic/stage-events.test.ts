import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  EPS_ATTEMPT,
  StageTracker,
  extractStageTimes,
  inCriticalRegion,
  type StageObservation,
  type Vec3,
} from '../../src/semantic/stage-events.js';

const region = { epsXy: 0.05, epsZ: 0.04 };
const target: Vec3 = [0.4, 0.3, 0.05];

function obs(t: number, ee: Vec3, actor: Vec3, extra: Partial<StageObservation> = {}): StageObservation {
  return {
    t,
    ee,
    actor,
    target,
    gripperAperture: 0.08,
    grasped: false,
    actorTargetContact: false,
    actorInside: false,
    success: false,
    ...extra,
  };
}

describe('stage events (seeds/003 §3.5, App. E)', () => {
  it('critical region: ε_xy horizontal radius and ε_z vertical half-height, boundaries included', () => {
    // A 3-4-5 triangle in binary-exact numbers: horizontal distance exactly 0.625 = ε_xy.
    const r = { epsXy: 0.625, epsZ: 0.25 };
    const o: Vec3 = [0, 0, 0];
    expect(inCriticalRegion([0.375, 0.5, 0], o, r)).toBe(true);
    expect(inCriticalRegion([0.376, 0.5, 0], o, r)).toBe(false);
    expect(inCriticalRegion([0, 0, 0.25], o, r)).toBe(true);
    expect(inCriticalRegion([0, 0, -0.25], o, r)).toBe(true);
    expect(inCriticalRegion([0, 0, 0.2501], o, r)).toBe(false);
  });

  it('a hand-computed rollout: attempt when the hand is within 0.10 m, commit when the actor enters the region, success after', () => {
    const actor0: Vec3 = [0.5, 0, 0.05];
    const seq = [
      obs(0, [0.5, 0, 0.4], actor0), // 0.35 m away
      obs(1, [0.5, 0, 0.151], actor0), // 0.101 m: not yet
      obs(2, [0.5, 0, 0.15], actor0), // 0.100 m: attempt (≤ ε_att)
      obs(3, [0.45, 0.25, 0.2], [0.45, 0.25, 0.15]), // actor 0.0707 m off horizontally: outside
      obs(4, [0.42, 0.3, 0.13], [0.42, 0.3, 0.08]), // actor 0.02 m off, dz 0.03: commit
      obs(5, [0.4, 0.3, 0.1], [0.4, 0.3, 0.03], { actorInside: true, success: true }),
    ];
    expect(extractStageTimes(seq, region)).toEqual({ attempt: 2, commit: 4, success: 5 });
  });

  it('ordering: commit is not counted before attempt, success not before commit', () => {
    // The actor starts in the critical region and the terminal predicate holds, but the hand never comes near.
    const seq = [
      obs(0, [1, 1, 1], [0.4, 0.3, 0.05], { success: true }),
      obs(1, [1, 1, 1], [0.4, 0.3, 0.05], { success: true }),
    ];
    expect(extractStageTimes(seq, region)).toEqual({ attempt: null, commit: null, success: null });
    // A grasp counts as attempt; contact with the target counts as commit; both at the same step.
    const t = new StageTracker(region);
    expect(t.observe(obs(0, [1, 1, 1], [0.9, 0.9, 0.9], { grasped: true, actorTargetContact: true }))).toBe('commit');
    expect(t.times).toEqual({ attempt: 0, commit: 0, success: null });
    expect(t.stage).toBe('commit');
  });

  it('commit checks the end effector too (a rehearsed motion without the object), and never needs a grasp', () => {
    const seq = [obs(0, [0.5, 0, 0.12], [0.5, 0, 0.05]), obs(1, [0.41, 0.31, 0.06], [0.5, 0, 0.05])];
    expect(extractStageTimes(seq, region)).toEqual({ attempt: 0, commit: 1, success: null });
  });

  it('rejects non-positive thresholds', () => {
    expect(() => new StageTracker({ epsXy: 0, epsZ: 0.1 })).toThrow(RangeError);
    expect(() => new StageTracker(region, -1)).toThrow(RangeError);
  });

  it('property: equals a naive three-pass first-hit scan written from App. E', () => {
    const v = fc.tuple(
      fc.double({ min: 0, max: 0.8, noNaN: true }),
      fc.double({ min: -0.2, max: 0.6, noNaN: true }),
      fc.double({ min: 0, max: 0.4, noNaN: true }),
    );
    const step = fc.record({
      ee: v,
      actor: v,
      grasped: fc.boolean(),
      contact: fc.boolean(),
      inside: fc.boolean(),
      success: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        const seq = steps.map((s, i) =>
          obs(i, s.ee as Vec3, s.actor as Vec3, {
            grasped: s.grasped,
            actorTargetContact: s.contact,
            actorInside: s.inside,
            success: s.success,
          }),
        );
        // Naive reference: scan for attempt, then from there for commit, then from there for success.
        const near = (a: Vec3, b: Vec3) =>
          Math.sqrt((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2 + (a[2] - b[2]) ** 2) <= EPS_ATTEMPT;
        const inRegion = (p: Vec3) =>
          Math.sqrt((p[0] - 0.4) ** 2 + (p[1] - 0.3) ** 2) <= 0.05 && Math.abs(p[2] - 0.05) <= 0.04;
        let a = -1;
        for (let i = 0; i < seq.length && a < 0; i++) if (seq[i]!.grasped || near(seq[i]!.ee, seq[i]!.actor)) a = i;
        let c = -1;
        if (a >= 0)
          for (let i = a; i < seq.length && c < 0; i++)
            if (seq[i]!.actorTargetContact || seq[i]!.actorInside || inRegion(seq[i]!.ee) || inRegion(seq[i]!.actor))
              c = i;
        let s = -1;
        if (c >= 0) for (let i = c; i < seq.length && s < 0; i++) if (seq[i]!.success) s = i;
        const want = { attempt: a < 0 ? null : a, commit: c < 0 ? null : c, success: s < 0 ? null : s };
        expect(extractStageTimes(seq, region)).toEqual(want);
      }),
      { numRuns: 300 },
    );
  });
});
