/**
 * Issue 14 item 3: a policy client floods a live `armguard run` session (emulated SO-101 over a pty,
 * the embedded broker in the network worker) with chunk requests while a second policy client sends
 * at an honest rate as another user. The network worker admits each user's requests through its own
 * token bucket before decoding them: the flood's requests above the rate are answered `rejected` /
 * `rate-limit` with a reason naming the limit, the user and the client, the honest policy meets no
 * limit, every request of both is answered exactly once, and the rejections are recorded in the
 * episode (counted per user).
 */
import { afterEach, describe, expect, it } from 'vitest';
import mqtt from 'mqtt';
import type { ChunkResultMessage } from '../../src/gate/chunk.js';
import { topicFor } from '../../src/telemetry/topics.js';
import { systemClock } from '../../src/platform/system-clock.js';
import { episodeGateRecords, startEmulatedSession, waitUntil } from '../support/run-session.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

const FLOOD = 300;
const HONEST = 15;
const RATE = 40;

describe('a chunk request flood above the rate limit, next to an honest policy', () => {
  it('answers the flood above its rate rate-limit (named), leaves the honest client alone, answers every request once and records the rejections', async () => {
    const { s, log } = await startEmulatedSession({ chunkRate: { ratePerS: RATE, burst: 8 } });
    cleanups.push(() => s.stop('test cleanup'));
    expect(log.join('\n')).toMatch(/chunk requests above 40\/s \(burst 8\) per user answered rate-limit/);
    const connect = (username: string, clientId: string) =>
      mqtt.connectAsync(s.brokerUrl!, { username, password: `${username}-secret`, clientId });
    const flooder = await connect('vla', `flood-${process.pid}`);
    let flooderClosed = 0;
    flooder.on('close', () => flooderClosed++);
    cleanups.push(() => flooder.endAsync(true));
    const honest = await connect('policy', `honest-${process.pid}`);
    cleanups.push(() => honest.endAsync(true));
    const answers: ChunkResultMessage[] = [];
    honest.on('message', (topic, payload) => {
      if (topic === topicFor('arm9', 'chunk/result'))
        answers.push(JSON.parse(payload.toString()) as ChunkResultMessage);
    });
    await honest.subscribeAsync(topicFor('arm9', 'chunk/result'), { qos: 1 });

    const targets = Array.from({ length: 10 }, () => [0, 0, 0, 0, 0, 0]);
    const request = (id: string) =>
      JSON.stringify({ v: 1, id, stamp: systemClock.now(), horizon: 10, joints: 6, dt: 0.02, targets });
    const flood = Array.from({ length: FLOOD }, (_, i) =>
      flooder.publishAsync(topicFor('arm9', 'chunk/request'), request(`f${i}`), { qos: 1 }),
    );
    // The honest policy at 10 Hz, meanwhile.
    for (let i = 0; i < HONEST; i++) {
      await honest.publishAsync(topicFor('arm9', 'chunk/request'), request(`h${i}`), { qos: 1 });
      await new Promise((r) => setTimeout(r, 100));
    }
    await Promise.all(flood);
    await waitUntil(() => answers.length >= FLOOD + HONEST, 20, `answers to all ${FLOOD + HONEST} chunk requests`);
    await new Promise((r) => setTimeout(r, 300)); // nothing answered twice afterwards either

    const ids = answers.map((a) => a.id);
    expect(ids).toHaveLength(FLOOD + HONEST);
    expect(new Set(ids).size).toBe(FLOOD + HONEST);
    const limited = answers.filter((a) => a.code === 'rate-limit');
    expect(limited.length).toBeGreaterThan(0);
    for (const a of limited) {
      expect(a.id).toMatch(/^f\d+$/);
      expect(a).toMatchObject({
        verdict: 'rejected',
        reason: expect.stringMatching(
          new RegExp(
            `^more than ${RATE} chunk requests a second from user 'vla' \\(client 'flood-${process.pid}'\\) \\(burst 8; --max-chunk-rate\\)`,
          ),
        ),
      });
    }
    // Nobody was disconnected for it (neither the flooder nor armguard's own link), and the honest client never met the limit.
    expect(flooderClosed).toBe(0);
    expect(log.join('\n')).not.toMatch(/mqtt-link-lost/);
    expect(answers.filter((a) => a.id.startsWith('h') && a.code === 'rate-limit')).toEqual([]);

    // The episode records every rejection (per user, ids listed and the rest counted).
    const path = s.episodes.path!;
    await s.stop('test done');
    const records = (await episodeGateRecords(path)).flatMap((r) =>
      r.kind === 'event' && r.event === 'command-refused' && /rejected above the rate limit/.test(r.detail ?? '')
        ? [r.detail!]
        : [],
    );
    let counted = 0;
    for (const d of records) {
      const m = /^(\d+) chunk request\(s\) from user '([^']+)' rejected/.exec(d);
      expect(m?.[2]).toBe('vla');
      counted += Number(m![1]);
    }
    expect(counted).toBe(limited.length);
  }, 60_000);
});
