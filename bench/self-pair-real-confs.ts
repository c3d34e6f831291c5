/**
 * The hardware CBF's self-collision pair (issue 15: `descriptionBarrier`'s self pair on the Franka,
 * `src/kinematics/self-collision-model.ts`) on the 1,010 real Panda configurations of
 * shared/data/franka-panda-good-confs (free of self-collision on the real arm, run without a hand):
 * per end effector, the smallest surface distance of the pair's capsules, its 1st percentile and
 * how many configurations come closer than the Franka's default self clearance (0.02 m) and than
 * that plus the planning margin (0.023 m) — poses where the pair would bind or bend a chunk.
 * Then the SO-101's pair (`run so101`, default 0.01 m + 0.003 m) on every frame of the real
 * LeRobot SO-101 recording (shared/data/so101-lerobot-record-test, `range_m100_100`).
 *
 *   ARMGUARD_SHARED=/path/to/shared npx tsx bench/self-pair-real-confs.ts
 */
import { join } from 'node:path';
import { CapsuleModel, PANDA_DESCRIPTION, selfCollisionModel } from '../src/kinematics/index.js';
import { readFile } from 'node:fs/promises';
import { FRANKA_PLANNING_MARGIN, FRANKA_SELF_CLEARANCE } from '../src/rigs/franka.js';
import { SO101_PLANNING_MARGIN, SO101_SELF_CLEARANCE } from '../src/rigs/so101.js';
import { SO101_DESCRIPTION } from '../src/kinematics/index.js';
import { parseSo101Calibration } from '../src/calibration/so101.js';
import { readLeRobotDataset } from '../drivers/so101/lerobot-dataset.js';
import { replayPositions } from '../drivers/so101/replay.js';
import { readPandaGoodConfs } from '../test/support/panda-good-confs.js';
import { repoRoot, sharedDir } from '../test/support/paths.js';

const confs = readPandaGoodConfs(join(sharedDir, 'data', 'franka-panda-good-confs', 'GOOD_CONFS_1010.txt'));
for (const ee of ['none', 'franka_hand'] as const) {
  const m = new CapsuleModel(selfCollisionModel(PANDA_DESCRIPTION, ee));
  const d = confs.map((q) => {
    m.update(q);
    return m.minSelfDistance();
  });
  d.sort((a, b) => a - b);
  const mm = (x: number): string => (x * 1000).toFixed(1);
  console.log(
    JSON.stringify({
      end_effector: ee,
      configurations: d.length,
      pairs: m.pairCount,
      smallest_mm: mm(d[0]!),
      p1_mm: mm(d[Math.floor(d.length * 0.01)]!),
      below_self_clearance: d.filter((x) => x < FRANKA_SELF_CLEARANCE).length,
      below_clearance_plus_margin: d.filter((x) => x < FRANKA_SELF_CLEARANCE + FRANKA_PLANNING_MARGIN).length,
    }),
  );
}

// the calibration derived from this recording (its joint ranges and gripper range)
const calPath = join(repoRoot, 'test', 'fixtures', 'so101-lerobot-record-test.calibration.yaml');
const cal = parseSo101Calibration(await readFile(calPath, 'utf8'), calPath);
if (!cal.ok) throw new Error(cal.problems.map((p) => p.message).join('\n'));
const ds = await readLeRobotDataset(join(sharedDir, 'data', 'so101-lerobot-record-test'));
if (!ds.ok) throw new Error(ds.error.message);
const so101 = new CapsuleModel(selfCollisionModel(SO101_DESCRIPTION, 'gripper'));
const frames: { d: number; episode: number; frame: number }[] = [];
ds.value.episodes.forEach((ep, e) =>
  replayPositions(ep, cal.value, {
    normMode: 'range_m100_100',
    stallGapPct: 3,
    onFrame: (q, frame) => {
      so101.update(q);
      frames.push({ d: so101.minSelfDistance(), episode: e, frame });
    },
  }),
);
frames.sort((a, b) => a.d - b.d);
const closest = frames[0]!;
console.log(
  JSON.stringify({
    data: 'so101-lerobot-record-test',
    frames: frames.length,
    pairs: so101.pairCount,
    smallest_mm: (closest.d * 1000).toFixed(1),
    at: `episode ${closest.episode} frame ${closest.frame}`,
    // the demo's 1 cm and its planned 1.3 cm, for comparison with the default
    below_10mm: frames.filter((f) => f.d < 0.01).length,
    below_13mm: frames.filter((f) => f.d < 0.013).length,
    p1_mm: (frames[Math.floor(frames.length * 0.01)]!.d * 1000).toFixed(1),
    below_self_clearance: frames.filter((f) => f.d < SO101_SELF_CLEARANCE).length,
    below_clearance_plus_margin: frames.filter((f) => f.d < SO101_SELF_CLEARANCE + SO101_PLANNING_MARGIN).length,
  }),
);
