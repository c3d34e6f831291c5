/**
 * CbfFilterConfig.firstRoundIterations (issue 15, filter time): a round 1 that has not converged
 * within the cap is treated like a round that needed slack, so the next round linearises at the
 * standing-still chunk. A point robot in the plane (2 joints = x, y) and one disc obstacle,
 * h(q) = |q| − r written here from the definition; the last round's re-check leaves the QP's hRef
 * at that round's linearisation point, so the point is checked through it.
 */
import { describe, expect, it } from 'vitest';
import { ChunkCbfFilter, interiorPointSolver } from '../../src/gate/index.js';
import type { QpSolverFactory } from '../../src/gate/cbf-types.js';
import type { QpSolveOptions } from '../../src/qp/types.js';

import { DISC_FILTER_CONFIG, discBarrier, discLine } from './support/disc-barrier.js';

const R = 1;
const disc = discBarrier(R);
const H = 20;
const DT = 0.1;

const filter = (maxRounds: number, firstRoundIterations?: number) =>
  new ChunkCbfFilter(disc, interiorPointSolver, {
    ...DISC_FILTER_CONFIG,
    maxRounds,
    ...(firstRoundIterations === undefined ? {} : { firstRoundIterations }),
  });

/** A straight line from (x0, y) along +x, H rows (discLine). */
const line = (x0: number, y: number): Float64Array => discLine(x0, y, H);

/** h at the rows round 1 linearised at (one round: hRef is not overwritten by a later re-check). */
const linearisedAt = (f: ChunkCbfFilter): number[] => Array.from(f.lastProblem!.hRef.subarray(0, H));

describe('ChunkCbfFilter firstRoundIterations', () => {
  // through the disc at y = 0.3: the nominal's later rows are deep inside it
  const q0 = [-1.2, 0.3];
  const nominal = line(-1.2, 0.3);
  const h0 = Math.hypot(q0[0]!, q0[1]!) - R;

  it('a round 1 cut short is followed by a round at the standing-still chunk', () => {
    // uncapped, round 1 takes more than one iteration
    const free = filter(2);
    const freeRounds: number[] = [];
    free.trace = (round) => freeRounds.push(round === 1 ? free.outcome.iterations : NaN);
    free.filter(nominal, H, q0, DT);
    expect(freeRounds[0]).toBeGreaterThan(1);
    const f = filter(2, 1);
    const traced: number[] = [];
    f.trace = (round) => traced.push(round);
    const o = f.filter(nominal, H, q0, DT);
    expect(o.rounds).toBe(2);
    // round 1 stopped after its one iteration and gave no result; round 2 ran to convergence
    expect(traced).toEqual([2]);
    expect(o.iterations).toBeGreaterThan(1);
    // round 2 (the last: its re-check leaves hRef alone) linearised at u_k = q0
    for (const h of linearisedAt(f)) expect(h).toBeCloseTo(h0, 12);
    expect(o.status).toBe('filtered');
    expect(o.minH).toBeGreaterThanOrEqual(0);
  });

  it('a cap round 1 stays within changes nothing; nor does one on a round 1 that is the last', () => {
    const free = filter(3).filter(nominal, H, q0, DT);
    const freeRounds = free.rounds;
    const freeIterations = free.iterations;
    const freeTargets = Float64Array.from(free.targets);
    const g = filter(3, 39).filter(nominal, H, q0, DT);
    expect(g.rounds).toBe(freeRounds);
    expect(g.iterations).toBe(freeIterations);
    expect(Array.from(g.targets)).toEqual(Array.from(freeTargets));
    // one round only: the cap does not apply (a cut round 1 would have no round after it)
    const one = filter(1).filter(nominal, H, q0, DT);
    const oneIterations = one.iterations;
    expect(oneIterations).toBeGreaterThan(1);
    expect(filter(1, 1).filter(nominal, H, q0, DT).iterations).toBe(oneIterations);
  });

  it('cut where round 1 needed slack: the same rounds after it and the same chunk, in fewer iterations', () => {
    // closer to the disc's centre (y = 0.1): linearised at these rows round 1 needs slack
    const deep = line(-1.2, 0.1);
    const start = [-1.2, 0.1];
    const free = filter(3);
    const slack: number[] = [];
    let round1 = 0;
    free.trace = (round, s) => {
      slack.push(s);
      if (round === 1) round1 = free.outcome.iterations;
    };
    const a = free.filter(deep, H, start, DT);
    const aTargets = Float64Array.from(a.targets);
    const aIterations = a.iterations;
    const aRounds = a.rounds;
    // linearised deep inside the disc, round 1 needs slack; round 2 stands still
    expect(slack[0]).toBeGreaterThan(1e-6);
    expect(round1).toBeGreaterThan(2);
    const b = filter(3, 2).filter(deep, H, start, DT);
    expect(b.status).toBe(a.status);
    expect(b.rounds).toBe(aRounds);
    expect(b.iterations).toBe(aIterations - round1 + 2);
    expect(Array.from(b.targets)).toEqual(Array.from(aTargets));
  });

  it('rejects a cap that is not a whole number ≥ 1', () => {
    for (const cap of [0, 1.5, NaN, -3]) expect(() => filter(2, cap)).toThrow(/firstRoundIterations/);
  });
});

describe('ChunkCbfFilter firstRoundSlackProbe', () => {
  /** The interior point, each solve's options and result shown to `seen` (a test's log). */
  const watched =
    (seen: (o: QpSolveOptions, r: { status: string; x: Float64Array }) => void): QpSolverFactory =>
    (problem) => {
      const s = interiorPointSolver(problem);
      return {
        solve: (o) => {
          const r = s.solve(o);
          seen(o, r);
          return r;
        },
      };
    };
  const probed = (cap: number, iterations: number, slack: number, log: string[] = []) =>
    new ChunkCbfFilter(
      disc,
      watched((o, r) => log.push(`${o.maxIterations}${o.resume === true ? 'R' : ''}:${r.status}`)),
      { ...DISC_FILTER_CONFIG, maxRounds: 3, firstRoundIterations: cap, firstRoundSlackProbe: { iterations, slack } },
    );
  /** Σξ of round 1's iterate after `k` iterations (x beyond the H × 2 targets). */
  const round1SlackAfter = (nominal: Float64Array, start: number[], k: number): number => {
    let slack = NaN;
    const f = new ChunkCbfFilter(
      disc,
      watched((_o, r) => {
        if (!Number.isNaN(slack)) return;
        slack = 0;
        for (let i = 2 * H; i < 3 * H; i++) slack += Math.max(0, r.x[i]!);
      }),
      { ...DISC_FILTER_CONFIG, maxRounds: 3, firstRoundIterations: k },
    );
    f.filter(nominal, H, start, DT);
    return slack;
  };

  it('a round 1 whose iterate shows slack at the probe goes to the standing-still chunk then, as a cap there would', () => {
    // deep in the disc (y = 0.1): round 1 needs slack
    const deep = line(-1.2, 0.1);
    const start = [-1.2, 0.1];
    const atProbe = round1SlackAfter(deep, start, 2);
    expect(atProbe).toBeGreaterThan(1e-3);
    const log: string[] = [];
    const f = probed(30, 2, atProbe / 2, log);
    const o = f.filter(deep, H, start, DT);
    // the probe's solve, then no continuation: round 2 (and on) at full length
    expect(log[0]).toBe('2:max-iterations');
    expect(log.slice(1).some((e) => e.includes('R'))).toBe(false);
    const capped = filter(3, 2).filter(deep, H, start, DT);
    expect(o.status).toBe(capped.status);
    expect(o.rounds).toBe(capped.rounds);
    expect(o.iterations).toBe(capped.iterations);
    expect(Array.from(o.targets)).toEqual(Array.from(capped.targets));
    // and the chunk clears the disc, from its definition
    for (let k = 0; k < H; k++)
      expect(Math.hypot(o.targets[2 * k]!, o.targets[2 * k + 1]!) - R).toBeGreaterThanOrEqual(0);
  });

  it('below the threshold the same solve continues to the cap: the chunk the cap alone gives', () => {
    for (const [y, cap] of [
      [0.1, 30],
      [0.3, 30],
      [0.1, 4],
    ] as const) {
      const nominal = line(-1.2, y);
      const start = [-1.2, y];
      const log: string[] = [];
      const o = probed(cap, 2, 1e9, log).filter(nominal, H, start, DT);
      // round 1 stopped at the probe and was continued (resumed) from there
      expect(log[0]).toBe('2:max-iterations');
      expect(log[1]).toMatch(new RegExp(`^${cap - 2}R:`));
      const plain = filter(3, cap).filter(nominal, H, start, DT);
      expect(o.status).toBe(plain.status);
      expect(o.rounds).toBe(plain.rounds);
      expect(o.iterations).toBe(plain.iterations);
      let d = 0;
      for (let i = 0; i < plain.targets.length; i++) d = Math.max(d, Math.abs(o.targets[i]! - plain.targets[i]!));
      expect(d).toBeLessThan(1e-9);
    }
  });

  it('rejects a probe without a cap, at or past the cap, or with a threshold that is not a positive number', () => {
    const make = (cap: number | undefined, iterations: number, slack: number) => () =>
      new ChunkCbfFilter(disc, interiorPointSolver, {
        ...DISC_FILTER_CONFIG,
        maxRounds: 3,
        ...(cap === undefined ? {} : { firstRoundIterations: cap }),
        firstRoundSlackProbe: { iterations, slack },
      });
    expect(make(undefined, 2, 0.01)).toThrow(/firstRoundSlackProbe/);
    for (const it of [0, 4, 5, 1.5]) expect(make(4, it, 0.01)).toThrow(/firstRoundSlackProbe/);
    for (const s of [0, -1, NaN, Infinity]) expect(make(4, 2, s)).toThrow(/firstRoundSlackProbe/);
  });
});
