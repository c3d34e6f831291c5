import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LiveStageTracker, type LiveStageInput } from '../../src/semantic/live-stages.js';
import type { Vec3 } from '../../src/semantic/stage-events.js';

const region = { epsXy: 0.05, epsZ: 0.04 };
const target: Vec3 = [0.4, 0.3, 0.05];
const actorStart: Vec3 = [0.5, 0, 0.05];

const at = (t: number, ee: Vec3, extra: Partial<LiveStageInput> = {}): LiveStageInput => ({
  t,
  ee,
  gripperAperture: NaN,
  grasped: false,
  ...extra,
});

describe('live stage events (seeds/003 App. E from a real cell)', () => {
  it('a reader may hand the same arrays every step: the tracked target and actor are copied, not referenced', () => {
    const s = new LiveStageTracker({ region, actorStart, targetPoint: [9, 9, 9] });
    const ee: [number, number, number] = [0.5, 0, 0.1];
    const actor: [number, number, number] = [0.5, 0, 0.05];
    const tracked: [number, number, number] = [...target];
    const reading = { ee, gripperAperture: NaN, grasped: false, actor, target: tracked };
    expect(s.observe({ t: 0, ...reading })).toBe('attempt');
    // tracking lost: the reader writes NaN into the same arrays; the last fresh target still holds
    actor.fill(NaN);
    tracked.fill(NaN);
    ee.splice(0, 3, 0.41, 0.31, 0.06);
    expect(s.observe({ t: 1, ...reading })).toBe('commit');
    expect(s.times).toEqual({ attempt: 0, commit: 1, success: null });
  });

  it('hand-computed pick-and-place: attempt near the declared actor, the grasped actor rides with the hand into the region, success from the label after commit', () => {
    const s = new LiveStageTracker({ region, actorStart, targetPoint: target });
    expect(s.observe(at(0, [0.5, 0, 0.4]))).toBeUndefined(); // 0.35 m from the actor
    expect(s.observe(at(1, [0.5, 0, 0.15]))).toBe('attempt'); // exactly 0.10 m
    expect(s.observe(at(2, [0.5, 0, 0.06], { grasped: true }))).toBeUndefined();
    expect(s.actorSource).toBe('grasped');
    expect(s.observe(at(3, [0.45, 0.25, 0.2], { grasped: true }))).toBeUndefined(); // 0.0707 m off horizontally
    expect(s.observe(at(4, [0.42, 0.3, 0.08], { grasped: true }))).toBe('commit'); // 0.02 m off, dz 0.03
    expect(s.observe(at(5, [0.42, 0.3, 0.3]))).toBeUndefined(); // released: the actor stays where it was let go
    expect(s.actorSource).toBe('released');
    expect(s.succeed(6)).toBe(true);
    expect(s.times).toEqual({ attempt: 1, commit: 4, success: 6 });
    expect(s.stage).toBe('success');
    expect([s.observed, s.unobserved]).toEqual([6, 0]);
  });

  it('a success label without commit is not t_success (stage ordering); a label before commit time does not count either', () => {
    const s = new LiveStageTracker({ region, actorStart, targetPoint: target });
    s.observe(at(0, [0.5, 0, 0.12]));
    expect(s.succeed(1)).toBe(false);
    expect(s.times).toEqual({ attempt: 0, commit: null, success: null });
  });

  it('a tracked actor and target override the declared ones; commit from the tracked actor alone (hand far away)', () => {
    const s = new LiveStageTracker({ region, actorStart, targetPoint: [9, 9, 9] });
    s.observe(at(0, [0.5, 0, 0.1], { actor: [0.5, 0, 0.05], target }));
    expect(s.times.attempt).toBe(0);
    expect(s.observe(at(1, [0.7, 0, 0.4], { actor: [0.41, 0.31, 0.06] }))).toBe('commit');
    expect(s.actorSource).toBe('tracked');
  });

  it('steps without an end-effector position or a target point are not evaluated and are counted', () => {
    const noTarget = new LiveStageTracker({ region, actorStart });
    noTarget.observe(at(0, [0.5, 0, 0.1], { grasped: true }));
    expect(noTarget.times.attempt).toBeNull();
    expect([noTarget.observed, noTarget.unobserved]).toEqual([0, 1]);
    expect(noTarget.lastGap).toContain('no target position');
    const s = new LiveStageTracker({ region, actorStart, targetPoint: target });
    s.observe(at(0, [NaN, 0, 0.1], { grasped: true }));
    expect(s.times.attempt).toBeNull();
    expect(s.lastGap).toContain('no end-effector position');
    // a target seen once by tracking stays known
    noTarget.observe(at(1, [0.5, 0, 0.1], { target }));
    expect(noTarget.times.attempt).toBe(1);
  });

  it('property: with a declared actor and target, equals a naive scan written from App. E with the rigid-grasp actor', () => {
    const v = fc.tuple(
      fc.double({ min: 0, max: 0.8, noNaN: true }),
      fc.double({ min: -0.2, max: 0.6, noNaN: true }),
      fc.double({ min: 0, max: 0.4, noNaN: true }),
    );
    const step = fc.record({ ee: v, grasped: fc.boolean(), label: fc.boolean() });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        const s = new LiveStageTracker({ region, actorStart, targetPoint: target });
        for (let i = 0; i < steps.length; i++) {
          s.observe(at(i, steps[i]!.ee as Vec3, { grasped: steps[i]!.grasped }));
          if (steps[i]!.label) s.succeed(i);
        }
        // Naive reference: the actor at each step (start; hand while grasped; last hand position after release).
        const actors: Vec3[] = [];
        let a: Vec3 = actorStart;
        for (const st of steps) {
          if (st.grasped) a = st.ee as Vec3;
          actors.push(a);
        }
        const d = (p: Vec3, q: Vec3) => Math.sqrt((p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2 + (p[2] - q[2]) ** 2);
        const inRegion = (p: Vec3) =>
          Math.sqrt((p[0] - 0.4) ** 2 + (p[1] - 0.3) ** 2) <= 0.05 && Math.abs(p[2] - 0.05) <= 0.04;
        let att = -1;
        for (let i = 0; i < steps.length && att < 0; i++)
          if (steps[i]!.grasped || d(steps[i]!.ee as Vec3, actors[i]!) <= 0.1) att = i;
        let com = -1;
        if (att >= 0)
          for (let i = att; i < steps.length && com < 0; i++)
            if (inRegion(steps[i]!.ee as Vec3) || inRegion(actors[i]!)) com = i;
        let suc = -1;
        if (com >= 0) for (let i = com; i < steps.length && suc < 0; i++) if (steps[i]!.label) suc = i;
        expect(s.times).toEqual({
          attempt: att < 0 ? null : att,
          commit: com < 0 ? null : com,
          success: suc < 0 ? null : suc,
        });
      }),
      { numRuns: 300 },
    );
  });
});
