/**
 * The chunk interface over MQTT: a Node policy client sends chunk JSON through the embedded broker,
 * armguard's ChunkServer answers on the result topic; only the policy role may send chunks. The
 * gate decision itself is tested in test/runtime; here the submitter is the real ChunkScreen (size,
 * NaN, order, duplicates) in front of an executor that accepts what the screen passes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { performance } from 'node:perf_hooks';
import { ChunkScreen } from '../../src/gate/chunk-screen.js';
import { describeRejection, type ExecutedChunk, type GateChunk } from '../../src/gate/chunk.js';
import { ChunkServer } from '../../src/runtime/chunk-server.js';
import { ChunkClient } from '../../src/runtime/chunk-client.js';
import { systemTimers } from '../../src/platform/system-clock.js';
import type { Clock } from '../../src/util/clock.js';
import { EmbeddedBroker } from '../../src/telemetry/embedded-broker.js';
import { MqttLink } from '../../src/telemetry/mqtt-link.js';
import { MqttChunkClientTransport, MqttChunkServerTransport } from '../../src/telemetry/mqtt-chunk-transport.js';

const clock: Clock = { now: () => performance.now() / 1000 };

describe('chunk interface over MQTT', () => {
  let broker: EmbeddedBroker;
  let link: MqttLink;
  let url: string;
  const submitted: string[] = [];

  beforeAll(async () => {
    broker = new EmbeddedBroker({
      users: [
        { username: 'armguard', password: 'ag', roles: ['armguard'] },
        { username: 'vla', password: 'vla-pass', roles: ['policy'] },
        { username: 'viewer', password: 'v', roles: ['viewer'] },
      ],
    });
    url = await broker.start();
    link = new MqttLink(
      { url, robot: 'arm1', username: 'armguard', password: 'ag' },
      {
        estop: () => undefined,
        release: () => ({ ok: true }),
        label: () => ({ ok: true }),
        chunk: (bytes) => server.onChunkBytes(bytes),
      },
    );
    // Referenced by the handler above only once messages flow, after this line.
    const server = new MqttChunkServerTransport(link);
    const screen = new ChunkScreen({
      joints: 2,
      maxHorizon: 50,
      qmin: [-3, -3],
      qmax: [3, 3],
      maxAge: 5,
      futureTolerance: 5,
      minDt: 0.001,
      maxDt: 1,
      idMemory: 64,
    });
    new ChunkServer(
      server,
      {
        submitChunk(chunk: GateChunk, now: number): ExecutedChunk {
          const r = screen.check(chunk, now);
          if (r) return { id: chunk.id, verdict: 'rejected', code: r.code, reason: describeRejection(r) };
          submitted.push(chunk.id);
          return { id: chunk.id, verdict: 'executed', code: 'ok', reason: 'checked', targets: chunk.targets };
        },
      },
      clock,
      2,
    );
    await link.start();
  });
  afterAll(async () => {
    await link.stop();
    await broker.stop();
  });

  it('a policy proposes chunks and receives the executed chunk or the rejection reason', async () => {
    const transport = await MqttChunkClientTransport.connect({
      url,
      robot: 'arm1',
      username: 'vla',
      password: 'vla-pass',
    });
    const client = new ChunkClient(transport, systemTimers, 5);
    const stamp = clock.now();
    const ok = await client.propose({
      v: 1,
      id: 'c1',
      stamp,
      horizon: 2,
      joints: 2,
      dt: 0.1,
      targets: [
        [0, 0.1],
        [0, 0.2],
      ],
    });
    expect(ok).toMatchObject({
      id: 'c1',
      verdict: 'executed',
      targets: [
        [0, 0.1],
        [0, 0.2],
      ],
    });
    const bad = await client.propose({
      v: 1,
      id: 'c2',
      stamp: stamp + 0.01,
      horizon: 2,
      joints: 2,
      dt: 0.1,
      targets: [[0, 0.1]],
    });
    expect(bad).toMatchObject({ id: 'c2', verdict: 'rejected', code: 'mis-sized' });
    const dup = await client.propose({
      v: 1,
      id: 'c1',
      stamp: stamp + 0.02,
      horizon: 1,
      joints: 2,
      dt: 0.1,
      targets: [[0, 0]],
    });
    expect(dup).toMatchObject({ id: 'c1', verdict: 'rejected', code: 'duplicate-id' });
    const junk = await client.propose({ id: '', raw: 'not json' });
    expect(junk).toMatchObject({ verdict: 'rejected', code: 'malformed' });
    expect(submitted).toEqual(['c1']);
    await transport.close();
  });

  it('a client without the policy role cannot send chunks', async () => {
    const transport = await MqttChunkClientTransport.connect({ url, robot: 'arm1', username: 'viewer', password: 'v' });
    const refused: string[] = [];
    broker.onRefused((r) => refused.push(r.reason));
    transport.send(
      JSON.stringify({ v: 1, id: 'x1', stamp: clock.now(), horizon: 1, joints: 2, dt: 0.1, targets: [[0, 0]] }),
    );
    await expect.poll(() => refused.length, { timeout: 5000 }).toBeGreaterThan(0);
    expect(refused[0]).toBe("chunk/request from user 'viewer': needs the policy role");
    expect(submitted).not.toContain('x1');
    await transport.close();
  });
});
