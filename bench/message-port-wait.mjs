/**
 * Issue 14 item 3: does the control thread block while it receives a worker's message, when that
 * worker waits for a core? Plain Node (no TypeScript loader), nothing of armguard: the main thread
 * runs a 10 ms timer loop (a control loop), a worker posts a 300-value Float64Array (transferred)
 * every 20 ms after 6 ms of work (a filter answer), and two more threads burn both cores for 8 s
 * (the load). Per step: how late it started, the main thread's CPU time and run-queue wait
 * (/proc/<pid>/task/<pid>/schedstat) and its event-loop busy time since the previous step. A step
 * that is late while the thread neither ran nor waited for a core, its event loop busy, was blocked.
 * `fifo` puts the main thread alone at SCHED_FIFO (root; `chrt -f -p 10 <pid>`) once the other
 * threads run (they stay SCHED_OTHER), which removes its waiting for a core and leaves the blocking.
 *
 *   node bench/message-port-wait.mjs [fifo]     (Linux; about 6 s)
 */
import { Worker } from 'node:worker_threads';
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

const sched = () => readFileSync(`/proc/${process.pid}/task/${process.pid}/schedstat`, 'utf8').split(' ').map(Number);
const answers = new Worker(
  `const { parentPort } = require('node:worker_threads');
   const work = (ms) => { const t = performance.now(); let x = 0; while (performance.now() - t < ms) x += Math.sqrt(x + 1); return x; };
   setInterval(() => { work(6); const a = new Float64Array(300).fill(1); parentPort.postMessage({ a }, [a.buffer]); }, 20);`,
  { eval: true },
);
let received = 0;
answers.on('message', () => received++);
const burners = [0, 1].map(
  () =>
    new Worker(`const t = performance.now(); let x = 0; while (performance.now() - t < 8000) x += Math.sqrt(x + 1);`, {
      eval: true,
    }),
);
await new Promise((r) => setTimeout(r, 200));
const fifo = process.argv[2] === 'fifo';
if (fifo) execFileSync('chrt', ['-f', '-p', '10', String(process.pid)]);

const steps = [];
let last = performance.now();
let [run0, wait0] = sched();
let elu = performance.eventLoopUtilization();
await new Promise((resolve) => {
  const tick = () => {
    const now = performance.now();
    const [run, wait] = sched();
    const e = performance.eventLoopUtilization();
    steps.push({
      late: now - last - 10,
      run: (run - run0) / 1e6,
      wait: (wait - wait0) / 1e6,
      busy: e.active - elu.active,
    });
    last = now;
    run0 = run;
    wait0 = wait;
    elu = performance.eventLoopUtilization();
    if (steps.length < 500) setTimeout(tick, Math.max(0, last + 10 - performance.now()));
    else resolve();
  };
  setTimeout(tick, 10);
});
const late = steps.filter((s) => s.late > 2);
const blocked = late.filter((s) => s.wait < 1 && s.busy > 5);
const sorted = steps.map((s) => s.late).sort((a, b) => a - b);
console.log(
  `${fifo ? 'main thread SCHED_FIFO' : 'main thread SCHED_OTHER'}: jitter p99 ${sorted[Math.floor(0.99 * sorted.length)].toFixed(2)} ms, max ${sorted.at(-1).toFixed(2)} ms (n = ${steps.length}); ` +
    `${late.length} steps late > 2 ms, of which ${blocked.length} blocked (waited < 1 ms for a core, event loop busy > 5 ms); ${received} messages received`,
);
for (const s of late.sort((a, b) => b.late - a.late).slice(0, 4))
  console.log(
    `  late ${s.late.toFixed(1)} ms: ran ${s.run.toFixed(1)} ms, waited for a core ${s.wait.toFixed(1)} ms, event loop busy ${s.busy.toFixed(1)} ms`,
  );
await Promise.all([answers, ...burners].map((w) => w.terminate()));
