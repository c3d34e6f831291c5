/**
 * The hardware CBF's self-collision pair (issue 15: `descriptionBarrier`'s self pair on the Franka,
 * `src/kinematics/self-collision-model.ts`) on the 1,010 real Panda configurations of
 * shared/data/franka-panda-good-confs (free of self-collision on the real arm, run without a hand):
 * per end effector, the smallest surface distance of the pair's capsules, its 1st percentile and
 * how many configurations come closer than the Franka's default self clearance (0.02 m) and than
 * that plus the planning margin (0.023 m) — poses where the pair would bind or bend a chunk.
 *
 *   ARMGUARD_SHARED=/path/to/shared npx tsx bench/self-pair-real-confs.ts
 */
import { join } from 'node:path';
import { CapsuleModel, PANDA_DESCRIPTION, selfCollisionModel } from '../src/kinematics/index.js';
import { FRANKA_PLANNING_MARGIN, FRANKA_SELF_CLEARANCE } from '../src/rigs/franka.js';
import { readPandaGoodConfs } from '../test/support/panda-good-confs.js';
import { sharedDir } from '../test/support/paths.js';

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
