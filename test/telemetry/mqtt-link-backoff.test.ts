import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { EmbeddedBroker } from '../../src/telemetry/embedded-broker.js';
import { MqttLink, type LinkEvent } from '../../src/telemetry/mqtt-link.js';
import { ManualClock, ManualTimers, type TimerHandle, type Timers } from '../../src/util/clock.js';
import { waitUntil } from '../support/run-session.js';

/** A port nothing listens on (yet): connections to it are refused at once. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/** Fake timers that remember every delay asked for. */
class RecordingTimers implements Timers {
  readonly delays: number[] = [];
  readonly manual = new ManualTimers(new ManualClock());
  setTimeout(fn: () => void, seconds: number): TimerHandle {
    this.delays.push(seconds);
    return this.manual.setTimeout(fn, seconds);
  }
  setInterval(fn: () => void, seconds: number): TimerHandle {
    return this.manual.setInterval(fn, seconds);
  }
}

describe('MqttLink reconnect back-off (injected timers and randomness)', () => {
  let broker: EmbeddedBroker | undefined;
  let link: MqttLink | undefined;
  afterEach(async () => {
    await link?.stop();
    await broker?.stop();
  });

  it('doubles the delay per failed attempt up to the cap, spreads it by the jitter, and starts over after a connection', async () => {
    const port = await freePort();
    const timers = new RecordingTimers();
    const draws = [0, 1, 0.5, 0.25, 0.75, 0.5];
    let drawn = 0;
    const events: LinkEvent[] = [];
    link = new MqttLink(
      {
        url: `mqtt://127.0.0.1:${port}`,
        robot: 'b1',
        clientId: `armguard-b1-${process.pid}`,
        username: 'ag',
        password: 'a-secret1',
        reconnectSeconds: 0.1,
        maxReconnectSeconds: 0.8,
        reconnectJitter: 0.2,
        timers,
        random: () => draws[drawn++]!,
      },
      { estop: () => {}, release: () => ({ ok: true }), label: () => ({ ok: true }) },
    );
    link.onEvent((e) => events.push(e));
    void link.start(600);
    expect(timers.delays).toEqual([600]); // the start timeout, on the injected timers too

    // Hand-computed: base min(0.8, 0.1·2^k) × (1 + 0.2·(2u − 1)) for u = 0, 1, 0.5, 0.25, 0.75.
    const expected = [0.08, 0.24, 0.4, 0.72, 0.88];
    for (let k = 0; k < expected.length; k++) {
      await waitUntil(() => timers.delays.length === k + 2, 10, `reconnect ${k} scheduled`);
      expect(timers.delays[k + 1]).toBeCloseTo(expected[k]!, 12);
      const offline = events.filter((e) => e.kind === 'offline').length;
      await new Promise((r) => setTimeout(r, 150)); // real time passes: no attempt until the fake timer fires
      expect(events.filter((e) => e.kind === 'offline').length).toBe(offline);
      expect(timers.delays).toHaveLength(k + 2);
      if (k < expected.length - 1) timers.manual.advance(timers.delays[k + 1]!);
    }
    expect(events.filter((e) => e.kind === 'offline')[0]).toEqual({
      kind: 'offline',
      detail: expect.stringMatching(/ECONNREFUSED|connection to the broker lost/),
    });

    broker = new EmbeddedBroker({ users: [{ username: 'ag', password: 'a-secret1', roles: ['armguard'] }] });
    await broker.start(port);
    timers.manual.advance(timers.delays.at(-1)!);
    await waitUntil(() => events.some((e) => e.kind === 'subscribed'), 10, 'connected and subscribed');
    expect(link.counters.reconnects).toBe(0); // the first connection

    await broker.stop();
    broker = undefined;
    await waitUntil(() => timers.delays.length === expected.length + 2, 10, 'reconnect after the loss scheduled');
    expect(timers.delays.at(-1)).toBeCloseTo(0.1, 12); // back to the first delay (u = 0.5)
    expect(drawn).toBe(6);
  });
});
