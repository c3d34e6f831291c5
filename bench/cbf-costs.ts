/**
 * Two costs of the chunk CBF filter, in process CPU time (the machine is shared; CPU time leaves out
 * waiting for a core):
 *
 * 1. One evaluation of the demo's description barrier (descriptionBarrier with the demo's settings:
 *    a table plane, two tracked spheres, the self pair, 4 tilt faces switched on), h alone and h with
 *    its gradient, per call, over 64 configurations spread across the joint ranges. The filter
 *    evaluates it about (H + 1) × rounds times per modified chunk.
 * 2. One QP solve of the filter's chunk layout (H = 50) without and with the opt-in acceleration
 *    rows (CbfFilterConfig.maxAcceleration): rows inactive (a·dt² = 1 rad) and active (0.002 rad),
 *    a synthetic linear barrier with `pairs` rows per step, warm-started at the standing-still chunk
 *    as the filter's round 1; the three problems alternate so they see the same machine.
 *
 * Run: npx tsx bench/cbf-costs.ts
 */
import { loadavg } from 'node:os';
import { DEMO_HELD_TILT_LIMIT, DEMO_PIVOT_GAIN, DEMO_PLANNING_MARGIN } from '../src/cli/commands/demo.js';
import { ChunkQp } from '../src/gate/cbf-qp.js';
import type { BarrierModel } from '../src/gate/cbf-types.js';
import { obstacleGroups } from '../src/gate/capsule-barrier.js';
import { descriptionBarrier } from '../src/gate/description-barrier.js';
import { PANDA_DESCRIPTION, SO101_DESCRIPTION } from '../src/kinematics/index.js';
import { QpSolver } from '../src/qp/index.js';

const cpuMs = (c: NodeJS.CpuUsage): number => (c.user + c.system) / 1000;
console.log(
  `node ${process.version}, load average ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);

for (const [desc, ee, clearance] of [
  [SO101_DESCRIPTION, 'gripper', 0.01],
  [PANDA_DESCRIPTION, 'franka_hand', 0.02],
] as const) {
  const groups = obstacleGroups({
    planes: Float64Array.from([0, 0, 1, 0]),
    spheres: Float64Array.from([0.3, 0.1, 0.2, 0.05, 0.2, -0.2, 0.3, 0.05]),
    box: null,
  });
  const b = descriptionBarrier(desc, ee, {
    groups,
    dSafe: clearance,
    planningMargin: DEMO_PLANNING_MARGIN,
    selfClearance: clearance,
    heldTilt: { objectLimit: DEMO_HELD_TILT_LIMIT, pivotGain: DEMO_PIVOT_GAIN, faces: 4 },
  });
  b.tilt?.captureReference(desc.chain.joints.map((j) => 0.5 * (j.lower + j.upper)));
  const { joints: n, pairs: m } = b.barrier;
  const out = new Float64Array(m);
  const grad = new Float64Array(m * n);
  const qs = Array.from({ length: 64 }, (_, i) =>
    Float64Array.from(desc.chain.joints, (j, k) => j.lower + (((i * 37 + k * 11) % 64) / 64) * (j.upper - j.lower)),
  );
  const N = 20000;
  let hUs = Infinity;
  let gUs = Infinity;
  for (let r = 0; r < 5; r++) {
    let c0 = process.cpuUsage();
    for (let i = 0; i < N; i++) b.barrier.h(qs[i & 63]!, out);
    hUs = Math.min(hUs, (cpuMs(process.cpuUsage(c0)) * 1000) / N);
    c0 = process.cpuUsage();
    for (let i = 0; i < N; i++) b.barrier.gradient(qs[i & 63]!, out, grad);
    gUs = Math.min(gUs, (cpuMs(process.cpuUsage(c0)) * 1000) / N);
  }
  console.log(
    `${desc.id} description barrier (${m} pairs, self pairs of ${b.self?.model.count ?? 0} capsules): ` +
      `h ${hUs.toFixed(2)} µs, h + gradient ${gUs.toFixed(2)} µs CPU per call (best of 5 × ${N})`,
  );
}

/** h_p(q) = 0.3 − Σ_j c_pj q_j: rows whose values do not depend on the point (a fixed QP). */
function linearBarrier(n: number, m: number): BarrierModel {
  const c = (p: number, j: number): number => (p + 1) * 0.1 * (j % 2 ? 1 : -0.5);
  return {
    joints: n,
    pairs: m,
    h(q, out) {
      let min = Infinity;
      for (let p = 0; p < m; p++) {
        let s = 0.3;
        for (let j = 0; j < n; j++) s -= c(p, j) * q[j]!;
        out[p] = s;
        min = Math.min(min, s);
      }
      return min;
    },
    gradient(q, hOut, g) {
      this.h(q, hOut);
      for (let p = 0; p < m; p++) for (let j = 0; j < n; j++) g[p * n + j] = -c(p, j);
    },
  };
}

for (const [n, m] of [
  [5, 3],
  [7, 4],
] as const) {
  const H = 50;
  const make = (aStep: number | null) => {
    const qp = new ChunkQp(H, n, m, { acceleration: aStep !== null });
    const q0 = new Float64Array(n).fill(0.1);
    const unom = new Float64Array(H * n);
    for (let k = 0; k < H; k++) for (let j = 0; j < n; j++) unom[k * n + j] = 0.1 + (0.02 * (k + 1) * (j + 1)) / n;
    qp.setNominal(
      unom,
      q0,
      new Array<number>(n).fill(-3),
      new Array<number>(n).fill(3),
      new Array<number>(n).fill(0.07),
      {
        lambda: 5,
        rho: 1000,
      },
    );
    qp.linearise(linearBarrier(n, m), unom, q0, 0.2);
    if (aStep !== null) qp.setAcceleration(q0, q0, new Float64Array(n).fill(aStep));
    const solver = new QpSolver(qp.problem);
    const warm = new Float64Array(qp.problem.n);
    for (let c = 0; c < H * n; c++) warm[c] = q0[c % n]!;
    return { qp, solver, options: { maxIterations: 40, epsAbs: 1e-6, epsRel: 1e-6, warmStart: warm } };
  };
  const cases = [
    ['no acceleration rows', make(null)],
    ['acceleration rows, inactive (a·dt² = 1 rad)', make(1)],
    ['acceleration rows, active (a·dt² = 0.002 rad)', make(0.002)],
  ] as const;
  const sum = cases.map(() => ({ cpu: 0, iterations: 0, solves: 0 }));
  for (let r = 0; r < 6; r++) {
    cases.forEach(([, c], i) => {
      const c0 = process.cpuUsage();
      let it = 0;
      for (let t = 0; t < 150; t++) it += c.solver.solve(c.qp.problem, c.options).iterations;
      const cpu = cpuMs(process.cpuUsage(c0));
      if (r === 0) return; // warm-up
      sum[i]!.cpu += cpu;
      sum[i]!.iterations += it;
      sum[i]!.solves += 150;
    });
  }
  cases.forEach(([name, c], i) => {
    const s = sum[i]!;
    const r = c.solver.solve(c.qp.problem, c.options);
    console.log(
      `QP H=50, ${n} joints, ${m} pairs, ${name}: ${r.status}, ${c.qp.problem.m} rows, blocks of ${c.solver.structure.maxBlockSize}; ` +
        `${(s.cpu / s.solves).toFixed(3)} ms CPU per solve, ${(s.iterations / s.solves).toFixed(1)} iterations, ${((1000 * s.cpu) / s.iterations).toFixed(0)} µs per iteration`,
    );
  });
}
