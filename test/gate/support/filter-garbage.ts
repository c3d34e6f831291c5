/**
 * Child process of filter-garbage.test.ts: the heap the fragile pilot's Panda chunk-level CBF filter
 * leaves behind per call, once V8 has optimised it. Prints JSON {bytesPerCall, calls, gcs}.
 * Run with a young generation large enough that no collection falls in the measured calls
 * (--max-semi-space-size=64); a run in which one did reports gcs > 0 and is measured again.
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import { ARM_FILTER_PROFILES, modeFilter } from '../../../src/cli/demo/fragile/filters.js';

const nArm = 7;
const columns = 8;
const H = 50;
const f = modeFilter('cbf', ARM_FILTER_PROFILES.panda, nArm, columns, {
  limit: 0.3,
  grip: { open: 0.04, closed: 0 },
});
// the bottle far away: every call re-checks and passes the chunk (barrier at every step, no QP)
f.groups.forEach((g) => g.spheres.set([100, 100, 100, 0.01]));
const q0 = new Float64Array(columns);
const chunks = [0.2, 0.3].map((reach) => {
  const u = new Float64Array(H * columns);
  for (let k = 0; k < H; k++)
    for (let j = 0; j < nArm; j++) u[k * columns + j] = (f.qmin[j]! + f.qmax[j]!) / 2 + (reach * (k + 1)) / H;
  return u;
});
let gcs = 0;
new PerformanceObserver((list) => (gcs += list.getEntries().length)).observe({ entryTypes: ['gc'] });
const call = (i: number): void => {
  f.filter.filter(chunks[i % 2]!, H, q0, 1 / 30);
};
for (let i = 0; i < 800; i++) call(i);
const calls = 200;
let result = { bytesPerCall: NaN, calls, gcs: 0 };
for (let attempt = 0; attempt < 5; attempt++) {
  await new Promise((r) => setTimeout(r, 10));
  gcs = 0;
  const before = getHeapStatistics().used_heap_size;
  for (let i = 0; i < calls; i++) call(i);
  const after = getHeapStatistics().used_heap_size;
  await new Promise((r) => setTimeout(r, 10));
  result = { bytesPerCall: (after - before) / calls, calls, gcs };
  if (gcs === 0) break;
}
console.log(JSON.stringify(result));
