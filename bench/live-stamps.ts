/**
 * Issue 13 item 3 on the live path: how many samples of a windowed clause get a different ρ when
 * the monitor samples at arrival time instead of at the robot state's own header stamp.
 *
 * A 1 kHz FrankaRobotState stream whose stamps jitter (Gaussian, σ = 30 µs, every tenth gap an exact
 * window length) arrives after a transport delay of 100–600 µs (uniform). It is written as a rosbag2
 * MCAP file (header stamp = the robot's time, log time = arrival) and replayed through the live
 * node's code (FrankaRos → session → monitor bank). ρ of `historically[0:0.005] (max_joint_torque < 87)`
 * per sample is compared with the offline evaluator on the stamps (the semantics) and on the arrival
 * times (what the live monitors computed before they took the stamp).
 *
 *   npx tsx bench/live-stamps.ts [seconds=20] [seed=7]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { offeredQos } from '../src/mcap/index.js';
import { writeBagFile } from '../src/platform/bag-writer.js';
import { fileSource } from '../src/platform/file-source.js';
import { defaultSpecPaths, loadScoringSpec } from '../src/cli/spec-files.js';
import { replayFrankaBag } from '../src/nodes/franka-replay.js';
import { STL_SIGNALS } from '../src/safety/stl-bridge.js';
import { evaluateOfflineNs, parseFormula } from '../src/stl/index.js';
import { gaussian, mulberry32 } from '../src/util/rng.js';
import { FRANKA_TOPICS, FRANKA_TYPES } from '../drivers/franka/messages.js';
import { frankaRobotState } from '../test/mcap/support/franka-fixtures.js';

const seconds = Number(process.argv[2] ?? 20);
const seed = Number(process.argv[3] ?? 7);
const rand = mulberry32(seed);
const n = Math.round(seconds * 1000);
const WINDOW = 'historically[0:0.005]';

const origin = 1_764_612_345_123_456_789n;
const stamps: bigint[] = [origin];
for (let k = 1; k < n; k++) {
  const gap = k % 10 === 0 ? 5_000_000 : Math.max(200_000, Math.round(1_000_000 + 30_000 * gaussian(rand)));
  stamps.push(stamps[k - 1]! + BigInt(gap));
}
const arrivals: bigint[] = [];
for (let k = 0; k < n; k++) {
  const at = stamps[k]! + BigInt(Math.round(100_000 + 500_000 * rand()));
  arrivals.push(k > 0 && at <= arrivals[k - 1]! ? arrivals[k - 1]! + 1n : at);
}
// joint 1 near its limit, so windows decide the verdict often
const torque = Array.from({ length: n }, () => 80 + 14 * rand());

const dir = mkdtempSync(join(tmpdir(), 'armguard-bench-'));
const path = join(dir, 'stamps.mcap');
await writeBagFile(path, async (w) => {
  await w.addTopic({ topic: FRANKA_TOPICS.robotState, type: FRANKA_TYPES.robotState, qos: [offeredQos('reliable')] });
  for (let k = 0; k < n; k++) {
    const s = frankaRobotState(stamps[k]!, 0);
    s.measured_joint_state.effort = [torque[k]!, 1, 1, 1, 1, 1, 1];
    await w.write(FRANKA_TOPICS.robotState, arrivals[k]!, s);
  }
});
const loaded = loadScoringSpec(defaultSpecPaths());
if (!loaded.ok) throw new Error(loaded.problems.join('\n'));
const spec = {
  ...loaded.spec,
  library: {
    ...loaded.spec.library,
    clauses: loaded.spec.library.clauses.map((c) =>
      c.id === 'joint_torque' ? { ...c, formula: `${WINDOW} (max_joint_torque < {tau})` } : c,
    ),
  },
};
const report = await replayFrankaBag(fileSource(path), {
  spec,
  platform: 'fr3',
  task: 'libero-spatial-pick-bowl',
  keepMargins: true,
});
rmSync(dir, { recursive: true, force: true });

const parsed = parseFormula(`${WINDOW} (max_joint_torque < 87)`, STL_SIGNALS);
if (!parsed.ok) throw new Error(parsed.error.message);
const columns = new Map([['max_joint_torque', Float64Array.from(torque)]]);
const rel = (ts: bigint[]) => Float64Array.from(ts, (t) => Number(t - ts[0]!));
const onStamps = evaluateOfflineNs(parsed.formula, rel(stamps), columns);
const onArrival = evaluateOfflineNs(parsed.formula, rel(arrivals), columns);
const live = report.margins!['joint_torque']!;

let liveDiff = 0;
let arrivalDiff = 0;
let arrivalVerdict = 0;
for (let k = 0; k < n; k++) {
  if (Math.abs(live[k]! * 87 - onStamps[k]!) > 1e-9) liveDiff++;
  if (onArrival[k] !== onStamps[k]) arrivalDiff++;
  if (onArrival[k]! < 0 !== onStamps[k]! < 0) arrivalVerdict++;
}
const pct = (x: number) => Number(((100 * x) / n).toFixed(3));
console.log(
  JSON.stringify(
    {
      samples: n,
      formula: `${WINDOW} (max_joint_torque < 87)`,
      stamp_jitter: 'Gaussian σ = 30 µs on 1 ms; every 10th gap exactly 5 ms',
      transport_delay: 'uniform 100–600 µs',
      live_samples_monitored: report.steps,
      live_rho_differs_from_semantics: liveDiff,
      at_arrival_rho_differs: { samples: arrivalDiff, percent: pct(arrivalDiff) },
      at_arrival_verdict_differs: { samples: arrivalVerdict, percent: pct(arrivalVerdict) },
    },
    null,
    2,
  ),
);
