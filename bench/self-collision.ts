/**
 * Issue 13 benchmark: self-collision false alarms on real arm data.
 *
 * 1. The 1,010 real Panda configurations of shared/data/franka-panda-good-confs: per model (Panda
 *    with no end effector, with the Franka Hand) the configurations flagged (clearance < 0) and the
 *    smallest clearance with its pair.
 * 2. Optionally a real Panda robot log (FrankaEmikaPandaDynModel matlab/data/Exciting_Traj/
 *    Trajectory_1/rbt_log: exciting_traj_{time,positions,velocity,torques}.txt, one value per line,
 *    7 per sample; ≈ 1 kHz, 21 s of free motion, no end effector): written as a real rosbag2 MCAP
 *    file of FrankaRobotState and replayed through the live node's code (`replayFrankaBag`, panda,
 *    end effector none); prints the self_collision_free clause's smallest margin (= clearance, m),
 *    its violating samples and the alarms per hour of motion.
 * 3. The SO-101 LeRobot dataset in shared/data/so101-lerobot-record-test (range_m100_100): smallest
 *    clearance and frames flagged over its episodes (time base: the dataset's timestamps).
 *
 *   ARMGUARD_SHARED=/path/to/shared npx tsx bench/self-collision.ts [rbt_log directory]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { armModel, CapsuleModel, PANDA_DESCRIPTION } from '../src/kinematics/index.js';
import { offeredQos } from '../src/mcap/index.js';
import { fileSource } from '../src/platform/file-source.js';
import { writeBagFile } from '../src/platform/bag-writer.js';
import { defaultSpecPaths, loadScoringSpec } from '../src/cli/spec-files.js';
import { replayFrankaBag } from '../src/nodes/franka-replay.js';
import { parseSo101Calibration } from '../src/calibration/so101.js';
import { readLeRobotDataset } from '../drivers/so101/lerobot-dataset.js';
import { replayPositions } from '../drivers/so101/replay.js';
import { frankaRobotState } from '../test/mcap/support/franka-fixtures.js';
import { readPandaGoodConfs } from '../test/support/panda-good-confs.js';
import { repoRoot, sharedDir } from '../test/support/paths.js';

const mm = (m: number) => `${(m * 1000).toFixed(1)} mm`;

// 1. good configurations
const confs = readPandaGoodConfs();
for (const ee of ['none', 'franka_hand'] as const) {
  const model = new CapsuleModel(armModel(PANDA_DESCRIPTION, ee));
  let min = Infinity,
    at = '',
    flagged = 0;
  const byPair = new Map<string, number>();
  for (const q of confs) {
    model.update(q);
    const d = model.minSelfDistance();
    const pair = model.pairName(model.nearestPair).replace(/#\d+/g, '');
    if (d < 0) {
      flagged++;
      byPair.set(pair, (byPair.get(pair) ?? 0) + 1);
    }
    if (d < min) {
      min = d;
      at = pair;
    }
  }
  console.log(
    JSON.stringify({
      data: 'franka-panda-good-confs',
      model: `panda + ${ee}`,
      pairs: model.pairCount,
      configurations: confs.length,
      flagged,
      smallest_clearance: mm(min),
      at,
      flagged_by_pair: Object.fromEntries(byPair),
    }),
  );
}

// 2. a real Panda robot log, replayed as a rosbag2 file through the live node's code
const logDir = process.argv[2];
if (logDir) {
  const column = (name: string, width: number): Float64Array => {
    const v = Float64Array.from(readFileSync(join(logDir, name), 'utf8').trim().split(/\s+/), Number);
    if (v.length % width !== 0 || !v.every(Number.isFinite))
      throw new Error(`${name}: expected ${width} finite numbers per sample`);
    return v;
  };
  const time = column('exciting_traj_time.txt', 1);
  const pos = column('exciting_traj_positions.txt', 7);
  const vel = column('exciting_traj_velocity.txt', 7);
  const tau = column('exciting_traj_torques.txt', 7);
  const n = time.length;
  if (pos.length !== 7 * n || vel.length !== 7 * n || tau.length !== 7 * n)
    throw new Error('positions/velocity/torques do not have 7 values per time sample');
  const dir = mkdtempSync(join(tmpdir(), 'armguard-selfcol-'));
  const bag = join(dir, 'panda-exciting-traj.mcap');
  const t0 = 1_700_000_000_000_000_000n;
  await writeBagFile(bag, async (w) => {
    await w.addTopic({
      topic: '/franka_robot_state_broadcaster/robot_state',
      type: 'franka_msgs/msg/FrankaRobotState',
      qos: [offeredQos('reliable')],
    });
    for (let k = 0; k < n; k++) {
      const ns = t0 + BigInt(Math.round(time[k]! * 1e9));
      const s = frankaRobotState(ns, 0);
      s.measured_joint_state.position = Array.from(pos.subarray(7 * k, 7 * k + 7));
      s.measured_joint_state.velocity = Array.from(vel.subarray(7 * k, 7 * k + 7));
      s.measured_joint_state.effort = Array.from(tau.subarray(7 * k, 7 * k + 7));
      s.o_f_ext_hat_k.wrench.force = { x: 0, y: 0, z: 0 };
      await w.write('/franka_robot_state_broadcaster/robot_state', ns, s);
    }
  });
  const spec = loadScoringSpec(defaultSpecPaths());
  if (!spec.ok) throw new Error(spec.problems.join('\n'));
  const report = await replayFrankaBag(fileSource(bag), {
    spec: spec.spec,
    platform: 'panda',
    endEffector: 'none',
    task: 'libero-spatial-pick-bowl',
  });
  rmSync(dir, { recursive: true, force: true });
  const self = report.clauses.find((c) => c.id === 'self_collision_free')!;
  const hours = report.duration / 3600;
  const selfHolds = report.gateEvents.filter((e) => e.to === 'hold' && /self_collision/.test(e.cause)).length;
  console.log(
    JSON.stringify({
      data: 'FrankaEmikaPandaDynModel Trajectory_1 rbt_log (real Panda, no end effector)',
      model: 'panda + none (replayFrankaBag)',
      samples: report.steps,
      duration_s: report.duration.toFixed(2),
      self_collision_free: {
        smallest_clearance: mm(self.minMargin),
        violating_samples: self.violatingSteps,
        gate_holds_for_self_collision: selfHolds,
        false_alarms_per_hour: (selfHolds / hours).toFixed(1),
      },
    }),
  );
}

// 3. SO-101 LeRobot dataset
const calPath = join(repoRoot, 'calibration', 'so101-demo.yaml');
const cal = parseSo101Calibration(await readFile(calPath, 'utf8'), calPath);
if (!cal.ok) throw new Error(cal.problems.map((p) => p.message).join('\n'));
const ds = await readLeRobotDataset(join(sharedDir, 'data', 'so101-lerobot-record-test'));
if (!ds.ok) throw new Error(ds.error.message);
let min = Infinity,
  frames = 0,
  flagged = 0,
  alarms = 0,
  seconds = 0;
for (const ep of ds.value.episodes) {
  const r = replayPositions(ep, cal.value, { normMode: 'range_m100_100', stallGapPct: 3 });
  const c = r.columns.get('self_collision_clearance')!;
  // An alarm: a run of consecutive frames with a negative (or NaN) clearance.
  c.forEach((v, i) => {
    if (!(v >= 0)) {
      flagged++;
      if (i === 0 || c[i - 1]! >= 0) alarms++;
    }
  });
  frames += c.length;
  min = Math.min(min, r.minSelfDistanceM);
  seconds += ep.times.length > 1 ? ep.times[ep.times.length - 1]! - ep.times[0]! : 0;
}
console.log(
  JSON.stringify({
    data: 'so101-lerobot-record-test (range_m100_100)',
    model: 'so101 + gripper',
    episodes: ds.value.episodes.length,
    frames,
    duration_s: seconds.toFixed(1),
    flagged_frames: flagged,
    alarms,
    false_alarms_per_hour: (alarms / (seconds / 3600)).toFixed(1),
    smallest_clearance: mm(min),
  }),
);
