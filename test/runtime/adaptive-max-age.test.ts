/**
 * Issue 14 item 13: the derived max-age floor follows the read cycle during the run. Hand-made read
 * sequences, expected floors computed by hand from 2 × (period + nearest-rank quantile), rounded up
 * to 5 ms, kept between the start-up floor and the ceiling. The gate's side: `setMaxAgeFloor`.
 */
import { describe, expect, it } from 'vitest';
import { AdaptiveMaxAge } from '../../src/runtime/adaptive-max-age.js';
import { ArrayClauseMargins, Gate } from '../../src/gate/index.js';
import { SIGNAL_COUNT, SignalFrame, signalIndex } from '../../src/schema/signals.js';

/** Feed reads; return the floor after each (s). */
function floors(a: AdaptiveMaxAge, reads: readonly number[]): number[] {
  return reads.map((r) => (a.observe(r), a.floorS));
}

describe('AdaptiveMaxAge (pure)', () => {
  it('stays at the start-up floor while the reads are as fast as at start-up', () => {
    // Start-up: slowest read 20 ms at 100 Hz → floor 2 × (0.01 + 0.02) = 0.06 s.
    const a = new AdaptiveMaxAge({ rateHz: 100, startFloorS: 0.06, ceilingS: 0.25, window: 10, quantile: 1 });
    const changes = [0.012, 0.02, 0.015, 0.018, 0.02].map((r) => a.observe(r));
    expect(changes).toEqual([undefined, undefined, undefined, undefined, undefined]);
    expect(a.floorS).toBe(0.06);
  });

  it('rises with slower reads: 2 × (period + slowest), rounded up to 5 ms', () => {
    const a = new AdaptiveMaxAge({ rateHz: 100, startFloorS: 0.06, ceilingS: 0.25, window: 10, quantile: 1 });
    // 31 ms → 2 × 0.041 = 0.082 → 0.085; 40 ms → 0.100; 44 ms → 0.108 → 0.110.
    expect(a.observe(0.031)).toEqual({ floorS: 0.085, readS: 0.031, capped: false });
    expect(a.floorS).toBeCloseTo(0.085, 12);
    expect(a.observe(0.04)!.floorS).toBeCloseTo(0.1, 12);
    expect(a.observe(0.044)!.floorS).toBeCloseTo(0.11, 12);
    expect(a.observe(0.02)).toBeUndefined(); // the 44 ms read is still in the window
  });

  it('never above the ceiling (said as capped), never below the start-up floor', () => {
    const a = new AdaptiveMaxAge({ rateHz: 100, startFloorS: 0.06, ceilingS: 0.15, window: 3, quantile: 1 });
    const c = a.observe(0.3)!; // wants 2 × 0.31 = 0.62 s
    expect(c.floorS).toBe(0.15);
    expect(c.capped).toBe(true);
    // The slow read leaves the 3-read window: back down, but only to the start-up floor.
    expect(floors(a, [0.001, 0.001, 0.001])).toEqual([0.15, 0.15, 0.06]);
    expect(a.observe(0)).toBeUndefined();
    expect(a.floorS).toBe(0.06);
  });

  it('a high quantile: one outlier in the window does not move it, a few do', () => {
    // window 10, quantile 0.8 → the 8th smallest of 10 (nearest rank): two outliers are ignored, a third is not.
    const a = new AdaptiveMaxAge({ rateHz: 100, startFloorS: 0.06, ceilingS: 0.25, window: 10, quantile: 0.8 });
    floors(a, Array<number>(10).fill(0.02));
    expect(a.observe(0.05)).toBeUndefined();
    expect(a.observe(0.05)).toBeUndefined();
    expect(a.observe(0.05)!.floorS).toBeCloseTo(0.12, 12); // 2 × (0.01 + 0.05)
  });

  it('the default: the slowest of the last 200 reads (quantile 1); one that left the window no longer counts', () => {
    const a = new AdaptiveMaxAge({ rateHz: 100, startFloorS: 0.03, ceilingS: 0.25 });
    expect(a.observe(0.07)!.floorS).toBeCloseTo(0.16, 12); // 2 × (0.01 + 0.07)
    for (let k = 0; k < 199; k++) a.observe(0.005); // the 70 ms read is still the oldest of 200
    expect(a.floorS).toBeCloseTo(0.16, 12);
    const c = a.observe(0.005)!; // now it has left: 2 × (0.01 + 0.005) = 0.03 → the start-up floor
    expect(c.floorS).toBe(0.03);
    expect(c.readS).toBe(0.005);
  });

  it('comes down only when the reads want at least a fifth less (hysteresis), up at once', () => {
    const a = new AdaptiveMaxAge({ rateHz: 100, startFloorS: 0.04, ceilingS: 0.25, window: 1 });
    expect(a.observe(0.04)!.floorS).toBeCloseTo(0.1, 12); // 2 × 0.05
    expect(a.observe(0.032)).toBeUndefined(); // wants 0.085 > 0.8 × 0.1: stays 0.1
    expect(a.floorS).toBeCloseTo(0.1, 12);
    expect(a.observe(0.03)!.floorS).toBeCloseTo(0.08, 12); // wants 0.08 ≤ 0.8 × 0.1
    expect(a.observe(0.031)!.floorS).toBeCloseTo(0.085, 12); // up by one step at once
  });

  it('ignores durations that measure nothing (NaN, negative, infinite)', () => {
    const a = new AdaptiveMaxAge({ rateHz: 100, startFloorS: 0.06, ceilingS: 0.25, window: 2, quantile: 1 });
    expect([NaN, -1, Infinity].map((r) => a.observe(r))).toEqual([undefined, undefined, undefined]);
    expect(a.floorS).toBe(0.06);
    expect(() => new AdaptiveMaxAge({ rateHz: 0, startFloorS: 0.06, ceilingS: 0.25 })).toThrow(/rateHz/);
  });
});

describe('Gate.setMaxAgeFloor', () => {
  const TORQUE = signalIndex('max_joint_torque')!; // SPEC max age 0.05 s
  const FORCE = signalIndex('arm_furniture_contact_force')!; // 0.1 s
  const setup = (startFloor: number) => {
    const gate = new Gate({
      requiredSignals: [FORCE, TORQUE],
      maxAge: Array<number>(SIGNAL_COUNT).fill(startFloor),
      maxStepGap: 0.5,
      faultQuietPeriod: 1,
    });
    const margins = new ArrayClauseMargins(['a', 'b'], [0.2, 0.1]);
    const frame = new SignalFrame();
    frame.t = 0;
    frame.set(FORCE, 1, 0, 'test');
    frame.set(TORQUE, 0.5, 0, 'test');
    return { gate, margins, frame };
  };

  it('a raised floor keeps a sample fresh that the start-up floor found stale', () => {
    const before = setup(0.06);
    expect(before.gate.evaluate(0.08, before.margins, before.frame)).toBe('hold');
    expect(before.gate.holdCause).toMatchObject({ kind: 'stale-signal', maxAge: 0.06 });
    const after = setup(0.06);
    after.gate.setMaxAgeFloor(0.1);
    expect(after.gate.maxAgeOf(TORQUE)).toBe(0.1);
    expect(after.gate.evaluate(0.08, after.margins, after.frame)).toBe('armed');
    // And still stale past the new floor: the floor moves the bound, it does not remove it.
    expect(after.gate.evaluate(0.11, after.margins, after.frame)).toBe('hold');
    expect(after.gate.holdCause).toMatchObject({ kind: 'stale-signal', maxAge: 0.1 });
  });

  it('a lower floor restores the construction max ages, never less', () => {
    const { gate } = setup(0.06);
    gate.setMaxAgeFloor(0.2);
    gate.setMaxAgeFloor(0.01);
    expect(gate.maxAgeOf(TORQUE)).toBe(0.06);
    expect(() => gate.setMaxAgeFloor(NaN)).toThrow(RangeError);
  });
});
