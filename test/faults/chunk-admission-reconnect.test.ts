/**
 * Issue 14 item 3, the chunk admission's buckets against a flooder that reconnects: the embedded
 * broker (real aedes in the network worker thread, real MQTT clients on loopback) keys each bucket
 * by the authenticated user, not by the MQTT client id the client chooses, and keeps it across
 * reconnects — so neither reconnecting with the same client id nor with a new one brings a fresh
 * burst. Another user keeps its own bucket. Rate-limited requests are answered by the broker
 * itself, each exactly once with its id. And an operator's e-stop sent while a policy floods the
 * broker reaches the control thread before the flood has been answered.
 */
import { afterEach, describe, expect, it } from 'vitest';
import mqtt, { type MqttClient } from 'mqtt';
import type { NetworkWorkerHandler } from '../../src/telemetry/network-worker.js';
import { startEmbeddedNetwork } from '../support/embedded-network.js';
import { topicFor } from '../../src/telemetry/topics.js';
import type { ChunkResultMessage } from '../../src/gate/chunk.js';

const ROBOT = 'rc1';
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

interface Started {
  url: string;
  estops: number[];
}

async function startWorker(ratePerS: number, burst: number): Promise<Started> {
  const estops: number[] = [];
  const handler: NetworkWorkerHandler = {
    estop: () => void estops.push(performance.now()),
    release: () => ({ ok: true }),
    label: () => ({ ok: true }),
    decodedChunk: () => undefined,
  };
  const s = await startEmbeddedNetwork({
    robot: ROBOT,
    users: [
      { username: 'vla', password: 'vla-secret1', roles: ['policy'] },
      { username: 'vla2', password: 'vla2-secret1', roles: ['policy'] },
      { username: 'op', password: 'op-secret1', roles: ['operator'] },
    ],
    chunkRate: { ratePerS, burst },
    handler,
  });
  cleanups.push(s.stop);
  return { url: s.url, estops };
}

async function client(url: string, username: string, clientId: string): Promise<MqttClient> {
  const c = await mqtt.connectAsync(url, {
    username,
    password: `${username}-secret1`,
    clientId,
    reconnectPeriod: 0,
  });
  cleanups.push(() => c.endAsync(true));
  return c;
}

const request = (id: string) =>
  JSON.stringify({ v: 1, id, stamp: 0, horizon: 1, joints: 6, dt: 0.02, targets: [[0, 0, 0, 0, 0, 0]] });

/** Publish `n` requests with ids `<prefix><i>` and wait for the rate-limit answers among the answers to them. */
async function burstOf(c: MqttClient, prefix: string, n: number): Promise<{ limited: string[] }> {
  const answers: ChunkResultMessage[] = [];
  const onMessage = (_t: string, p: Buffer) => {
    const a = JSON.parse(p.toString()) as ChunkResultMessage;
    if (a.id.startsWith(prefix)) answers.push(a);
  };
  c.on('message', onMessage);
  await c.subscribeAsync(topicFor(ROBOT, 'chunk/result'), { qos: 1 });
  await Promise.all(
    Array.from({ length: n }, (_, i) =>
      c.publishAsync(topicFor(ROBOT, 'chunk/request'), request(`${prefix}${i}`), { qos: 1 }),
    ),
  );
  // Admitted requests wait for the control thread's credit (never granted here) or are superseded;
  // the rate-limit answers come at once. Wait until they stop coming.
  let seen = -1;
  while (answers.length !== seen) {
    seen = answers.length;
    await new Promise((r) => setTimeout(r, 300));
  }
  c.off('message', onMessage);
  const limited = answers.filter((a) => a.code === 'rate-limit').map((a) => a.id);
  expect(new Set(limited).size).toBe(limited.length); // each answered once
  return { limited };
}

describe('chunk admission across reconnects (embedded broker in the network worker)', () => {
  it('keeps the bucket per user across reconnects: no fresh burst with the same or a new client id', async () => {
    // 0.1 requests a second: over the test's few seconds less than one token comes back.
    const { url } = await startWorker(0.1, 3);
    const first = await client(url, 'vla', 'flooder-1');
    expect((await burstOf(first, 'a', 10)).limited).toHaveLength(7); // the burst of 3 admitted
    await first.endAsync(true);

    // The same client id again: a reconnect must not refill the bucket (old code: 7 again).
    const again = await client(url, 'vla', 'flooder-1');
    expect((await burstOf(again, 'b', 10)).limited).toHaveLength(10);
    await again.endAsync(true);

    // A new client id, same user: the user's bucket (old code: a new full bucket, 7).
    const renamed = await client(url, 'vla', `flooder-${Math.random()}`);
    expect((await burstOf(renamed, 'c', 10)).limited).toHaveLength(10);

    // Another user has its own bucket: its burst is admitted.
    const other = await client(url, 'vla2', 'honest-1');
    const o = await burstOf(other, 'd', 10);
    expect(o.limited).toHaveLength(7);
    // The answer names the user whose limit it met.
    expect(o.limited.every((id) => /^d\d$/.test(id))).toBe(true);
  }, 30_000);

  it('answers rate-limited requests with their id and a reason naming the user and the client', async () => {
    const { url } = await startWorker(0.1, 1);
    const c = await client(url, 'vla', 'named-1');
    const answers: ChunkResultMessage[] = [];
    c.on('message', (_t, p) => answers.push(JSON.parse(p.toString()) as ChunkResultMessage));
    await c.subscribeAsync(topicFor(ROBOT, 'chunk/result'), { qos: 1 });
    await c.publishAsync(topicFor(ROBOT, 'chunk/request'), request('x0'), { qos: 1 });
    await c.publishAsync(topicFor(ROBOT, 'chunk/request'), request('x1 "quoted" ü'), { qos: 1 });
    const deadline = Date.now() + 5000;
    while (!answers.some((a) => a.code === 'rate-limit') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    const a = answers.find((x) => x.code === 'rate-limit');
    expect(a).toMatchObject({
      v: 1,
      id: 'x1 "quoted" ü',
      verdict: 'rejected',
      reason: expect.stringMatching(/^more than 0\.1 chunk requests a second from user 'vla' \(client 'named-1'\)/),
    });
    expect(typeof a!.t).toBe('number');
  }, 30_000);

  it("an operator's e-stop sent during another client's chunk flood reaches the control thread before the flood is answered", async () => {
    const { url, estops } = await startWorker(100, 20);
    const flooder = await client(url, 'vla', 'flood-estop');
    const op = await client(url, 'op', 'op-estop');
    const N = 3000;
    let answered = 0;
    let answeredAtEstop = -1;
    flooder.on('message', () => {
      answered++;
      if (estops.length > 0 && answeredAtEstop < 0) answeredAtEstop = answered;
    });
    await flooder.subscribeAsync(topicFor(ROBOT, 'chunk/result'), { qos: 1 });
    const targets = Array.from({ length: 50 }, () => [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]);
    const body = (i: number) =>
      JSON.stringify({ v: 1, id: `f${i}`, stamp: 0, horizon: 50, joints: 6, dt: 0.02, targets });
    const flood = Array.from({ length: N }, (_, i) =>
      flooder.publishAsync(topicFor(ROBOT, 'chunk/request'), body(i), { qos: 1 }),
    );
    // Once the flood is being answered, the e-stop.
    while (answered < 100) await new Promise((r) => setTimeout(r, 2));
    await op.publishAsync(topicFor(ROBOT, 'cmd/estop'), '{"v":1,"reason":"flood test"}', { qos: 1 });
    await Promise.all(flood);
    const deadline = Date.now() + 20_000;
    while (estops.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(estops).toHaveLength(1);
    // Reached this (control) thread while most of the flood was still unanswered.
    expect(answeredAtEstop).toBeGreaterThan(0);
    expect(answeredAtEstop).toBeLessThan(N / 2);
  }, 40_000);
});
