/**
 * BodyAxisPoints: `<body>#i` is the tracked body's position plus offsets[i] along its tracked up
 * axis, stamped as the body's sample (checked by hand: a bottle tilted 90° about x has its z-axis
 * along −y); unknown names, unseen bodies and untracked bodies give NaN.
 */
import { describe, expect, it } from 'vitest';
import { BodyAxisPoints } from '../../../drivers/tracking/axis-points.js';
import { SceneTracker } from '../../../drivers/tracking/scene-tracker.js';

describe('BodyAxisPoints', () => {
  it('points along the tracked up axis, with the sample stamp; NaN before the first sample and for unknown names', () => {
    const tr = new SceneTracker({ bystanders: [], obstacles: ['bottle'], source: 'sim.tracking' });
    const pts = new BodyAxisPoints(tr, 'bottle', [-0.06, 0.06]);
    const out = new Float64Array(3);
    expect(pts.positionOf('bottle#0', out)).toBeNaN(); // never seen
    tr.observe('bottle', { x: 0.5, y: 0.1, z: 0.2 }, { w: 1, x: 0, y: 0, z: 0 }, 1.25);
    expect(pts.positionOf('bottle#0', out)).toBe(1.25);
    expect(Array.from(out)).toEqual([0.5, 0.1, 0.2 - 0.06]);
    expect(pts.positionOf('bottle#1', out)).toBe(1.25);
    expect(out[2]).toBeCloseTo(0.26, 15);
    // 90° about x: q = (cos 45°, sin 45°, 0, 0); body z → world −y
    const s = Math.SQRT1_2;
    tr.observe('bottle', { x: 0.5, y: 0.1, z: 0.05 }, { w: s, x: s, y: 0, z: 0 }, 1.5);
    expect(pts.positionOf('bottle#1', out)).toBe(1.5);
    expect(out[0]).toBeCloseTo(0.5, 12);
    expect(out[1]).toBeCloseTo(0.1 - 0.06, 12);
    expect(out[2]).toBeCloseTo(0.05, 12);
    for (const name of ['bottle#2', 'bottle#', 'bottle#x', 'bottle#1.5', 'bottle', 'cup#0'])
      expect(pts.positionOf(name, out)).toBeNaN();
    tr.resetEpisode();
    expect(pts.positionOf('bottle#0', out)).toBeNaN(); // a new episode waits for a fresh sample
  });

  it('refuses a body the scene tracker does not track', () => {
    const tr = new SceneTracker({ bystanders: [], obstacles: ['bottle'], source: 'sim.tracking' });
    expect(() => new BodyAxisPoints(tr, 'cup', [0])).toThrow(/does not track 'cup'/);
  });
});
