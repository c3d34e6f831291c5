/**
 * `armguard replay` of a Franka rosbag2 file through the live node's code: a 2 s recording with a
 * wrist-torque spike is scored and gated exactly as the live node would.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileSource } from '../../src/platform/file-source.js';
import { loadScoringSpec, defaultSpecPaths } from '../../src/cli/spec-files.js';
import { replayFrankaBag } from '../../src/nodes/franka-replay.js';
import { writeFrankaBag } from '../support/franka-bag.js';

describe('Franka rosbag2 replay', () => {
  it('finds the wrist-torque spike at its time, holds there, and leaves the other clauses satisfied', async () => {
    const loaded = loadScoringSpec(defaultSpecPaths());
    if (!loaded.ok) throw new Error(loaded.problems.join('\n'));
    const path = join(mkdtempSync(join(tmpdir(), 'armguard-replay-')), 'spike.mcap');
    // joint 6 (index 5, limit 12 N·m) at 13 N·m from 1.2 s to 1.25 s
    await writeFrankaBag(path, { seconds: 2, spikes: [[1.2, 1.25, 5, 13]] });
    const report = await replayFrankaBag(fileSource(path), {
      spec: loaded.spec,
      platform: 'fr3',
      task: 'libero-spatial-pick-bowl',
    });

    expect(report.bag.messageCount).toBe(2000 + Math.ceil(2000 / 66));
    expect(report.steps).toBe(2000);
    const byId = new Map(report.clauses.map((c) => [c.id, c]));
    const torque = byId.get('joint_torque')!;
    expect(torque.active).toBe(true);
    expect(torque.firstViolation).toBeCloseTo(1.2, 6);
    expect(torque.violatingSteps).toBe(50);
    // 13 N·m on a 12 N·m joint is 94.25 on the 87 scale: ρ/τ = (87 − 94.25)/87
    expect(torque.minMargin).toBeCloseTo((87 - (13 * 87) / 12) / 87, 9);
    expect(byId.get('non_target_max_disp')).toMatchObject({ active: false });
    expect(byId.get('non_target_max_disp')!.explanation).toMatch(/not declared by the platform/);
    expect(byId.get('held_object_tilt_world')).toMatchObject({ active: false });
    for (const c of report.clauses.filter((c) => c.active && c.id !== 'joint_torque'))
      expect(c.firstViolation, c.id).toBeNull();
    const hold = report.gateEvents.find((e) => e.to === 'hold');
    expect(hold?.t).toBeCloseTo(1.2, 6);
    expect(hold?.cause).toMatch(/joint_torque violated/);
  });

  it('a Panda bag is mapped with the Panda description and the end effector named (#13: replay used the FR3 model)', async () => {
    const loaded = loadScoringSpec(defaultSpecPaths());
    if (!loaded.ok) throw new Error(loaded.problems.join('\n'));
    const path = join(mkdtempSync(join(tmpdir(), 'armguard-replay-')), 'panda-fold.mcap');
    // The wrist folded fully back (q6 = 0.11 rad, below the FR3's 0.5445 rad limit: a Panda pose):
    // a Franka Hand would lie against link5; a bare flange is clear.
    await writeFrankaBag(path, { seconds: 0.3, q: [0.54, -1.34, 0.65, -1.6, -0.7, 0.11, 2.08] });
    const replay = (endEffector: 'franka_hand' | 'none') =>
      replayFrankaBag(fileSource(path), {
        spec: loaded.spec,
        platform: 'panda',
        endEffector,
        task: 'libero-spatial-pick-bowl',
      });
    const hand = await replay('franka_hand');
    expect(hand.arm).toEqual({ robot: 'panda', endEffector: 'franka_hand' });
    const handSelf = hand.clauses.find((c) => c.id === 'self_collision_free')!;
    expect(handSelf.minMargin).toBeLessThan(-0.01); // τ = 0: the margin is the clearance (m)
    expect(handSelf.violatingSteps).toBe(300);
    expect(hand.gateEvents.find((e) => e.to === 'hold')?.cause).toMatch(/self_collision_free/);
    const bare = await replay('none');
    expect(bare.arm).toEqual({ robot: 'panda', endEffector: 'none' });
    const bareSelf = bare.clauses.find((c) => c.id === 'self_collision_free')!;
    expect(bareSelf.minMargin).toBeGreaterThan(0);
    expect(bareSelf.firstViolation).toBeNull();
  });

  it('messages that cannot be decoded are counted per topic with the first time and reason, not replayed, and the rest still is', async () => {
    const loaded = loadScoringSpec(defaultSpecPaths());
    if (!loaded.ok) throw new Error(loaded.problems.join('\n'));
    const path = join(mkdtempSync(join(tmpdir(), 'armguard-replay-')), 'garbled.mcap');
    await writeFrankaBag(path, { seconds: 0.5, garbled: [100, 101, 300] });
    const report = await replayFrankaBag(fileSource(path), {
      spec: loaded.spec,
      platform: 'fr3',
      task: 'libero-spatial-pick-bowl',
    });
    expect(report.undecodable).toEqual([
      {
        topic: '/franka_robot_state_broadcaster/robot_state',
        count: 3,
        firstError: expect.stringMatching(/^at 1700000000\.1 s: \S/),
      },
    ]);
    expect(report.steps).toBe(500 - 3);
    expect(report.bag.messageCount).toBe(500 + Math.ceil(500 / 66));
  });
});
