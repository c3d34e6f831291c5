/**
 * Feetech full-state read cycle: 6 servos, one SYNC_READ of Present_Position … Present_Current
 * (addresses 56..70, 15 bytes each).
 *
 *   npx tsx bench/feetech-read.ts
 *
 * 1. The 1 Mbps wire limit of that cycle (bytes × 10 bits / 1e6 + return delays).
 * 2. armguard's own CPU per cycle: the real FeetechBus (encode, transaction engine, timeout timer,
 *    framer, checksum, decode into ServoState) over a replay link that answers each request with
 *    the byte-exact reply recorded once from the emulator — so no emulator or serialport time is in
 *    the figure. process.cpuUsage (user+system) over N cycles.
 * 3. Same cycle in-process through serialport's mock binding with the emulator behind it (includes
 *    serialport stream and emulator CPU): a reference, not armguard's own work.
 * 4. Over a real tty: socat pty pair with the emulator in a separate process
 *    (drivers/feetech/emulator-main.ts); sustained cycle rate, latency percentiles, and this
 *    process's CPU per cycle (driver + serialport; the emulator's CPU is in the other process).
 */
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import {
  type ByteLink,
  FULL_STATE_BLOCK,
  FeetechBus,
  FeetechEmulator,
  PACKET_OVERHEAD,
  createEmulatorMockBinding,
  encodeSyncRead,
} from '../drivers/feetech/index.js';

const IDS = [1, 2, 3, 4, 5, 6];
const { address, length } = FULL_STATE_BLOCK;

// ---- 1. wire limit ----
const instructionBytes = encodeSyncRead(address, length, IDS).length;
const statusBytes = IDS.length * (length + PACKET_OVERHEAD);
const wireBytes = instructionBytes + statusBytes;
const bitsPerByte = 10; // 8N1: start + 8 data + stop
const wireS = (wireBytes * bitsPerByte) / 1e6;
const delay250S = IDS.length * 250 * 2e-6;
console.log('== 1 Mbps wire limit, full-state cycle, 6 servos ==');
console.log(
  `  instruction ${instructionBytes} B + status ${IDS.length}×${length + PACKET_OVERHEAD} B = ${wireBytes} B → ${(wireS * 1e6).toFixed(0)} µs on the wire`,
);
console.log(
  `  Return_Delay_Time 0 (LeRobot):      ${(wireS * 1e6).toFixed(0)} µs/cycle → ${(1 / wireS).toFixed(0)} Hz max`,
);
console.log(
  `  Return_Delay_Time 250 (500 µs each): ${((wireS + delay250S) * 1e6).toFixed(0)} µs/cycle → ${(1 / (wireS + delay250S)).toFixed(0)} Hz max`,
);
console.log('  (excludes servo processing time and USB adapter latency, e.g. FTDI latency timer)');

// Record the byte-exact reply once from the emulator.
const recorder = new FeetechEmulator({ ids: IDS });
IDS.forEach((id, i) =>
  recorder
    .servo(id)
    .setPresent({ position: 1000 + i, velocity: -20 * i, load: -100 * i, current: 30 + i, temperature: 30 }),
);
let recorded = new Uint8Array(0);
recorder.onTransmit((b) => (recorded = Uint8Array.from([...recorded, ...b])));
recorder.feed(encodeSyncRead(address, length, IDS));
if (recorded.length !== statusBytes) throw new Error(`recorded ${recorded.length} B, expected ${statusBytes}`);

/** Answers every request with the recorded reply, asynchronously (as a port would), in `chunks` pieces. */
class ReplayLink implements ByteLink {
  readonly name = 'replay';
  readonly isOpen = true;
  private listener: (c: Uint8Array) => void = () => undefined;
  constructor(private readonly pieces: Uint8Array[]) {}
  write(_bytes: Uint8Array, done?: (e: Error | null) => void): void {
    queueMicrotask(() => {
      for (const p of this.pieces) this.listener(p);
      done?.(null);
    });
  }
  onData(l: (c: Uint8Array) => void): void {
    this.listener = l;
  }
  onClose(): void {}
  async close(): Promise<void> {}
}

async function cpuPerCycle(bus: FeetechBus, n: number): Promise<{ cpuUs: number; wallUs: number }> {
  for (let i = 0; i < Math.min(2000, n); i++) await bus.readFullState(IDS); // warm-up (JIT)
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const r = await bus.readFullState(IDS);
    if (!r.ok) throw new Error(JSON.stringify(r.error));
  }
  const c = process.cpuUsage(c0);
  return { cpuUs: (c.user + c.system) / n, wallUs: ((performance.now() - t0) * 1000) / n };
}

console.log(
  `\nload average ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')} on this machine (2 cores shared)`,
);

// ---- 2. armguard's own work ----
console.log('\n== armguard CPU per full-state cycle (bus + framer + decode; replayed reply bytes) ==');
const N = 20000;
for (const [label, pieces] of [
  ['reply in 1 chunk', [recorded]],
  ['reply in 6 chunks (one per packet)', IDS.map((_, i) => recorded.subarray(i * 21, i * 21 + 21))],
] as const) {
  const bus = new FeetechBus(new ReplayLink([...pieces]), { timeoutS: 0.5 });
  const { cpuUs, wallUs } = await cpuPerCycle(bus, N);
  console.log(`  ${label}: ${cpuUs.toFixed(1)} µs CPU/cycle (wall ${wallUs.toFixed(1)} µs), N=${N}  [budget 100 µs]`);
}

// ---- 3. in-process through serialport's mock binding ----
console.log('\n== in-process: serialport mock binding + emulator (reference, includes serialport + emulator) ==');
{
  const emu = new FeetechEmulator({ ids: IDS });
  const binding = createEmulatorMockBinding(emu, '/dev/feetech-bench');
  const r = await FeetechBus.open({ path: '/dev/feetech-bench', binding, timeoutS: 0.5 });
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  const { cpuUs, wallUs } = await cpuPerCycle(r.value, 5000);
  console.log(
    `  ${cpuUs.toFixed(1)} µs CPU/cycle, ${wallUs.toFixed(1)} µs wall/cycle → ${(1e6 / wallUs).toFixed(0)} cycles/s`,
  );
  await r.value.close();
}

// ---- 4. real tty ----
console.log('\n== real tty: socat pty pair, emulator in a separate process ==');
{
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'drivers/feetech/emulator-main.ts', '--pty', '--physics', 'none'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const path = await new Promise<string>((resolve, reject) => {
    const guard = setTimeout(() => reject(new Error('emulator not ready within 60 s')), 60_000);
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /ready (\S+)/.exec(out);
      if (m?.[1]) {
        clearTimeout(guard);
        resolve(m[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`emulator exited (${code})`)));
  });
  const r = await FeetechBus.open({ path, timeoutS: 0.5, retries: 2 });
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  const bus = r.value;
  for (let i = 0; i < 200; i++) await bus.readFullState(IDS);
  const lat: number[] = [];
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  while (performance.now() - t0 < 5000) {
    const s = performance.now();
    const res = await bus.readFullState(IDS);
    if (!res.ok) throw new Error(JSON.stringify(res.error));
    lat.push(performance.now() - s);
  }
  const wallS = (performance.now() - t0) / 1000;
  const c = process.cpuUsage(c0);
  lat.sort((a, b) => a - b);
  const pct = (p: number): string => (lat[Math.min(lat.length - 1, Math.floor(p * lat.length))] ?? NaN).toFixed(2);
  console.log(
    `  ${lat.length} cycles in ${wallS.toFixed(1)} s → ${(lat.length / wallS).toFixed(0)} cycles/s sustained`,
  );
  console.log(`  latency ms: p50 ${pct(0.5)}, p90 ${pct(0.9)}, p99 ${pct(0.99)}, max ${pct(1)}`);
  console.log(
    `  driver process CPU: ${((c.user + c.system) / lat.length).toFixed(1)} µs/cycle (driver + serialport + Node I/O)`,
  );
  console.log(`  counters: ${JSON.stringify(bus.counters)}`);
  console.log(
    `  vs 1 Mbps wire limit ${(1 / wireS).toFixed(0)} Hz: the pty rate is bounded by Node/serialport I/O on both ends, not by the wire`,
  );
  await bus.close();
  child.kill('SIGTERM');
  await exited;
}
