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
 *   - a policy publishes one such request every 1/30 s (a VLA at its own rate, not a flood),
 * in two architectures:
 *   - in-thread: the pre-#14 layout — aedes, armguard's MQTT link and the chunk JSON decoding on the
 *     control thread, broker packet limit effectively off (128 MB),
 *   - worker: the layout before the filter worker — broker (1 MB packet limit), link and decoding in
 *     the network worker thread (startTelemetry), commands posted to the control thread, chunk
 *     requests handed over one per control step (the newest waiting one; the others answered
 *     'superseded'), each filtered ON the control thread,
 *   - filter-worker: `armguard run so101`'s layout now — as `worker`, and the chunk filter (the CBF
 *     and warning band built from the rig's recipe: calibration/so101-demo.yaml, task
 *     so101-pick-butter, the same sphere as below) runs in a second worker thread
 *     (WorkerChunkFilterService); the control thread takes a snapshot, and re-checks each answer
 *     exactly against the present state before it commits it (OffThreadChunkPath). Printed besides
 *     the jitter: the control thread's own time per chunk (submit: screen + snapshot + post; answer:
 *     re-check + commit), the filter time measured in the worker, and what became of the chunks
 *     (committed, refiltered, stale, superseded while one was being filtered, held, rejected).
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
 *   npx tsx bench/network-faults.ts [floodSeconds=6] [layouts=in-thread,worker,filter-worker] [trace|-] [windows=idle,flood64,chunks,chunks-idle-sender,policy30,estop,estop-flood,estop-flood-idle-sender]
 *   (BENCH_WORKER_NICE=<n> runs both worker threads at nice n instead of their defaults)
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
  newRecheck,
  obstacleGroups,
  recheckChunk,
  recheckScratch,
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
import { readdirSync, readFileSync } from 'node:fs';
import { parseSo101Calibration } from '../src/calibration/so101.js';
import { defaultSpecPaths, loadScoringSpec } from '../src/cli/spec-files.js';
import { so101ChunkFilter, so101Rig } from '../src/rigs/so101.js';
import { WorkerChunkFilterService } from '../src/rigs/filter-worker/worker-service.js';
import { OffThreadChunkPath } from '../src/runtime/off-thread-chunk-path.js';
import type { ChunkFilterService, FilterJob } from '../src/runtime/chunk-filter-service.js';
import type { ChunkSubmitter } from '../src/runtime/chunk-server.js';
import type { ChunkServerTransport } from '../src/runtime/chunk-transport.js';
import type { Worker } from 'node:worker_threads';
import { systemTimers } from '../src/platform/system-clock.js';
import { realtimeMainThread } from '../src/platform/thread-priority.js';

const floodSeconds = Number(process.argv[2] ?? 6);
/** BENCH_WORKER_NICE=<n>: both worker threads at this nice value instead of their defaults (0: as the control thread). */
const benchNice = process.env.BENCH_WORKER_NICE !== undefined ? Number(process.env.BENCH_WORKER_NICE) : undefined;
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
  /** More to say about the chunk flood (the filter worker's figures). */
  chunkDetail?: () => string;
  /** Start the figures behind chunkDetail again (the next window). */
  resetDetail?: () => void;
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

/** A 3 cm sphere 4 cm below the tool at mid-sweep: the CBF modifies every chunk (by ≈ 3 cm), as when a chunk reaches past a tracked object. */
function benchSphere(): number[] {
  const m = new CapsuleModel(SO101_MODEL);
  m.update([0.25, ...Q0.slice(1)]);
  const tcp = new Float64Array(3);
  m.fk.pointInBase(tcp, 0, SO101_FRAMES.tcp, 0, 0, 0);
  return [tcp[0]!, tcp[1]!, tcp[2]! - 0.04, 0.03];
}

function benchScreen(qmin: number[], qmax: number[]): ChunkScreen {
  return new ChunkScreen({
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
}

const benchArm = {
  name: 'bench arm',
  execute: () => undefined,
  hold: () => undefined,
  heartbeat: () => undefined,
  onFault: () => undefined,
};
const benchJoints = { joints: 6, readPositions: (out: Float64Array) => (out.set(Q0), clock.now()) };

/** The flood's own chunk (bench/network-load.ts), for warming up. */
function warmChunk(): Float64Array {
  const warm = new Float64Array(50 * 6);
  for (let k = 0; k < 50; k++) [0.01 * k, 0.1, 0.2, 0.3, 0.4, 0.5].forEach((x, j) => (warm[k * 6 + j] = x));
  return warm;
}

/** The SO-101 chunk path on this thread (ChunkExecutor: screen → gate → joint state → CBF filter → sink), timed. */
function chunkPath(gate: Gate, counter: ChunkCounter) {
  const qmin = SO101_CHAIN.joints.map((j) => j.lower!);
  const qmax = SO101_CHAIN.joints.map((j) => j.upper!);
  const obstacles = {
    planes: Float64Array.from([0, 0, 1, 0]),
    spheres: Float64Array.from(benchSphere()),
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
  const screen = benchScreen(qmin, qmax);
  // Warmed up (compiled) on the flood's own chunk before anything is measured.
  const warm = warmChunk();
  for (let i = 0; i < 30; i++) filter.filter(warm, 50, Q0, 0.02);
  const executor = new ChunkExecutor({
    gate,
    screen,
    filter,
    sink: benchArm,
    joints: benchJoints,
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

/**
 * The OS threads each worker added to this process (the worker, and its module loader's thread under
 * tsx), found by the thread ids that appeared while it started: their CPU is the worker's.
 */
const workerThreads = { network: new Set<number>(), filter: new Set<number>() };
async function recordThreads<T>(into: Set<number>, start: () => Promise<T>): Promise<T> {
  const before = new Set(threadTimes().keys());
  const r = await start();
  for (const tid of threadTimes().keys()) if (!before.has(tid)) into.add(tid);
  return r;
}

/** The network worker's telemetry (embedded broker, access file, accept-all labels) on `gate`. */
function workerTelemetry(gate: Gate) {
  return recordThreads(workerThreads.network, () =>
    startTelemetry({
      ...(benchNice !== undefined ? { networkWorkerNice: benchNice } : {}),
      broker: { kind: 'embedded', port: 0, access },
      robotId: ROBOT,
      clock,
      gate,
      labels: { label: () => ({ ok: true }) },
    }),
  );
}

/**
 * The network worker's chunk channel, each hand-over timed on the control thread (decode check,
 * screen, snapshot, post to the filter) and every message from the network worker counted (trace).
 */
function tracedTransport(t: Awaited<ReturnType<typeof workerTelemetry>>): ChunkServerTransport {
  if (!tracing) return t.chunks;
  const worker = (t.link as unknown as { worker?: Worker }).worker;
  worker?.on('message', () => traceOn('message', performance.now(), 0));
  networkWorkerElu = () => worker?.performance.eventLoopUtilization().active ?? 0;
  return {
    onRequest: () => undefined,
    onDecodedRequest: (h) =>
      t.chunks.onDecodedRequest((r) => {
        const t0 = performance.now();
        h(r);
        traceOn('delivery', t0, performance.now() - t0);
      }),
    respond: (p) => t.chunks.respond(p),
  };
}
let networkWorkerElu = (): number => 0;
let filterWorkerElu = (): number => 0;

async function workerRig(): Promise<Rig> {
  const gate = benchGate();
  const counter = newCounter();
  const t = await workerTelemetry(gate);
  new ChunkServer(tracedTransport(t), chunkPath(gate, counter), clock, 6);
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

/** p50 / p99 / max of a list of ms. */
function quantiles(xs: number[]): string {
  if (xs.length === 0) return 'none';
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
  return `p50 ${q(0.5).toFixed(2)}  p99 ${q(0.99).toFixed(2)}  max ${s.at(-1)!.toFixed(2)} ms (n = ${s.length})`;
}

/**
 * `armguard run so101`'s chunk path now: the filter (CBF + warning band from the rig's recipe) in a
 * worker thread, the re-check and commit on this thread (OffThreadChunkPath), timed on both sides.
 */
async function offThreadChunkPath(gate: Gate, counter: ChunkCounter) {
  const calPath = new URL('../calibration/so101-demo.yaml', import.meta.url).pathname;
  const cal = parseSo101Calibration(readFileSync(calPath, 'utf8'), calPath);
  const spec = loadScoringSpec(defaultSpecPaths());
  if (!cal.ok || !spec.ok) throw new Error('the demo calibration or the spec does not parse');
  const { recipe } = so101Rig({
    spec: spec.spec,
    calibration: cal.value,
    task: 'so101-pick-butter',
    arm: { ...benchArm, ...benchJoints, poll: () => undefined },
    clock,
    obstacles: benchSphere(),
  });
  const built = so101ChunkFilter(recipe);
  const worker = new WorkerChunkFilterService({
    recipe,
    timers: systemTimers,
    ...(benchNice !== undefined ? { nice: benchNice } : {}),
  });
  await recordThreads(workerThreads.filter, () => worker.start());
  filterWorkerElu = () =>
    (worker as unknown as { worker?: Worker }).worker?.performance.eventLoopUtilization().active ?? 0;
  // Warmed up (compiled) in the worker on the flood's own chunk before anything is measured.
  const warm = warmChunk();
  for (let i = 0; i < 30; i++) {
    const job: FilterJob = {
      seq: -1 - i,
      targets: warm,
      horizon: 50,
      joints: 6,
      dt: 0.02,
      q0: Float64Array.from(Q0),
      stateTime: 0,
      spheres: new Float64Array(0),
      band: { gripping: false, heldHeight: NaN, supported: false },
      previousCommitted: true,
    };
    await new Promise((resolve) => worker.filter(job, resolve));
  }
  // ... and the re-check on this thread (the control thread's copy of the barrier), as the in-thread filter is.
  const scratch = recheckScratch(built.recheck.barrier);
  const check = newRecheck();
  const bounds = {
    qmin: built.recheck.qmin,
    qmax: built.recheck.qmax,
    dq: built.recheck.maxSpeed.map((v) => v * 0.02),
    hFloor: -built.recheck.planningMargin,
    decay: 1 - built.recheck.gamma,
  };
  for (let i = 0; i < 30; i++)
    recheckChunk(built.recheck.barrier, warm, 50, Float64Array.from(Q0), bounds, scratch, check);
  const filterMs: number[] = [];
  const submitMs: number[] = [];
  const answerMs: number[] = [];
  // The answer's control-thread time: the re-check and commit (and the next chunk's snapshot, when one waited).
  const service: ChunkFilterService = {
    mode: 'worker',
    get fault() {
      return worker.fault;
    },
    filter: (job, done) =>
      worker.filter(job, (a) => {
        const t0 = performance.now();
        done(a);
        const ms = performance.now() - t0;
        answerMs.push(ms);
        traceOn('answer', t0, ms);
      }),
    close: () => worker.close(),
  };
  const bandStage = built.band && built.band.clauses.length > 0 ? built.band.stage.band : undefined;
  const path = new OffThreadChunkPath({
    gate,
    screen: benchScreen(built.recheck.qmin.slice(), built.recheck.qmax.slice()),
    sink: benchArm,
    joints: benchJoints,
    maxStateAge: 0.1,
    service,
    clock,
    recheck: built.recheck,
    onFilterTime: (ms) => filterMs.push(ms),
    ...(bandStage
      ? { band: { band: bandStage, state: () => ({ gripping: false, heldHeight: NaN, supported: false }) } }
      : {}),
  });
  const submitter: ChunkSubmitter = {
    submitChunk: (chunk, now) => path.submit(chunk, now),
    submitChunkAsync: (chunk, now, done) => {
      const t0 = performance.now();
      path.submitAsync(chunk, now, (r, t) => {
        counter.n++;
        counter.verdicts.set(r.code, (counter.verdicts.get(r.code) ?? 0) + 1);
        done(r, t);
      });
      submitMs.push(performance.now() - t0);
    },
  };
  const detail = () => {
    const st = path.stats;
    const ctl = [...submitMs, ...answerMs];
    counter.ms = ctl.reduce((a, b) => a + b, 0);
    counter.maxMs = Math.max(0, ...ctl);
    return (
      `\n    control thread per chunk: submit (screen, snapshot, post) ${quantiles(submitMs)}; answer (re-check, commit) ${quantiles(answerMs)}` +
      `\n    filter in the worker: ${quantiles(filterMs)}` +
      `\n    chunks given to the path ${st.submitted}: committed ${st.committed}, refiltered ${st.refiltered}, stale ${st.stale}, superseded while one was filtered ${st.superseded}, held ${st.held}, rejected ${st.rejected}, worker faults ${st.faults}`
    );
  };
  const reset = () => {
    for (const xs of [filterMs, submitMs, answerMs]) xs.length = 0;
    for (const k of Object.keys(path.stats) as (keyof typeof path.stats)[]) path.stats[k] = 0;
  };
  return { path, submitter, detail, reset, close: () => worker.close() };
}

async function filterWorkerRig(): Promise<Rig> {
  const gate = benchGate();
  const counter = newCounter();
  const t = await workerTelemetry(gate);
  const chunks = await offThreadChunkPath(gate, counter);
  new ChunkServer(tracedTransport(t), chunks.submitter, clock, 6);
  return {
    url: t.url,
    gate,
    remote: t.remote,
    link: t.link,
    checkStep: (now) => (chunks.path.step(now), t.hooks.checkStep(now)),
    chunks: counter,
    chunkDetail: chunks.detail,
    resetDetail: chunks.reset,
    stop: async () => (await chunks.close(), await t.stop()),
  };
}

/** The last window's per-step trace (tracing only). */
let lastTrace: StepTrace[] = [];

/** Run the 100 Hz loop until `done` resolves (or `seconds` pass); returns each step's start interval minus the period (ms). */
async function controlLoop(rig: Rig, seconds: number, done?: Promise<unknown>): Promise<number[]> {
  const margins = new ArrayClauseMargins(names, 0.1);
  const period = 10;
  const late: number[] = [];
  lastTrace = [];
  const start = performance.now();
  let last = NaN;
  let finished = false;
  void done?.then(() => (finished = true));
  let elu = performance.eventLoopUtilization();
  let [runNs, waitNs] = schedstat(process.pid);
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      let step: StepTrace | undefined;
      if (tracing) {
        const e = performance.eventLoopUtilization();
        const [r, w] = schedstat(process.pid);
        step = {
          start: now,
          late: last === last ? now - last - period : 0,
          own: 0,
          active: e.active - elu.active,
          wait: (w - waitNs) / 1e6,
          run: (r - runNs) / 1e6,
        };
        waitNs = w;
        runNs = r;
        lastTrace.push(step);
      }
      if (last === last) late.push(now - last - period);
      last = now;
      for (let i = 0; i < names.length; i++) margins.setFinal(i, 0.5 + 0.3 * Math.sin(now / 1000 + i));
      rig.checkStep(now / 1000);
      rig.gate.evaluate(now / 1000, margins, null);
      if (step) {
        step.own = performance.now() - now;
        elu = performance.eventLoopUtilization();
      }
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

/**
 * `trace` (4th argument): where the control thread's late steps come from. Per step: how late it
 * started, how long the control thread ran callbacks (message-port handlers: chunk hand-overs,
 * filter answers, telemetry) between the previous step and this one (event-loop utilisation), how
 * long the OS kept the thread runnable but not running (/proc/self/task/<pid>/schedstat, the
 * run-queue wait), GC pauses, and how many chunk hand-overs and filter answers it handled. Per
 * window: CPU and run-queue wait of every thread of the process (schedstat) and of the load process.
 */
const tracing = process.argv[4] === 'trace';
interface TraceEvent {
  t: number;
  kind: 'delivery' | 'answer' | 'gc' | 'message';
  ms: number;
}
const traceEvents: TraceEvent[] = [];
const traceOn = (kind: TraceEvent['kind'], t: number, ms: number) => {
  if (tracing) traceEvents.push({ t, kind, ms });
};
if (tracing)
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) traceEvents.push({ t: e.startTime, kind: 'gc', ms: e.duration });
  }).observe({ entryTypes: ['gc'] });

/** Run and run-queue wait (ns) of a thread of this process (or of another process's main thread). */
function schedstat(tid: number, pid = process.pid): [run: number, wait: number] {
  try {
    const f = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ');
    return [Number(f[0]), Number(f[1])];
  } catch {
    return [0, 0];
  }
}
function threadTimes(pid = process.pid): Map<number, [number, number]> {
  const out = new Map<number, [number, number]>();
  try {
    for (const t of readdirSync(`/proc/${pid}/task`)) out.set(Number(t), schedstat(Number(t), pid));
  } catch {
    // gone
  }
  return out;
}
function threadReport(
  before: Map<number, [number, number]>,
  after: Map<number, [number, number]>,
  label: (tid: number) => string,
): string {
  const rows: [string, number, number][] = [];
  for (const [tid, [r1, w1]] of after) {
    const [r0, w0] = before.get(tid) ?? [0, 0];
    if (r1 - r0 > 5e6) rows.push([label(tid), (r1 - r0) / 1e6, (w1 - w0) / 1e6]);
  }
  rows.sort((a, b) => b[1] - a[1]);
  return rows.map(([l, r, w]) => `${l} cpu ${r.toFixed(0)} ms, waited for a core ${w.toFixed(0)} ms`).join('; ');
}

interface StepTrace {
  start: number;
  late: number;
  /** The step's own work (ms). */
  own: number;
  /** Control-thread event-loop active time since the previous step's end (ms): callbacks. */
  active: number;
  /** Run-queue wait of the control thread since the previous step's start (ms). */
  wait: number;
  /** CPU time of the control thread since the previous step's start (ms). */
  run: number;
}

function traceSummary(steps: StepTrace[], limit: number): string {
  const between = (a: number, b: number, kind: TraceEvent['kind']) =>
    traceEvents.filter((e) => e.kind === kind && e.t >= a && e.t < b);
  const rows = steps.slice(1).map((s, i) => {
    const prev = steps[i]!;
    const d = between(prev.start, s.start, 'delivery');
    const a = between(prev.start, s.start, 'answer');
    const g = between(prev.start, s.start, 'gc');
    const m = between(prev.start, s.start, 'message');
    return {
      late: s.late,
      own: prev.own,
      active: s.active,
      wait: s.wait,
      run: s.run,
      gc: g.reduce((x, e) => x + e.ms, 0),
      deliveries: d.length,
      deliveryMs: d.reduce((x, e) => x + e.ms, 0),
      answers: a.length,
      answerMs: a.reduce((x, e) => x + e.ms, 0),
      messages: m.length,
    };
  });
  const group = (name: string, rs: typeof rows) => {
    if (rs.length === 0) return `    ${name}: none`;
    const mean = (f: (r: (typeof rows)[number]) => number) => (rs.reduce((x, r) => x + f(r), 0) / rs.length).toFixed(2);
    return (
      `    ${name} (n = ${rs.length}): mean late ${mean((r) => r.late)} ms; previous step's own work ${mean((r) => r.own)} ms; ` +
      `callbacks on the control thread ${mean((r) => r.active)} ms (chunk hand-overs ${mean((r) => r.deliveries)}/step, ${mean((r) => r.deliveryMs)} ms; ` +
      `filter answers ${mean((r) => r.answers)}/step, ${mean((r) => r.answerMs)} ms; messages from the network worker ${mean((r) => r.messages)}/step); ` +
      `GC ${mean((r) => r.gc)} ms; waited for a core ${mean((r) => r.wait)} ms; ran ${mean((r) => r.run)} ms`
    );
  };
  const late = rows.filter((r) => r.late > limit);
  // Late by more than the thread waited for a core and ran beyond a normal step's ~1 ms: it was
  // neither running nor runnable — blocked (in a message port's receive: bench/message-port-wait.mjs).
  const blocked = late.filter((r) => r.late - r.wait - Math.max(0, r.run - 1) > limit);
  const worst = [...rows].sort((a, b) => b.late - a.late).slice(0, 5);
  return [
    group(`steps late > ${limit} ms`, late),
    group(`of them late by more than their wait for a core and their run (blocked)`, blocked),
    group(
      `steps on time`,
      rows.filter((r) => r.late <= limit),
    ),
    ...worst.map(
      (r) =>
        `    late ${r.late.toFixed(2)} ms: own ${r.own.toFixed(2)}, callbacks ${r.active.toFixed(2)} (${r.deliveries} hand-overs ${r.deliveryMs.toFixed(2)} ms, ${r.answers} answers ${r.answerMs.toFixed(2)} ms, ${r.messages} messages), GC ${r.gc.toFixed(2)}, waited for a core ${r.wait.toFixed(2)} ms, ran ${r.run.toFixed(2)} ms (the rest of the interval: asleep or blocked)`,
    ),
  ].join('\n');
}

function stats(xs: number[], gcPauses?: number[]): string {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
  const g = gcPauses
    ? `; GC on this thread ${gcPauses.length} pauses, ${gcPauses.reduce((a, b) => a + b, 0).toFixed(1)} ms, max ${Math.max(0, ...gcPauses).toFixed(2)} ms`
    : '';
  // The machine is shared: the 1-minute load average at the end of each measurement goes with its figure.
  return `p50 ${q(0.5).toFixed(2)}  p99 ${q(0.99).toFixed(2)}  max ${s.at(-1)!.toFixed(2)} ms  (n = ${s.length}, load average ${loadavg()[0]!.toFixed(2)}${g})`;
}

/** `n` e-stops one after another (each held, then reset and released); with `until`, only while it is pending. */
async function estopLatency(rig: Rig, n: number, until?: Promise<unknown>): Promise<number[]> {
  const client = await mqtt.connectAsync(rig.url, {
    username: 'op',
    password: 'op-secret1',
    clientId: `bench-op-${Math.random()}`,
  });
  let over = false;
  void until?.then(() => (over = true));
  const margins = new ArrayClauseMargins([]);
  const out: number[] = [];
  for (let i = 0; i < n && !over; i++) {
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
 * measured); `go()` starts the load and resolves with its result line when the load is done — the
 * child then waits, and exits only at `end()`, after the window (its exit is not measured either).
 */
async function load(
  mode: 'flood64' | 'chunks' | 'policy30',
  url: string,
  idleSender = false,
): Promise<{
  go: () => Promise<string>;
  acked: Promise<void>;
  end: () => Promise<void>;
  kill: () => Promise<void>;
  pid: number;
}> {
  const args = ['--import', 'tsx', new URL('./network-load.ts', import.meta.url).pathname, mode, url, ROBOT];
  // idleSender: the sending process at SCHED_IDLE (`chrt -i 0`, inherited by its threads): it runs only
  // on CPU nobody else wants, as a sender on another host would take none of armguard's cores.
  const child = idleSender
    ? spawn('chrt', ['-i', '0', process.execPath, ...args, String(floodSeconds)], {
        stdio: ['pipe', 'pipe', 'inherit'],
      })
    : spawn(process.execPath, [...args, String(floodSeconds)], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  let ready: () => void = () => undefined;
  let result: (line: string) => void = () => undefined;
  let allAcked: () => void = () => undefined;
  const acked = new Promise<void>((r) => (allAcked = r));
  const isReady = new Promise<void>((r) => (ready = r));
  const resultLine = new Promise<string>((r) => (result = r));
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      result(out.trim().split('\n').at(-1) ?? '');
      resolve();
    }),
  );
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    const lines = out.split('\n');
    if (lines.includes('ready')) ready();
    if (lines.includes('acked')) allAcked();
    // the first line after "ready" (other than "acked"), once complete
    const after = lines.slice(lines.indexOf('ready') + 1, -1).filter((l) => l !== 'acked');
    if (lines.includes('ready') && after.length > 0) result(after[0]!);
  });
  await isReady;
  return {
    go: () => (child.stdin.write('go\n'), resultLine),
    /** The chunk flood's requests were all acknowledged (chunks mode). */
    acked,
    end: () => (child.stdin.write('exit\n'), exited),
    /** Stop it before its result (it is still waiting for answers). */
    kill: () => (child.kill(), exited),
    pid: child.pid!,
  };
}

/**
 * CPU of the control thread and of each worker over a window (schedstat, every run — not only with
 * trace): what the 2,000 requests cost each thread, per request.
 */
function cpuWindow(requests: number): { end(): string } {
  const before = threadTimes();
  return {
    end: () => {
      const after = threadTimes();
      const cpu = (tids: Iterable<number>) => {
        let ms = 0;
        for (const tid of tids) ms += ((after.get(tid)?.[0] ?? 0) - (before.get(tid)?.[0] ?? 0)) / 1e6;
        return ms;
      };
      const net = cpu(workerThreads.network);
      const others = [...after.keys()].filter(
        (t) => t !== process.pid && !workerThreads.network.has(t) && !workerThreads.filter.has(t),
      );
      return (
        `    CPU in the window: network worker ${net.toFixed(0)} ms (${((net * 1000) / requests).toFixed(0)} µs per request), ` +
        `filter worker ${cpu(workerThreads.filter).toFixed(0)} ms, control thread ${cpu([process.pid]).toFixed(0)} ms, ` +
        `V8 and libuv helper threads ${cpu(others).toFixed(0)} ms`
      );
    },
  };
}

/** Per-thread CPU over a window, and the late steps' breakdown (tracing). */
function traceWindow(loadPid: number): { end(): string } {
  const before = threadTimes();
  const loadBefore = threadTimes(loadPid);
  const net0 = networkWorkerElu();
  const filt0 = filterWorkerElu();
  traceEvents.length = 0;
  return {
    end: () => {
      const after = threadTimes();
      const label = (tid: number) => (tid === process.pid ? 'control thread' : `thread ${tid}`);
      return (
        `    threads of this process: ${threadReport(before, after, label)}\n` +
        `    event loops busy: network worker ${(networkWorkerElu() - net0).toFixed(0)} ms, filter worker ${(filterWorkerElu() - filt0).toFixed(0)} ms\n` +
        `    load process: ${threadReport(loadBefore, threadTimes(loadPid), (tid) => (tid === loadPid ? 'main' : `thread ${tid}`))}\n` +
        traceSummary(lastTrace, 2)
      );
    },
  };
}

const layouts = {
  'in-thread': ['in-thread (pre-#14 layout)', inThreadRig],
  worker: ['worker (network worker; chunks filtered on the control thread)', workerRig],
  'filter-worker': ['filter-worker (armguard run so101 now: network worker + chunk filter worker)', filterWorkerRig],
} as const;
const chosen = (process.argv[3] ?? 'in-thread,worker,filter-worker').split(',') as (keyof typeof layouts)[];
/** 5th argument: the windows to run (default all): idle,flood64,chunks,chunks-idle-sender,policy30,estop,estop-flood,estop-flood-idle-sender. */
const windows = (
  process.argv[5] ?? 'idle,flood64,chunks,chunks-idle-sender,policy30,estop,estop-flood,estop-flood-idle-sender'
).split(',');
const want = (w: string) => windows.includes(w);
console.log(
  `${new Date().toISOString()}  load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(', ')}  (${floodSeconds} s floods)`,
);
for (const [name, make] of chosen.map((k) => layouts[k])) {
  const rig = await make();
  // BENCH_CONTROL_FIFO=<priority>: this (control) thread alone at SCHED_FIFO once the workers run, as
  // `armguard run --control-fifo <priority>` does (realtimeMainThread: chrt -f -R -p on the one thread)
  if (process.env.BENCH_CONTROL_FIFO)
    console.log(JSON.stringify(realtimeMainThread(Number(process.env.BENCH_CONTROL_FIFO))));
  console.log(`\n${name}`);
  gc.take();
  if (want('idle')) console.log(`  idle                     ${stats(await controlLoop(rig, floodSeconds), gc.take())}`);
  if (want('flood64')) {
    const flooder = await load('flood64', rig.url);
    const flood = flooder.go();
    gc.take();
    const floodSteps = await controlLoop(rig, 2 * floodSeconds, flood);
    console.log(`  64 MB PUBLISH floods     ${stats(floodSteps, gc.take())}  [${await flood}]`);
    await flooder.end();
  }
  if (want('chunks')) await chunkWindow(rig);
  if (want('chunks-idle-sender')) await chunkWindow(rig, true);
  if (want('policy30')) await policyWindow(rig);
  if (want('estop')) console.log(`  e-stop publish → hold    ${stats(await estopLatency(rig, 200))}`);
  for (const idleSender of [false, true]) {
    if (!want(idleSender ? 'estop-flood-idle-sender' : 'estop-flood')) continue;
    // An operator's e-stops while another client floods chunk requests (same-host sender), until the
    // broker has acknowledged the whole flood: what the flood does to the e-stop's way through the
    // network worker. No control loop runs here (nothing takes the request handed over, so the load
    // process would wait for its answers: it is stopped once the flood is acknowledged).
    const chunker = await load('chunks', rig.url, idleSender);
    void chunker.go();
    const lat = await estopLatency(rig, 1000, chunker.acked);
    await chunker.kill();
    const sender = idleSender ? ', sender at SCHED_IDLE (a remote sender)' : '';
    console.log(`  e-stop publish → hold during the 2,000-chunk flood${sender}  ${stats(lat)}`);
  }
  await rig.stop();
}
process.exit(0);

async function chunkWindow(rig: Rig, idleSender = false): Promise<void> {
  Object.assign(rig.chunks, { n: 0, ms: 0, maxMs: 0 });
  rig.chunks.verdicts.clear();
  rig.resetDetail?.();
  const chunker = await load('chunks', rig.url, idleSender);
  const chunks = chunker.go().then((r) => {
    const c = rig.chunks;
    const verdicts = [...c.verdicts].map(([k, v]) => `${k} ${v}`).join(', ');
    if (rig.chunkDetail) {
      const detail = rig.chunkDetail();
      return `${r}; ${c.n} answered by the chunk path (${verdicts})${detail}`;
    }
    return `${r}; ${c.n} evaluated on the control thread (${verdicts}), ${(c.ms / Math.max(1, c.n)).toFixed(2)} ms each on average, max ${c.maxMs.toFixed(2)} ms`;
  });
  gc.take();
  const window = traceWindow(chunker.pid);
  const cpu = cpuWindow(2000);
  const chunkSteps = await controlLoop(rig, 60, chunks);
  const name = idleSender
    ? '2,000 chunk requests, sender at SCHED_IDLE (a remote sender)'
    : '2,000 chunk requests     ';
  console.log(`  ${name} ${stats(chunkSteps, gc.take())}  [${await chunks}]`);
  console.log(cpu.end());
  if (tracing) console.log(window.end());
  await chunker.end();
  if (rig.gate.holding) console.log(`  (the gate held during the chunk flood: ${describeCause(rig.gate.holdCause!)})`);
  rig.gate.release(clock.now(), { by: 'bench', authorised: true });
}

async function policyWindow(rig: Rig): Promise<void> {
  // A policy at 30 Hz (not a flood): every chunk reaches the chunk path.
  Object.assign(rig.chunks, { n: 0, ms: 0, maxMs: 0 });
  rig.chunks.verdicts.clear();
  rig.resetDetail?.();
  const policy = await load('policy30', rig.url);
  const policyDone = policy.go().then((r) => {
    const c = rig.chunks;
    const verdicts = [...c.verdicts].map(([k, v]) => `${k} ${v}`).join(', ');
    return rig.chunkDetail
      ? `${r}; ${c.n} answered by the chunk path (${verdicts})${rig.chunkDetail()}`
      : `${r}; ${c.n} evaluated on the control thread (${verdicts}), ${(c.ms / Math.max(1, c.n)).toFixed(2)} ms each on average, max ${c.maxMs.toFixed(2)} ms`;
  });
  gc.take();
  const policyWindow = traceWindow(policy.pid);
  const policySteps = await controlLoop(rig, 60, policyDone);
  console.log(`  30 Hz policy              ${stats(policySteps, gc.take())}  [${await policyDone}]`);
  if (tracing) console.log(policyWindow.end());
  await policy.end();
  if (rig.gate.holding) console.log(`  (the gate held during the 30 Hz policy: ${describeCause(rig.gate.holdCause!)})`);
  rig.gate.release(clock.now(), { by: 'bench', authorised: true });
}
