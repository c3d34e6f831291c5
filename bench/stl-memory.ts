/**
 * STL online monitor memory is constant in trace length for past-time and bounded formulas
 * (design §11, issue 2).
 *
 *   node --expose-gc --import tsx bench/stl-memory.ts [samples]
 *
 * Runs the 8-clause safe-tier conjunction together with a clause using every windowed operator
 * (bounded future and past, until, since) over 10,000,000 irregular samples (~1 kHz), and
 * compares the heap plus typed-array storage after a full GC at 100,000 samples with the same after
 * all of them, and prints the monitor's own buffer capacity at both points.
 * `--baseline` runs the same loop without the monitor: V8 itself drifts by a few tens of KiB.
 * `--presize` passes minSampleInterval (the trace's 0.6 ms minimum spacing): buffers are sized at
 * construction and never grow.
 */
import { OnlineMonitor } from '../src/stl/index.js';
import { parseOrThrow, prng, SAFE_TIER_CONJUNCTION, SAFE_TIER_ORDER, SAFE_TIER_SIGNALS } from './stl-common.js';

const N = Number(process.argv[2] ?? 10_000_000);
const BASELINE = process.argv.includes('--baseline');
const VERBOSE = process.argv.includes('--verbose');
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) {
  console.error('run with: node --expose-gc --import tsx bench/stl-memory.ts');
  process.exit(2);
}

const windowed =
  'always ((historically[0:0.5] (contact_force_max < 250)) and (eventually[0:0.2] (obj_above_table > -0.5)) and ' +
  '((max_joint_torque < 120) until[0.01:0.3] (arm_furniture_contact_force < 150)) and ' +
  '((target_obj_tilt_world_deg < 40) since[0:1] (gripper_contact or self_collision <= 0)) and ' +
  '(once (non_target_disp_max < 1)) and (always[0.1:2] (target_furniture_contact_force < 300)))';
const f = parseOrThrow(`${SAFE_TIER_CONJUNCTION} and ${windowed}`, SAFE_TIER_SIGNALS);
// --presize: declare the trace's minimum sample spacing (0.6 ms) so buffers are sized up front
const PRESIZE = process.argv.includes('--presize');
const m = new OnlineMonitor(f, SAFE_TIER_ORDER, PRESIZE ? { minSampleInterval: 0.0006 } : {});

const rnd = prng(7);
const row = new Float64Array(9);
let t = 0;
const heapAt = (): number => {
  gc();
  gc();
  // typed-array storage lives outside the JS heap (arrayBuffers), so count both
  const u = process.memoryUsage();
  return u.heapUsed + u.arrayBuffers;
};
const capacities: string[] = [];
let heapSmall = 0;
let heapMillion = 0;
const start = process.cpuUsage();
for (let i = 1; i <= N; i++) {
  t += 0.0006 + 0.0008 * rnd();
  const s = Math.sin(t * 0.7);
  row[0] = 80 + 60 * s + 20 * rnd();
  row[1] = 60 + 50 * s;
  row[2] = Math.max(row[0], row[1]);
  row[3] = 0.004 * rnd();
  row[4] = 10 + 6 * s;
  row[5] = 0.1 * s;
  row[6] = s > 0 ? 1 : 0;
  row[7] = 50 + 30 * s + 10 * rnd();
  row[8] = rnd() < 0.0005 ? 1 : 0;
  if (!BASELINE) m.push(t, row);
  if (i === 100_000) heapSmall = heapAt();
  if (i === 1_000_000) heapMillion = heapAt();
  if (!BASELINE && (i === 1 || i === 100_000 || i === 1_000_000 || i === N))
    capacities.push(`${i.toLocaleString('en')}: ${m.bufferCapacity}`);
  if (VERBOSE && i % 1_000_000 === 0) console.log(`  ${i}: ${heapAt()}`);
}
const cpu = process.cpuUsage(start);
const heapLarge = heapAt();
m.finish();
const kb = (b: number): string => `${(b / 1024).toFixed(0)} KiB`;
console.log(
  `${PRESIZE ? '[minSampleInterval 0.6 ms] ' : ''}operators: ${m.operatorCount}; samples: ${N.toLocaleString('en')}; decided: ${m.decidedSamples.toLocaleString('en')}`,
);
console.log(
  `${BASELINE ? 'BASELINE (samples generated, no monitor) ' : ''}heap + array buffers after 100,000 samples: ${kb(heapSmall)}`,
);
if (heapMillion > 0) console.log(`heap + array buffers after 1,000,000 samples: ${kb(heapMillion)}`);
console.log(
  `heap + array buffers after ${N.toLocaleString('en')} samples: ${kb(heapLarge)} (${heapLarge <= heapSmall ? 'not larger' : `+${kb(heapLarge - heapSmall)}`})`,
);
if (!BASELINE) console.log(`monitor buffer capacity (Float64 slots) after ${capacities.join(', ')}`);
console.log(`CPU: ${((cpu.user + cpu.system) / N).toFixed(3)} µs/sample (incl. generating the sample)`);
