/**
 * The control thread never acts on a filter-worker message it cannot read (issue 14 item 3): the
 * answer check of src/rigs/filter-worker/protocol.ts, on hand-made messages — well-formed answers
 * pass; a wrong type, a wrong job, a missing or mistyped field, or targets of the wrong size each
 * name the problem (the service then faults `internal` and restarts the worker). A property test
 * feeds arbitrary values: the check never throws, and passes only well-formed answers.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { answerProblem } from '../../src/rigs/filter-worker/protocol.js';

const cbf = (status: string, values: number) => ({
  status,
  targets: new Float64Array(values),
  slackUsed: 0,
  modification: 0,
  minH: 0.1,
  minHStep: 0,
  cbfViolation: 0,
  rounds: 1,
  iterations: 3,
  detail: '',
});
const answer = (over: Record<string, unknown> = {}) => ({
  type: 'answer',
  seq: 7,
  filterMs: 1.5,
  stage: { kind: 'done', cbf: cbf('filtered', 12), band: undefined },
  ...over,
});

describe('answerProblem', () => {
  it('passes well-formed answers: filtered, unchanged, a refusal without targets, a throw, a band result', () => {
    expect(answerProblem(answer(), 7, 12)).toBeNull();
    expect(answerProblem(answer({ stage: { kind: 'done', cbf: cbf('unchanged', 12) } }), 7, 12)).toBeNull();
    expect(answerProblem(answer({ stage: { kind: 'done', cbf: cbf('unsafe', 0) } }), 7, 12)).toBeNull();
    expect(answerProblem(answer({ stage: { kind: 'threw', stage: 'band', detail: 'x' } }), 7, 12)).toBeNull();
    const band = { status: 'slowed', targets: new Float64Array(12) };
    expect(answerProblem(answer({ stage: { kind: 'done', cbf: cbf('filtered', 12), band } }), 7, 12)).toBeNull();
  });

  it('names what is wrong with a malformed one', () => {
    expect(answerProblem(null, 7, 12)).toBe('not an object');
    expect(answerProblem({ type: 'ready' }, 7, 12)).toBe(`type 'ready', expected 'answer'`);
    expect(answerProblem(answer({ seq: 6 }), 7, 12)).toBe('answer to job 6, expected 7');
    expect(answerProblem(answer({ filterMs: '1' }), 7, 12)).toBe('filterMs is not a number');
    expect(answerProblem(answer({ stage: { kind: 'maybe' } }), 7, 12)).toBe('stage is neither done nor threw');
    expect(answerProblem(answer({ stage: { kind: 'threw' } }), 7, 12)).toBe('threw without a detail');
    expect(
      answerProblem(answer({ stage: { kind: 'done', cbf: { status: 'filtered', targets: [1, 2] } } }), 7, 12),
    ).toBe('cbf outcome malformed');
    expect(answerProblem(answer({ stage: { kind: 'done', cbf: cbf('filtered', 11) } }), 7, 12)).toBe(
      'cbf targets: 11 values, expected 12',
    );
    const band = { status: 'held', targets: new Float64Array(3) };
    expect(answerProblem(answer({ stage: { kind: 'done', cbf: cbf('filtered', 12), band } }), 7, 12)).toBe(
      'band targets malformed',
    );
  });

  it('never throws on arbitrary values, and passes only objects typed as answers to the job', () => {
    fc.assert(
      fc.property(fc.anything(), (m) => {
        const p = answerProblem(m, 7, 12);
        if (p === null)
          expect((m as { type?: unknown; seq?: unknown }).type === 'answer' && (m as { seq?: unknown }).seq === 7).toBe(
            true,
          );
      }),
      { numRuns: 2000 },
    );
  });
});
