import { describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../src/cli/main.js';
import '../../src/cli/replay-rosbag2.js';
import { writeFrankaBag } from '../support/franka-bag.js';
import { sharedDir } from '../support/paths.js';
import { captureIo } from '../support/cli-io.js';

describe('armguard replay <bag.mcap>', () => {
  it('replays a Franka bag and prints the violation and the hold', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'armguard-cli-replay-')), 'spike.mcap');
    await writeFrankaBag(path, { seconds: 0.5, spikes: [[0.3, 0.31, 0, 90]] });
    const c = captureIo();
    expect(await main(['replay', path, '--task', 'libero-spatial-pick-bowl'], c.io)).toBe(0);
    const text = c.out.join('\n');
    expect(text).toMatch(/joint_torque\s+min ρ\/\|τ\| -0\.034\s+VIOLATED first at 0\.300 s \(10 steps\)/);
    expect(text).toMatch(/non_target_max_disp\s+— not applicable/);
    expect(text).toMatch(/0\.300 s {2}armed → hold: clause joint_torque violated/);
  });
  it('says how many messages could not be decoded, on which topic, first when and why', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'armguard-cli-replay-')), 'garbled.mcap');
    await writeFrankaBag(path, { seconds: 0.2, garbled: [50, 60] });
    const c = captureIo();
    expect(await main(['replay', path, '--task', 'libero-spatial-pick-bowl'], c.io)).toBe(0);
    expect(c.err.join('\n')).toMatch(/garbled\.mcap: 2 message\(s\) on \/franka_robot_state_broadcaster\/robot_state could not be decoded and were not replayed \(first at 1700000000\.05 s: /);
  });
  it('--platform and --end-effector pick the arm description; the output says which, and a wrong value is a usage error', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'armguard-cli-replay-')), 'calm.mcap');
    await writeFrankaBag(path, { seconds: 0.05 });
    const c = captureIo();
    expect(await main(['replay', path, '--task', 'libero-spatial-pick-bowl', '--platform', 'panda', '--end-effector', 'none'], c.io)).toBe(0);
    expect(c.out.join('\n')).toMatch(/arm: panda with end effector none/);
    const bad = captureIo();
    expect(await main(['replay', path, '--task', 'libero-spatial-pick-bowl', '--end-effector', 'gripper'], bad.io)).toBe(2);
    expect(bad.err.join('\n')).toMatch(/--end-effector must be franka_hand or none, got 'gripper'/);
  });
  it('a bag replay without --task says why it needs one', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'armguard-cli-replay-')), 'calm.mcap');
    await writeFrankaBag(path, { seconds: 0.05 });
    const c = captureIo();
    expect(await main(['replay', path], c.io)).toBe(2);
    expect(c.err.join('\n')).toMatch(/needs --task/);
  });
  it('a real rosbag2 test bag without Franka topics replays with no samples', async () => {
    const c = captureIo();
    const bag = join(sharedDir, 'data/rosbag2-test-bags/rosbag2_py/test/resources/mcap/talker');
    expect(await main(['replay', bag, '--task', 'libero-spatial-pick-bowl'], c.io)).toBe(0);
    expect(c.out.join('\n')).toMatch(/0 robot-state samples/);
  });
});
