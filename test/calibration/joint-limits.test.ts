import { describe, expect, it } from 'vitest';
import { jointLimitsRadians } from '../../src/calibration/so101.js';

describe('jointLimitsRadians (the one degrees → radians conversion of the calibrated limits)', () => {
  it('converts each joint in order (hand-computed)', () => {
    const { lower, upper } = jointLimitsRadians({
      joints: [
        { name: 'shoulder_pan', id: 1, lowerDeg: -90, upperDeg: 180 },
        { name: 'shoulder_lift', id: 2, lowerDeg: -45, upperDeg: 30 },
      ],
    });
    expect(lower[0]).toBeCloseTo(-1.5707963267948966, 15);
    expect(upper[0]).toBeCloseTo(3.141592653589793, 15);
    expect(lower[1]).toBeCloseTo(-0.7853981633974483, 15);
    expect(upper[1]).toBeCloseTo(0.5235987755982988, 15);
    expect(lower).toHaveLength(2);
  });
});
