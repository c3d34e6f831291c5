/**
 * MQTT against the embedded broker (aedes, MQTT 3.1.1) and a real Mosquitto (MQTT 5) started here:
 * telemetry flows, unauthorised release/label are refused, e-stop holds the gate within 50 ms of
 * publish, and a broker killed mid-episode neither stops the gate nor loses the link for good.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { performance } from 'node:perf_hooks';
import { Gate, ArrayClauseMargins } from '../../src/gate/index.js';
import type { Clock } from '../../src/util/clock.js';
import { EmbeddedBroker } from '../../src/telemetry/embedded-broker.js';
import { MqttLink } from '../../src/telemetry/mqtt-link.js';
import { GateRemote, type GateRemoteOptions } from '../../src/telemetry/gate-remote.js';
import { topicFor } from '../../src/telemetry/topics.js';
import type { AccessConfig } from '../../src/telemetry/access.js';
import type { LabelCommand } from '../../src/telemetry/payloads.js';
import { Mosquitto } from '../support/mosquitto.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EpisodeRecorder, NodeFileWritable, readEpisode } from '../../src/episode/index.js';
import { SignalFrame } from '../../src/schema/signals.js';
import { systemTimers } from '../../src/platform/system-clock.js';
import { RecordingClient } from '../support/mqtt-client.js';

const access: AccessConfig = {
  users: [
    { username: 'armguard', password: 'ag-secret', roles: ['armguard'] },
    { username: 'operator', password: 'op-secret', roles: ['operator'] },
    { username: 'viewer', password: 'view-secret', roles: ['viewer'] },
  ],
};
const realClock: Clock = { now: () => performance.now() / 1000 };

interface BrokerUnderTest {
  url: string;
  protocolVersion: 4 | 5;
  kill(): Promise<void>;
  restart(): Promise<void>;
  stop(): Promise<void>;
}

const brokers: [string, () => Promise<BrokerUnderTest>][] = [
  [
    'embedded aedes broker (MQTT 3.1.1)',
    async () => {
      let b = new EmbeddedBroker(access);
      const url = await b.start();
      const port = b.port;
      return {
        url,
        protocolVersion: 4,
        kill: () => b.stop(),
        restart: async () => {
          b = new EmbeddedBroker(access);
          await b.start(port);
        },
        stop: () => b.stop(),
      };
    },
  ],
  [
    'Mosquitto (MQTT 5)',
    async () => {
      const m = await Mosquitto.start(access);
      return { url: m.url, protocolVersion: 5, kill: () => m.kill(), restart: () => m.launch(), stop: () => m.stop() };
    },
  ],
];

// Each rig is a new armguard process: its own MQTT client id. The session is persistent (clean:
// false), so a shared id would inherit the commands a broker queued for an earlier test's session.
let rigCount = 0;
function rig(url: string, protocolVersion: 4 | 5, options: GateRemoteOptions = {}) {
  const gate = new Gate();
  const margins = new ArrayClauseMargins(['max_contact_force']);
  const labels: LabelCommand[] = [];
  const remote = new GateRemote(gate, realClock, { label: (cmd) => (labels.push(cmd), { ok: true }) }, options);
  const link = new MqttLink(
    {
      url,
      robot: 'arm1',
      clientId: `armguard-arm1-test${++rigCount}`,
      username: 'armguard',
      password: 'ag-secret',
      protocolVersion,
      reconnectSeconds: 0.1,
    },
    remote,
  );
  return { gate, margins, labels, remote, link };
}

describe.each(brokers)('MQTT telemetry and remote control: %s', (_name, makeBroker) => {
  let broker: BrokerUnderTest;
  beforeAll(async () => {
    broker = await makeBroker();
  });
  afterAll(async () => {
    await broker.stop();
  });

  it('telemetry flows: retained gate state and every margins message handed to the link reach a viewer', async () => {
    const { gate, margins, remote, link } = rig(broker.url, broker.protocolVersion);
    expect(await link.start()).toBe(true);
    remote.attach(link);
    gate.evaluate(0, margins, null);
    const viewer = await RecordingClient.connect(broker.url, 'viewer', 'view-secret', broker.protocolVersion);
    await viewer.subscribe('armguard/v1/#');
    await viewer.waitFor(
      (t, p) => t === topicFor('arm1', 'gate') && JSON.parse(p).state === 'armed',
      5,
      'retained gate state',
    );
    // The link does not decimate (the session does, before it builds the records: one throttle, issue 17):
    // 10 margins 1 ms apart → 10 messages.
    for (let i = 0; i < 10; i++) link.publishMargins(i / 1000, { max_contact_force: 0.5 }, { max_contact_force: 0.1 });
    await viewer.waitFor((t, p) => t === topicFor('arm1', 'margins') && JSON.parse(p).t === 0.009, 5, 'margins');
    const n = viewer.messages.filter((m) => m.topic === topicFor('arm1', 'margins')).length;
    expect(n).toBe(10);
    await viewer.end();
    await link.stop();
  });

  it('refuses release and label from a client without the operator role; the operator may', async () => {
    const { gate, margins, labels, remote, link } = rig(broker.url, broker.protocolVersion);
    await link.start();
    remote.attach(link);
    gate.evaluate(realClock.now(), margins, null);
    gate.eStop(realClock.now(), 'test');
    const viewer = await RecordingClient.connect(broker.url, 'viewer', 'view-secret', broker.protocolVersion);
    await viewer.publish(topicFor('arm1', 'cmd/release'), '{"v":1}');
    await viewer.publish(topicFor('arm1', 'cmd/label'), '{"v":1,"success":true}');
    const operator = await RecordingClient.connect(broker.url, 'operator', 'op-secret', broker.protocolVersion);
    await operator.subscribe(topicFor('arm1', 'gate'));
    // Ordering: the operator's own label arrives after the viewer's attempts were processed.
    await operator.publish(topicFor('arm1', 'cmd/label'), '{"v":1,"success":false,"note":"op"}');
    await new Promise<void>((resolve, reject) => {
      const t0 = Date.now();
      const poll = () =>
        labels.length > 0
          ? resolve()
          : Date.now() - t0 > 5000
            ? reject(new Error('operator label never arrived'))
            : setImmediate(poll);
      poll();
    });
    expect(labels).toEqual([{ v: 1, success: false, note: 'op' }]);
    expect(gate.state).toBe('hold');
    margins.setFinal(0, 1);
    // Two fresh samples: the first after a long pause is a clock jump, the second clears it.
    gate.evaluate(realClock.now(), margins, null);
    gate.evaluate(realClock.now(), margins, null);
    // The e-stop is latched: a release alone is refused; a viewer cannot reset it; the operator resets it naming who pressed it.
    await operator.subscribe(topicFor('arm1', 'events'));
    await operator.publish(topicFor('arm1', 'cmd/release'), '{"v":1}');
    await operator.waitFor(
      (t, p) =>
        t === topicFor('arm1', 'events') &&
        JSON.parse(p).kind === 'command-refused' &&
        /e-stop from test is latched/.test(JSON.parse(p).detail),
      5,
      'release refused while latched',
    );
    expect(gate.state).toBe('hold');
    await viewer.publish(topicFor('arm1', 'cmd/estop-reset'), '{"v":1,"pressedBy":"test"}');
    expect(gate.eStops.map((l) => l.by)).toEqual(['test']);
    await operator.publish(topicFor('arm1', 'cmd/estop-reset'), '{"v":1,"pressedBy":"test"}');
    await operator.waitFor(
      (t, p) => t === topicFor('arm1', 'gate') && JSON.parse(p).estop?.latched === false,
      5,
      'gate state: e-stop unlatched',
    );
    await operator.publish(topicFor('arm1', 'cmd/release'), '{"v":1}');
    await operator.waitFor(
      (t, p) => t === topicFor('arm1', 'gate') && JSON.parse(p).state === 'armed',
      5,
      'release to armed',
    );
    expect(gate.state).toBe('armed');
    await Promise.all([viewer.end(), operator.end(), link.stop()]);
  });

  it('an unauthenticated client cannot even connect, so cannot e-stop or release', async () => {
    await expect(RecordingClient.connect(broker.url, 'operator', 'wrong', broker.protocolVersion)).rejects.toThrow();
  });

  it('e-stop from an authenticated client holds the gate within 50 ms of publish', async () => {
    const { gate, margins, remote, link } = rig(broker.url, broker.protocolVersion);
    await link.start();
    remote.attach(link);
    gate.evaluate(realClock.now(), margins, null);
    const viewer = await RecordingClient.connect(broker.url, 'viewer', 'view-secret', broker.protocolVersion);
    const held = new Promise<number>((resolve) => gate.onEvent((e) => e.to === 'hold' && resolve(performance.now())));
    const t0 = performance.now();
    void viewer.publish(topicFor('arm1', 'cmd/estop'), '{"v":1,"reason":"hand in workspace"}');
    const latencyMs = (await held) - t0;
    expect(gate.state).toBe('hold');
    expect(gate.holdCause).toEqual({ kind: 'e-stop', by: 'mqtt (hand in workspace)' });
    expect(latencyMs).toBeLessThan(50);
    await Promise.all([viewer.end(), link.stop()]);
  });

  it('broker killed and restarted mid-episode (--on-link-loss warn): the gate keeps running, the loss is recorded, telemetry resumes, the episode file is complete', async () => {
    const faults: string[] = [];
    const { gate, margins, remote, link } = rig(broker.url, broker.protocolVersion, {
      onLinkLoss: 'warn',
      onFault: (f) => faults.push(f.kind),
    });
    await link.start();
    remote.attach(link);
    const dir = mkdtempSync(join(tmpdir(), 'armguard-mqtt-episode-'));
    const path = join(dir, 'ep.mcap');
    const recorder = EpisodeRecorder.start(
      await NodeFileWritable.create(path),
      { episodeId: 'ep1', robotId: 'arm1', startedAt: new Date(0).toISOString(), t0: 1 },
      { timers: systemTimers, flushInterval: 0.2 },
    );
    const frame = new SignalFrame();
    let t = 1;
    let steps = 0;
    const step = () => {
      t += 0.001;
      frame.t = t;
      frame.setByName('contact_force_max', 10 + (steps % 7), t, 'test');
      margins.setFinal(0, 0.5);
      gate.evaluate(t, margins, null);
      recorder.frame(frame);
      link.publishMargins(t * 100, { max_contact_force: 0.5 }, { max_contact_force: 0.1 });
      steps++;
    };
    for (let i = 0; i < 50; i++) step();
    await broker.kill();
    await new Promise<void>((resolve) => {
      const poll = () => (link.connected ? setTimeout(poll, 10) : resolve());
      poll();
    });
    for (let i = 0; i < 100; i++) step();
    expect(gate.holdCause).toBe(null);
    expect(faults).toEqual(['mqtt-link-lost']);
    expect(link.counters.dropped).toBeGreaterThan(0);
    await broker.restart();
    const viewer = await RecordingClient.connect(broker.url, 'viewer', 'view-secret', broker.protocolVersion);
    await viewer.subscribe(topicFor('arm1', 'margins'));
    await new Promise<void>((resolve, reject) => {
      const t0 = Date.now();
      const poll = () => {
        if (link.connected) return resolve();
        if (Date.now() - t0 > 10_000) return reject(new Error('link did not reconnect'));
        step();
        setTimeout(poll, 20);
      };
      poll();
    });
    link.publishMargins(1e6, { max_contact_force: 0.4 }, { max_contact_force: 0.1 });
    await viewer.waitFor(
      (tp, p) => tp === topicFor('arm1', 'margins') && JSON.parse(p).t === 1e6,
      5,
      'margins after restart',
    );
    expect(link.counters.reconnects).toBeGreaterThanOrEqual(1);
    for (let i = 0; i < 50; i++) step();
    await recorder.end(t + 0.001, 'test complete');
    let frames = 0;
    const scan = await readEpisode(path, (r) => void (r.kind === 'frame' && frames++), { kinds: ['frame'] });
    expect(scan.end.kind).toBe('complete');
    expect(frames).toBe(steps);
    expect(recorder.stats().dropped).toBe(0);
    await Promise.all([viewer.end(), link.stop()]);
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('a command subscription the broker refuses (embedded aedes broker, SUBACK 0x80)', () => {
  it('holds the gate, reports the refused topics and refuses an MQTT release: the remote e-stop would silently not work', async () => {
    // a user with no role may connect but not subscribe (AccessPolicy.canSubscribe)
    const broker = new EmbeddedBroker({
      users: [...access.users, { username: 'norole', password: 'nr-secret', roles: [] }],
    });
    const url = await broker.start();
    const gate = new Gate();
    const remote = new GateRemote(gate, realClock, undefined);
    const link = new MqttLink(
      {
        url,
        robot: 'arm1',
        username: 'norole',
        password: 'nr-secret',
        // not armguard-…: those client ids are reserved for the armguard role (refused at CONNECT)
        clientId: `norole-link-${process.pid}`,
        protocolVersion: 4,
        reconnectSeconds: 0.1,
      },
      remote,
    );
    remote.attach(link);
    const refused = new Promise<string[]>((resolve) =>
      link.onEvent((e) => e.kind === 'subscribe-refused' && resolve(e.topics)),
    );
    gate.evaluate(realClock.now(), new ArrayClauseMargins(['max_contact_force']), null);
    expect(gate.state).toBe('armed');
    expect(await link.start()).toBe(true);
    const topics = await refused;
    expect(topics).toEqual(
      expect.arrayContaining([
        topicFor('arm1', 'cmd/estop'),
        topicFor('arm1', 'cmd/heartbeat'),
        topicFor('arm1', 'chunk/request'),
      ]),
    );
    expect(gate.state).toBe('hold');
    // aedes also closes the connection of a refused subscriber: the first cause may be the lost link
    const cause = gate.holdCause;
    expect(cause?.kind).toBe('driver-fault');
    if (cause?.kind === 'driver-fault') expect(['subscribe-refused', 'mqtt-link-lost']).toContain(cause.fault.kind);
    const release = remote.release();
    expect(release.ok).toBe(false);
    if (!release.ok) expect(release.reason).toMatch(/release refused: broker refused .*cmd\/estop/);
    await link.stop();
    await broker.stop();
  });
});
