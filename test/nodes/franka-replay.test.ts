/**
 * `armguard replay` of a Franka rosbag2 file through the live node's code: a 2 s recording with a
 * wrist-torque spike is scored and gated exactly as the live node would.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileSource } from '../../drivers/ros2/bag/index.js';
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
    const report = await replayFrankaBag(fileSource(path), { spec: loaded.spec, platform: 'fr3', task: 'libero-spatial-pick-bowl' });

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
    for (const c of report.clauses.filter((c) => c.active && c.id !== 'joint_torque')) expect(c.firstViolation, c.id).toBeNull();
    const hold = report.gateEvents.find((e) => e.to === 'hold');
    expect(hold?.t).toBeCloseTo(1.2, 6);
    expect(hold?.cause).toMatch(/joint_torque violated/);
  });

  it('messages that cannot be decoded are counted per topic with the first time and reason, not replayed, and the rest still is', async () => {
    const loaded = loadScoringSpec(defaultSpecPaths());
    if (!loaded.ok) throw new Error(loaded.problems.join('\n'));
    const path = join(mkdtempSync(join(tmpdir(), 'armguard-replay-')), 'garbled.mcap');
    await writeFrankaBag(path, { seconds: 0.5, garbled: [100, 101, 300] });
    const report = await replayFrankaBag(fileSource(path), { spec: loaded.spec, platform: 'fr3', task: 'libero-spatial-pick-bowl' });
    expect(report.undecodable).toEqual([{ topic: '/franka_robot_state_broadcaster/robot_state', count: 3, firstError: expect.stringMatching(/^at 1700000000\.1 s: \S/) }]);
    expect(report.steps).toBe(500 - 3);
    expect(report.bag.messageCount).toBe(500 + Math.ceil(500 / 66));
  });
});
