/**
 * CbfFilterConfig.firstRoundIterate (issue 15, filter time): round 1 at the nominal stops after a
 * few interior-point iterations and round 2 linearises at that iterate (projected onto the motion
 * bounds), with its own proximal weight around it. A point robot in the plane (2 joints = x, y) and
 * one disc obstacle, h(q) = |q| − r written from the definition (test/gate/support/disc-barrier.ts).
 * With maxRounds 2 round 2 is the last, so its re-check leaves the QP's hRef, q and P as round 2
 * linearised and weighted them.
 */
import { describe, expect, it } from 'vitest';
import { ChunkCbfFilter, interiorPointSolver } from '../../src/gate/index.js';

import { DISC_FILTER_CONFIG, discBarrier, discLine } from './support/disc-barrier.js';

const R = 1;
const disc = discBarrier(R);
const H = 20;
const DT = 0.1;
const STEP = 0.1; // maxSpeed 1 × DT

const filter = (maxRounds: number, extra: Record<string, unknown> = {}) =>
  new ChunkCbfFilter(disc, interiorPointSolver, { ...DISC_FILTER_CONFIG, maxRounds, ...extra });

/** A straight line from (x0, y) along +x, H rows (discLine). */
const line = (x0: number, y: number): Float64Array => discLine(x0, y, H);

interface Traced {
  round: number;
  slack: number;
  u: Float64Array;
}

function traced(f: ChunkCbfFilter): Traced[] {
  const rounds: Traced[] = [];
  f.trace = (round, slack, u) => rounds.push({ round, slack, u: Float64Array.from(u) });
  return rounds;
}

describe('ChunkCbfFilter firstRoundIterate', () => {
  // through the disc at y = 0.3: the nominal's later rows are deep inside it
  const q0 = [-1.2, 0.3];
  const nominal = line(-1.2, 0.3);

  it('round 1 cut short: round 2 linearises at its iterate, within the motion bounds, and is what runs', () => {
    const f = filter(2, { firstRoundIterate: { iterations: 2, proximal: 10 } });
    const rounds = traced(f);
    const o = f.filter(nominal, H, q0, DT);
    expect(o.status, o.detail).toBe('filtered');
    expect(o.rounds).toBe(2);
    expect(rounds.map((r) => r.round)).toEqual([1, 2]);
    // the cut round reports no slack figure: it was not decided
    expect(rounds[0]!.slack).toBeNaN();
    const iterate = rounds[0]!.u;
    // projected: every step within 0.1 of the one before (q0 first)
    for (let k = 0; k < H; k++)
      for (let j = 0; j < 2; j++) {
        const prev = k === 0 ? q0[j]! : iterate[2 * (k - 1) + j]!;
        expect(Math.abs(iterate[2 * k + j]! - prev)).toBeLessThanOrEqual(STEP + 1e-12);
      }
    // round 2 linearised at the iterate: hRef = |u_k| − r there
    const hRef = f.lastProblem!.hRef;
    for (let k = 0; k < H; k++) expect(hRef[k]).toBeCloseTo(Math.hypot(iterate[2 * k]!, iterate[2 * k + 1]!) - R, 12);
    // the executed chunk is round 2's, not the iterate
    expect(Array.from(o.targets)).toEqual(Array.from(rounds[1]!.u));
    expect(o.minH).toBeGreaterThanOrEqual(0);
    // two iterations in round 1, the rest in round 2
    expect(o.iterations).toBeGreaterThan(2);
  });

  it('round 2 is weighted around the iterate with the option’s proximal weight, not CbfWeights.proximal', () => {
    const a = filter(2, { firstRoundIterate: { iterations: 2, proximal: 0 } });
    const b = filter(2, { firstRoundIterate: { iterations: 2, proximal: 7 } });
    const ta = traced(a);
    const tb = traced(b);
    a.filter(nominal, H, q0, DT);
    b.filter(nominal, H, q0, DT);
    // the same round 1 (it has no proximal term)
    expect(Array.from(tb[0]!.u)).toEqual(Array.from(ta[0]!.u));
    const iterate = ta[0]!.u;
    const pa = a.lastProblem!.problem;
    const pb = b.lastProblem!.problem;
    // μ‖u − ū‖²: 2μ on every u's diagonal of P, −2μ·ū in q
    let diagonals = 0;
    for (let t = 0; t < pa.P.values.length; t++) {
      const d = pb.P.values[t]! - pa.P.values[t]!;
      if (d !== 0) {
        expect(d).toBeCloseTo(14, 9);
        diagonals++;
      }
    }
    expect(diagonals).toBe(2 * H);
    for (let c = 0; c < 2 * H; c++) expect((pb.q[c]! - pa.q[c]!) / -14).toBeCloseTo(iterate[c]!, 9);
  });

  it('only round 2 has the option’s weight: a round 3 at round 2’s result is weighted with CbfWeights.proximal', () => {
    // closer to the disc's centre (y = 0.2): round 2 is safe but short, so a round 3 follows
    const start = [-1.2, 0.2];
    const deeper = line(-1.2, 0.2);
    const a = filter(3, { firstRoundIterate: { iterations: 2, proximal: 0 } });
    const b = filter(3, { firstRoundIterate: { iterations: 2, proximal: 7 } });
    const ta = traced(a);
    const tb = traced(b);
    expect(a.filter(deeper, H, start, DT).rounds).toBe(3);
    expect(b.filter(deeper, H, start, DT).rounds).toBe(3);
    expect(ta.map((r) => r.round)).toEqual([1, 2, 3]);
    // round 2 needed no slack, so round 3 linearises at its result (not standing still)
    expect(ta[1]!.slack).toBeLessThanOrEqual(1e-6);
    expect(tb[1]!.slack).toBeLessThanOrEqual(1e-6);
    // round 3's P: 2·CbfWeights.proximal on every u's diagonal in both, whatever round 2's weight was
    expect(Array.from(b.lastProblem!.problem.P.values)).toEqual(Array.from(a.lastProblem!.problem.P.values));
    // and its q is weighted around round 2's result: q_b − q_a = −2μ(ū_b − ū_a), μ = 20
    const mu = DISC_FILTER_CONFIG.proximal;
    const qa = a.lastProblem!.problem.q;
    const qb = b.lastProblem!.problem.q;
    let moved = 0;
    for (let c = 0; c < 2 * H; c++) {
      const du = tb[1]!.u[c]! - ta[1]!.u[c]!;
      moved = Math.max(moved, Math.abs(du));
      expect(qb[c]! - qa[c]!).toBeCloseTo(-2 * mu * du, 9);
    }
    // the two round 2s (weights 0 and 7) did end apart, so the check above is not vacuous
    expect(moved).toBeGreaterThan(1e-6);
  });

  it('a round 1 that converges within the cap, and a single round, are as without the option', () => {
    const free = filter(3).filter(nominal, H, q0, DT);
    const freeTargets = Float64Array.from(free.targets);
    const freeRounds = free.rounds;
    const freeIterations = free.iterations;
    const g = filter(3, { firstRoundIterate: { iterations: 39, proximal: 10 } }).filter(nominal, H, q0, DT);
    expect(g.rounds).toBe(freeRounds);
    expect(g.iterations).toBe(freeIterations);
    expect(Array.from(g.targets)).toEqual(Array.from(freeTargets));
    // one round only: nothing to linearise at the iterate, so round 1 runs to convergence
    const one = filter(1).filter(nominal, H, q0, DT);
    const oneIterations = one.iterations;
    const oneStatus = one.status;
    const cut = filter(1, { firstRoundIterate: { iterations: 1, proximal: 10 } }).filter(nominal, H, q0, DT);
    expect(cut.iterations).toBe(oneIterations);
    expect(cut.status).toBe(oneStatus);
  });

  it('an unchanged chunk never reaches the rounds', () => {
    const clear = line(-1.2, 2.5);
    const o = filter(2, { firstRoundIterate: { iterations: 1, proximal: 10 } }).filter(clear, H, [-1.2, 2.5], DT);
    expect(o.status).toBe('unchanged');
    expect(o.iterations).toBe(0);
  });

  it('rejects a bad cap or weight, and the option together with firstRoundIterations', () => {
    for (const iterations of [0, 1.5, NaN, -3, 40, 41])
      expect(() => filter(2, { firstRoundIterate: { iterations, proximal: 10 } })).toThrow(/firstRoundIterate/);
    for (const proximal of [-1, NaN, Infinity])
      expect(() => filter(2, { firstRoundIterate: { iterations: 3, proximal } })).toThrow(/firstRoundIterate/);
    expect(() => filter(2, { firstRoundIterate: { iterations: 3, proximal: 10 }, firstRoundIterations: 9 })).toThrow(
      /exclude/,
    );
  });
});
