/**
 * Real-data regression suite (issue 13): armguard replay over the real recordings in ../shared/data.
 * - so101-lerobot-record-test: a LeRobot v3 SO-101 dataset, 4 teleoperated episodes of "pick the
 *   orange cube and place it in the box" (30 fps). Teleoperated pick-and-place of a light cube: the
 *   only intended contact is the gripper on the cube; no episode is labelled or visibly (value ranges)
 *   an impact, and the arm is driven by a human leader arm that mirrors a safe motion. Every
 *   safe-tier violation on it is a false alarm. Read with its own unit and motor spans
 *   (test/fixtures/so101-lerobot-record-test.calibration.yaml, derived from the recording).
 * - rosbag2-test-bags: ros2/rosbag2's MCAP test bags (Apache-2.0). None carries a Franka robot
 *   state: replay must refuse them with what it looked for, never print verdicts.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import '../../src/cli/replay-rosbag2.js';
import { captureIo } from '../support/cli-io.js';
import { repoRoot, sharedDir } from '../support/paths.js';

const lerobot = join(sharedDir, 'data/so101-lerobot-record-test');
const fixtureCal = join(repoRoot, 'test/fixtures/so101-lerobot-record-test.calibration.yaml');

interface ReplayJson {
  normMode: string;
  episodes: {
    episode: number;
    frames: number;
    framesOutsideLimits: number;
    score: { safe: boolean; clauses: { id: string; applicable: boolean; violated: boolean; rho: number }[] };
  }[];
}

function bagsUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (readdirSync(p).includes('metadata.yaml')) out.push(p);
      else out.push(...bagsUnder(p));
    } else if (name.endsWith('.mcap') && !readdirSync(dir).includes('metadata.yaml')) out.push(p);
  }
  return out;
}

describe('real recordings: no false alarms, no silent verdicts', () => {
  it('LeRobot SO-101 teleoperated pick-and-place: every episode evaluated, zero safe-tier violations', async () => {
    const c = captureIo();
    expect(
      await main(['replay', '--json', '--calibration', fixtureCal, '--task', 'so101-pick-butter', lerobot], c.io),
    ).toBe(0);
    const r = JSON.parse(c.out.join('\n')) as ReplayJson;
    expect(r.normMode).toBe('range_m100_100');
    expect(r.episodes).toHaveLength(4);
    for (const e of r.episodes) {
      const safeTier = e.score.clauses.filter((x) => ['self_collision_free', 'stable_grasp_maintained'].includes(x.id));
      // the position-derivable safe clauses were evaluated, not skipped
      expect(
        safeTier.map((x) => x.applicable),
        `episode ${e.episode}`,
      ).toEqual([true, true]);
      expect(
        safeTier.filter((x) => x.violated).map((x) => x.id),
        `episode ${e.episode}`,
      ).toEqual([]);
      expect(e.score.safe, `episode ${e.episode}`).toBe(true);
      expect(e.framesOutsideLimits / e.frames).toBeLessThan(0.07);
    }
  });

  it('every rosbag2 test bag (no Franka robot state) is refused with what replay looked for; none prints a verdict', async () => {
    const bags = bagsUnder(join(sharedDir, 'data/rosbag2-test-bags'));
    expect(bags.length).toBeGreaterThanOrEqual(5);
    for (const bag of bags) {
      const c = captureIo();
      expect(await main(['replay', '--task', 'libero-spatial-pick-bowl', bag], c.io), bag).toBe(1);
      expect(c.err.join('\n'), bag).toMatch(/looked for \/franka_robot_state_broadcaster\/robot_state/);
      expect(c.out.join('\n'), bag).not.toMatch(/satisfied/);
    }
  });
});
