/**
 * Issue #14 item 3: what a chunk-request flood costs the network worker thread, per request — CPU
 * and allocation (GC) work, without the control loop and the filter worker around it (those are
 * bench/network-faults.ts's windows). The real network worker (startTelemetry: embedded aedes broker,
 * access file, armguard's MQTT link, the chunk admission and pacer) on real loopback sockets; a
 * policy client in a child process (bench/network-load.ts `chunks`, by default at SCHED_IDLE: a remote
 * sender) publishes `requests` chunk requests at once, `rounds` times. The control thread here only
 * returns the chunk credit every 10 ms (as a 100 Hz control loop does) and answers each request
 * handed to it `held` at once (no screen, no filter), so nearly all of the process's CPU in a round is
 * the network worker's handling of the flood and the V8 / libuv helper threads' work for it.
 *
 * Per round: the network worker thread's CPU (/proc/…/task/…/schedstat) and per request, the CPU of
 * every other thread of this process (V8's GC and compiler helper threads, libuv's pool; the control
 * thread apart), the worker's event-loop busy time, how many of the requests were answered
 * `rate-limit` / `superseded` (counted by the sender), and the sender's own CPU.
 *
 *   npx tsx bench/flood-worker-cpu.ts [requests=10000] [rounds=5] [idle|same]
 *   node --cpu-prof --cpu-prof-dir=DIR --import tsx bench/flood-worker-cpu.ts 20000 2   # one profile per thread
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { Worker } from 'node:worker_threads';
import { DEFAULT_GATE_CONFIG, Gate } from '../src/gate/index.js';
import { requestId } from '../src/runtime/chunk-transport.js';
import { startTelemetry } from '../src/telemetry/run-telemetry.js';
import type { AccessConfig } from '../src/telemetry/access.js';

const requests = Number(process.argv[2] ?? 10_000);
const rounds = Number(process.argv[3] ?? 5);
const idleSender = (process.argv[4] ?? 'idle') === 'idle';
const ROBOT = 'bench';
const clock = { now: () => performance.now() / 1000 };
const access: AccessConfig = {
  users: [
    { username: 'op', password: 'op-secret1', roles: ['operator'] },
    { username: 'vla', password: 'vla-secret1', roles: ['policy'] },
  ],
};

/** Run time (ns) of every thread of this process. */
function threadCpu(): Map<number, number> {
  const out = new Map<number, number>();
  for (const t of readdirSync(`/proc/${process.pid}/task`)) {
    try {
      out.set(Number(t), Number(readFileSync(`/proc/${process.pid}/task/${t}/schedstat`, 'utf8').split(' ')[0]));
    } catch {
      // the thread ended
    }
  }
  return out;
}

const before = new Set(threadCpu().keys());
const t = await startTelemetry({
  broker: { kind: 'embedded', port: 0, access },
  robotId: ROBOT,
  clock,
  gate: new Gate({ ...DEFAULT_GATE_CONFIG, maxStepGap: 3600 }),
  labels: { label: () => ({ ok: true }) },
});
// The network worker's threads: the ones that appeared while it started (the worker, its loader's).
const networkThreads = [...threadCpu().keys()].filter((tid) => !before.has(tid));
const worker = (t.link as unknown as { worker?: Worker }).worker;
const elu = () => worker?.performance.eventLoopUtilization().active ?? 0;

let handedOver = 0;
t.chunks.onDecodedRequest((r) => {
  handedOver++;
  const id = requestId(r);
  t.chunks.respond(JSON.stringify({ v: 1, id, verdict: 'held', code: 'bench', reason: 'bench', t: clock.now() }));
});
const step = setInterval(() => t.hooks.checkStep(clock.now()), 10);

/** One flood from a child process; resolves with its result line once every request was answered. */
async function flood(): Promise<{ result: string; ms: (tids: (tid: number) => boolean) => number; elu: number }> {
  const args = [
    '--import',
    'tsx',
    new URL('./network-load.ts', import.meta.url).pathname,
    'chunks',
    t.url,
    ROBOT,
    '6',
    String(requests),
  ];
  const child = idleSender
    ? spawn('chrt', ['-i', '0', process.execPath, ...args], { stdio: ['pipe', 'pipe', 'inherit'] })
    : spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  const lines = () => out.split('\n');
  const waitFor = (ok: () => boolean) =>
    new Promise<void>((resolve) => {
      const check = () => ok() && (child.stdout.off('data', check), resolve());
      child.stdout.on('data', (d: Buffer) => ((out += d.toString()), check()));
      check();
    });
  await waitFor(() => lines().includes('ready'));
  const cpu0 = threadCpu();
  const elu0 = elu();
  child.stdin.write('go\n');
  await waitFor(() => lines().some((l) => l.includes(' answered ')));
  const cpu1 = threadCpu();
  const elu1 = elu();
  const result = lines().find((l) => l.includes(' answered '))!;
  child.stdin.write('exit\n');
  await new Promise((r) => child.once('exit', r));
  const ms = (which: (tid: number) => boolean) => {
    let ns = 0;
    for (const [tid, v] of cpu1) if (which(tid)) ns += v - (cpu0.get(tid) ?? 0);
    return ns / 1e6;
  };
  return { result, ms, elu: elu1 - elu0 };
}

console.log(
  `${new Date().toISOString()}  load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(
      ', ',
    )}; ${rounds} floods of ${requests} chunk requests, sender ${idleSender ? 'at SCHED_IDLE' : 'at SCHED_OTHER'}`,
);
const perRequest: number[] = [];
for (let i = 0; i < rounds; i++) {
  handedOver = 0;
  const r = await flood();
  const net = r.ms((tid) => networkThreads.includes(tid));
  const helpers = r.ms((tid) => tid !== process.pid && !networkThreads.includes(tid));
  perRequest.push((net * 1000) / requests);
  console.log(
    `  round ${i + 1}: network worker ${net.toFixed(0)} ms (${((net * 1000) / requests).toFixed(1)} µs per request; event loop busy ${r.elu.toFixed(0)} ms), ` +
      `V8 and libuv helper threads ${helpers.toFixed(0)} ms (${((helpers * 1000) / requests).toFixed(1)} µs per request), ` +
      `control thread ${r.ms((tid) => tid === process.pid).toFixed(0)} ms; ${handedOver} handed over; load ${loadavg()[0]!.toFixed(2)}\n    [${r.result}]`,
  );
}
const sorted = [...perRequest].sort((a, b) => a - b);
console.log(
  `  network worker µs per request: median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(1)} (${sorted.map((x) => x.toFixed(1)).join(', ')})`,
);
clearInterval(step);
await t.stop();
process.exit(0);
