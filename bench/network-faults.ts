/**
 * Issue #14 items 1 and 3: what network input does to the control loop, and how fast a remote
 * e-stop holds the gate.
 *
 * A 100 Hz control loop on the main thread (timer-driven like ControlLoop; each step evaluates a
 * gate over 8 clauses and runs the telemetry's per-step check) is measured for jitter — the interval
 * between consecutive step starts minus the 10 ms period, ms — while
 *   - idle,
 *   - clients send 64 MB PUBLISHes after a valid login (raw socket on loopback, 1 MB writes), one
 *     after another (a new connection when the broker closes one) for the whole window,
 *   - a policy client publishes 2,000 chunk requests (H = 50, 6 joints, ~4 KB JSON each) at once,
 * in two architectures:
 *   - in-thread: the pre-#14 layout — aedes, armguard's MQTT link and the chunk JSON decoding on the
 *     control thread, broker packet limit effectively off (128 MB),
 *   - worker: `armguard run`'s layout now — broker (1 MB packet limit), link and decoding in the
 *     network worker thread (startTelemetry), commands posted to the control thread, chunk requests
 *     handed over one per control step (the newest waiting one; the others answered 'superseded').
 * Every chunk that reaches the control thread goes through the real chunk path: ChunkExecutor with
 * the SO-101's ChunkScreen and chunk-level CBF filter (capsule barrier, table plane and a sphere
 * next to the swept path), as `armguard run so101` does. Each window also reports the control
 * thread's own garbage collection (PerformanceObserver 'gc': pauses on this thread's heap).
 * The flooding clients run in a child process (bench/network-load.ts), so their own work does not
 * count against the control thread. Then the e-stop latency: a client (on the control thread, one
 * publish each) sends cmd/estop (QoS 1) → the gate enters hold on the control thread (n = 200).
 *
 * Each figure is printed with the machine's 1-minute load average when it was taken.
 *
 * The worker layout before chunk pacing is measured by running this file in a copy of that tree
 * (bench/RESULTS.md gives the commands).
 *
 *   npx tsx bench/network-faults.ts [floodSeconds=6] [layouts=in-thread,worker]
 */
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { performance, PerformanceObserver } from 'node:perf_hooks';
import mqtt from 'mqtt';
import {
  ArrayClauseMargins,
  CapsuleBarrier,
  ChunkCbfFilter,
  ChunkScreen,
  DEFAULT_CBF_TOLERANCE,
  DEFAULT_CBF_WEIGHTS,
  DEFAULT_GATE_CONFIG,
  Gate,
  interiorPointSolver,
  obstacleGroups,
} from '../src/gate/index.js';
import { CapsuleModel, SO101_CHAIN, SO101_FRAMES, SO101_MODEL } from '../src/kinematics/index.js';
import { describeCause } from '../src/gate/events.js';
import { ChunkExecutor } from '../src/runtime/chunk-executor.js';
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
  /** The telemetry's per-step work (the session calls it at the start of every step). */
  checkStep(now: number): void;
  chunks: ChunkCounter;
  stop(): Promise<void>;
}

interface ChunkCounter {
  /** Chunks evaluated on the control thread, and the time spent on them (ms). */
  n: number;
  ms: number;
  maxMs: number;
  verdicts: Map<string, number>;
}

/** The arm's joint state: where the flood's chunks start (bench/network-load.ts: pan 0 → 0.49 rad). */
const Q0 = [0, 0.1, 0.2, 0.3, 0.4, 0.5];

/** The SO-101 chunk path on this thread (ChunkExecutor: screen → gate → joint state → CBF filter → sink), timed. */
function chunkPath(gate: Gate, counter: ChunkCounter) {
  const qmin = SO101_CHAIN.joints.map((j) => j.lower!);
  const qmax = SO101_CHAIN.joints.map((j) => j.upper!);
  // A 3 cm sphere 4 cm below the tool at mid-sweep: the CBF modifies every chunk (by ≈ 3 cm), as
  // when a chunk reaches past a tracked object.
  const m = new CapsuleModel(SO101_MODEL);
  m.update([0.25, ...Q0.slice(1)]);
  const tcp = new Float64Array(3);
  m.fk.pointInBase(tcp, 0, SO101_FRAMES.tcp, 0, 0, 0);
  const obstacles = {
    planes: Float64Array.from([0, 0, 1, 0]),
    spheres: Float64Array.from([tcp[0]!, tcp[1]!, tcp[2]! - 0.04, 0.03]),
    box: null,
  };
  const filter = new ChunkCbfFilter(
    new CapsuleBarrier(new CapsuleModel(SO101_MODEL), obstacleGroups(obstacles), 0.01),
    interiorPointSolver,
    {
      ...DEFAULT_CBF_WEIGHTS,
      qmin,
      qmax,
      maxSpeed: new Array<number>(6).fill(2),
      maxRounds: 3,
      slackTolerance: 1e-6,
      cbfTolerance: DEFAULT_CBF_TOLERANCE,
      maxIterations: 40,
    },
  );
  const screen = new ChunkScreen({
    joints: 6,
    maxHorizon: 100,
    qmin,
    qmax,
    // The flood's requests wait in the broker and the worker for seconds: none is refused as stale, so
    // each one that reaches the control thread is filtered (the costliest case).
    maxAge: 3600,
    futureTolerance: 0.05,
    minDt: 0.005,
    maxDt: 0.2,
    idMemory: 1024,
    policyClock: true,
  });
  // Warmed up (compiled) on the flood's own chunk before anything is measured.
  const warm = new Float64Array(50 * 6);
  for (let k = 0; k < 50; k++) [0.01 * k, 0.1, 0.2, 0.3, 0.4, 0.5].forEach((x, j) => (warm[k * 6 + j] = x));
  for (let i = 0; i < 30; i++) filter.filter(warm, 50, Q0, 0.02);
  const executor = new ChunkExecutor({
    gate,
    screen,
    filter,
    sink: {
      name: 'bench arm',
      execute: () => undefined,
      hold: () => undefined,
      heartbeat: () => undefined,
      onFault: () => undefined,
    },
    joints: {
      joints: 6,
      readPositions: (out: Float64Array) => (out.set(Q0), clock.now()),
    },
    maxStateAge: 0.1,
  });
  return {
    submitChunk: (chunk: GateChunk, now: number): ExecutedChunk => {
      const t0 = performance.now();
      const r = executor.submit(chunk, now);
      const ms = performance.now() - t0;
      counter.ms += ms;
      counter.maxMs = Math.max(counter.maxMs, ms);
      counter.n++;
      counter.verdicts.set(r.code, (counter.verdicts.get(r.code) ?? 0) + 1);
      return r;
    },
  };
}

/**
 * The loop pauses between measurements (the load process starts): a gate with the default 0.5 s
 * step gap would hold on a clock jump there and answer every chunk 'held' unfiltered.
 */
const benchGate = () => new Gate({ ...DEFAULT_GATE_CONFIG, maxStepGap: 3600 });

const newCounter = (): ChunkCounter => ({ n: 0, ms: 0, maxMs: 0, verdicts: new Map() });

async function inThreadRig(): Promise<Rig> {
  const broker = new EmbeddedBroker(access, { limits: { maxPacketBytes: 128 << 20, maxConnectBytes: 128 << 20 } });
  const url = await broker.start();
  const gate = benchGate();
  const remote = new GateRemote(gate, clock, undefined);
  const counter = newCounter();
  const chunkTransport: { transport?: MqttChunkServerTransport } = {};
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
      chunk: (b) => chunkTransport.transport?.onChunkBytes(b),
    },
  );
  chunkTransport.transport = new MqttChunkServerTransport(link);
  new ChunkServer(chunkTransport.transport, chunkPath(gate, counter), clock, 6);
  remote.attach(link);
  await link.start(5);
  return {
    url,
    gate,
    remote,
    link,
    checkStep: (now) => remote.checkStep(now),
    chunks: counter,
    stop: async () => (await link.stop(), await broker.stop()),
  };
}

async function workerRig(): Promise<Rig> {
  const gate = benchGate();
  const counter = newCounter();
  const t = await startTelemetry({
    broker: { kind: 'embedded', port: 0, access },
    robotId: ROBOT,
    clock,
    gate,
    labels: { label: () => ({ ok: true }) },
  });
  new ChunkServer(t.chunks, chunkPath(gate, counter), clock, 6);
  return {
    url: t.url,
    gate,
    remote: t.remote,
    link: t.link,
    checkStep: (now) => t.hooks.checkStep(now),
    chunks: counter,
    stop: () => t.stop(),
  };
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
      rig.checkStep(now / 1000);
      rig.gate.evaluate(now / 1000, margins, null);
      if (finished || now - start > seconds * 1000) return resolve();
      setTimeout(tick, Math.max(0, last + period - performance.now()));
    };
    tick();
  });
  return late;
}

/** This thread's GC pauses (ms) since the last `take`. */
const gc = (() => {
  let pauses: number[] = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) pauses.push(e.duration);
  }).observe({ entryTypes: ['gc'] });
  return {
    take: () => {
      const p = pauses;
      pauses = [];
      return p;
    },
  };
})();

function stats(xs: number[], gcPauses?: number[]): string {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
  const g = gcPauses
    ? `; GC on this thread ${gcPauses.length} pauses, ${gcPauses.reduce((a, b) => a + b, 0).toFixed(1)} ms, max ${Math.max(0, ...gcPauses).toFixed(2)} ms`
    : '';
  // The machine is shared: the 1-minute load average at the end of each measurement goes with its figure.
  return `p50 ${q(0.5).toFixed(2)}  p99 ${q(0.99).toFixed(2)}  max ${s.at(-1)!.toFixed(2)} ms  (n = ${s.length}, load average ${loadavg()[0]!.toFixed(2)}${g})`;
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
    ['--import', 'tsx', new URL('./network-load.ts', import.meta.url).pathname, mode, url, ROBOT, String(floodSeconds)],
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

const layouts = {
  'in-thread': ['in-thread (pre-#14 layout)', inThreadRig],
  worker: ['worker (armguard run now)', workerRig],
} as const;
const chosen = (process.argv[3] ?? 'in-thread,worker').split(',') as (keyof typeof layouts)[];
for (const [name, make] of chosen.map((k) => layouts[k])) {
  const rig = await make();
  console.log(`\n${name}`);
  gc.take();
  console.log(`  idle                     ${stats(await controlLoop(rig, floodSeconds), gc.take())}`);
  const flooder = await load('flood64', rig.url);
  const flood = flooder.go();
  gc.take();
  const floodSteps = await controlLoop(rig, 2 * floodSeconds, flood);
  console.log(`  64 MB PUBLISH floods     ${stats(floodSteps, gc.take())}  [${await flood}]`);
  const chunker = await load('chunks', rig.url);
  const chunks = chunker.go().then((r) => {
    const c = rig.chunks;
    const verdicts = [...c.verdicts].map(([k, v]) => `${k} ${v}`).join(', ');
    return `${r}; ${c.n} evaluated on the control thread (${verdicts}), ${(c.ms / Math.max(1, c.n)).toFixed(2)} ms each on average, max ${c.maxMs.toFixed(2)} ms`;
  });
  gc.take();
  const chunkSteps = await controlLoop(rig, 60, chunks);
  console.log(`  2,000 chunk requests     ${stats(chunkSteps, gc.take())}  [${await chunks}]`);
  if (rig.gate.holding) console.log(`  (the gate held during the chunk flood: ${describeCause(rig.gate.holdCause!)})`);
  rig.gate.release(clock.now(), { by: 'bench', authorised: true });
  console.log(`  e-stop publish → hold    ${stats(await estopLatency(rig, 200))}`);
  await rig.stop();
}
process.exit(0);
