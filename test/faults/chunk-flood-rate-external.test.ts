/**
 * Issue 14 item 3, with an external broker (a real Mosquitto): armguard cannot tell the policy
 * connections apart there, so the network worker admits the chunk request stream through one token
 * bucket before decoding. A flood above it is answered `rejected` / `rate-limit` naming the limit,
 * without being decoded or handed to the control thread; every request is answered exactly once
 * (rate-limit, superseded by the pacer, or the control thread's own answer); the rejections are
 * reported to the control thread as refusals, counted.
 */
import { afterEach, describe, expect, it } from 'vitest';
import mqtt from 'mqtt';
import type { ChunkResultMessage } from '../../src/gate/chunk.js';
import { NetworkWorker } from '../../src/telemetry/network-worker.js';
import { requestId } from '../../src/runtime/chunk-transport.js';
import { topicFor } from '../../src/telemetry/topics.js';
import type { AccessConfig } from '../../src/telemetry/access.js';
import { Mosquitto, mosquittoMissing } from '../support/mosquitto.js';
import { waitUntil } from '../support/run-session.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

const access: AccessConfig = {
  users: [
    { username: 'ag', password: 'ag-secret-1', roles: ['armguard'] },
    { username: 'vla', password: 'vla-secret-1', roles: ['policy'] },
  ],
};
const N = 200;

describe('a chunk request flood through an external broker', () => {
  it('is admitted through one bucket for the stream: above it answered rate-limit, undecoded; every request answered once; the rejections reported', async () => {
    const missing = mosquittoMissing();
    if (missing) throw new Error(missing);
    const m = await Mosquitto.start(access);
    cleanups.push(() => m.stop());
    const clock = { now: () => performance.now() / 1000 };
    const decoded: string[] = [];
    const refused: string[] = [];
    const net: NetworkWorker = new NetworkWorker(
      {
        broker: { kind: 'external', url: m.url, username: 'ag', password: 'ag-secret-1', protocolVersion: 5 },
        robot: 'ext1',
        connectTimeoutSeconds: 5,
        chunkRate: { ratePerS: 20, burst: 4 },
      },
      {
        estop: () => undefined,
        release: () => ({ ok: true }),
        label: () => ({ ok: true }),
        // The control thread's side: answer the request it was handed, then take the next one.
        decodedChunk: (r) => {
          const id = requestId(r);
          decoded.push(id);
          net.publishChunkResult(JSON.stringify({ v: 1, id, verdict: 'held', code: 'test', reason: 'test', t: 0 }));
          setTimeout(() => net.grantChunk(clock.now()), 10);
        },
      },
      clock,
    );
    net.onRefused((t) => refused.push(t));
    cleanups.push(() => net.stop());
    const started = await net.start();
    expect(started.connected).toBe(true);
    expect(started.settings).toMatch(/chunk requests above 20\/s \(burst 4\) in all answered rate-limit/);

    const policy = await mqtt.connectAsync(m.url, {
      username: 'vla',
      password: 'vla-secret-1',
      clientId: `ext-flood-${process.pid}`,
    });
    cleanups.push(() => policy.endAsync(true));
    const answers: ChunkResultMessage[] = [];
    policy.on('message', (_t, payload) => answers.push(JSON.parse(payload.toString()) as ChunkResultMessage));
    await policy.subscribeAsync(topicFor('ext1', 'chunk/result'), { qos: 1 });
    const targets = [[0, 0, 0, 0, 0, 0]];
    await Promise.all(
      Array.from({ length: N }, (_, i) =>
        policy.publishAsync(
          topicFor('ext1', 'chunk/request'),
          JSON.stringify({ v: 1, id: `x${i}`, stamp: 0, horizon: 1, joints: 6, dt: 0.02, targets }),
          { qos: 1 },
        ),
      ),
    );
    await waitUntil(() => answers.length >= N, 20, `answers to all ${N} requests`);
    await new Promise((r) => setTimeout(r, 300));

    const ids = answers.map((a) => a.id);
    expect(ids).toHaveLength(N);
    expect(new Set(ids).size).toBe(N);
    const limited = answers.filter((a) => a.code === 'rate-limit');
    expect(limited.length).toBeGreaterThan(0);
    for (const a of limited)
      expect(a).toMatchObject({
        verdict: 'rejected',
        reason: expect.stringMatching(
          /^more than 20 chunk requests a second on this broker connection \(all policies together\) \(burst 4; --max-chunk-rate\)/,
        ),
      });
    // A rate-limited request never reached the control thread.
    const handed = new Set(decoded);
    expect(limited.filter((a) => handed.has(a.id))).toEqual([]);
    // Reported to the control thread (at most one report a second), every rejection counted.
    const counted = () =>
      refused
        .map((t) => /^(\d+) chunk request\(s\) on this broker connection .* rejected above the rate limit/.exec(t)?.[1])
        .reduce((s, n) => s + Number(n ?? 0), 0);
    await waitUntil(() => counted() >= limited.length, 5, 'the rejection reports');
    expect(counted()).toBe(limited.length);
  }, 60_000);
});
