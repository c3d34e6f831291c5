/**
 * Issue #14 items 1 and 3: what network input does to the control loop, and how fast a remote
 * e-stop holds the gate.
 *
 * A 100 Hz control loop on the main thread (timer-driven like ControlLoop; each step evaluates a
 * gate over 8 clauses and runs GateRemote.checkStep) is measured for jitter — the interval between
 * consecutive step starts minus the 10 ms period, ms — while
 *   - idle,
 *   - a client sends a 64 MB PUBLISH after a valid login (raw socket on loopback, 1 MB writes),
 *   - a policy client publishes 2,000 chunk requests (H = 50, 6 joints, ~4 KB JSON each) at once,
 * in two architectures:
 *   - in-thread: the pre-#14 layout — aedes, armguard's MQTT link and the chunk JSON decoding on the
 *     control thread, broker packet limit effectively off (128 MB),
 *   - worker: `armguard run`'s layout now — broker (1 MB packet limit), link and decoding in the
 *     network worker thread (startTelemetry), commands posted to the control thread.
 * The flooding clients run in a child process (bench/network-load.ts), so their own work does not
 * count against the control thread. Then the e-stop latency: a client (on the control thread, one
 * publish each) sends cmd/estop (QoS 1) → the gate enters hold on the control thread (n = 200).
 *
 * Each figure is printed with the machine's 1-minute load average when it was taken.
 *
 *   npx tsx bench/network-faults.ts [floodSeconds=6]
 */
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import mqtt from 'mqtt';
import { ArrayClauseMargins, Gate } from '../src/gate/index.js';
import { ChunkServer } from '../src/runtime/index.js';
import { startTelemetry } from '../src/telemetry/run-telemetry.js';
import { EmbeddedBroker } from '../src/telemetry/embedded-broker.js';
import { GateRemote } from '../src/telemetry/gate-remote.js';
import { MqttChunkServerTransport } from '../src/telemetry/mqtt-chunk-transport.js';
import { MqttLink } from '../src/telemetry/mqtt-link.js';
import { topicFor } from '../src/telemetry/topics.js';
import type { ExecutedChunk, GateChunk } from '../src/gate/chunk.js';
import type { AccessConfig } from '../src/telemetry/access.js';
import type { TelemetryLink } from '../src/telemetry/mqtt-link.js';

const floodSeconds = Number(process.argv[2] ?? 6);
const clock = { now: () => performance.now() / 1000 };
const access: AccessConfig = {
  users: [
    { username: 'op', password: 'op-secret1', roles: ['operator'] },
    { username: 'vla', password: 'vla-secret1', roles: ['policy'] },
  ],
};
const ROBOT = 'bench';
const names = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];

interface Rig {
  url: string;
  gate: Gate;
  remote: GateRemote;
  link: TelemetryLink;
  chunksAnswered: () => number;
  stop(): Promise<void>;
}

function submitter(counter: { n: number }) {
  return {
    submitChunk: (chunk: GateChunk): ExecutedChunk => {
      counter.n++;
      return { id: chunk.id, verdict: 'held', code: 'gate-holding', reason: 'bench' } as ExecutedChunk;
    },
  };
}

async function inThreadRig(): Promise<Rig> {
  const broker = new EmbeddedBroker(access, { limits: { maxPacketBytes: 128 << 20, maxConnectBytes: 128 << 20 } });
  const url = await broker.start();
  const gate = new Gate();
  const remote = new GateRemote(gate, clock, undefined);
  const counter = { n: 0 };
  const chunkPath: { transport?: MqttChunkServerTransport } = {};
  const link = new MqttLink(
    {
      url,
      robot: ROBOT,
      clientId: `bench-in-${process.pid}`,
      maxChunkBytes: 128 << 20,
      username: broker.internal.armguard.username,
      password: broker.internal.armguard.password,
    },
    {
      estop: (c) => remote.estop(c),
      release: () => remote.release(),
      label: () => ({ ok: true }),
      chunk: (b) => chunkPath.transport?.onChunkBytes(b),
    },
  );
  chunkPath.transport = new MqttChunkServerTransport(link);
  new ChunkServer(chunkPath.transport, submitter(counter), clock, 6);
  remote.attach(link);
  await link.start(5);
  return {
    url,
    gate,
    remote,
    link,
    chunksAnswered: () => counter.n,
    stop: async () => (await link.stop(), await broker.stop()),
  };
}

async function workerRig(): Promise<Rig> {
  const gate = new Gate();
  const counter = { n: 0 };
  const t = await startTelemetry({
    broker: { kind: 'embedded', port: 0, access },
    robotId: ROBOT,
    clock,
    gate,
    labels: { label: () => ({ ok: true }) },
  });
  new ChunkServer(t.chunks, submitter(counter), clock, 6);
  return { url: t.url, gate, remote: t.remote, link: t.link, chunksAnswered: () => counter.n, stop: () => t.stop() };
}

/** Run the 100 Hz loop until `done` resolves (or `seconds` pass); returns each step's start interval minus the period (ms). */
async function controlLoop(rig: Rig, seconds: number, done?: Promise<unknown>): Promise<number[]> {
  const margins = new ArrayClauseMargins(names, 0.1);
  const period = 10;
  const late: number[] = [];
  const start = performance.now();
  let last = NaN;
  let finished = false;
  void done?.then(() => (finished = true));
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      if (last === last) late.push(now - last - period);
      last = now;
      for (let i = 0; i < names.length; i++) margins.setFinal(i, 0.5 + 0.3 * Math.sin(now / 1000 + i));
      rig.gate.evaluate(now / 1000, margins, null);
      rig.remote.checkStep(now / 1000);
      if (finished || now - start > seconds * 1000) return resolve();
      setTimeout(tick, Math.max(0, last + period - performance.now()));
    };
    tick();
  });
  return late;
}

function stats(xs: number[]): string {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
  // The machine is shared: the 1-minute load average at the end of each measurement goes with its figure.
  return `p50 ${q(0.5).toFixed(2)}  p99 ${q(0.99).toFixed(2)}  max ${s.at(-1)!.toFixed(2)} ms  (n = ${s.length}, load average ${loadavg()[0]!.toFixed(2)})`;
}

async function estopLatency(rig: Rig, n: number): Promise<number[]> {
  const client = await mqtt.connectAsync(rig.url, {
    username: 'op',
    password: 'op-secret1',
    clientId: `bench-op-${Math.random()}`,
  });
  const margins = new ArrayClauseMargins([]);
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = clock.now();
    rig.gate.evaluate(t, margins, null);
    const held = new Promise<number>((resolve) => {
      const off = rig.gate.onEvent((e) => {
        if (e.cause.kind === 'e-stop') {
          off();
          resolve(performance.now());
        }
      });
    });
    const t0 = performance.now();
    client.publish(topicFor(ROBOT, 'cmd/estop'), JSON.stringify({ v: 1, reason: 'bench', id: `e${i}` }), { qos: 1 });
    out.push((await held) - t0);
    rig.gate.resetEStop(clock.now(), { by: 'bench', pressedBy: 'mqtt (bench)', authorised: true });
    rig.gate.evaluate(clock.now(), margins, null);
    rig.gate.release(clock.now(), { by: 'bench', authorised: true });
    await new Promise((r) => setTimeout(r, 5));
  }
  await client.endAsync(true);
  return out;
}

/**
 * Start bench/network-load.ts in a child process and wait until it is ready (its start-up is not
 * measured); `go()` starts the load and resolves with its last output line when it is done.
 */
async function load(mode: 'flood64' | 'chunks', url: string): Promise<{ go: () => Promise<string> }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', new URL('./network-load.ts', import.meta.url).pathname, mode, url, ROBOT],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  let out = '';
  const exited = new Promise<string>((resolve) =>
    child.once('exit', () => resolve(out.trim().split('\n').at(-1) ?? '')),
  );
  await new Promise<void>((resolve) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('ready')) resolve();
    });
  });
  return { go: () => (child.stdin.write('go\n'), exited) };
}

for (const [name, make] of [
  ['in-thread (pre-#14 layout)', inThreadRig],
  ['worker (armguard run now)', workerRig],
] as const) {
  const rig = await make();
  console.log(`\n${name}`);
  console.log(`  idle                     ${stats(await controlLoop(rig, 3))}`);
  const flooder = await load('flood64', rig.url);
  const flood = flooder.go();
  console.log(`  64 MB PUBLISH flood      ${stats(await controlLoop(rig, floodSeconds, flood))}  [${await flood}]`);
  const chunker = await load('chunks', rig.url);
  const before = rig.chunksAnswered();
  const t0 = performance.now();
  const chunks = chunker.go().then(async (r) => {
    while (rig.chunksAnswered() - before < 2000 && performance.now() - t0 < 60_000)
      await new Promise((w) => setTimeout(w, 10));
    return `${r}; ${rig.chunksAnswered() - before} answered ${((performance.now() - t0) / 1000).toFixed(1)} s after the first was sent`;
  });
  console.log(`  2,000 chunk requests     ${stats(await controlLoop(rig, 60, chunks))}  [${await chunks}]`);
  console.log(`  e-stop publish → hold    ${stats(await estopLatency(rig, 200))}`);
  await rig.stop();
}
process.exit(0);
