import { describe, expect, it } from 'vitest';
import {
  JudgeScheduler,
  SemanticGate,
  type JudgeOutcome,
  type JudgeRequest,
  type SemanticEvent,
  type SemanticJudge,
  type Verdict,
} from '../../src/semantic/index.js';

const verdict = (decision: 'allow' | 'refuse', reason = 'r'): JudgeOutcome => ({
  ok: true,
  verdict: { decision, reason, latency: 0.1, judge: 'test' } satisfies Verdict,
});
const fault = (cause: 'http-status' | 'malformed-answer' = 'http-status'): JudgeOutcome => ({
  ok: false,
  fault: { kind: 'judge', source: 'test', cause, detail: 'HTTP 500', latency: 0.2 },
});
const config = { failMode: 'closed' as const, openGripperOnRefuse: true, refreshEveryChunks: 3, queryTimeout: 2 };

describe('SemanticGate', () => {
  it('decide builds nothing per control step: the same decision object until the verdict or fault changes; decision events as before', () => {
    const g = new SemanticGate(config);
    const events: SemanticEvent[] = [];
    g.onEvent((e) => events.push(e));
    expect(g.decide(0)).toBe(g.decide(0.01)); // awaiting a verdict
    g.settle(0.1, g.startQuery(0, 0, 'start'), verdict('refuse', 'knife'));
    const refusal = g.decide(0.1);
    expect(g.decide(0.2)).toBe(refusal);
    // a refresh with the same refusal: a new object (another verdict), no new decision event
    g.settle(1, g.startQuery(1, 3, 'refresh'), verdict('refuse', 'knife'));
    const again = g.decide(1);
    expect(again).toEqual(refusal);
    expect(g.decide(1.1)).toBe(again);
    g.settle(2, g.startQuery(2, 6, 'refresh'), fault());
    expect(g.decide(2)).toBe(g.decide(2.1));
    g.settle(3, g.startQuery(3, 9, 'refresh'), verdict('allow'));
    expect(g.decide(3)).toBe(g.decide(3.1));
    expect(events.filter((e) => e.kind === 'decision').map((e) => e.t)).toEqual([0, 0.1, 2, 3]);
  });

  it('fail-closed: holds until the first verdict, then enforces it', () => {
    const g = new SemanticGate(config);
    expect(g.decide(0)).toEqual({ pass: false, cause: { kind: 'awaiting-verdict' }, openGripper: false });
    const q = g.startQuery(0, 0, 'start');
    expect(g.decide(0.1).pass).toBe(false);
    g.settle(0.5, q, verdict('allow'));
    expect(g.decide(0.5)).toEqual({ pass: true, basis: 'allow' });
  });

  it('fail-open passes without a verdict, but a refusal still holds with the gripper opened', () => {
    const g = new SemanticGate({ ...config, failMode: 'open' });
    expect(g.decide(0)).toEqual({ pass: true, basis: 'fail-open' });
    g.settle(1, g.startQuery(0, 0, 'start'), verdict('refuse', 'knife to baby'));
    expect(g.decide(1)).toEqual({
      pass: false,
      cause: { kind: 'refused', reason: 'knife to baby', judge: 'test' },
      openGripper: true,
    });
  });

  it('a judge fault holds when closed; when open it is recorded and never turns a refusal into an allow', () => {
    const closed = new SemanticGate(config);
    closed.settle(0.1, closed.startQuery(0, 0, 'start'), verdict('allow'));
    closed.settle(1, closed.startQuery(1, 3, 'refresh'), fault());
    const d = closed.decide(1);
    expect(d.pass).toBe(false);
    expect(!d.pass && d.cause.kind).toBe('judge-fault');

    const open = new SemanticGate({ ...config, failMode: 'open' });
    const events: SemanticEvent[] = [];
    open.onEvent((e) => events.push(e));
    open.settle(0.1, open.startQuery(0, 0, 'start'), verdict('refuse'));
    open.settle(1, open.startQuery(1, 3, 'refresh'), fault());
    expect(open.decide(1).pass).toBe(false); // still the refusal
    expect(events.some((e) => e.kind === 'fault')).toBe(true);
  });

  it('an unanswered query becomes a timeout fault; its late answer is recorded, not used', () => {
    const g = new SemanticGate(config);
    const events: SemanticEvent[] = [];
    g.onEvent((e) => events.push(e));
    const q = g.startQuery(0, 0, 'start');
    g.tick(1.99);
    expect(g.activeFault).toBeUndefined();
    g.tick(2);
    expect(g.activeFault).toMatchObject({ cause: 'timeout', latency: 2 });
    g.settle(3, q, verdict('allow'));
    expect(g.verdict).toBeUndefined();
    expect(g.decide(3).pass).toBe(false);
    expect(events.map((e) => e.kind)).toEqual(['query', 'fault', 'late-answer', 'decision']);
  });

  it('queries at start, every N chunks, and at the next chunk after a fault; never two at once', () => {
    const g = new SemanticGate(config);
    expect(g.queryDue(0)).toBe('start');
    const q = g.startQuery(0, 0, 'start');
    expect(g.queryDue(5)).toBeUndefined(); // outstanding
    g.settle(0.1, q, verdict('allow'));
    expect(g.queryDue(1)).toBeUndefined();
    expect(g.queryDue(2)).toBeUndefined();
    expect(g.queryDue(3)).toBe('refresh');
    g.settle(2, g.startQuery(1, 3, 'refresh'), fault());
    expect(g.queryDue(3)).toBeUndefined();
    expect(g.queryDue(4)).toBe('retry');
  });

  it('reports decision changes once each', () => {
    const g = new SemanticGate(config);
    const decisions: string[] = [];
    g.onEvent((e) => e.kind === 'decision' && decisions.push(`${e.pass}:${e.detail}`));
    g.decide(0);
    g.decide(0.1);
    g.settle(0.2, g.startQuery(0.1, 0, 'start'), verdict('allow'));
    g.decide(0.2);
    g.decide(0.3);
    expect(decisions).toEqual(['false:no judge verdict yet (fail-closed)', 'true:allowed by test']);
  });

  it('rejects a bad configuration', () => {
    expect(() => new SemanticGate({ ...config, refreshEveryChunks: 0 })).toThrow(RangeError);
    expect(() => new SemanticGate({ ...config, queryTimeout: 0 })).toThrow(RangeError);
  });
});

describe('JudgeScheduler', () => {
  const req: JudgeRequest = { task: 't', instruction: 'i', intent: 'pick-place', frames: [], scene: [] };

  it('a judge that throws (or rejects) is an internal fault, never an allow', async () => {
    for (const judge of [
      {
        name: 'thrower',
        judge: () => {
          throw new Error('boom');
        },
      },
      { name: 'rejecter', judge: () => Promise.reject(new Error('nope')) },
    ] as SemanticJudge[]) {
      const g = new SemanticGate({ ...config, failMode: 'open' });
      const s = new JudgeScheduler(g, judge, () => 0);
      s.atChunk(0, () => req);
      await s.pending;
      expect(g.activeFault).toMatchObject({ cause: 'internal', source: judge.name });
      expect(g.verdict).toBeUndefined();
    }
  });

  it('an asynchronous request (a camera grab) that fails is an internal fault; one that succeeds is asked', async () => {
    const g = new SemanticGate(config);
    const judge: SemanticJudge = {
      name: 'j',
      judge: (r) => Promise.resolve(verdict(r.instruction === 'ok' ? 'allow' : 'refuse')),
    };
    const s = new JudgeScheduler(g, judge, () => 0);
    s.atChunk(0, () => Promise.reject(new Error('camera gone')));
    await s.pending;
    expect(g.activeFault).toMatchObject({ cause: 'internal', detail: 'building the request failed: camera gone' });
    s.atChunk(1, () => Promise.resolve({ ...req, instruction: 'ok' }));
    await s.pending;
    expect(g.decide(1)).toEqual({ pass: true, basis: 'allow' });
  });

  it('does not wait: the cached verdict stays in force while a refresh is in flight', async () => {
    let release: (o: JudgeOutcome) => void = () => {};
    let calls = 0;
    const judge: SemanticJudge = {
      name: 'slow',
      judge: () => {
        calls++;
        return calls === 1 ? Promise.resolve(verdict('allow')) : new Promise((r) => (release = r));
      },
    };
    const g = new SemanticGate(config);
    let now = 0;
    const s = new JudgeScheduler(g, judge, () => now);
    s.atChunk(0, () => req);
    await s.pending;
    expect(g.decide(0).pass).toBe(true);
    now = 1;
    s.atChunk(3, () => req);
    expect(s.pending).toBeDefined();
    expect(g.decide(1).pass).toBe(true); // still the cached allow
    now = 1.5;
    release(verdict('refuse', 'changed'));
    await s.pending;
    expect(g.decide(1.5)).toMatchObject({ pass: false, cause: { kind: 'refused', reason: 'changed' } });
    expect(s.pending).toBeUndefined();
  });
});
