/**
 * TrackedHeldObjectAxis: the tracked body's up axis, turned into the robot base frame, when its
 * sample is at most maxAge old by the injected clock — checked by hand: a cup tilted 90° about x has
 * its z along −y in the tracking frame, which is +x in a base frame the tracking frame is yawed
 * +90° in (R_z(90°)·(0, −1, 0) = (1, 0, 0)); never seen, stale and after a new episode, no
 * measurement.
 */
import { describe, expect, it } from 'vitest';
import { TrackedHeldObjectAxis } from '../../../drivers/tracking/held-object-axis.js';
import { SceneTracker } from '../../../drivers/tracking/scene-tracker.js';
import { ManualClock } from '../../../src/util/clock.js';

describe('TrackedHeldObjectAxis', () => {
  const s = Math.SQRT1_2;

  it('the tracked up axis while fresh; nothing before the first sample, once stale, or after a new episode', () => {
    const tr = new SceneTracker({ bystanders: [], target: 'cup', source: 'sim.tracking' });
    const clock = new ManualClock(1);
    const axis = new TrackedHeldObjectAxis(tr, 'cup', 0.1, clock);
    const out = new Float64Array(3).fill(7);
    expect(axis.axis(out)).toBe(false); // never seen
    expect(Array.from(out)).toEqual([7, 7, 7]); // untouched
    // 90° about x: q = (cos 45°, sin 45°, 0, 0); body z → −y
    tr.observe('cup', { x: 0.2, y: 0, z: 0.1 }, { w: s, x: s, y: 0, z: 0 }, 1);
    expect(axis.axis(out)).toBe(true);
    expect(out[0]).toBeCloseTo(0, 12);
    expect(out[1]).toBeCloseTo(-1, 12);
    expect(out[2]).toBeCloseTo(0, 12);
    clock.set(1.09);
    expect(axis.axis(out)).toBe(true); // 0.09 s old
    clock.set(1.11);
    expect(axis.axis(out)).toBe(false); // stale: 0.11 s old
    tr.observe('cup', { x: 0.2, y: 0, z: 0.1 }, { w: 1, x: 0, y: 0, z: 0 }, 1.1);
    expect(axis.axis(out)).toBe(true);
    expect(Array.from(out)).toEqual([0, 0, 1]);
    tr.resetEpisode();
    expect(axis.axis(out)).toBe(false);
  });

  it('turns the axis from the tracking frame into the base frame (rotation only)', () => {
    const tr = new SceneTracker({ bystanders: [], obstacles: ['cup'], source: 'mocap' });
    const clock = new ManualClock(0);
    // the tracking frame yawed +90° in the base: its x is the base's y, its y the base's −x
    const axis = new TrackedHeldObjectAxis(tr, 'cup', 0.05, clock, [0, 0, Math.PI / 2]);
    tr.observe('cup', { x: 3, y: 4, z: 5 }, { w: s, x: s, y: 0, z: 0 }, 0); // z along tracking −y
    const out = new Float64Array(3);
    expect(axis.axis(out)).toBe(true);
    // tracking −y = base +x
    expect(out[0]).toBeCloseTo(1, 12);
    expect(out[1]).toBeCloseTo(0, 12);
    expect(out[2]).toBeCloseTo(0, 12);
  });

  it('refuses a body the tracker does not track and a max age that is not finite and positive', () => {
    const tr = new SceneTracker({ bystanders: [], target: 'cup', source: 'sim.tracking' });
    const clock = new ManualClock(0);
    expect(() => new TrackedHeldObjectAxis(tr, 'bottle', 0.1, clock)).toThrow(/does not track 'bottle'/);
    expect(() => new TrackedHeldObjectAxis(tr, 'cup', 0, clock)).toThrow(/max age/);
    expect(() => new TrackedHeldObjectAxis(tr, 'cup', Infinity, clock)).toThrow(/max age/);
  });
});
