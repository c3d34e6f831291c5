import { describe, expect, it } from 'vitest';
import { OnlineMonitor } from '../../src/stl/index.js';
import { bool, formula, real } from './support/formula.js';

const SIG = [...real('x', 'y'), ...bool('g')];
const monitor = (text: string): OnlineMonitor => new OnlineMonitor(formula(text, SIG), ['x', 'y', 'g']);

describe('OnlineMonitor', () => {
  it('episode-level always flags the violating sample itself', () => {
    const m = monitor('always (x < 200)');
    expect(m.current).toBeNaN();
    expect(m.episodeMin).toBe(Infinity);
    m.push(0, [150, 0, 0]);
    m.push(0.01, [190, 0, 0]);
    expect([m.current, m.low, m.high]).toEqual([10, -Infinity, 10]);
    expect(m.firstViolationTime).toBeNaN();
    m.push(0.02, [230, 0, 0]);
    expect(m.decidedSamples).toBe(3);
    expect(m.current).toBe(-30);
    expect(m.firstViolationTime).toBe(0.02);
    expect(m.high).toBe(-30); // violation already certain
    m.push(0.05, [100, 0, 0]);
    expect(m.current).toBe(100);
    expect(m.episodeMin).toBe(-30);
    m.finish();
    expect([m.final, m.low, m.high]).toEqual([-30, -30, -30]);
  });

  it('past-time formulas are decided on the sample itself', () => {
    const m = monitor('always (historically[0:0.5] (g -> x < 3))');
    const times = [0, 0.2, 0.25, 0.9, 1.0, 1.7];
    const xs = [1, 5, 2, 2, 2, 2];
    const gs = [1, 0, 1, 1, 1, 1];
    const current: number[] = [];
    times.forEach((t, i) => {
      m.push(t, [xs[i]!, 0, gs[i]!]);
      expect(m.decidedSamples).toBe(i + 1);
      current.push(m.current);
    });
    // margins of g -> x < 3: [2, ∞, 1, 1, 1, 1]; historically over [t-0.5, t]
    expect(current).toEqual([2, 2, 1, 1, 1, 1]);
  });

  it('bounded-future results are decided once the trace reaches their horizon, or at finish', () => {
    const m = monitor('always (eventually[0:1] x > 10)');
    const times = [0, 0.3, 0.9, 1.0, 1.6, 2.2];
    const decided: number[] = [];
    for (const t of times) {
      m.push(t, [t * 10, 0, 0]);
      decided.push(m.decidedSamples);
    }
    expect(decided).toEqual([0, 0, 0, 1, 2, 4]);
    m.finish();
    expect(m.decidedSamples).toBe(6);
    // eventually[0:1] of 10t − 10 at the samples: [0, 6, 12, 12, 12, 12] → min 0 at t = 0
    expect(m.final).toBe(0);
  });

  it('robust satisfaction interval for an episode-level eventually', () => {
    const m = monitor('eventually x > 5');
    m.push(0, [1, 0, 0]);
    expect([m.low, m.high]).toEqual([-4, Infinity]);
    m.push(1, [7, 0, 0]);
    expect([m.low, m.high]).toEqual([2, Infinity]);
    m.finish();
    expect([m.low, m.high, m.final]).toEqual([2, 2, 2]);
  });

  it('bounded-future formula: [low, high] narrows before the horizon and a certain violation shows in high', () => {
    const m = monitor('always[0:2] (x < 3)');
    m.push(0, [1, 0, 0]);
    expect([m.low, m.high]).toEqual([-Infinity, 2]);
    m.push(1, [2, 0, 0]);
    expect([m.low, m.high]).toEqual([-Infinity, 1]);
    m.push(1.5, [5, 0, 0]);
    expect(m.decidedSamples).toBe(0);
    expect(m.high).toBe(-2); // violated whatever comes next
    m.push(2, [0, 0, 0]);
    expect(m.decidedSamples).toBe(1);
    expect([m.low, m.high]).toEqual([-2, -2]);
  });

  it('bounded-future satisfaction becomes certain before the horizon (low > 0)', () => {
    const m = monitor('eventually[0:2] (x > 4) and historically (y < 10)');
    m.push(0, [1, 0, 0]);
    expect([m.low, m.high]).toEqual([-3, 10]);
    m.push(0.5, [6, 0, 0]);
    expect([m.low, m.high]).toEqual([2, 10]);
    m.finish();
    expect(m.final).toBe(2);
  });

  it('a very long undecided horizon keeps a bounded prefix and a sound (looser) interval', () => {
    const m = monitor('eventually[0:10000] (x > 3)');
    for (let i = 0; i < 5000; i++) {
      m.push(i, [i === 10 ? 5 : 0, 0, 0]);
      if (i === 20) expect([m.low, m.high]).toEqual([2, Infinity]); // from the kept prefix
    }
    expect(m.low <= 2 && m.high >= 2).toBe(true);
    m.finish();
    expect(m.final).toBe(2);
  });

  it('longest violating run, in seconds and samples, over irregular samples', () => {
    const m = monitor('always (x < 0)');
    const samples: [number, number][] = [
      [0, -1],
      [1, 1],
      [1.5, 2],
      [3, -1],
      [3.2, 1],
      [3.3, 1],
      [3.4, 1],
      [5, -1],
    ];
    for (const [t, x] of samples) m.push(t, [x, 0, 0]);
    expect(m.longestViolation).toEqual({ seconds: 2, samples: 2 });
    expect(m.firstViolationTime).toBe(1);
    m.finish();
    expect(m.longestViolation).toEqual({ seconds: 2, samples: 2 });

    const open = monitor('always (x < 0)');
    open.push(0, [1, 0, 0]);
    expect(open.longestViolation).toEqual({ seconds: 0, samples: 1 });
    open.push(4, [1, 0, 0]);
    expect(open.longestViolation).toEqual({ seconds: 4, samples: 2 });
  });

  it('a conjunction of clauses reports the worst margin', () => {
    const m = monitor('always (x < 10) and always (y > 0)');
    m.push(0, [4, 3, 0]);
    expect(m.current).toBe(3);
    m.push(1, [12, 1, 0]);
    expect([m.current, m.high]).toEqual([-2, -2]);
  });

  it('memory is constant in episode length for past-time and bounded formulas (incl. unbounded past)', () => {
    const m = monitor(
      'always ((once (x > 3)) or (historically[0:0.5] (x < 5)) and ((x > 0) since (y > 0)) and ' +
        '((x > 0) since[0.1:0.4] (y > 0)) and (eventually[0:0.3] (y < 1)) and ((x < 4) until[0:0.2] (y > -1)))',
    );
    let capacityAt20k = 0;
    for (let i = 0; i < 200_000; i++) {
      m.push(i * 0.01 + (i % 3) * 0.001, [3 * Math.sin(i * 0.01), Math.cos(i * 0.003), 0]);
      if (i === 20_000) capacityAt20k = m.bufferCapacity;
    }
    expect(capacityAt20k).toBeLessThan(2_000);
    expect(m.bufferCapacity).toBe(capacityAt20k);
  });

  it('minSampleInterval sizes every buffer up front: no growth at all, same results', () => {
    const text =
      'always ((once (x > 3)) or (historically[0:0.5] (x < 5)) and ((x > 0) since[0.1:0.4] (y > 0)) and ' +
      '(eventually[0:0.3] (y < 1)) and ((x < 4) until[0.05:0.2] (y > -1))) and eventually[0:1] (x > 2)';
    const sized = new OnlineMonitor(formula(text, SIG), ['x', 'y', 'g'], { minSampleInterval: 0.001 });
    const plain = monitor(text);
    const capacity = sized.bufferCapacity;
    for (let i = 0; i < 50_000; i++) {
      const t = i * 0.0015 + (i % 2) * 0.0004;
      const row = [3 * Math.sin(i * 0.01), Math.cos(i * 0.003), 0];
      sized.push(t, row);
      plain.push(t, row);
      if (i % 997 === 0) expect([sized.current, sized.low, sized.high]).toEqual([plain.current, plain.low, plain.high]);
    }
    expect(sized.bufferCapacity).toBe(capacity);
    sized.finish();
    plain.finish();
    expect(sized.final).toBe(plain.final);
  });

  it('reset starts a new episode with identical results', () => {
    const m = monitor('always[0:1] (x < 3) and once[0:2] (y > 0)');
    const run = (): number[] => {
      const out: number[] = [];
      for (let i = 0; i < 40; i++) {
        m.push(i * 0.3, [Math.sin(i) * 4, Math.cos(i * 0.7), 0]);
        out.push(m.current, m.decidedSamples);
      }
      m.finish();
      out.push(m.final, m.episodeMin, m.firstViolationTime, m.longestViolation.seconds);
      return out;
    };
    const first = run();
    m.reset();
    expect(m.samples).toBe(0);
    expect(run()).toEqual(first);
  });

  it('out-of-order, repeated or non-finite timestamps are ignored and counted, never thrown', () => {
    const m = monitor('always (x < 1)');
    m.push(1, [0, 0, 0]);
    m.push(1, [5, 0, 0]);
    m.push(0.5, [5, 0, 0]);
    m.push(NaN, [5, 0, 0]);
    expect(m.samples).toBe(1);
    expect(m.rejectedSamples).toBe(3);
    expect(m.current).toBe(1);
    m.finish();
    m.push(2, [5, 0, 0]);
    expect(m.rejectedSamples).toBe(4);
    expect(m.final).toBe(1);
  });

  it('a NaN value is ignored and counted: it cannot hide a later violation inside a window', () => {
    const m = monitor('always (historically[0:1] (x < 10))');
    [-100, NaN, 15, 15, 15].forEach((x, i) => m.push(i * 0.1, [x, 0, 0])); // all in one window
    expect(m.current).toBe(-5);
    expect(m.firstViolationTime).toBe(0.2);
    expect(m.high).toBe(-5);
    expect(m.samples).toBe(4);
    expect(m.invalidSamples).toBe(1);
    expect(m.rejectedSamples).toBe(0);
    m.finish();
    expect(m.final).toBe(-5);
    expect(m.episodeMin).toBe(-5);
  });

  it('a NaN value does not latch the episode bounds at NaN', () => {
    const m = monitor('always (x < 10)');
    [1, NaN, 1, 1].forEach((x, i) => m.push(i * 0.1, [x, 0, 0]));
    expect([m.current, m.episodeMin, m.high]).toEqual([9, 9, 9]);
    expect(m.invalidSamples).toBe(1);
    m.push(0.4, [12, 0, 0]);
    expect(m.high).toBe(-2);
    expect(m.firstViolationTime).toBe(0.4);
    m.finish();
    expect(m.final).toBe(-2);
  });

  it('only the columns the formula reads are checked; a missing one is invalid; reset clears the count', () => {
    const m = monitor('always (x < 10) and always (g)');
    m.push(0, [1, NaN, 1]); // y is not read
    expect(m.samples).toBe(1);
    m.push(1, [1, 0, NaN]);
    m.push(2, [1, 0]);
    expect(m.samples).toBe(1);
    expect(m.invalidSamples).toBe(2);
    m.push(3, [2, 0, 1]);
    expect(m.samples).toBe(2);
    expect(m.current).toBe(8);
    m.reset();
    expect(m.invalidSamples).toBe(0);
  });

  it('refuses a formula reading a signal outside its signal order', () => {
    expect(() => new OnlineMonitor(formula('always (y < 1)', SIG), ['x'])).toThrow(/signal 'y'/);
  });

  it('an empty episode: always is +∞, eventually −∞', () => {
    const g = monitor('always (x < 1)');
    g.finish();
    expect(g.final).toBe(Infinity);
    const f = monitor('eventually (x < 1)');
    f.finish();
    expect(f.final).toBe(-Infinity);
  });
});
