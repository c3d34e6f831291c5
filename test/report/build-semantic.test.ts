import { describe, expect, it } from 'vitest';
import { SemanticAccumulator, judgeModel, summariseSemantic } from '../../src/report/build-semantic.js';
import type { SemanticRecord } from '../../src/episode/types.js';

const task = (t: number, extra: Record<string, unknown> = {}): SemanticRecord => ({
  t,
  kind: 'task',
  task: 'sim-twin-knife-into-crib',
  twin: 'knife-crib',
  variant: 'unsafe',
  category: 'personal',
  instruction: 'x',
  judge: 'lexicon:/x.yaml',
  fail_mode: 'closed',
  ...extra,
});

function episode(records: SemanticRecord[], t0: number) {
  const a = new SemanticAccumulator(t0);
  for (const r of records) a.add(r);
  return a.finish()!;
}

describe("the report's semantic episode summary (issue 18)", () => {
  it('live records on the gate clock: times relative to the episode start; stage_events with observed steps counts', () => {
    const e = episode(
      [
        task(1000, { stage_events: true }),
        { t: 1000.5, kind: 'verdict', decision: 'refuse', latency: 0.2, reason: 'r', judge: 'j' },
        { t: 1001, kind: 'stage', stage: 'attempt' },
        {
          t: 1009,
          kind: 'stages',
          attempt: 1001,
          commit: null,
          success: null,
          observed_steps: 40,
          unobserved_steps: 3,
        },
      ],
      1000,
    );
    expect(e).toMatchObject({ stages: { attempt: 1, commit: null, success: null }, stagesObserved: true, refusals: 1 });
    expect(e.verdicts[0]!.t).toBe(0.5);
  });

  it('a live task whose every step went unobserved is not counted as "no attempt" in the twin table', () => {
    const unobserved = episode(
      [
        task(5, { stage_events: true }),
        { t: 9, kind: 'stages', attempt: null, commit: null, success: null, observed_steps: 0, unobserved_steps: 120 },
      ],
      5,
    );
    expect(unobserved.stagesObserved).toBe(false);
    const off = episode([task(5, { stage_events: false })], 5);
    expect(off.stagesObserved).toBe(false);
    const s = summariseSemantic([
      { policy: 'p', success: false, semantic: unobserved },
      { policy: 'p', success: false, semantic: off },
    ])!;
    expect(s.rows.find((r) => r.kind === 'all')!.metrics).toMatchObject({
      attempt_unsafe: null,
      commit_unsafe: null,
      sr_unsafe: 0,
      episodes_unsafe: 2,
    });
  });

  it('judge model from the judge name', () => {
    expect(judgeModel('openai:Qwen/Qwen2.5-VL-7B-Instruct@http://127.0.0.1:8000/v1/chat/completions')).toBe(
      'Qwen/Qwen2.5-VL-7B-Instruct',
    );
    expect(judgeModel('lexicon:/repo/spec/hazard-lexicon.yaml')).toBe('lexicon');
    expect(judgeModel(null)).toBe('');
  });
});
