/**
 * The network worker (broker, link and decoding in a worker thread): commands reach the handler on
 * this thread already parsed, chunk requests arrive decoded (or with the JSON error and the id
 * salvaged for the answer), refusals come back as command-refused events, and telemetry published
 * here reaches MQTT clients. Real aedes in the worker, real MQTT clients here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NetworkWorker, type NetworkWorkerHandler, type StartedNetwork } from '../../src/telemetry/network-worker.js';
import type { LinkEvent } from '../../src/telemetry/mqtt-link.js';
import { topicFor } from '../../src/telemetry/topics.js';
import { RecordingClient } from '../support/mqtt-client.js';

const seen: string[] = [];
const chunks: unknown[] = [];
const events: LinkEvent[] = [];
const handler: NetworkWorkerHandler = {
  estop: (c) => void seen.push(`estop ${c.reason ?? ''} ${c.id ?? ''}`),
  estopReset: (c) => (seen.push(`reset ${c.pressedBy}`), { ok: false, reason: 'nothing latched' }),
  release: () => (seen.push('release'), { ok: true }),
  label: () => ({ ok: true }),
  heartbeat: (seq) => void seen.push(`heartbeat ${seq}`),
  decodedChunk: (r) => void chunks.push(r),
};
let net: NetworkWorker;
let started: StartedNetwork;
beforeAll(async () => {
  net = new NetworkWorker(
    {
      broker: {
        kind: 'embedded',
        port: 0,
        host: '127.0.0.1',
        access: { users: [{ username: 'op', password: 'op-secret1', roles: ['operator', 'policy'] }] },
      },
      robot: 'w1',
      connectTimeoutSeconds: 5,
    },
    handler,
    { now: () => performance.now() / 1000 },
  );
  net.onEvent((e) => events.push(e));
  started = await net.start();
});
afterAll(() => net.stop());

const until = async (pred: () => boolean, what: string) => {
  const deadline = Date.now() + 5000;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('NetworkWorker', () => {
  it('starts the broker and the link in the worker and is connected', () => {
    expect(started.connected).toBe(true);
    expect(started.url).toMatch(/^mqtt:\/\/127\.0\.0\.1:\d+$/);
    expect(net.connected).toBe(true);
  });

  it('delivers parsed commands and decoded chunks to this thread; a refusal comes back as an event', async () => {
    const op = await RecordingClient.connect(started.url, 'op', 'op-secret1');
    await op.publish(topicFor('w1', 'cmd/estop'), '{"v":1,"reason":"r","id":"p1"}');
    await op.publish(topicFor('w1', 'cmd/estop-reset'), '{"v":1,"pressedBy":"p1"}');
    await op.publish(topicFor('w1', 'cmd/heartbeat'), '{"v":1,"seq":7}');
    await op.publish(
      topicFor('w1', 'chunk/request'),
      '{"v":1,"id":"c1","stamp":0,"horizon":1,"joints":1,"dt":0.02,"targets":[[0]]}',
    );
    await op.publish(topicFor('w1', 'chunk/request'), '{"v":1,"id":"c2", oops');
    // One chunk request per control step: the second waits for the step's credit.
    await until(() => chunks.length === 1 && seen.length === 3, 'the commands');
    net.grantChunk(1);
    await until(() => chunks.length === 2, 'the second chunk request after the credit');
    expect(seen).toEqual(['estop r p1', 'reset p1', 'heartbeat 7']);
    expect(chunks[0]).toEqual({
      ok: true,
      value: { v: 1, id: 'c1', stamp: 0, horizon: 1, joints: 1, dt: 0.02, targets: [[0]] },
    });
    expect(chunks[1]).toMatchObject({ ok: false, id: 'c2', error: expect.stringMatching(/^JSON \(/) });
    expect(events).toContainEqual({
      kind: 'command-refused',
      topic: topicFor('w1', 'cmd/estop-reset'),
      reason: 'nothing latched',
    });
    await op.end();
  });

  it('telemetry published on this thread reaches subscribers, with the e-stop latch in the gate state', async () => {
    const op = await RecordingClient.connect(started.url, 'op', 'op-secret1');
    await op.subscribe(topicFor('w1', 'gate'));
    net.publishGate(1.5, 'hold', 'e-stop from x', [{ by: 'x', t: 1.5, id: 'p9' }]);
    await op.waitFor((t, p) => t === topicFor('w1', 'gate') && JSON.parse(p).t === 1.5, 5, 'the gate state');
    const g = JSON.parse(
      op.messages.find((m) => m.topic === topicFor('w1', 'gate') && JSON.parse(m.payload).t === 1.5)!.payload,
    );
    expect(g).toEqual({
      v: 1,
      robot: 'w1',
      t: 1.5,
      state: 'hold',
      cause: 'e-stop from x',
      estop: { latched: true, pressed: [{ by: 'x', t: 1.5, id: 'p9' }] },
    });
    await op.end();
  });
});
