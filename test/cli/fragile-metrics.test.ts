/** The fragile pilot's motion figures against hand-computed series. */
import { describe, expect, it } from 'vitest';
import { chunkModification, correctionReversalsPerSecond, meanSquaredJerk, pathLength } from '../../src/cli/demo/fragile/metrics.js';

describe('fragile pilot metrics', () => {
  it('jerk of q = t³ is 6 at every stencil; a second column 2t³ adds 24²·… per tick', () => {
    const dt = 0.1;
    const rows: number[] = [];
    for (let k = 0; k < 8; k++) rows.push((k * dt) ** 3, 2 * (k * dt) ** 3);
    // third differences of t³ are exactly 6 dt³: jerk 6 and 12, squared sum 36 + 144
    expect(meanSquaredJerk(rows, 2, dt)).toBeCloseTo(180, 6);
    expect(meanSquaredJerk([0, 1, 2], 1, dt)).toBeNaN();
  });

  it('reversals: consecutive opposite signs beyond the deadband only, per second', () => {
    // one joint: +, −, (small), +, − → pairs (+,−) yes, (−,small) no, (small,+) no, (+,−) yes
    const c = [0.01, -0.01, 1e-6, 0.02, -0.03];
    expect(correctionReversalsPerSecond(c, 1, 0.5, 1e-4)).toBeCloseTo(2 / 2.5, 12);
  });

  it('chunk modification is the Frobenius norm over the arm columns only; path length sums segments', () => {
    const nominal = [0, 0, 9, 1, 1, 9];
    const executed = [3, 0, 0, 1, 5, 0]; // gripper column (index 2) differs but is not counted
    expect(chunkModification(executed, nominal, 3, 2)).toBeCloseTo(5, 12);
    expect(pathLength([0, 0, 0, 3, 4, 0, 3, 4, 12])).toBeCloseTo(17, 12);
  });
});
