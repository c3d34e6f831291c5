/**
 * Violating sample → hold command dispatched, in process, at 1 kHz input (design §11, issue 6).
 * Full runtime pipeline: source poll → real STL monitors (8 safe-tier clauses, src/stl) → gate →
 * CommandSink.hold. Time from just before `step(now)` to the moment the sink's `hold` is called
 * (performance.now). Each trial: 200 normal samples, one violating sample (timed), recover and an
 * authorised release. Also reports the per-sample cost of normal steps.
 *
 *   npx tsx bench/gate-latency.ts [trials=2000]
 */
import { performance } from 'node:perf_hooks';
import { Gate } from '../src/gate/index.js';
import type { CommandSink, FaultListener, JointChunk, SignalSource } from '../src/ports/index.js';
import { MonitorBank, Pipeline } from '../src/runtime/index.js';
import type { SignalFrame } from '../src/schema/signals.js';
import { signalIndex } from '../src/schema/signals.js';

const trials = Number(process.argv[2] ?? 2000);
const CLAUSES = [
  ['arm_furniture_force', 'always (arm_furniture_contact_force < 200)', 200],
  ['target_furniture_force', 'always (target_furniture_contact_force < 200)', 200],
  ['max_contact_force', 'always (contact_force_max < 200)', 200],
  ['non_target_max_disp', 'always (non_target_disp_max < 0.005)', 0.005],
  [
    'held_object_tilt_world',
    'always ((gripper_contact and obj_above_table > 0.05) -> target_obj_tilt_world_deg < 15)',
    15,
  ],
  ['stable_grasp_maintained', 'always (gripper_contact -> obj_above_table > -0.02)', 0.02],
  ['joint_torque', 'always (max_joint_torque < 2.5)', 2.5],
  ['self_collision_free', 'always (self_collision_clearance >= 0)', 0],
] as const;

const NAMES = [
  'arm_furniture_contact_force',
  'target_furniture_contact_force',
  'contact_force_max',
  'non_target_disp_max',
  'target_obj_tilt_world_deg',
  'obj_above_table',
  'gripper_contact',
  'max_joint_torque',
  'self_collision_clearance',
] as const;
const IDX = NAMES.map((n) => signalIndex(n)!);
const SAFE = [5, 0, 5, 0.001, 3, 0.1, 1, 1, 0.05];

class BenchSource implements SignalSource {
  readonly name = 'bench';
  torque = 1;
  poll(frame: SignalFrame, now: number): void {
    for (let i = 0; i < IDX.length; i++) frame.set(IDX[i]!, i === 7 ? this.torque : SAFE[i]!, now, 'bench');
  }
  onFault(_l: FaultListener): void {}
}
class BenchSink implements CommandSink {
  readonly name = 'bench';
  holdAt = NaN;
  holds = 0;
  execute(_c: JointChunk, _now: number): void {}
  hold(_now: number, _reason: string): void {
    this.holdAt = performance.now();
    this.holds++;
  }
  heartbeat(_now: number): void {}
  onFault(_l: FaultListener): void {}
}

const bank = MonitorBank.fromClauses(
  CLAUSES.map(([id, formula, tau]) => ({ clause: { id }, formula, tau, warn: tau === 0 ? undefined : 0.1 * tau })),
);
const gate = new Gate({ requiredSignals: bank.requiredSignals, maxStepGap: 0.25, faultQuietPeriod: 0.5 });
const source = new BenchSource();
const sink = new BenchSink();
const pipeline = new Pipeline({ source, monitors: bank, gate, sink, watchdogTimeout: 0.1 });

const holdLatency: number[] = [];
const stepCost: number[] = [];
let t = 0;
for (let trial = 0; trial < trials; trial++) {
  source.torque = 1;
  for (let k = 0; k < 200; k++) {
    t += 0.001;
    const s0 = performance.now();
    pipeline.step(t);
    stepCost.push(performance.now() - s0);
  }
  source.torque = 3; // joint_torque violated
  t += 0.001;
  const before = sink.holds;
  const t0 = performance.now();
  pipeline.step(t);
  if (sink.holds !== before + 1) throw new Error(`trial ${trial}: no hold dispatched (state ${gate.state})`);
  holdLatency.push(sink.holdAt - t0);
  source.torque = 1;
  t += 0.001;
  pipeline.step(t);
  const r = pipeline.release(t, { by: 'bench', authorised: true });
  if (!r.ok) throw new Error(`trial ${trial}: release refused: ${r.reason}`);
}

function q(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
}
const us = (ms: number) => `${(ms * 1000).toFixed(2)} µs`;
console.log(JSON.stringify({ trials, clauses: CLAUSES.length, samples: stepCost.length }));
console.log(
  `violating sample → hold dispatched: p50 ${us(q(holdLatency, 0.5))}, p99 ${us(q(holdLatency, 0.99))}, max ${us(Math.max(...holdLatency))} (target p99 ≤ 1 ms)`,
);
console.log(
  `normal step (poll + 8 monitors + gate + heartbeat): p50 ${us(q(stepCost, 0.5))}, p99 ${us(q(stepCost, 0.99))}`,
);
