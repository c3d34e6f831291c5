/**
 * Kinematics hot-path costs for the gate's CBF filter and the SO-101 mapping (issue 4 / design §6):
 * FK + capsules, barrier h(q), barrier gradient (central differences and analytic), and one full SO-101 mapping
 * update from raw registers. Run: npx tsx bench/kinematics-bench.ts
 */
import { performance } from 'node:perf_hooks';
import {
  Barrier,
  CapsuleModel,
  ClearanceGradient,
  FR3_MODEL,
  minimumClearance,
  SO101_MODEL,
  type Clearance,
  type ObstacleSet,
} from '../src/kinematics/index.js';
import { So101Mapping, createRawState } from '../drivers/so101/mapping.js';
import { defaultSo101Calibration } from '../src/calibration/so101-defaults.js';
import { AnalyticFreeMotionModel } from '../src/calibration/free-motion.js';

function time(label: string, iterations: number, fn: (i: number) => void): void {
  for (let i = 0; i < Math.min(2000, iterations); i++) fn(i); // warm-up
  const t0 = performance.now();
  for (let i = 0; i < iterations; i++) fn(i);
  const us = ((performance.now() - t0) * 1000) / iterations;
  console.log(`${label.padEnd(58)} ${us.toFixed(2)} µs/call`);
}

const obstacles: ObstacleSet = {
  planes: Float64Array.from([0, 0, 1, 0]),
  spheres: Float64Array.from([0.3, 0.1, 0.05, 0.04, 0.25, -0.15, 0.05, 0.04]),
  box: Float64Array.from([-0.6, -0.6, -0.05, 0.8, 0.6, 1.2]),
};
for (const [name, spec, n] of [
  ['SO-101', SO101_MODEL, 6],
  ['FR3', FR3_MODEL, 7],
] as const) {
  const model = new CapsuleModel(spec);
  const q = new Float64Array(n);
  const grad = new Float64Array(n);
  const barrier = new Barrier(model, obstacles, 0.02, { includeSelf: true });
  time(`${name}: FK + ${spec.capsules.length} capsules (update)`, 200_000, (i) => {
    q[1] = 0.3 + 1e-6 * i;
    model.update(q);
  });
  time(`${name}: self-collision clearance (${model.pairCount} pairs)`, 200_000, () => model.minSelfDistance());
  time(`${name}: barrier h(q) (self + table + 2 spheres + box)`, 200_000, (i) => {
    q[1] = 0.3 + 1e-6 * i;
    barrier.value(q);
  });
  time(`${name}: barrier gradient (central differences, ${2 * n + 1} evals)`, 50_000, (i) => {
    q[1] = 0.3 + 1e-6 * i;
    barrier.gradient(q, grad);
  });
  const analytic = new ClearanceGradient(model);
  const active: Clearance = { distance: 0, kind: 'none', capsule: -1, other: -1 };
  time(`${name}: barrier h + gradient (analytic n̂·J of the active term)`, 200_000, (i) => {
    q[1] = 0.3 + 1e-6 * i;
    model.update(q);
    minimumClearance(model, obstacles, true, active);
    analytic.compute(obstacles, active, grad, 0);
  });
}
const cal = defaultSo101Calibration('bench', 12);
const mapping = new So101Mapping(cal, new AnalyticFreeMotionModel(cal.freeMotion));
const raw = createRawState();
raw.position.set([2045, 2040, 2038, 2025, 2047, 2500]);
time('SO-101 mapping.update (angles, torques, grip, FK, capsules, force)', 100_000, (i) => {
  raw.position[1] = 2040 + (i & 63);
  mapping.update(raw);
});
