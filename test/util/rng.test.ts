import { describe, expect, it } from 'vitest';
import { boxMuller, gaussian, mulberry32, mulberry32Open } from '../../src/util/rng.js';

// Pinned from the copies this module replaced (drivers/sim/rng.ts, src/calibration/mlp.ts) run
// before the refactor: seeded sims, QP property tests and fitted calibrations depend on these bits.
describe('mulberry32', () => {
  it('replays the known stream for a seed', () => {
    const r = mulberry32(42);
    expect([r(), r(), r(), r(), r()]).toEqual([
      0.6011037519201636, 0.44829055899754167, 0.8524657934904099, 0.6697340414393693, 0.17481389874592423,
    ]);
    const z = mulberry32(0);
    expect([z(), z(), z()]).toEqual([0.26642920868471265, 0.0003297457005828619, 0.2232720274478197]);
  });

  it('reduces the seed to uint32 and keeps independent streams per generator', () => {
    const a = mulberry32(2 ** 32 + 42),
      b = mulberry32(42);
    expect(a()).toBe(0.6011037519201636);
    expect(a()).toBe(0.44829055899754167);
    expect(b()).toBe(0.6011037519201636);
  });

  it('open variant is the same words centred in their cell: (word + 0.5) / 2^32', () => {
    const r = mulberry32Open(42);
    expect([r(), r(), r()]).toEqual([0.601103752036579, 0.448290559113957, 0.8524657936068252]);
    const z = mulberry32Open(0);
    expect([z(), z(), z()]).toEqual([0.26642920880112797, 0.00032974581699818373, 0.22327202756423503]);
  });
});

describe('gaussian', () => {
  it('matches the calibration fit’s seeded normals (Box–Muller over the open stream)', () => {
    const u = mulberry32Open(1);
    expect([gaussian(u), gaussian(u), gaussian(u)]).toEqual([
      0.9659740588109486, 1.123104193657078, -0.049227862876312485,
    ]);
  });

  it('boxMuller takes the radius from u1 and the angle from u2', () => {
    expect(boxMuller(Math.exp(-2), 0)).toBeCloseTo(2, 15);
    expect(boxMuller(Math.exp(-2), 0.5)).toBeCloseTo(-2, 15);
    expect(boxMuller(1, 0.3)).toBe(0);
  });
});
