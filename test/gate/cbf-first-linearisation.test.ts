/**
 * CbfFilterConfig.firstLinearisation 'clear-prefix' (issue 15, filter time): on the first chunk to
 * be modified after one passed unchanged, round 1 linearises at the nominal rows up to the first
 * row inside the planned clearance (h < 0) and stands at the row before it from there on; on the
 * chunks after a modified one, at the nominal as before. A point robot in the plane (2 joints =
 * x, y) and one disc obstacle, h(q) = |q| − r written here from the definition; with one round,
 * the QP's hRef holds h at the linearisation point, so the expected rows are checked through it.
 */
import { describe, expect, it } from 'vitest';
import { ChunkCbfFilter, DEFAULT_CBF_WEIGHTS, interiorPointSolver } from '../../src/gate/index.js';
import type { BarrierModel } from '../../src/gate/cbf-types.js';

const R = 1;
const disc: BarrierModel = {
  joints: 2,
  pairs: 1,
  h(q, out) {
    return (out[0] = Math.hypot(q[0]!, q[1]!) - R);
  },
  gradient(q, hOut, grad) {
    const r = Math.hypot(q[0]!, q[1]!);
    hOut[0] = r - R;
    grad[0] = q[0]! / r;
    grad[1] = q[1]! / r;
  },
};
const H = 20;
const DT = 0.1;

const filter = (maxRounds: number, firstLinearisation?: 'nominal' | 'clear-prefix', firstRoundIterations?: number) =>
  new ChunkCbfFilter(disc, interiorPointSolver, {
    ...DEFAULT_CBF_WEIGHTS,
    qmin: [-5, -5],
    qmax: [5, 5],
    maxSpeed: [1, 1], // 0.1 per step
    maxRounds,
    slackTolerance: 1e-6,
    cbfTolerance: 1e-4,
    maxIterations: 40,
    ...(firstLinearisation === undefined ? {} : { firstLinearisation }),
    ...(firstRoundIterations === undefined ? {} : { firstRoundIterations }),
  });

/** A straight line from (x0, y) in steps of 0.095 along +x, H rows (the first row one step from x0). */
function line(x0: number, y: number): Float64Array {
  const u = new Float64Array(2 * H);
  for (let k = 0; k < H; k++) {
    u[2 * k] = x0 + 0.095 * (k + 1);
    u[2 * k + 1] = y;
  }
  return u;
}

const hAt = (u: Float64Array, k: number): number => Math.hypot(u[2 * k]!, u[2 * k + 1]!) - R;

/** h at the rows round 1 linearised at (one round: hRef is not overwritten by a later re-check). */
const linearisedAt = (f: ChunkCbfFilter): number[] => Array.from(f.lastProblem!.hRef.subarray(0, H));

describe("ChunkCbfFilter firstLinearisation 'clear-prefix'", () => {
  // through the disc at y = 0.6: rows 0 (x −0.905, |q| 1.09) and 1 (−0.81, 1.008) clear, row 2 (−0.715, 0.933) inside
  const q0 = [-1.0, 0.6];
  const nominal = line(-1.0, 0.6);

  it('stands at the last row before the nominal enters the planned clearance', () => {
    expect(hAt(nominal, 1)).toBeGreaterThan(0);
    expect(hAt(nominal, 2)).toBeLessThan(0);
    const f = filter(1, 'clear-prefix');
    expect(f.filter(nominal, H, q0, DT).status).toBe('filtered');
    const h = linearisedAt(f);
    expect(h[0]).toBeCloseTo(hAt(nominal, 0), 12);
    for (let k = 1; k < H; k++) expect(h[k]).toBeCloseTo(hAt(nominal, 1), 12);
    // 'nominal' (the default) linearises at the nominal's own rows, deep inside the disc
    const g = filter(1);
    g.filter(nominal, H, q0, DT);
    for (let k = 0; k < H; k++) expect(linearisedAt(g)[k]).toBeCloseTo(hAt(nominal, k), 12);
    expect(Math.min(...linearisedAt(g))).toBeLessThan(-0.3);
  });

  it('stands at q0 when the first row is already inside', () => {
    const start = [-1.05, 0];
    const f = filter(1, 'clear-prefix');
    expect(f.filter(line(-1.05, 0), H, start, DT).status).toBe('filtered');
    for (const h of linearisedAt(f)) expect(h).toBeCloseTo(0.05, 12);
  });

  it('only on the first chunk modified after an unchanged one: the next is linearised at its nominal', () => {
    const f = filter(1, 'clear-prefix');
    expect(f.filter(nominal, H, q0, DT).status).toBe('filtered');
    // the chunk after a modified one, from a little further on
    const q1 = [-0.95, 0.62];
    const next = line(-0.95, 0.62);
    expect(f.filter(next, H, q1, DT).status).toBe('filtered');
    for (let k = 0; k < H; k++) expect(linearisedAt(f)[k]).toBeCloseTo(hAt(next, k), 12);
    // a chunk far from the disc passes unchanged; the next one that meets it stops short again
    const far = line(-3, 2);
    expect(f.filter(far, H, [-3, 2], DT).status).toBe('unchanged');
    expect(f.filter(nominal, H, q0, DT).status).toBe('filtered');
    for (let k = 1; k < H; k++) expect(linearisedAt(f)[k]).toBeCloseTo(hAt(nominal, 1), 12);
  });

  it('a nominal that keeps h ≥ 0 is linearised at its own rows', () => {
    // passes the disc 0.02 outside, closing faster than the barrier decay allows: filtered, but clear
    const grazing = line(-1.0, 1.02);
    const f = filter(1, 'clear-prefix');
    expect(f.filter(grazing, H, [-1.0, 1.02], DT).status).toBe('filtered');
    for (let k = 0; k < H; k++) expect(linearisedAt(f)[k]).toBeCloseTo(hAt(grazing, k), 12);
  });

  it('with its rounds the chunk comes out safe and around the disc', () => {
    const o = filter(3, 'clear-prefix').filter(nominal, H, q0, DT);
    expect(o.status).toBe('filtered');
    expect(o.minH).toBeGreaterThanOrEqual(0);
    expect(o.slackUsed).toBeLessThan(1e-6);
  });

  it('rejects an unknown value', () => {
    expect(() => filter(1, 'still' as 'nominal')).toThrow(/firstLinearisation/);
  });
});

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
    const f = filter(2, 'nominal', 1);
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
    const g = filter(3, 'nominal', 39).filter(nominal, H, q0, DT);
    expect(g.rounds).toBe(freeRounds);
    expect(g.iterations).toBe(freeIterations);
    expect(Array.from(g.targets)).toEqual(Array.from(freeTargets));
    // one round only: the cap does not apply (a cut round 1 would have no round after it)
    const one = filter(1).filter(nominal, H, q0, DT);
    const oneIterations = one.iterations;
    expect(oneIterations).toBeGreaterThan(1);
    expect(filter(1, 'nominal', 1).filter(nominal, H, q0, DT).iterations).toBe(oneIterations);
  });

  it('rejects a cap that is not a whole number ≥ 1', () => {
    for (const cap of [0, 1.5, NaN, -3]) expect(() => filter(2, 'nominal', cap)).toThrow(/firstRoundIterations/);
  });
});
