/**
 * Issue #14 item 1, injected for real: armguard's connection to the broker is cut (a TCP relay
 * resets it and refuses reconnects), a client publishes an e-stop meanwhile and gets its PUBACK,
 * then the path comes back. With armguard's persistent session the broker queued the e-stop and
 * the gate latches it; the lost command channel held the gate (default --on-link-loss hold) and
 * was reported as a fault. Against the embedded broker (aedes) and a real Mosquitto (MQTT 5).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { performance } from 'node:perf_hooks';
import { ArrayClauseMargins, Gate } from '../../src/gate/index.js';
import type { Fault } from '../../src/schema/fault.js';
import type { AccessConfig } from '../../src/telemetry/access.js';
import { EmbeddedBroker } from '../../src/telemetry/embedded-broker.js';
import { GateRemote } from '../../src/telemetry/gate-remote.js';
import { MqttLink } from '../../src/telemetry/mqtt-link.js';
import { topicFor } from '../../src/telemetry/topics.js';
import type { Clock } from '../../src/util/clock.js';
import { Mosquitto } from '../support/mosquitto.js';
import { RecordingClient } from '../support/mqtt-client.js';
import { TcpCut } from '../support/tcp-cut.js';

const access: AccessConfig = {
  users: [
    { username: 'armguard', password: 'ag-secret1', roles: ['armguard'] },
    { username: 'viewer', password: 'view-secret', roles: ['viewer'] },
    { username: 'alice', password: 'op-secret1', roles: ['operator'] },
  ],
};
const clock: Clock = { now: () => performance.now() / 1000 };

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

const brokers: [string, () => Promise<{ port: number; url: string; protocolVersion: 4 | 5 }>][] = [
  [
    'embedded aedes',
    async () => {
      const b = new EmbeddedBroker(access);
      const url = await b.start();
      cleanups.push(() => b.stop());
      return { port: b.port, url, protocolVersion: 4 };
    },
  ],
  [
    'Mosquitto',
    async () => {
      const m = await Mosquitto.start(access);
      cleanups.push(() => m.stop());
      return { port: m.port, url: m.url, protocolVersion: 5 };
    },
  ],
];

function until(pred: () => boolean, seconds: number, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const deadline = clock.now() + seconds;
    const check = () =>
      pred()
        ? resolve()
        : clock.now() > deadline
          ? reject(new Error(`timed out after ${seconds} s waiting for ${what}`))
          : setTimeout(check, 10);
    check();
  });
}

describe.each(brokers)('an e-stop sent while armguard reconnects is not lost (%s)', (_name, makeBroker) => {
  it('is queued by the broker for the persistent session and latched on reconnect; the outage held the gate and was reported', async () => {
    const broker = await makeBroker();
    const relay = await TcpCut.start(broker.port);
    cleanups.push(() => relay.stop());
    const gate = new Gate();
    const margins = new ArrayClauseMargins(['c'], 0.1);
    margins.setFinal(0, 1);
    const faults: Fault[] = [];
    const remote = new GateRemote(gate, clock, undefined, { onFault: (f) => faults.push(f) });
    const link = new MqttLink(
      {
        url: relay.url,
        robot: 'arm3',
        clientId: `armguard-arm3-${broker.protocolVersion}-${process.pid}`,
        username: 'armguard',
        password: 'ag-secret1',
        protocolVersion: broker.protocolVersion,
        reconnectSeconds: 0.2,
      },
      remote,
    );
    remote.attach(link);
    cleanups.push(() => link.stop());
    // the control loop: 100 Hz steps
    const loop = setInterval(() => {
      const t = clock.now();
      gate.evaluate(t, margins, null);
      remote.checkStep(t);
    }, 10);
    cleanups.push(async () => clearInterval(loop));
    expect(await link.start(5)).toBe(true);
    await until(
      () => gate.state === 'armed' && remote.commandChannelDown === null,
      5,
      'armed with the command channel up',
    );

    const sender = await RecordingClient.connect(broker.url, 'viewer', 'view-secret', broker.protocolVersion);
    cleanups.push(() => sender.end());

    await relay.cut();
    await until(() => gate.state === 'hold', 5, 'the hold on losing the command channel');
    expect(gate.holdCause).toMatchObject({ kind: 'driver-fault', fault: { kind: 'mqtt-link-lost', source: 'mqtt' } });
    expect(faults.map((f) => f.kind)).toEqual(['mqtt-link-lost']);
    // While the channel is down the fault is re-reported every step: release is refused.
    await new Promise((r) => setTimeout(r, 300));
    expect(gate.release(clock.now(), { by: 'op', authorised: true }).ok).toBe(false);

    expect(
      await sender.publish(
        topicFor('arm3', 'cmd/estop'),
        JSON.stringify({ v: 1, reason: 'hand in cell', id: 'press-42' }),
      ),
    ).toBe('acked');
    await new Promise((r) => setTimeout(r, 300));
    expect(gate.eStops).toEqual([]); // not delivered yet: armguard is cut off
    await relay.restore();

    await until(
      () => gate.eStops.some((l) => l.id === 'press-42'),
      10,
      'the queued e-stop to be latched after reconnect',
    );
    expect(gate.eStops[0]).toMatchObject({ by: 'mqtt (hand in cell)', id: 'press-42' });
    await until(() => remote.commandChannelDown === null, 5, 'the command channel back');
    // The link fault has stopped; after its quiet period the e-stop alone keeps the hold.
    await new Promise((r) => setTimeout(r, 1100));
    const refused = gate.release(clock.now(), { by: 'op', authorised: true });
    expect(!refused.ok && refused.reason).toMatch(/e-stop from mqtt \(hand in cell\) is latched/);
    expect(gate.resetEStop(clock.now(), { by: 'op', pressedBy: 'press-42', authorised: true })).toEqual({ ok: true });
    expect(gate.release(clock.now(), { by: 'op', authorised: true })).toEqual({ ok: true });
  }, 30_000);
});

describe('--on-link-loss warn', () => {
  it('records the lost command channel as a fault but does not hold', async () => {
    const broker = await brokers[0]![1]();
    const relay = await TcpCut.start(broker.port);
    cleanups.push(() => relay.stop());
    const gate = new Gate();
    const faults: Fault[] = [];
    const remote = new GateRemote(gate, clock, undefined, { onLinkLoss: 'warn', onFault: (f) => faults.push(f) });
    const link = new MqttLink(
      {
        url: relay.url,
        robot: 'arm4',
        clientId: `armguard-arm4-${process.pid}`,
        username: 'armguard',
        password: 'ag-secret1',
        reconnectSeconds: 0.2,
      },
      remote,
    );
    remote.attach(link);
    cleanups.push(() => link.stop());
    expect(await link.start(5)).toBe(true);
    gate.evaluate(clock.now(), new ArrayClauseMargins([]), null);
    await relay.cut();
    await until(() => faults.length > 0, 5, 'the link fault');
    for (let i = 0; i < 5; i++) remote.checkStep(clock.now());
    expect(faults[0]).toMatchObject({
      kind: 'mqtt-link-lost',
      detail: expect.stringMatching(/not holding \(--on-link-loss warn\)/),
    });
    expect(gate.state).toBe('armed');
  }, 30_000);
});
