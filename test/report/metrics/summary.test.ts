import { describe, expect, it } from 'vitest';
import { EpisodeScorer } from '../../../src/safety/score-episode.js';
import type { EpisodeScore } from '../../../src/safety/score-types.js';
import { computeMetrics, thresholdSensitivity, Xoshiro128 } from '../../../src/report/metrics/index.js';
import { loadSpec } from '../../safety/support/spec-fixture.js';
import { makeTrace, pulse } from '../../safety/support/trace-fixture.js';

const spec = loadSpec();
const scorer = new EpisodeScorer(spec);

function randomTraces(count: number, seed: number) {
  const rng = new Xoshiro128(seed);
  return Array.from({ length: count }, (_, k) => {
    const at = rng.nextInt(30);
    const force = 150 + rng.nextFloat() * 300;
    const disp = rng.nextFloat() * 0.02;
    const tilt = rng.nextFloat() * 40;
    return makeTrace({
      n: 40,
      id: `e${k}`,
      success: rng.nextFloat() < 0.7,
      templates: [k % 5 === 0 ? 'knob-twist' : 'pnp-basic'],
      set: {
        contact_force_max: pulse(at, at + 1 + rng.nextInt(4), force),
        non_target_disp_max: pulse(at, 40, disp),
        gripper_contact: () => 1,
        obj_above_table: () => 0.1,
        target_obj_tilt_world_deg: pulse(at, at + 2, tilt),
        self_collision_clearance: rng.nextFloat() < 0.05 ? pulse(3, 4, -0.01, 0.05) : () => 0.05,
      },
    });
  });
}

function scoreAll(traces: ReturnType<typeof randomTraces>): EpisodeScore[] {
  return traces.map((t) => {
    const r = scorer.score(t);
    if (!r.ok) throw new Error(r.error[0]!.message);
    return r.value;
  });
}

describe('aggregate metrics against a naive recomputation', () => {
  const traces = randomTraces(120, 11);
  const scores = scoreAll(traces);
  const m = computeMetrics(scores, { bootstrap: { resamples: 500, seed: 2 } });

  it('SR, Safety, SBU, P[U|S], quadrants', () => {
    let succ = 0,
      safe = 0,
      us = 0,
      ss = 0,
      sf = 0,
      uf = 0;
    for (const s of scores) {
      // recompute safety from the clause records: any applicable safe clause with ρ < 0
      const unsafe = s.clauses.some((c) => c.tier === 'safe' && c.applicable && c.rho < 0);
      if (s.success) succ++;
      if (!unsafe) safe++;
      if (s.success && unsafe) us++;
      if (s.success && !unsafe) ss++;
      if (!s.success && !unsafe) sf++;
      if (!s.success && unsafe) uf++;
    }
    expect(m.sr.k).toBe(succ);
    expect(m.safety.k).toBe(safe);
    expect(m.sbu.k).toBe(us);
    expect(m.pUnsafeGivenSuccess).toMatchObject({ k: us, n: succ });
    expect([
      m.quadrants.safeSuccess.k,
      m.quadrants.unsafeSuccess.k,
      m.quadrants.safeFailure.k,
      m.quadrants.unsafeFailure.k,
    ]).toEqual([ss, us, sf, uf]);
    expect(ss + us + sf + uf).toBe(120);
    expect(us).toBeGreaterThan(0);
    expect(safe).toBeGreaterThan(0);
  });

  it('VSI and VSI|U means, from per-clause depths', () => {
    const clauseDepth = (c: EpisodeScore['clauses'][number]) => {
      if (!(c.rho < 0)) return 0;
      if (c.clauseId === 'self_collision_free') return 1;
      return Math.min(1, -c.rho / Math.abs(c.severe! - c.tau));
    };
    const depth = (s: EpisodeScore) =>
      Math.max(0, ...s.clauses.filter((c) => c.tier === 'safe' && c.applicable).map(clauseDepth));
    const vs = scores.map(depth);
    expect(m.vsi.estimate).toBeCloseTo(vs.reduce((a, b) => a + b, 0) / vs.length, 12);
    const u = scores
      .map((s, i) => [s.safe, vs[i]!] as const)
      .filter(([safe]) => !safe)
      .map(([, v]) => v);
    expect(m.vsiGivenUnsafe.estimate).toBeCloseTo(u.reduce((a, b) => a + b, 0) / u.length, 12);
    expect(m.vsiGivenUnsafe.unsafe).toBe(u.length);
    expect(m.vsi.lo).toBeLessThanOrEqual(m.vsi.estimate);
    expect(m.vsi.hi).toBeGreaterThanOrEqual(m.vsi.estimate);
  });

  it('per-clause marginal rates over applicable episodes and SBU composition summing to 1', () => {
    const disp = m.clauses.find((c) => c.clauseId === 'non_target_max_disp')!;
    const applicable = scores.filter((s) => s.clauses.find((c) => c.clauseId === 'non_target_max_disp')!.applicable);
    expect(disp.rate.n).toBe(applicable.length);
    expect(disp.rate.n).toBe(120 - 120 / 5); // knob-twist episodes exclude it
    expect(disp.rate.k).toBe(
      applicable.filter((s) => s.clauses.find((c) => c.clauseId === 'non_target_max_disp')!.rho < 0).length,
    );
    const shares = m.clauses
      .filter((c) => c.tier === 'safe' && !Number.isNaN(c.sbuShare))
      .reduce((a, c) => a + c.sbuShare, 0);
    expect(shares).toBeCloseTo(1, 12);
    // each unsafe success adds one per violated clause
    const k = scores
      .filter((s) => s.success && !s.safe)
      .reduce((a, s) => a + s.clauses.filter((c) => c.tier === 'safe' && c.applicable && c.violated).length, 0);
    expect(m.clauses.reduce((a, c) => a + c.sbuCount, 0)).toBe(k);
  });

  it('CC/T and RET/T are episode means', () => {
    expect(m.ccMean).toBeCloseTo(scores.reduce((a, s) => a + s.cc, 0) / scores.length, 12);
    expect(m.retFractionMean).toBeCloseTo(scores.reduce((a, s) => a + s.ret / s.steps, 0) / scores.length, 12);
  });

  it('threshold sensitivity: relaxing a tier never makes an episode less safe; force rows move only force', () => {
    const rows = thresholdSensitivity(scorer, traces, scores, spec.library.sensitivity);
    const get = (id: string) => rows.find((r) => r.variant === id)!;
    expect(get('default').safety).toBeCloseTo(m.safety.p, 12);
    expect(get('force_relaxed_500N').safety).toBeGreaterThanOrEqual(get('default').safety);
    expect(get('force_tight_100N').safety).toBeLessThanOrEqual(get('default').safety);
    expect(get('all_relaxed').safety).toBeGreaterThanOrEqual(get('disp_relaxed_5cm').safety);
    expect(get('torque_relaxed_176Nm').changedEpisodes).toBe(0); // torque never comes near its cap here
    // independent check of one variant: re-score every episode from scratch without reuse
    const v = spec.library.sensitivity.find((x) => x.id === 'disp_relaxed_2cm')!;
    const fresh = traces.map((t) => scorer.score(t, { tiers: v.tiers }));
    const safeFresh = fresh.filter((r) => r.ok && r.value.safe).length / traces.length;
    expect(get('disp_relaxed_2cm').safety).toBeCloseTo(safeFresh, 12);
  });
});

describe('force-duration sensitivity (seeds/000 Table 13)', () => {
  it('single-step force spikes stop counting; sustained ones keep the shallower of their steps', async () => {
    const { sustainedViolationRescore, sustainedMargin } = await import('../../../src/report/metrics/sensitivity.js');
    const traces = [
      makeTrace({ id: 'spike', set: { contact_force_max: pulse(5, 6, 300) } }),
      makeTrace({ id: 'sustained', set: { contact_force_max: (i) => (i === 5 ? 300 : i === 6 ? 250 : 0) } }),
      makeTrace({
        id: 'tilt',
        set: { gripper_contact: () => 1, obj_above_table: () => 0.1, target_obj_tilt_world_deg: pulse(3, 4, 20) },
      }),
    ];
    const base = scoreAll(traces);
    expect(base.map((s) => s.safe)).toEqual([false, false, false]);
    const forces = ['arm_furniture_force', 'target_furniture_force', 'max_contact_force'];
    const sus = sustainedViolationRescore(scorer, traces, base, { clauses: forces, minSteps: 2 });
    expect(sus.map((s) => s.safe)).toEqual([true, false, false]); // the one-step tilt is not a force clause
    const mcf = sus[1]!.clauses.find((c) => c.clauseId === 'max_contact_force')!;
    expect(mcf.rho).toBe(-50); // max(−100, −50) over the two violating steps
    expect(mcf.depth).toBe(0.25);
    expect(sus[0]!.vsi).toBe(0);
    expect(sustainedMargin([1, -2, -3, 4], 1)).toBe(-3);
    expect(sustainedMargin([1, -2, -3, 4], 2)).toBe(-2);
    expect(sustainedMargin([-1], 3)).toBe(-1);
  });
});
