import { afterEach, describe, expect, it } from 'vitest';
import { EmbeddedBroker, NOT_FORWARDED_TOPIC, type RefusedCommand } from '../../src/telemetry/embedded-broker.js';
import { topicFor } from '../../src/telemetry/topics.js';
import { MqttLink } from '../../src/telemetry/mqtt-link.js';
import { RecordingClient } from '../support/mqtt-client.js';

describe('embedded broker access enforcement', () => {
  let broker: EmbeddedBroker | undefined;
  afterEach(async () => {
    await broker?.stop();
  });

  it('reports a refused release with who and why, and never delivers it', async () => {
    broker = new EmbeddedBroker({
      users: [
        { username: 'viewer', password: 'v', roles: ['viewer'] },
        { username: 'ag', password: 'a', roles: ['armguard'] },
      ],
    });
    const url = await broker.start();
    const refused: RefusedCommand[] = [];
    broker.onRefused((r) => refused.push(r));
    const armguard = await RecordingClient.connect(url, 'ag', 'a');
    await armguard.subscribe(topicFor('arm1', 'cmd/release'));
    const viewer = await RecordingClient.connect(url, 'viewer', 'v');
    expect(await viewer.publish(topicFor('arm1', 'cmd/release'), '{"v":1}', 0.5)).toBe('no-ack');
    // The client resends its unacknowledged QoS 1 publish after reconnecting: each attempt is refused.
    expect(refused.length).toBeGreaterThanOrEqual(1);
    for (const r of refused) {
      expect(r).toEqual({
        clientId: expect.any(String),
        username: 'viewer',
        topic: 'armguard/v1/arm1/cmd/release',
        reason: "cmd/release from user 'viewer': needs the operator role",
      });
    }
    expect(armguard.messages).toEqual([]);
    await Promise.all([armguard.end(), viewer.end()]);
  });

  it('refuses telemetry subscriptions from anonymous clients unless configured', async () => {
    broker = new EmbeddedBroker({ users: [], anonymousTelemetry: false });
    const url = await broker.start();
    await expect(RecordingClient.connect(url)).rejects.toThrow();
    await broker.stop();
    broker = new EmbeddedBroker({ users: [], anonymousTelemetry: true });
    const url2 = await broker.start();
    const anon = await RecordingClient.connect(url2);
    await anon.subscribe('armguard/v1/#');
    expect(await anon.publish(topicFor('arm1', 'cmd/estop'), '{"v":1}', 0.5)).toBe('no-ack');
    await anon.end();
  });
  it('delivers a publish its admission refused to no subscriber, not even one naming the not-forwarded topic', async () => {
    const chunkTopic = topicFor('arm1', 'chunk/request');
    broker = new EmbeddedBroker(
      {
        users: [
          { username: 'vla', password: 'p', roles: ['policy'] },
          { username: 'viewer', password: 'v', roles: ['viewer'] },
        ],
      },
      { admission: { topic: chunkTopic, admit: (_who, payload) => !payload.includes('over') } },
    );
    const url = await broker.start();
    const watcher = await RecordingClient.connect(url, 'viewer', 'v');
    for (const t of [NOT_FORWARDED_TOPIC, '$armguard/#', '$armguard/+', '#', chunkTopic])
      await watcher.subscribe(t).catch(() => undefined); // a refused subscription may be answered with an error
    const policy = await RecordingClient.connect(url, 'vla', 'p');
    expect(await policy.publish(chunkTopic, '{"id":"over-1"}')).toBe('acked');
    expect(await policy.publish(chunkTopic, '{"id":"in-1"}')).toBe('acked');
    await watcher.waitFor((t, p) => t === chunkTopic && p.includes('in-1'), 5, 'the admitted request');
    expect(watcher.messages.filter((m) => m.payload.includes('over'))).toEqual([]);
    await Promise.all([watcher.end(), policy.end()]);
  });

  it('acknowledges a publish its admission refused at QoS 0, 1 and 2 and passes it no further: aedes never publishes it', async () => {
    const chunkTopic = topicFor('arm1', 'chunk/request');
    broker = new EmbeddedBroker(
      { users: [{ username: 'vla', password: 'p', roles: ['policy'] }] },
      { admission: { topic: chunkTopic, admit: (_who, payload) => !payload.includes('over') } },
    );
    const url = await broker.start();
    // White-box: every publish aedes runs through its pipeline (topic match, offline queues) ends in
    // its 'publish' event. A refused request used to run it too (to the not-forwarded topic): under a
    // flood, once per request besides its answer's.
    const aedes = (
      broker as unknown as { broker: { on(e: 'publish', l: (p: { topic: string; payload: Buffer }) => void): void } }
    ).broker;
    const published: string[] = [];
    aedes.on('publish', (p) => published.push(`${p.topic} ${p.payload.toString()}`));
    const policy = await RecordingClient.connect(url, 'vla', 'p');
    for (const qos of [0, 1, 2] as const) await policy.client.publishAsync(chunkTopic, `{"id":"over-${qos}"}`, { qos });
    expect(await policy.publish(chunkTopic, '{"id":"in-1"}')).toBe('acked');
    await expect
      .poll(() => published.filter((p) => p.startsWith(chunkTopic)), { timeout: 5000 })
      .toEqual([`${chunkTopic} {"id":"in-1"}`]);
    expect(published.filter((p) => p.includes('over') || p.startsWith(NOT_FORWARDED_TOPIC))).toEqual([]);
    await policy.end();
  });
});

describe('MqttLink command handling', () => {
  let broker: EmbeddedBroker | undefined;
  afterEach(async () => {
    await broker?.stop();
  });

  it('a command handler that throws becomes a command-failed event; later commands still arrive', async () => {
    broker = new EmbeddedBroker({
      users: [
        { username: 'ag', password: 'a', roles: ['armguard'] },
        { username: 'op', password: 'o', roles: ['operator'] },
      ],
    });
    const url = await broker.start();
    const estops: string[] = [];
    const link = new MqttLink(
      { url, robot: 'arm1', username: 'ag', password: 'a' },
      {
        estop: (c) => void estops.push(c.reason ?? ''),
        release: () => ({ ok: true }),
        label: () => {
          throw new Error('episode file closed');
        },
      },
    );
    const events: string[] = [];
    link.onEvent((e) => e.kind === 'command-failed' && events.push(`${e.topic}: ${e.error}`));
    expect(await link.start()).toBe(true);
    const op = await RecordingClient.connect(url, 'op', 'o');
    await op.publish(topicFor('arm1', 'cmd/label'), '{"v":1,"success":true}');
    await op.publish(topicFor('arm1', 'cmd/estop'), '{"v":1,"reason":"after"}');
    await expect.poll(() => estops, { timeout: 5000 }).toEqual(['after']);
    expect(events).toEqual(['armguard/v1/arm1/cmd/label: episode file closed']);
    await Promise.all([op.end(), link.stop()]);
  });
});
