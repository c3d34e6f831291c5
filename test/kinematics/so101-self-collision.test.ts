import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { armModel, CapsuleModel, SO101_DESCRIPTION } from '../../src/kinematics/index.js';
import { parseSo101Calibration } from '../../src/calibration/so101.js';
import { readLeRobotDataset } from '../../drivers/so101/lerobot-dataset.js';
import { replayPositions } from '../../drivers/so101/replay.js';
import { repoRoot, sharedDir } from '../support/paths.js';

const linkPair = (name: string): string => name.replace(/#\d+/g, '');

describe('SO-101 self-collision model (spheres fitted to so101_new_calib.urdf meshes)', () => {
  it('reads no self-collision on any frame of the real teleoperated dataset so101-lerobot-record-test (4 episodes)', async () => {
    // Old model (one estimated capsule per link): episode 3 frames 286–289 read −8.1 mm (base–gripper).
    const calPath = join(repoRoot, 'calibration', 'so101-demo.yaml');
    const cal = parseSo101Calibration(await readFile(calPath, 'utf8'), calPath);
    if (!cal.ok) throw new Error('calibration');
    const ds = await readLeRobotDataset(join(sharedDir, 'data', 'so101-lerobot-record-test'));
    if (!ds.ok) throw new Error(ds.error.message);
    expect(ds.value.episodes).toHaveLength(4);
    let frames = 0;
    for (const ep of ds.value.episodes) {
      const r = replayPositions(ep, cal.value, { normMode: 'range_m100_100', stallGapPct: 3 });
      const c = r.columns.get('self_collision_clearance')!;
      frames += c.length;
      expect(Array.from(c).filter((v) => !(v >= 0))).toEqual([]);
      expect(r.minSelfDistanceM).toBeGreaterThan(0.002);
    }
    expect(frames).toBe(1492);
  }, 60_000);

  // Configurations where the URDF collision meshes intersect (found by sampling the meshes offline:
  // 120 surface samples of gripper_link within 1 mm of base_link's mesh; 11 of gripper_link within
  // 1 mm of upper_arm_link's, with the wrist flexed to its limit and the elbow folded).
  it.each([
    ['the gripper driven into the base', [1.856, 0.736, 1.646, -0.345, 0.212, 0], 'base–gripper'],
    ['the gripper driven into the upper arm', [-1.759, 0.78, 1.22, 1.644, -1.192, 0], 'upper_arm–gripper'],
  ])('%s reads a negative clearance on that pair', (_what, q, pair) => {
    const model = new CapsuleModel(armModel(SO101_DESCRIPTION, 'gripper'));
    model.update(q);
    expect(model.minSelfDistance()).toBeLessThan(0);
    let ofPair = Infinity;
    for (let p = 0; p < model.pairCount; p++)
      if (linkPair(model.pairName(p)) === pair) ofPair = Math.min(ofPair, model.pairDistance(p));
    expect(ofPair).toBeLessThan(0);
  });

  it('checks exactly the link pairs that neither touch at rest nor are kept apart by the limits', () => {
    const model = new CapsuleModel(armModel(SO101_DESCRIPTION, 'gripper'));
    const checked = new Set<string>();
    for (let p = 0; p < model.pairCount; p++) checked.add(linkPair(model.pairName(p)));
    expect([...checked].sort()).toEqual([
      'base–gripper',
      'base–jaw',
      'base–lower_arm',
      'base–wrist',
      'upper_arm–gripper',
      'upper_arm–jaw',
    ]);
  });

  it('every allowed pair carries a reason and names two different links', () => {
    const all = [...SO101_DESCRIPTION.selfCollision.allowed, ...SO101_DESCRIPTION.endEffectors.gripper!.allowed];
    for (const a of all) {
      expect(['adjacent', 'default', 'never', 'always']).toContain(a.reason);
      expect(a.links[0]).not.toBe(a.links[1]);
    }
    expect(new Set(all.map((a) => [...a.links].sort().join('|'))).size).toBe(all.length);
  });
});
