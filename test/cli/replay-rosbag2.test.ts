import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
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
    expect(c.err.join('\n')).toMatch(
      /garbled\.mcap: 2 message\(s\) on \/franka_robot_state_broadcaster\/robot_state could not be decoded and were not replayed \(first at 1700000000\.05 s: /,
    );
  });
  it('--platform and --end-effector pick the arm description; the output says which, and a wrong value is a usage error', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'armguard-cli-replay-')), 'calm.mcap');
    await writeFrankaBag(path, { seconds: 0.05 });
    const c = captureIo();
    expect(
      await main(
        ['replay', path, '--task', 'libero-spatial-pick-bowl', '--platform', 'panda', '--end-effector', 'none'],
        c.io,
      ),
    ).toBe(0);
    expect(c.out.join('\n')).toMatch(/arm: panda with end effector none/);
    const bad = captureIo();
    expect(
      await main(['replay', path, '--task', 'libero-spatial-pick-bowl', '--end-effector', 'gripper'], bad.io),
    ).toBe(2);
    expect(bad.err.join('\n')).toMatch(/--end-effector must be franka_hand or none, got 'gripper'/);
  });
  it('a bag replay without --task says why it needs one', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'armguard-cli-replay-')), 'calm.mcap');
    await writeFrankaBag(path, { seconds: 0.05 });
    const c = captureIo();
    expect(await main(['replay', path], c.io)).toBe(2);
    expect(c.err.join('\n')).toMatch(/needs --task/);
  });
  it('a real rosbag2 bag without a Franka robot-state topic: says what it looked for and found, no verdicts, exit 1', async () => {
    // ros2/rosbag2's talker test bag (../shared/data/rosbag2-test-bags, Apache-2.0): /topic and /rosout only
    const c = captureIo();
    const bag = join(sharedDir, 'data/rosbag2-test-bags/rosbag2_py/test/resources/mcap/talker');
    expect(await main(['replay', bag, '--task', 'libero-spatial-pick-bowl'], c.io)).toBe(1);
    const err = c.err.join('\n');
    expect(err).toMatch(
      /looked for \/franka_robot_state_broadcaster\/robot_state \(franka_msgs\/msg\/FrankaRobotState\), found \/rosout \(rcl_interfaces\/msg\/Log, 10\)/,
    );
    expect(err).toMatch(/\/topic \(std_msgs\/msg\/String, 10\)/);
    expect(err).toMatch(/no clause was evaluated/);
    expect(c.out.join('\n')).not.toMatch(/satisfied/);
  });
  it('an empty .mcap and a corrupt .mcap are errors naming the file, exit 1, no verdicts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'armguard-cli-replay-'));
    const empty = join(dir, 'empty.mcap');
    writeFileSync(empty, new Uint8Array(0));
    const corrupt = join(dir, 'corrupt.mcap');
    writeFileSync(
      corrupt,
      Uint8Array.from({ length: 4096 }, (_, i) => (i * 131 + 7) & 0xff),
    );
    for (const [file, why] of [
      [empty, /empty\.mcap: no messages/],
      [corrupt, /corrupt\.mcap: not a readable MCAP file: corrupt at byte 0/],
    ] as const) {
      const c = captureIo();
      expect(await main(['replay', file, '--task', 'libero-spatial-pick-bowl'], c.io), file).toBe(1);
      expect(c.err.join('\n')).toMatch(why);
      expect(c.out.join('\n')).not.toMatch(/satisfied/);
    }
  });
  it('a bag whose tail is corrupt: verdicts for what was read, the file and byte named, exit 1', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'armguard-cli-replay-')), 'tail.mcap');
    await writeFrankaBag(path, { seconds: 0.2 });
    const bytes = readFileSync(path);
    bytes.fill(0x5a, bytes.length - 200);
    writeFileSync(path, bytes);
    const c = captureIo();
    expect(await main(['replay', path, '--task', 'libero-spatial-pick-bowl'], c.io)).toBe(1);
    expect(c.err.join('\n')).toMatch(/tail\.mcap: not a readable MCAP file: corrupt at byte \d+/);
    expect(c.err.join('\n')).toMatch(/cover only the part of the recording that could be read/);
  });
  it('a clause whose signal never arrived reads "not evaluated: signal X missing", not satisfied', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'armguard-cli-replay-')), 'nogripper.mcap');
    await writeFrankaBag(path, { seconds: 0.3, gripper: false });
    const c = captureIo();
    expect(await main(['replay', path, '--task', 'libero-spatial-pick-bowl'], c.io)).toBe(0);
    const text = c.out.join('\n');
    expect(text).toMatch(/stable_grasp_maintained\s+not evaluated: signal gripper_contact missing/);
    expect(text).not.toMatch(/stable_grasp_maintained.*satisfied/);
    expect(text).toMatch(/joint_torque\s+min ρ\/\|τ\| \S+\s+satisfied/);
  });
  it(
    'a record on a second time base (Unix time after a monotonic-clock recording) ends the replay there with an error, instead of stepping through decades',
    { timeout: 30_000 },
    async () => {
      const path = join(mkdtempSync(join(tmpdir(), 'armguard-cli-replay-')), 'two-clocks.mcap');
      // robot state on a monotonic clock (12 s since boot), then one message stamped at Unix time
      await writeFrankaBag(path, { seconds: 0.2, startNs: 12_000_000_000n, lateMessageNs: 1_764_400_000_000_000_000n });
      const c = captureIo();
      expect(await main(['replay', path, '--task', 'libero-spatial-pick-bowl'], c.io)).toBe(1);
      expect(c.out.join('\n')).toMatch(/200 robot-state samples/);
      expect(c.err.join('\n')).toMatch(
        /log time jumps by 1\.764e\+9 s at 0\.199 s \(next message on \/franka_gripper\/joint_states\): a second time base in one recording; replay stopped there, 1 message\(s\) after the jump not replayed/,
      );
    },
  );
  it('a split bag (metadata.yaml + two files) is replayed file after file: a spike in the second file is found', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'armguard-cli-replay-split-'));
    const t0 = 1_700_000_000_000_000_000n;
    await writeFrankaBag(join(dir, 'split_0.mcap'), { seconds: 0.5, startNs: t0 });
    // second file starts 0.5 s later; its spike (joint 0 at 90 N·m) is 0.6 s into the bag
    await writeFrankaBag(join(dir, 'split_1.mcap'), {
      seconds: 0.5,
      startNs: t0 + 500_000_000n,
      spikes: [[0.1, 0.11, 0, 90]],
    });
    writeFileSync(
      join(dir, 'metadata.yaml'),
      [
        'rosbag2_bagfile_information:',
        '  version: 5',
        '  storage_identifier: mcap',
        '  relative_file_paths:',
        '    - split_0.mcap',
        '    - split_1.mcap',
        '',
      ].join('\n'),
    );
    const c = captureIo();
    expect(await main(['replay', dir, '--task', 'libero-spatial-pick-bowl'], c.io)).toBe(0);
    const text = c.out.join('\n');
    expect(text).toMatch(/\(2 files\): \d+ messages, 0\.999 s, 1000 robot-state samples/);
    expect(text).toMatch(/joint_torque\s+min ρ\/\|τ\| -0\.034\s+VIOLATED first at 0\.600 s \(10 steps\)/);
  });
});
