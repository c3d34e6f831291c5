/**
 * Chunk stamps on the policy's own clock (a policy on another machine): the screen estimates the
 * clock offset as the smallest receipt − stamp over recent chunks, and a chunk's age is its transit
 * beyond that; the validity window (maxAge) is relative to receipt. Checked against hand-computed
 * cases and a naive recomputation over random streams.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChunkScreen, type GateChunk } from '../../src/gate/index.js';

const CFG = {
  joints: 1,
  maxHorizon: 10,
  qmin: [-1],
  qmax: [1],
  maxAge: 0.2,
  futureTolerance: 0.05,
  minDt: 0.001,
  maxDt: 0.5,
  idMemory: 64,
  policyClock: true,
  offsetWindow: 4,
};
const chunk = (id: string, stamp: number): GateChunk => ({
  id,
  stamp,
  horizon: 1,
  joints: 1,
  dt: 0.02,
  targets: new Float64Array([0]),
});

describe('ChunkScreen with stamps on the policy clock', () => {
  it('a policy clock 1000 s behind is accepted; the offset is the fastest transit; a chunk 0.3 s late is stale', () => {
    const s = new ChunkScreen(CFG);
    expect(s.clockOffset).toBeNaN();
    // gate clock 5000 s; policy clock 4000 s; transits 30, 10, 20 ms
    expect(s.check(chunk('a', 4000.0), 5000.03)).toBeNull();
    expect(s.clockOffset).toBeCloseTo(1000.03, 9);
    expect(s.check(chunk('b', 4000.1), 5000.11)).toBeNull();
    expect(s.clockOffset).toBeCloseTo(1000.01, 9);
    expect(s.check(chunk('c', 4000.2), 5000.22)).toBeNull(); // 10 ms slower than the best: age 0.01
    expect(s.check(chunk('d', 4000.3), 5000.61)).toEqual({
      code: 'stale',
      age: expect.closeTo(0.3, 9) as number,
      maxAge: 0.2,
    });
    expect(s.check(chunk('e', 4000.4), 5000.6)).toBeNull(); // 190 ms beyond the best: inside the window
  });

  it('a same-clock screen keeps refusing such stamps (the old behaviour, used where the clocks are shared)', () => {
    const s = new ChunkScreen({ ...CFG, policyClock: false });
    expect(s.check(chunk('a', 4000.0), 5000.03)).toMatchObject({ code: 'stale' });
  });

  it('a restarted policy clock (stamps 100 s back) starts a new estimate instead of refusing every chunk as out of order', () => {
    const s = new ChunkScreen(CFG);
    expect(s.check(chunk('a', 4000), 5000.01)).toBeNull();
    expect(s.check(chunk('b', 3), 5001.02)).toBeNull();
    expect(s.clockResets).toBe(1);
    expect(s.clockOffset).toBeCloseTo(4998.02, 9);
    expect(s.check(chunk('c', 2.9), 5001.05)).toMatchObject({ code: 'out-of-order' }); // within 1 s back: still out of order
  });

  it('the offset equals a naive minimum over the last `offsetWindow` accepted delays (random streams)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -1e6, max: 1e6, noNaN: true }),
        fc.array(
          fc.record({
            gap: fc.double({ min: 0.001, max: 0.1, noNaN: true }),
            transit: fc.double({ min: 0, max: 0.15, noNaN: true }),
          }),
          { minLength: 1, maxLength: 40 },
        ),
        (offset, stream) => {
          const s = new ChunkScreen(CFG);
          const accepted: number[] = [];
          let stamp = 100;
          stream.forEach((x, i) => {
            stamp += x.gap;
            const now = stamp + offset + x.transit;
            if (s.check(chunk(`c${i}`, stamp), now) === null) accepted.push(now - stamp);
            const last = accepted.slice(-CFG.offsetWindow);
            expect(s.clockOffset).toBe(Math.min(...last));
          });
          expect(accepted.length).toBe(stream.length); // transits ≤ 0.15 s never exceed the 0.2 s window
        },
      ),
    );
  });
});
