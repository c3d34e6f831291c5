/**
 * CbfFilterConfig.clearRoundTolerance (default: the planning margin δ): the SQP rounds end at the
 * first safe round that keeps h ≥ 0 at every step with a barrier-condition shortfall ≤ the tolerance. Checked on the generator's
 * scenarios (../shared/qp/gen-chunk-qp.mjs, toy kinematics, H = 50) against each round's result
 * re-checked independently (h and the shortfall from the toy barrier's own pair distances).
 */
import { describe, expect, it } from 'vitest';
import { ChunkCbfFilter, DEFAULT_CBF_WEIGHTS, interiorPointSolver } from '../../src/gate/index.js';
import { generatorObstacles, ToyBarrier } from './support/toy-so101.js';
import { GEN_H, GEN_JOINTS, GEN_QMAX, GEN_QMIN, generatorChunks, toyRecheck } from './support/generator-chunks.js';

const H = GEN_H;
const n = GEN_JOINTS;
const problems = generatorChunks(6);
const qmax = GEN_QMAX;
const qmin = GEN_QMIN;
const CBF_TOLERANCE = 1e-6;
const SLACK_TOLERANCE = 1e-6;

/** Shortfall of h(u_k) ≥ (1 − γ)·h(u_{k−1}) over steps and pairs, and min h, from the toy barrier. */
const recheck = (bar: ToyBarrier, q0: number[], u: Float64Array) =>
  toyRecheck(bar, q0, u, 1 - DEFAULT_CBF_WEIGHTS.gamma);

/** The filter's planning margin δ: a round is safe down to h = −δ, but ends early only at h ≥ 0. */
const DELTA = 2e-3;

function filterWith(clearRoundTolerance: number | undefined, p: (typeof problems)[number]) {
  const bar = new ToyBarrier(n, generatorObstacles(H, n, p.meta.cycle), 2);
  const f = new ChunkCbfFilter(bar, interiorPointSolver, {
    ...DEFAULT_CBF_WEIGHTS,
    qmin,
    qmax,
    maxSpeed: new Array<number>(n).fill(0.05),
    maxRounds: 6,
    slackTolerance: SLACK_TOLERANCE,
    cbfTolerance: CBF_TOLERANCE,
    maxIterations: 40,
    // no back-off: rounds stay short of the 1e-6 acceptance for longer, so the option has rounds to cut
    backOff: 0,
    planningMargin: DELTA,
    ...(clearRoundTolerance === undefined ? {} : { clearRoundTolerance }),
  });
  const rounds: { slack: number; shortfall: number; minH: number }[] = [];
  f.trace = (_round, slack, u) => rounds.push({ slack, ...recheck(bar, p.q0, u) });
  const o = f.filter(Float64Array.from(p.unom), H, p.q0, 1);
  return {
    status: o.status,
    rounds: o.rounds,
    iterations: o.iterations,
    trace: rounds,
    ...recheck(bar, p.q0, o.targets),
  };
}

const expected0 = (stop: number, rounds: number): number => (stop < 0 ? rounds : Math.min(rounds, stop + 1));

describe('CbfFilterConfig.clearRoundTolerance', () => {
  it('defaults to the planning margin δ; 0 turns it off', () => {
    let differ = 0;
    for (const p of problems) {
      const a = filterWith(undefined, p);
      const b = filterWith(DELTA, p);
      expect(a.rounds).toBe(b.rounds);
      expect(a.iterations).toBe(b.iterations);
      if (filterWith(0, p).rounds !== a.rounds) differ++;
    }
    // the default is not "off": δ ends the rounds earlier on some scenario
    expect(differ).toBeGreaterThan(0);
  });

  it('ends the rounds at the first round that keeps h ≥ 0 within the tolerance, and not before', () => {
    const T = 1e-3;
    let cut = 0;
    let filtered = 0;
    let insideMargin = 0;
    for (const p of problems) {
      const full = filterWith(0, p);
      const early = filterWith(T, p);
      expect(early.status, `cycle ${p.meta.cycle}`).toBe(full.status);
      if (full.status !== 'filtered') continue;
      // the first round where either acceptance holds, from the default run's rounds re-checked independently
      const stop = full.trace.findIndex(
        (r) =>
          r.slack <= SLACK_TOLERANCE &&
          r.minH >= -DELTA &&
          (r.shortfall <= CBF_TOLERANCE + 1e-12 || (r.minH >= 1e-12 && r.shortfall <= T - 1e-12)),
      );
      // rounds that are safe only thanks to δ (−δ ≤ h < 0) with a shortfall within T: must not end the rounds
      insideMargin += full.trace
        .slice(0, expected0(stop, full.rounds))
        .filter((r) => r.minH < 0 && r.minH >= -DELTA && r.shortfall <= T).length;
      const expected = stop < 0 ? full.rounds : Math.min(full.rounds, stop + 1);
      expect(early.rounds).toBe(expected);
      // the rounds before the stop are the default run's rounds
      early.trace.forEach((r, i) => expect(r.shortfall).toBeCloseTo(full.trace[i]!.shortfall, 12));
      // the executed chunk is safe (h ≥ −δ); ended early, it keeps h ≥ 0 within the tolerance
      expect(early.minH).toBeGreaterThanOrEqual(-DELTA);
      if (early.rounds < full.rounds) {
        cut++;
        expect(early.minH).toBeGreaterThanOrEqual(0);
        expect(early.shortfall).toBeLessThanOrEqual(T);
      }
      filtered++;
    }
    // the scenarios include chunks where the option cuts rounds, and filtered ones
    expect(cut).toBeGreaterThan(0);
    expect(filtered).toBeGreaterThanOrEqual(4);
    expect(insideMargin).toBeGreaterThan(0);
  });

  it('rejects a negative or non-finite tolerance', () => {
    const bar = new ToyBarrier(n, generatorObstacles(H, n, 0), 2);
    for (const clearRoundTolerance of [-1e-3, Infinity, NaN])
      expect(
        () =>
          new ChunkCbfFilter(bar, interiorPointSolver, {
            ...DEFAULT_CBF_WEIGHTS,
            qmin,
            qmax,
            maxSpeed: new Array<number>(n).fill(0.05),
            maxRounds: 3,
            slackTolerance: SLACK_TOLERANCE,
            cbfTolerance: CBF_TOLERANCE,
            maxIterations: 40,
            clearRoundTolerance,
          }),
      ).toThrow(/clearRoundTolerance/);
  });
});
