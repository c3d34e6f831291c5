/**
 * Chunk requests paced onto the control thread (issue 14 item 3): one hand-over per credit, the
 * newest waiting request wins, every request gets exactly one outcome — handed to the control
 * thread, or answered `superseded` here — and the superseded ids reach the control thread with the
 * next hand-over. Checked on hand-written sequences and, as a property, on random interleavings of
 * arrivals and control steps against a naive model written from that description.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChunkResultMessage } from '../../src/gate/chunk.js';
import { requestId, type DecodedChunkRequest } from '../../src/runtime/chunk-transport.js';
import { ChunkPacer, SUPERSEDED_IDS_LISTED } from '../../src/telemetry/chunk-pacer.js';

const req = (id: string): DecodedChunkRequest => ({ ok: true, value: { v: 1, id } });

function pacer(now = () => 7.5) {
  const forwarded: DecodedChunkRequest[] = [];
  const answers: ChunkResultMessage[] = [];
  const p = new ChunkPacer({
    forward: (r) => forwarded.push(r),
    answer: (text) => answers.push(JSON.parse(text) as ChunkResultMessage),
    gateNow: now,
  });
  return { p, forwarded, answers };
}

describe('ChunkPacer', () => {
  it('hands the first request over at once, then one per credit: the newest waiting one', () => {
    const { p, forwarded, answers } = pacer();
    p.offer(req('a'));
    expect(forwarded.map(requestId)).toEqual(['a']);
    p.offer(req('b'));
    p.offer(req('c'));
    p.offer({ ok: false, error: 'JSON (bad)', id: 'd' });
    expect(forwarded).toHaveLength(1); // no credit yet: nothing more reaches the control thread
    expect(answers).toEqual([
      {
        v: 1,
        id: 'b',
        verdict: 'rejected',
        code: 'superseded',
        reason: "superseded by chunk 'c', which arrived before this one was evaluated: not executed",
        t: 7.5,
      },
      expect.objectContaining({ id: 'c', verdict: 'rejected', code: 'superseded' }),
    ]);
    p.grant();
    expect(forwarded.at(-1)).toEqual({
      ok: false,
      error: 'JSON (bad)',
      id: 'd',
      superseded: { ids: ['b', 'c'], count: 2 },
    });
    p.grant(); // nothing waiting: the credit is kept for the next arrival
    p.grant(); // credits do not accumulate
    p.offer(req('e'));
    p.offer(req('f'));
    expect(forwarded.map(requestId)).toEqual(['a', 'd', 'e']);
    expect(forwarded.at(-1)!.superseded).toBeUndefined();
    p.drain('shutting down');
    expect(answers.at(-1)).toMatchObject({ id: 'f', verdict: 'rejected', code: 'shutdown', reason: 'shutting down' });
    expect(p.superseded).toBe(2);
  });

  it('lists at most SUPERSEDED_IDS_LISTED superseded ids to the control thread and counts them all', () => {
    const { p, forwarded, answers } = pacer();
    p.offer(req('first'));
    for (let i = 0; i < 100; i++) p.offer(req(`x${i}`));
    p.grant();
    expect(answers).toHaveLength(99);
    const s = forwarded.at(-1)!.superseded!;
    expect(s.count).toBe(99);
    expect(s.ids).toEqual(Array.from({ length: SUPERSEDED_IDS_LISTED }, (_, i) => `x${i}`));
    expect(requestId(forwarded.at(-1)!)).toBe('x99');
  });

  it('property: each request gets exactly one outcome; hand-overs ≤ steps + 1, in arrival order, each the newest waiting', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom<'offer' | 'step'>('offer', 'step'), { maxLength: 200 }), (ops) => {
        const { p, forwarded, answers } = pacer();
        // Naive model: a credit flag and the list of waiting ids.
        let credit = true;
        let waiting: string[] = [];
        const expectForwarded: string[] = [];
        const expectSuperseded: string[] = [];
        let n = 0;
        let steps = 0;
        let sinceHandOver = 0;
        for (const op of ops) {
          if (op === 'offer') {
            const id = `r${n++}`;
            p.offer(req(id));
            if (credit) {
              credit = false;
              expectForwarded.push(id);
              sinceHandOver = 0;
            } else waiting.push(id);
            if (waiting.length > 1) {
              expectSuperseded.push(...waiting.slice(0, -1));
              sinceHandOver += waiting.length - 1;
            }
            waiting = waiting.slice(-1);
          } else {
            steps++;
            p.grant();
            if (waiting.length > 0) {
              expectForwarded.push(waiting.shift()!);
              sinceHandOver = 0;
            } else credit = true;
          }
        }
        const handed = forwarded.map(requestId);
        const answered = answers.map((a) => a.id);
        expect(handed).toEqual(expectForwarded);
        expect(answered).toEqual(expectSuperseded);
        expect(handed.length).toBeLessThanOrEqual(steps + 1);
        // every id: handed over, answered superseded, or (only the last) still waiting — never two of these
        const outcomes = [...handed, ...answered, ...waiting].sort();
        expect(outcomes).toEqual(Array.from({ length: n }, (_, i) => `r${i}`).sort());
        // what travelled with the hand-overs is what was answered superseded, but for those since the last one
        const reported = forwarded.reduce((k, r) => k + (r.superseded?.count ?? 0), 0);
        expect(reported).toBe(answered.length - sinceHandOver);
      }),
      { numRuns: 300 },
    );
  });
});
