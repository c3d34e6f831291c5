/**
 * The chunk filter's first linearisation point (issue 15): the nominal chunk projected onto the
 * motion bounds from q0 and the joint limits, so a chunk that starts out of the arm's reach (the
 * arm behind the plan after a bent chunk) is linearised where the arm can be, not at rows it
 * cannot reach. A point robot in the plane (2 joints = x, y) and one disc obstacle, written here
 * from the definition h(q) = |q| − r.
 */
import { describe, expect, it } from 'vitest';
import { ChunkCbfFilter, DEFAULT_CBF_WEIGHTS, interiorPointSolver } from '../../src/gate/index.js';

import { discBarrier } from './support/disc-barrier.js';

const R = 1;
const disc = discBarrier(R);
const H = 20;
const DT = 0.1;
const SPEED = 1; // 0.1 per step

const filter = (maxRounds: number) =>
  new ChunkCbfFilter(disc, interiorPointSolver, {
    ...DEFAULT_CBF_WEIGHTS,
    qmin: [-5, -5],
    qmax: [5, 5],
    maxSpeed: [SPEED, SPEED],
    maxRounds,
    slackTolerance: 1e-6,
    cbfTolerance: 1e-4,
    maxIterations: 40,
  });

/** An arc of radius `radius` around the disc from a0 to a1 (degrees), H rows. */
function arc(a0: number, a1: number, radius: number): Float64Array {
  const u = new Float64Array(2 * H);
  for (let k = 0; k < H; k++) {
    const a = ((a0 + ((a1 - a0) * k) / (H - 1)) * Math.PI) / 180;
    u[2 * k] = radius * Math.cos(a);
    u[2 * k + 1] = radius * Math.sin(a);
  }
  return u;
}

/** The rows the arm can follow: each coordinate at most SPEED·DT from the previous row (q0 first). */
function projected(nominal: Float64Array, q0: readonly number[]): Float64Array {
  const out = new Float64Array(nominal.length);
  for (let c = 0; c < nominal.length; c++) {
    const prev = c < 2 ? q0[c]! : out[c - 2]!;
    out[c] = Math.min(prev + SPEED * DT, Math.max(prev - SPEED * DT, nominal[c]!));
  }
  return out;
}

const hAt = (u: Float64Array, k: number): number => Math.hypot(u[2 * k]!, u[2 * k + 1]!) - R;

describe('ChunkCbfFilter: the first linearisation point', () => {
  it('a chunk that starts out of reach is linearised at the rows the arm can follow, not at the nominal rows', () => {
    const nominal = arc(160, 100, 1.1);
    const q0 = [-1.25, 0.2]; // 0.13 and 0.18 from the first row: more than a step
    const f = filter(1);
    f.filter(nominal, H, q0, DT);
    const qp = f.lastProblem!;
    const reach = projected(nominal, q0);
    expect(Math.abs(reach[1]! - nominal[1]!)).toBeGreaterThan(0.05);
    for (let k = 0; k < H; k++) expect(qp.hRef[k]).toBeCloseTo(hAt(reach, k), 12);
    // and so not at the nominal's own rows where they differ
    expect(Math.abs(qp.hRef[0]! - hAt(nominal, 0))).toBeGreaterThan(1e-3);
  });

  it('a chunk the arm can follow is linearised at its own rows', () => {
    // a straight line through the disc at y = 0.6, steps of 0.095, starting at q0
    const nominal = new Float64Array(2 * H);
    for (let k = 0; k < H; k++) {
      nominal[2 * k] = -0.9 + (1.8 * k) / (H - 1);
      nominal[2 * k + 1] = 0.6;
    }
    const q0 = [-0.9, 0.6];
    const f = filter(1);
    const o = f.filter(nominal, H, q0, DT);
    expect(o.status).toBe('filtered'); // bent around the disc
    for (let k = 0; k < H; k++) expect(f.lastProblem!.hRef[k]).toBeCloseTo(hAt(nominal, k), 12);
  });

  it('out of reach around the disc: one round without slack (linearised at the nominal rows it took two)', () => {
    const f = filter(3);
    const o = f.filter(arc(160, 100, 1.1), H, [-1.25, 0.2], DT);
    expect(o.status).toBe('filtered');
    expect(o.rounds).toBe(1);
    expect(o.slackUsed).toBeLessThan(1e-6);
    expect(o.minH).toBeGreaterThanOrEqual(0);
  });
});
