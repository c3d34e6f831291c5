/**
 * Issue #14 item 3, injected for real: raw oversized MQTT packets on loopback to the embedded
 * broker. A CONNECT declaring 64 MB (before any authentication) and, after a valid login, a
 * PUBLISH declaring 64 MB are refused from their headers: the connection is closed while the
 * sender is still writing, the broker's process memory does not grow by the payload, and the
 * broker keeps serving other clients. (Old behaviour: aedes buffered the whole packet first.)
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedBroker, type OversizeRefusal } from '../../src/telemetry/embedded-broker.js';
import { RecordingClient } from '../support/mqtt-client.js';
import { connectPacket as rawConnect, mqttString as str, remainingLength as varint } from '../support/mqtt-raw.js';
import { MqttLink, type LinkEvent } from '../../src/telemetry/mqtt-link.js';
import { MAX_CHUNK_BYTES } from '../../src/gate/chunk-parse.js';
import { topicFor } from '../../src/telemetry/topics.js';

let broker: EmbeddedBroker;
let url = '';
const refusals: OversizeRefusal[] = [];
beforeAll(async () => {
  broker = new EmbeddedBroker({
    users: [
      { username: 'viewer', password: 'view-secret', roles: ['viewer'] },
      { username: 'op', password: 'op-secret1', roles: ['operator'] },
      { username: 'vla', password: 'vla-secret1', roles: ['policy'] },
    ],
  });
  broker.onOversize((r) => refusals.push(r));
  url = await broker.start();
});
afterAll(() => broker.stop());

const connectPacket = (user: string, pass: string): Buffer => rawConnect(`raw-${Math.random()}`, user, pass);

/** Write `header` then up to `total` bytes of filler in 1 MB pieces until the broker closes the socket; resolves with bytes written. */
function flood(socket: Socket, first: Buffer, total: number): Promise<{ written: number; closed: boolean }> {
  return new Promise((resolve) => {
    let written = 0;
    let closed = false;
    const piece = Buffer.alloc(1 << 20, 0x41);
    socket.on('error', () => undefined);
    socket.once('close', () => {
      closed = true;
      resolve({ written, closed });
    });
    const pump = () => {
      while (!closed && written < total) {
        written += piece.length;
        if (!socket.write(piece)) return void socket.once('drain', pump);
      }
      if (written >= total) setTimeout(() => resolve({ written, closed }), 2000);
    };
    socket.write(first, pump);
  });
}

describe('oversized packets on loopback', () => {
  it('a 64 MB CONNECT before authentication is refused from its header', async () => {
    const before = process.memoryUsage().rss;
    const socket = connect(broker.port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    const r = await flood(socket, Buffer.from([0x10, ...varint(64 << 20)]), 64 << 20);
    expect(r.closed).toBe(true);
    expect(r.written).toBeLessThan(64 << 20);
    expect(refusals.at(-1)?.reason).toBe(`CONNECT of ${64 << 20} bytes exceeds the limit of 8192 bytes`);
    expect(process.memoryUsage().rss - before).toBeLessThan(48 << 20);
  }, 30_000);

  it('a 64 MB PUBLISH after a valid login is refused from its header; other clients are unaffected', async () => {
    const viewer = await RecordingClient.connect(url, 'viewer', 'view-secret');
    await viewer.subscribe('armguard/v1/#');
    const socket = connect(broker.port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    socket.write(connectPacket('op', 'op-secret1'));
    const connack = await new Promise<Buffer>((r) => socket.once('data', r));
    expect([...connack.subarray(0, 4)]).toEqual([0x20, 2, 0, 0]); // CONNACK accepted
    const topic = str('armguard/v1/arm1/cmd/label');
    const r = await flood(socket, Buffer.from([0x30, ...varint(topic.length + (64 << 20)), ...topic]), 64 << 20);
    expect(r.closed).toBe(true);
    expect(r.written).toBeLessThan(64 << 20);
    expect(refusals.at(-1)?.reason).toMatch(/^packet \(type 3\) of \d+ bytes exceeds the limit of \d+ bytes$/);
    // The broker still serves: a normal publish reaches the viewer.
    const op = await RecordingClient.connect(url, 'op', 'op-secret1');
    await op.publish('armguard/v1/arm1/cmd/label', '{"v":1,"success":true}');
    await viewer.waitFor((t) => t === 'armguard/v1/arm1/cmd/label', 5, 'a normal publish after the flood');
    await Promise.all([viewer.end(), op.end()]);
  }, 30_000);
});

describe('chunk requests over their size limit', () => {
  it('are refused by the link before they are decoded (below the broker limit, above the chunk limit)', async () => {
    const decoded: number[] = [];
    const events: LinkEvent[] = [];
    const link = new MqttLink(
      {
        url,
        robot: 'arm5',
        clientId: `armguard-arm5-${process.pid}`,
        username: broker.internal.armguard.username,
        password: broker.internal.armguard.password,
      },
      {
        estop: () => undefined,
        release: () => ({ ok: true }),
        label: () => ({ ok: true }),
        chunk: (b) => decoded.push(b.length),
      },
    );
    link.onEvent((e) => events.push(e));
    expect(await link.start(5)).toBe(true);
    const policy = await RecordingClient.connect(url, 'vla', 'vla-secret1');
    const big = `{"v":1,"id":"big","pad":"${'x'.repeat(MAX_CHUNK_BYTES)}"}`;
    expect(await policy.publish(topicFor('arm5', 'chunk/request'), big, 5)).toBe('acked');
    await policy.publish(topicFor('arm5', 'chunk/request'), '{"v":1,"id":"small"}');
    const deadline = Date.now() + 5000;
    while (decoded.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(decoded).toEqual([20]); // only the small one reached the decoder
    expect(events).toContainEqual({
      kind: 'invalid-command',
      topic: topicFor('arm5', 'chunk/request'),
      error: `chunk request of ${big.length} bytes refused before decoding (limit ${MAX_CHUNK_BYTES} bytes)`,
    });
    await policy.end();
    await link.stop();
  }, 30_000);
});
