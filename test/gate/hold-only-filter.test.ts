/** The hold-only chunk check: executes a chunk that keeps h ≥ 0 unchanged, refuses one that does not (naming the step), never modifies. */
import { describe, expect, it } from 'vitest';
import { HoldOnlyFilter } from '../../src/gate/index.js';
import { LINE_BARRIER } from './support/line-barrier.js';

describe('HoldOnlyFilter', () => {
  const f = new HoldOnlyFilter(LINE_BARRIER, { qmin: [-1], qmax: [1], maxSpeed: [2] });

  it('passes a chunk that stays on the safe side, the same array', () => {
    const u = Float64Array.from([0.25, 0.2, 0.15, 0.1]);
    const o = f.filter(u, 4, [0.3], 0.05);
    expect(o.status).toBe('unchanged');
    expect(o.targets).toBe(u);
    expect(o.minH).toBeCloseTo(0.1, 12);
  });

  it('refuses a chunk that crosses h = 0 at its first offending step, and one that outruns the motion bound', () => {
    const cross = f.filter(Float64Array.from([0.05, 0, -0.05, -0.1]), 4, [0.1], 0.05);
    expect(cross.status).toBe('unsafe');
    expect(cross.detail).toMatch(/step 2/);
    expect(cross.targets.length).toBe(0);
    const fast = f.filter(Float64Array.from([0.5]), 1, [0.3], 0.05); // 0.2 rad in one 0.05 s step > 2 rad/s
    expect(fast.status).toBe('unsafe');
    expect(fast.detail).toMatch(/motion bound/);
    expect(f.filter(Float64Array.from([0.5]), 1, [NaN], 0.05).status).toBe('unsafe');
  });
});
