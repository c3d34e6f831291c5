/**
 * Issue 13 item 4c: a clause whose signal is missing reads "not evaluated: signal X missing"
 * everywhere — the live episode index, `armguard replay` and the report — including a signal missing
 * for part of an episode. The semantics (src/schema/clause-coverage.ts, design §8): a clause is
 * evaluated on the samples where every signal it reads is present, as the live monitor bank is fed;
 * a violation there is a violation; no violation there with samples missing is "not evaluated"
 * (never satisfied). Before, the report's scorer counted each missing sample as the deepest
 * violation, so an episode whose torque stream dropped three samples was "unsafe", while the live
 * index called the same clause evaluated on 7 of 10 samples and the replay "satisfied".
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ReportBuilder } from '../../src/report/build.js';
import { EpisodeScorer } from '../../src/safety/score-episode.js';
import type { ScoringSpec } from '../../src/safety/index.js';
import { clauseSummary } from '../../src/episode/episode-index.js';
import { MonitorBank } from '../../src/runtime/monitor-bank.js';
import { SignalFrame, signalIndex } from '../../src/schema/signals.js';
import type { EpisodeTrace } from '../../src/schema/trace.js';
import { loadSpec } from '../safety/support/spec-fixture.js';
import { makeTrace } from '../safety/support/trace-fixture.js';

const spec = loadSpec();
const TORQUE = signalIndex('max_joint_torque')!;

/** The library with joint_torque's per-step condition replaced by `step` ({tau} = 87 on the sim platform). */
function specWithTorqueStep(step: string): ScoringSpec {
  return {
    ...spec,
    library: {
      ...spec.library,
      clauses: spec.library.clauses.map((c) => (c.id === 'joint_torque' ? { ...c, formula: `always (${step})` } : c)),
    },
  };
}

/** A quiet sim trace whose max_joint_torque is `torque`, NaN (missing) where `present` is false. */
function torqueTrace(
  torque: readonly number[],
  present: readonly boolean[],
  timesNs?: readonly number[],
): EpisodeTrace {
  const n = torque.length;
  const t = makeTrace({ n, set: { max_joint_torque: (i) => (present[i] ? torque[i]! : NaN) } });
  if (!timesNs) return t;
  return { ...t, times: Float64Array.from(timesNs, (ns) => ns / 1e9), timesNs: Float64Array.from(timesNs) };
}

const scoreOf = (scorer: EpisodeScorer, trace: EpisodeTrace) => {
  const r = scorer.score(trace, { keepRho: true });
  if (!r.ok) throw new Error(r.error.map((e) => e.message).join('\n'));
  return r.value;
};

describe('a signal missing for part of an episode (report scorer)', () => {
  const scorer = new EpisodeScorer(spec);

  it('no violation where it was present: the clause is not evaluated (reduced set), never violated or satisfied', () => {
    const present = Array.from({ length: 10 }, (_, i) => i < 3 || i > 5);
    const s = scoreOf(scorer, torqueTrace(new Array<number>(10).fill(10), present));
    const c = s.clauses.find((x) => x.clauseId === 'joint_torque')!;
    expect(c.applicable).toBe(false);
    expect(c.violated).toBe(false);
    expect(c.decision).toMatchObject({ kind: 'missing-signal', signal: 'max_joint_torque' });
    expect(c.explanation).toBe(
      'not evaluated: signal max_joint_torque missing on 3 of 10 samples (no violation on the 7 evaluated)',
    );
    expect(s.reducedSet).toContain('joint_torque');
    expect(s.safe).toBe(true);
  });

  it('a violation where it was present is a violation: counted on the evaluated samples only, the gap noted', () => {
    const present = Array.from({ length: 10 }, (_, i) => i < 3 || i > 5);
    const torque = Array.from({ length: 10 }, (_, i) => (i === 8 ? 100 : 10));
    const s = scoreOf(scorer, torqueTrace(torque, present));
    const c = s.clauses.find((x) => x.clauseId === 'joint_torque')!;
    expect(c).toMatchObject({ applicable: true, violated: true, violatingSteps: 1, rho: -13, longestRunSteps: 1 });
    expect(c.firstViolationTime).toBeCloseTo(0.4, 12);
    expect(c.explanation).toMatch(
      /; evaluated on 7 of 10 samples; signal max_joint_torque missing on 3 of 10 samples$/,
    );
    expect(s.safe).toBe(false);
  });

  it('the report counts the not-evaluated episode out of the clause denominator and lists it in the reduced set', () => {
    const builder = new ReportBuilder({
      scorer,
      bootstrap: { resamples: 20, seed: 1 },
      source: 'test',
      generatedAt: 'test',
      worst: 0,
    });
    const gap = Array.from({ length: 10 }, (_, i) => i !== 4);
    const whole = new Array<boolean>(10).fill(true);
    expect(
      builder.add(
        { ...torqueTrace(new Array<number>(10).fill(10), gap), file: 'a.jsonl' },
        { robotId: 'r', format: 'jsonl' },
      ),
    ).toEqual([]);
    expect(
      builder.add(
        { ...torqueTrace(new Array<number>(10).fill(10), whole), file: 'b.jsonl' },
        { robotId: 'r', format: 'jsonl' },
      ),
    ).toEqual([]);
    const r = builder.finish();
    expect(r.taskAll.clauses['joint_torque']).toMatchObject({ violated: 0, applicable: 1 });
    expect(r.rows.find((x) => x.file === 'a.jsonl')!).toMatchObject({ safe: true, reducedSet: ['joint_torque'] });
    expect(r.rows.find((x) => x.file === 'b.jsonl')!.reducedSet).toEqual([]);
  });
});

describe('the live monitor bank, its episode index and the report agree sample by sample (property)', () => {
  it('random 1 kHz stamps with jitter, a windowed clause, a random missing mask: same ρ where evaluated, NaN elsewhere, and the same verdict', () => {
    const MS = 1_000_000;
    const arb = fc
      .record({
        op: fc.constantFrom('historically', 'once'),
        aMs: fc.integer({ min: 0, max: 3 }),
        widthMs: fc.integer({ min: 1, max: 5 }),
        samples: fc.array(
          fc.record({
            gap: fc.oneof(fc.constant(MS), fc.integer({ min: MS - 300_000, max: MS + 300_000 })),
            torque: fc.integer({ min: 0, max: 100 }),
            present: fc.boolean(),
          }),
          { minLength: 3, maxLength: 40 },
        ),
      })
      .map((s) => {
        let t = 0;
        const timesNs = s.samples.map((x, k) => (k === 0 ? 0 : (t += x.gap)));
        return { ...s, timesNs };
      });
    fc.assert(
      fc.property(arb, ({ op, aMs, widthMs, samples, timesNs }) => {
        const step = `${op}[${aMs / 1000}:${(aMs + widthMs) / 1000}] (max_joint_torque < {tau})`;
        const torque = samples.map((x) => x.torque + 0.25);
        const present = samples.map((x) => x.present);

        // live: the bank is pushed every sample; a missing signal leaves the frame's slot missing
        const bank = MonitorBank.fromClauses([
          { clause: { id: 'joint_torque' }, formula: `always (${step.replace('{tau}', '87')})`, tau: 87, warn: 8.7 },
        ]);
        const frame = new SignalFrame();
        const live = timesNs.map((ns, k) => {
          frame.clear();
          if (present[k]) frame.set(TORQUE, torque[k]!, ns / 1e9, 'test');
          bank.pushNs(ns, frame);
          return bank.margin(0) * 87;
        });
        let minRho = Infinity;
        let violated = 0;
        for (const m of live) {
          if (m < minRho) minRho = m / 87;
          if (m < 0) violated++;
        }
        const index = clauseSummary(minRho, violated, bank.episodeCoverage(), 0);

        // report: the same samples as a recorded trace
        const s = scoreOf(new EpisodeScorer(specWithTorqueStep(step)), torqueTrace(torque, present, timesNs));
        const c = s.clauses.find((x) => x.clauseId === 'joint_torque')!;
        if (c.rhoTrace) {
          const rho = Array.from(c.rhoTrace);
          rho.forEach((r, k) => {
            if (!present[k]) expect(r).toBeNaN();
            else expect(r).toBeCloseTo(live[k]!, 9);
          });
        }
        live.forEach((m, k) => {
          if (!present[k]) expect(m).toBeNaN();
        });
        const reportVerdict = c.violated ? 'violated' : c.applicable ? 'satisfied' : 'not evaluated';
        expect(index.verdict).toBe(reportVerdict);
        if (reportVerdict === 'not evaluated') {
          expect(c.explanation).toMatch(/^not evaluated: signal max_joint_torque missing/);
          expect(index.notEvaluated).toBe(c.explanation);
          expect(s.reducedSet).toContain('joint_torque');
        }
        expect(c.violatingSteps).toBe(violated);
      }),
      { numRuns: 200 },
    );
  });
});
