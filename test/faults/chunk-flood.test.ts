/**
 * Issue 14 item 3: a policy client floods a live `armguard run` session (emulated SO-101 over a
 * pty, the embedded broker in the network worker) with chunk requests. Before, the worker posted
 * every decoded request to the control thread, which screened and filtered each one as it came —
 * hundreds between two control steps. Now the worker hands over one request per control step (the
 * newest waiting one) and answers the older waiting ones `superseded` itself: the control thread
 * evaluates at most one chunk per step, every request still gets exactly one answer, the newest
 * request is evaluated, and the superseded ids are recorded in the episode.
 */
import { afterEach, describe, expect, it } from 'vitest';
import mqtt from 'mqtt';
import type { ControlLoop } from '../../src/cli/compose/control-loop.js';
import type { ChunkResultMessage } from '../../src/gate/chunk.js';
import { topicFor } from '../../src/telemetry/topics.js';
import { systemClock } from '../../src/platform/system-clock.js';
import { episodeGateRecords, startEmulatedSession, waitUntil } from '../support/run-session.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

const N = 300;

describe('a chunk request flood on a live session', () => {
  it('is evaluated at most one chunk per control step; the rest are answered superseded, each exactly once, and recorded', async () => {
    // No admission limit here (chunk-flood-rate.test.ts covers it): every request reaches the pacer.
    const { s } = await startEmulatedSession({ chunkRate: { ratePerS: 1e6, burst: 1e6 } });
    cleanups.push(() => s.stop('test cleanup'));
    // Test access to the session's step counter.
    const loop = (s as unknown as { loop: ControlLoop }).loop;
    const policy = await mqtt.connectAsync(s.brokerUrl!, {
      username: 'vla',
      password: 'vla-secret',
      clientId: `flood-${process.pid}`,
    });
    cleanups.push(() => policy.endAsync(true));
    const answers: ChunkResultMessage[] = [];
    policy.on('message', (topic, payload) => {
      if (topic === topicFor('arm9', 'chunk/result'))
        answers.push(JSON.parse(payload.toString()) as ChunkResultMessage);
    });
    await policy.subscribeAsync(topicFor('arm9', 'chunk/result'), { qos: 1 });

    const targets = Array.from({ length: 10 }, () => [0, 0, 0, 0, 0, 0]);
    const stepsBefore = loop.steps;
    const sent = Array.from({ length: N }, (_, i) =>
      policy.publishAsync(
        topicFor('arm9', 'chunk/request'),
        JSON.stringify({ v: 1, id: `f${i}`, stamp: systemClock.now(), horizon: 10, joints: 6, dt: 0.02, targets }),
        { qos: 1 },
      ),
    );
    await Promise.all(sent);
    await waitUntil(() => answers.length >= N, 20, `answers to all ${N} chunk requests`);
    const steps = loop.steps - stepsBefore;
    await new Promise((r) => setTimeout(r, 200)); // nothing answered twice afterwards either

    const ids = answers.map((a) => a.id);
    expect(new Set(ids).size).toBe(N);
    expect(ids).toHaveLength(N);
    const superseded = answers.filter((a) => a.code === 'superseded');
    const evaluated = answers.filter((a) => a.code !== 'superseded');
    for (const a of superseded) {
      expect(a).toMatchObject({ verdict: 'rejected', reason: expect.stringMatching(/^superseded by chunk 'f\d+'/) });
    }
    // one per credit, and the credit comes back once per control step
    expect(evaluated.length).toBeLessThanOrEqual(steps + 1);
    expect(superseded.length).toBeGreaterThan(0);
    // the newest request is never superseded: it was evaluated
    expect(evaluated.map((a) => a.id)).toContain(`f${N - 1}`);

    // The episode records every superseded request (ids listed, the rest counted).
    const path = s.episodes.path!;
    await s.stop('test done');
    const recorded = (await episodeGateRecords(path)).filter(
      (r) => r.kind === 'event' && r.event === 'chunk-rejected' && /superseded/.test(r.detail ?? ''),
    );
    let count = 0;
    for (const r of recorded) {
      const detail = r.kind === 'event' ? (r.detail ?? '') : '';
      const head = detail.slice(0, detail.indexOf(': superseded'));
      // the network worker's hand-over lists the ids it superseded ('f1', 'f2' and N more); the chunk
      // path names the one chunk it superseded while another was being filtered (f7)
      count += /^f\d+$/.test(head)
        ? 1
        : (head.match(/'f\d+'/g) ?? []).length + Number(/ and (\d+) more$/.exec(head)?.[1] ?? 0);
    }
    expect(count).toBe(superseded.length);
  }, 60_000);
});
