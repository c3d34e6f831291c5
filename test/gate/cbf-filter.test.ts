import { describe, expect, it } from 'vitest';
import { ChunkCbfFilter, DEFAULT_CBF_QP_TOLERANCE, DEFAULT_CBF_WEIGHTS } from '../../src/gate/index.js';
import type { BarrierModel, CbfFilterConfig, QpSolverFactory } from '../../src/gate/index.js';
import { activeSetSolverFactory } from './support/active-set-qp.js';
import { PlanarArmDisc, sweep } from './support/planar-arm.js';
import { LINE_BARRIER } from './support/line-barrier.js';

const config: CbfFilterConfig = {
  ...DEFAULT_CBF_WEIGHTS,
  qmin: [-3, -3],
  qmax: [3, 3],
  maxSpeed: [2, 2], // rad/s; at dt = 0.05 s a step may move 0.1 rad
  maxRounds: 3,
  slackTolerance: 1e-6,
  cbfTolerance: 1e-6,
  maxIterations: 100,
};

// With q2 = 0.5 the tip sweeps a circle of radius TIP_R from angle 0 to 1.5 rad; the disc sits on that path.
const TIP_R = Math.hypot(1 + 0.8 * Math.cos(0.5), 0.8 * Math.sin(0.5));
const TIP_A = Math.atan2(0.8 * Math.sin(0.5), 1 + 0.8 * Math.cos(0.5));
const arm = () => new PlanarArmDisc(1, 0.8, TIP_R * Math.cos(0.75 + TIP_A), TIP_R * Math.sin(0.75 + TIP_A), 0.15, 0.05);
const q0 = [0, 0.5];

/** max over pairs and steps of (1−γ)h(u_{k−1}) − h(u_k), γ = 0.2, from q0: ≤ 0 when the CBF condition holds. */
function worstDecayViolation(model: PlanarArmDisc, u: Float64Array, H: number): number {
  let worst = -Infinity;
  for (let p = 0; p < 2; p++) {
    let prev = model.pairH(q0, p);
    for (let k = 0; k < H; k++) {
      const hk = model.pairH([u[2 * k]!, u[2 * k + 1]!], p);
      worst = Math.max(worst, 0.8 * prev - hk);
      prev = hk;
    }
  }
  return worst;
}

function minHOver(model: PlanarArmDisc, u: Float64Array, H: number): number {
  let m = Infinity;
  for (let k = 0; k < H; k++) for (let p = 0; p < 2; p++) m = Math.min(m, model.pairH([u[2 * k]!, u[2 * k + 1]!], p));
  return m;
}

describe('ChunkCbfFilter on a planar 2-link arm with a disc obstacle', () => {
  it('passes a chunk that stays clear unchanged', () => {
    const model = arm();
    const f = new ChunkCbfFilter(model, activeSetSolverFactory, config);
    const nominal = sweep(q0, [-0.5, 0.5], 10);
    const o = f.filter(nominal, 10, q0, 0.05);
    expect(o.status).toBe('unchanged');
    expect(o.targets).toBe(nominal);
    expect(o.minH).toBeGreaterThan(0);
  });

  it('a misshapen chunk after a filtered one is refused with none of the previous chunk figures (minH, rounds) left in the outcome', () => {
    const f = new ChunkCbfFilter(arm(), activeSetSolverFactory, config);
    const first = f.filter(sweep(q0, [1.5, 0.5], 20), 20, q0, 0.1);
    expect(first.status).toBe('filtered');
    expect(Number.isFinite(first.minH)).toBe(true);
    const o = f.filter(new Float64Array(5), 3, q0, 0.1);
    expect(o.status).toBe('solver-failure');
    expect(o.detail).toBe('chunk has 5 targets, expected 3×2');
    expect([o.minH, o.minHStep, o.rounds, o.iterations, o.slackUsed, o.modification]).toEqual([
      Infinity,
      -1,
      0,
      0,
      0,
      0,
    ]);
  });

  it('filters a chunk sweeping through the disc so that h ≥ 0 at every step', () => {
    const model = arm();
    const H = 20;
    const nominal = sweep(q0, [1.5, 0.5], H);
    expect(minHOver(model, nominal, H)).toBeLessThan(-0.1); // the nominal chunk really goes through
    const f = new ChunkCbfFilter(model, activeSetSolverFactory, config);
    const o = f.filter(nominal, H, q0, 0.1);
    expect(o.status, o.detail).toBe('filtered');
    const u = o.targets.slice();
    expect(minHOver(model, u, H)).toBeGreaterThanOrEqual(0);
    expect(o.minH).toBeCloseTo(minHOver(model, u, H), 12);
    expect(o.slackUsed).toBeLessThanOrEqual(1e-6);
    expect(o.modification).toBeGreaterThan(0.05);
    expect(o.rounds).toBeGreaterThanOrEqual(1);
    expect(o.rounds).toBeLessThanOrEqual(3);
    // after 3 SQP rounds the discrete barrier condition holds on the nonlinear h up to the
    // remaining linearisation error (safety itself, h ≥ 0, is exact above)
    expect(worstDecayViolation(model, u, H)).toBeLessThan(1e-3);
    // per-step motion bounds (0.2 rad at 2 rad/s × 0.1 s) hold from q0
    for (let k = 0; k < H; k++) {
      for (let j = 0; j < 2; j++) {
        const prev = k === 0 ? q0[j]! : u[2 * (k - 1) + j]!;
        expect(Math.abs(u[2 * k + j]! - prev)).toBeLessThanOrEqual(0.2 + 1e-9);
      }
    }
  });

  it('re-linearisation converges: with more rounds the nonlinear barrier condition holds to 1e-6', () => {
    const model = arm();
    const f = new ChunkCbfFilter(model, activeSetSolverFactory, { ...config, maxRounds: 8 });
    const o = f.filter(sweep(q0, [1.5, 0.5], 20), 20, q0, 0.1);
    expect(o.status).toBe('filtered');
    expect(o.rounds).toBeLessThan(8); // stopped because the re-check passed, not at the cap
    expect(worstDecayViolation(model, o.targets, 20)).toBeLessThanOrEqual(1e-6);
  });

  it('executes the safe round with the smallest barrier-condition violation; a worse later round never makes it a hold', () => {
    const model = arm();
    const H = 20;
    // Linearisations from round 4 on get the gradient's sign wrong, so round 4 steers into the disc:
    // every gradient evaluated once round 3's result has been reported (its re-check may evaluate
    // the gradients round 4 linearises with) is flipped; h itself stays right.
    const rounds: { u: Float64Array; slack: number }[] = [];
    const misleading: BarrierModel = {
      joints: 2,
      pairs: 2,
      h: (q, out) => model.h(q, out),
      gradient: (q, hOut, grad) => {
        model.gradient(q, hOut, grad);
        if (rounds.length >= 3) for (let i = 0; i < grad.length; i++) grad[i] = -grad[i]!;
      },
    };
    // a negative tolerance accepts no round early: all four run and the filter must choose
    const f = new ChunkCbfFilter(misleading, activeSetSolverFactory, { ...config, maxRounds: 4, cbfTolerance: -1 });
    f.trace = (_round, slack, u) => rounds.push({ u: u.slice(), slack });
    const o = f.filter(sweep(q0, [1.5, 0.5], H), H, q0, 0.1);
    expect(rounds).toHaveLength(4);
    // independent verdict per round: safe = h ≥ 0 at every step, motion bounds, no slack
    const verdicts = rounds.map(({ u, slack }) => {
      let motionOk = true;
      for (let k = 0; k < H; k++)
        for (let j = 0; j < 2; j++)
          if (Math.abs(u[2 * k + j]! - (k === 0 ? q0[j]! : u[2 * (k - 1) + j]!)) > 0.2 + 1e-9) motionOk = false;
      return {
        safe: minHOver(model, u, H) >= 0 && motionOk && slack <= 1e-6,
        violation: Math.max(0, worstDecayViolation(model, u, H)),
      };
    });
    expect(verdicts[0]!.safe).toBe(false); // linearised at the nominal through the disc: needs slack
    expect(verdicts[3]!.safe).toBe(false); // the misled round
    const safe = verdicts.map((v, i) => ({ ...v, i })).filter((v) => v.safe);
    expect(safe.length).toBeGreaterThan(0);
    const best = safe.reduce((a, b) => (b.violation < a.violation ? b : a));
    expect(o.status, o.detail).toBe('filtered');
    expect(o.rounds).toBe(4);
    expect(Array.from(o.targets)).toEqual(Array.from(rounds[best.i]!.u));
    expect(o.cbfViolation).toBeCloseTo(best.violation, 12);
    expect(o.minH).toBeCloseTo(minHOver(model, rounds[best.i]!.u, H), 12);
  });

  it('a nominal chunk short of the barrier condition by less than the tolerance passes unchanged (and says by how much)', () => {
    // one joint, h(q) = q: from q0 = 1 a step to 0.79 falls 0.01 short of h ≥ 0.8·h(q0)
    const line = LINE_BARRIER;
    const cfg1 = { ...config, qmin: [-3], qmax: [3], maxSpeed: [2] };
    const nominal = Float64Array.from([0.79]);
    const lenient = new ChunkCbfFilter(line, activeSetSolverFactory, { ...cfg1, cbfTolerance: 0.02 }).filter(
      nominal,
      1,
      [1],
      0.2,
    );
    expect(lenient.status).toBe('unchanged');
    expect(lenient.cbfViolation).toBeCloseTo(0.01, 12);
    const strict = new ChunkCbfFilter(line, activeSetSolverFactory, { ...cfg1, cbfTolerance: 1e-6 }).filter(
      nominal,
      1,
      [1],
      0.2,
    );
    expect(strict.status).toBe('filtered');
    // hand-computed: min (u − 0.79)² + λ(u − 1)², λ = 5, s.t. u ≥ 0.8 → u = (0.79 + 5)/6 = 0.965 (constraint inactive)
    expect(strict.targets[0]).toBeCloseTo(0.965, 6);
  });

  it('a single linearisation deep inside the obstacle needs slack: unsafe, slack reported', () => {
    const f = new ChunkCbfFilter(arm(), activeSetSolverFactory, { ...config, maxRounds: 1 });
    const o = f.filter(sweep(q0, [1.5, 0.5], 20), 20, q0, 0.1);
    expect(o.status).toBe('unsafe');
    expect(o.detail).toMatch(/slack/);
    expect(o.slackUsed).toBeGreaterThan(1e-6);
  });

  it('enforces per-step motion bounds on an obstacle-free chunk that jumps', () => {
    const model = arm();
    model.cx = 10; // far away
    const f = new ChunkCbfFilter(model, activeSetSolverFactory, config);
    const nominal = new Float64Array(10 * 2).fill(0.5); // step 0 jumps 0.5 rad on joint 0
    const o = f.filter(nominal, 10, q0, 0.05);
    expect(o.status).toBe('filtered');
    for (let k = 0; k < 10; k++) {
      const prev = k === 0 ? q0[0]! : o.targets[2 * (k - 1)]!;
      expect(Math.abs(o.targets[2 * k]! - prev)).toBeLessThanOrEqual(0.1 + 1e-9);
    }
  });

  it('removes a solver residual past a motion bound before the exact re-check (the chunk is not judged on it)', () => {
    const model = arm();
    model.cx = 10;
    // a solver that returns its solution with every joint-0 step overshooting by 1e-7 rad
    const overshooting: QpSolverFactory = (p) => {
      const s = activeSetSolverFactory(p);
      return {
        solve: (o) => {
          const r = s.solve(o);
          for (let k = 0; k < 10; k++) r.x[2 * k]! += 1e-7;
          return r;
        },
      };
    };
    const nominal = new Float64Array(10 * 2).fill(0.5);
    const o = new ChunkCbfFilter(model, overshooting, config).filter(nominal, 10, q0, 0.05);
    expect(o.status).toBe('filtered');
    expect(o.rounds).toBe(1);
    for (let k = 0; k < 10; k++) {
      const prev = k === 0 ? q0[0]! : o.targets[2 * (k - 1)]!;
      expect(Math.abs(o.targets[2 * k]! - prev)).toBeLessThanOrEqual(0.1 + 1e-12);
    }
  });

  it('solves its QPs to qpTolerance (default 1e-6); refuses a tolerance that is not positive or a negative back-off', () => {
    const seen: (number | undefined)[] = [];
    const recording: QpSolverFactory = (p) => {
      const s = activeSetSolverFactory(p);
      return { solve: (o) => (seen.push(o.epsAbs, o.epsRel), s.solve(o)) };
    };
    new ChunkCbfFilter(arm(), recording, config).filter(sweep(q0, [1.5, 0.5], 20), 20, q0, 0.1);
    new ChunkCbfFilter(arm(), recording, { ...config, qpTolerance: 1e-9 }).filter(
      sweep(q0, [1.5, 0.5], 20),
      20,
      q0,
      0.1,
    );
    expect(new Set(seen)).toEqual(new Set([1e-6, 1e-9]));
    expect(DEFAULT_CBF_QP_TOLERANCE).toBe(1e-6);
    for (const bad of [0, -1e-6, NaN])
      expect(() => new ChunkCbfFilter(arm(), activeSetSolverFactory, { ...config, qpTolerance: bad })).toThrow(
        /qpTolerance/,
      );
    for (const bad of [-1e-4, NaN])
      expect(() => new ChunkCbfFilter(arm(), activeSetSolverFactory, { ...config, backOff: bad })).toThrow(/backOff/);
  });

  it('declares unsafe when the present position is already inside the safety distance', () => {
    const model = arm();
    const [tx, ty] = model.point(q0, 1);
    model.cx = tx + 0.16; // tip 0.01 m from the disc surface, d_safe 0.05
    model.cy = ty;
    const f = new ChunkCbfFilter(model, activeSetSolverFactory, config);
    const o = f.filter(sweep(q0, [-0.5, 0.5], 10), 10, q0, 0.05);
    expect(o.status).toBe('unsafe');
    expect(o.detail).toMatch(/present position already inside/);
    expect(o.targets.length).toBe(0);
  });

  it('reports a solver that stops early as a solver failure, with the status', () => {
    const f = new ChunkCbfFilter(arm(), activeSetSolverFactory, { ...config, maxIterations: 2 });
    const o = f.filter(sweep(q0, [1.5, 0.5], 20), 20, q0, 0.1);
    expect(o.status).toBe('solver-failure');
    expect(o.detail).toMatch(/^max-iterations/);
  });

  it('passes a deadline to the solver, which stops with time-limit', () => {
    const f = new ChunkCbfFilter(arm(), activeSetSolverFactory, config);
    const o = f.filter(sweep(q0, [1.5, 0.5], 20), 20, q0, 0.1, () => true);
    expect(o.status).toBe('solver-failure');
    expect(o.detail).toMatch(/^time-limit/);
  });

  it('uses at most maxRounds solves and reuses one solver per chunk shape', () => {
    let made = 0;
    let solves = 0;
    const counting: QpSolverFactory = (p) => {
      made++;
      const s = activeSetSolverFactory(p);
      return { solve: (o) => (solves++, s.solve(o)) };
    };
    const f = new ChunkCbfFilter(arm(), counting, { ...config, maxRounds: 2 });
    for (let i = 0; i < 3; i++) f.filter(sweep(q0, [1.5, 0.5], 20), 20, q0, 0.1);
    expect(made).toBe(1);
    expect(solves).toBeGreaterThanOrEqual(3);
    expect(solves).toBeLessThanOrEqual(6);
  });

  it('a policy alternating two chunk lengths gets one solver per length, not one per chunk', () => {
    let made = 0;
    const counting: QpSolverFactory = (p) => {
      made++;
      return activeSetSolverFactory(p);
    };
    const f = new ChunkCbfFilter(arm(), counting, config);
    for (let i = 0; i < 6; i++) {
      const H = i % 2 === 0 ? 10 : 9; // short chunks: the active-set reference is O(n³) per step
      const o = f.filter(sweep(q0, [1.5, 0.5], H), H, q0, 0.1);
      // the same answer as a filter that never saw another length
      const fresh = new ChunkCbfFilter(arm(), activeSetSolverFactory, config).filter(
        sweep(q0, [1.5, 0.5], H),
        H,
        q0,
        0.1,
      );
      expect(o.status).toBe(fresh.status);
      expect(Array.from(o.targets)).toEqual(Array.from(fresh.targets));
    }
    expect(made).toBe(2);
  });
});

describe('planning margin δ (issue 15: a chunk ending on the boundary held the next one)', () => {
  // h(q) = q: the boundary is q = 0. Planned at d_safe + δ means the barrier's h is the planning one;
  // the filter refuses only below −δ.
  const line = {
    ...DEFAULT_CBF_WEIGHTS,
    qmin: [-1],
    qmax: [1],
    maxSpeed: [1],
    maxRounds: 3,
    slackTolerance: 1e-6,
    cbfTolerance: 1e-6,
    maxIterations: 100,
  };
  const still = (q: number): Float64Array => new Float64Array(10).fill(q);

  it('a start up to δ inside the planning boundary is filtered back out, not held', () => {
    const f = new ChunkCbfFilter(LINE_BARRIER, activeSetSolverFactory, { ...line, planningMargin: 0.003 });
    // the servo ended 1 mm inside the planning boundary; the policy asks to stay there
    const o = f.filter(still(-0.001), 10, [-0.001], 0.05);
    expect(o.status, o.detail).toBe('filtered');
    // the barrier condition from h0 = −1 mm: h(u_k) ≥ (1 − γ)^(k+1) h0, back towards the planning boundary
    for (let k = 0; k < 10; k++) expect(o.targets[k]!).toBeGreaterThanOrEqual(-0.001 * 0.8 ** (k + 1) - 1e-6);
  });

  it('without the margin the same start holds; beyond δ it holds with the margin too', () => {
    const plain = new ChunkCbfFilter(LINE_BARRIER, activeSetSolverFactory, line);
    const o = plain.filter(still(-0.001), 10, [-0.001], 0.05);
    expect(o.status).toBe('unsafe');
    expect(o.detail).toMatch(/present position already inside/);
    const f = new ChunkCbfFilter(LINE_BARRIER, activeSetSolverFactory, { ...line, planningMargin: 0.003 });
    const deep = f.filter(still(-0.004), 10, [-0.004], 0.05);
    expect(deep.status).toBe('unsafe');
    expect(deep.detail).toMatch(/present position already inside .*planning margin 0.003/);
    expect(() => new ChunkCbfFilter(LINE_BARRIER, activeSetSolverFactory, { ...line, planningMargin: -1 })).toThrow(
      /planningMargin/,
    );
  });
});
