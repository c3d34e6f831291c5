/**
 * `armguard run so101 --obstacles`: fixed spheres reach the chunk filter's barrier. The same safe
 * chunk executes without obstacles and is held when a sphere sits on the gripper (the present
 * position is already inside d_safe), on the runtime `run` builds (kinematic arm, scripted signals).
 */
import { describe, expect, it } from 'vitest';
import { so101Rig } from '../../src/rigs/so101.js';
import { Session } from '../../src/runtime/session.js';
import { defaultSpecPaths, loadScoringSpec } from '../../src/cli/spec-files.js';
import { defaultSo101Calibration } from '../../src/calibration/so101-defaults.js';
import { so101ModelFor } from '../../drivers/so101/mapping.js';
import { CapsuleModel } from '../../src/kinematics/index.js';
import { SIGNALS, type SignalFrame } from '../../src/schema/signals.js';
import type { ExecutedChunk } from '../../src/gate/index.js';
import { KinematicArm } from '../runtime/support/kinematic-arm.js';

const Q0 = [0, -0.5, 0.5, 0.5, 0, 0.3];

/** The kinematic arm (CommandSink, JointStateSource, fault listeners) plus a source that delivers every signal at a benign value. */
class QuietArm extends KinematicArm {
  poll(frame: SignalFrame, now: number): void {
    SIGNALS.forEach((_, i) => frame.set(i, 0, now, 'test'));
  }
}

function runChunk(obstacles: number[] | undefined): ExecutedChunk {
  const spec = loadScoringSpec(defaultSpecPaths());
  if (!spec.ok) throw new Error(spec.problems.join('\n'));
  const calibration = defaultSo101Calibration('t', 12);
  const arm = new QuietArm(Q0, 0);
  const { rig } = so101Rig({
    spec: spec.spec,
    calibration,
    task: 'sim-pick-cup-into-box',
    arm,
    clock: { now: () => 0.01 },
    ...(obstacles ? { obstacles } : {}),
  });
  const rt = new Session({ rig, gating: true, task: 'sim-pick-cup-into-box', log: () => undefined });
  rt.pipeline.step(0.01);
  expect(rt.gate.holding).toBe(false);
  const targets = new Float64Array(10 * 6);
  for (let k = 0; k < 10; k++)
    for (let j = 0; j < 6; j++) targets[k * 6 + j] = Q0[j]! + (j === 0 ? 0.005 * (k + 1) : 0);
  return rt.pipeline.submitChunk({ id: 'c1', stamp: 0.01, horizon: 10, joints: 6, dt: 0.02, targets }, 0.01);
}

describe('run so101 --obstacles reaches the chunk filter', () => {
  it('a small safe chunk executes without obstacles and is held with a sphere on the gripper', () => {
    expect(runChunk(undefined).verdict).toBe('executed');
    const model = new CapsuleModel(so101ModelFor(defaultSo101Calibration('t', 12)));
    model.update(Q0);
    const k = model.count - 1;
    const tip = Array.from(model.world.subarray(6 * k + 3, 6 * k + 6));
    const held = runChunk([...tip, 0.02]);
    expect(held.verdict).toBe('held');
    expect(held.reason).toMatch(/present position already inside the safety distance/);
  });
});
