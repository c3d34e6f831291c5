import { describe, expect, it } from 'vitest';
import { chunkToMessage } from '../../src/gate/index.js';
import { ChunkClient, ChunkServer, InProcessChunkChannel, parseResult } from '../../src/runtime/index.js';
import { ManualClock, ManualTimers } from '../../src/util/clock.js';
import { sweep } from '../gate/support/planar-arm.js';
import { chunkOf, Q0, rig } from './support/rig.js';

function setup() {
  const r = rig();
  const clock = new ManualClock(0);
  const timers = new ManualTimers(clock);
  const channel = new InProcessChunkChannel();
  new ChunkServer(channel.server, r.pipeline, clock, 2, (res, t) => r.events.chunkResult(res, t));
  const client = new ChunkClient(channel.client, timers, 0.5);
  r.source.live.set('max_joint_torque', 1);
  r.pipeline.step(0);
  return { r, clock, timers, client, channel };
}

describe('chunk client ↔ server over the in-process transport', () => {
  it('a safe chunk comes back executed with the targets sent to the arm', async () => {
    const { r, client } = setup();
    const msg = chunkToMessage(chunkOf('a1', 0, sweep(Q0, [-0.3, 0.5], 5), 0.05));
    const res = await client.propose(msg);
    expect(res).toMatchObject({ v: 1, id: 'a1', verdict: 'executed', code: 'ok', t: 0 });
    expect(res.targets).toEqual(msg.targets);
    expect(r.arm.executed).toHaveLength(1);
  });

  it('a chunk through the obstacle comes back filtered with slack and modification', async () => {
    const { r, client } = setup();
    const res = await client.propose(chunkToMessage(chunkOf('a2', 0, sweep(Q0, [1.5, 0.5], 20), 0.1)));
    expect(res.verdict).toBe('filtered');
    expect(res.slackUsed).toBeLessThanOrEqual(1e-6);
    expect(res.modification).toBeGreaterThan(0);
    expect(res.targets!.flat()).toEqual(Array.from(r.arm.executed[0]!.chunk.targets));
    // the reported smallest h is the executed chunk's, recomputed here on the nonlinear barrier
    const rows = res.targets!;
    const minH = Math.min(...rows.map((q) => Math.min(r.model.pairH(q, 0), r.model.pairH(q, 1))));
    expect(res.minH).toBeCloseTo(minH, 9);
    expect(res.minH).toBeGreaterThanOrEqual(0);
    expect(res.cbfViolation).toBeGreaterThanOrEqual(0);
    expect(res.cbfViolation).toBeLessThan(1e-3);
  });

  it('malformed payloads are rejected with the field named and answered with their id', async () => {
    const { r, client } = setup();
    const bad = await client.propose({
      id: 'b1',
      raw: JSON.stringify({ v: 1, id: 'b1', stamp: 0, horizon: 1, joints: 2, dt: 0.1, targets: [[0, 'x']] }),
    });
    expect(bad).toMatchObject({ verdict: 'rejected', code: 'malformed' });
    expect(bad.reason).toContain("'targets[0][1]'");
    const misSized = await client.propose({
      ...chunkToMessage(chunkOf('b2', 0, new Float64Array(6), 0.1)),
      joints: 3,
      horizon: 2,
      targets: [
        [0, 0, 0],
        [0, 0, 0],
      ],
    });
    expect(misSized).toMatchObject({ verdict: 'rejected', code: 'mis-sized' });
    expect(r.arm.executed).toHaveLength(0);
    expect(r.events.chunks.map((c) => c.result.verdict)).toEqual(['rejected', 'rejected']);
  });

  it('non-JSON gets an answer with an empty id, which the client reports as unmatched', async () => {
    const { client, channel } = setup();
    const answers: string[] = [];
    channel.client.onResponse((p) => answers.push(p));
    channel.client.send('not json');
    for (let i = 0; i < 5; i++) await Promise.resolve(); // request and answer each take one microtask hop
    expect(parseResult(answers[0]!)).toMatchObject({ id: '', verdict: 'rejected', code: 'malformed' });
    expect(client.unmatched).toHaveLength(1);
  });

  it('a proposal with no answer times out on the injected timers', async () => {
    const clock = new ManualClock(0);
    const timers = new ManualTimers(clock);
    const channel = new InProcessChunkChannel(); // no server attached
    const client = new ChunkClient(channel.client, timers, 0.5);
    const p = client.propose(chunkToMessage(chunkOf('t1', 0, new Float64Array(2), 0.1)));
    timers.advance(0.6);
    await expect(p).rejects.toThrow(/no answer for chunk 't1' within 0.5 s/);
  });

  it('parseResult refuses answers that are not result messages', () => {
    expect(parseResult('{"v":1,"id":"x","verdict":"maybe","code":"c","reason":"r","t":0}')).toBeUndefined();
    expect(
      parseResult('{"v":1,"id":"x","verdict":"held","code":"c","reason":"r","t":0,"targets":[["a"]]}'),
    ).toBeUndefined();
    expect(parseResult('{"v":1,"id":"x","verdict":"held","code":"c","reason":"r","t":0}')).toMatchObject({ id: 'x' });
  });
});
