/**
 * The Franka node with the warning band (issue 15) on the fake ROS graph: trajectories the CBF
 * passes go through the FR3's band (its description's kinematics vs the table plane; grip state
 * from the gripper's joint states) before the controller. Gripper width 3 cm: grasped (the
 * mapping's gripper_contact), 8 cm: open.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { FrankaNodeConfig } from '../../src/nodes/franka-node-config.js';
import { parseFrankaNodeConfig } from '../../src/nodes/franka-node-config.js';
import { FRANKA_RUN_ON } from '../../src/rigs/warning-band.js';
import { frankaTestConfig } from './support/franka-config.js';
import { frankaRig } from './support/franka-rig.js';
import {
  FR3_READY as READY,
  GRIPPER_OPEN as OPEN,
  frankaWorld,
  linearTrajectory,
  publishStates,
} from './support/franka-world.js';

const GRASPED = 0.03;

function setup(overrides: Partial<FrankaNodeConfig> = {}, width = OPEN) {
  const config = frankaTestConfig(overrides);
  const { clock, timers, graph, parts } = frankaRig(config);
  const world = frankaWorld(graph, config);
  const tick = (ms: number) => publishStates(world, timers, ms, { width });
  const propose = (id: string, end: number[], steps = 20, dt = 0.05) =>
    world.proposer.publish(linearTrajectory(id, clock.now(), READY, end, { steps, dt }));
  return { parts, tick, propose, toController: world.toController, results: world.results };
}

const LOWER = [0, -0.6, 0, -2.356, 0, 1.571, 0.785];

describe('Franka node: the warning band after the CBF (gate_mode gate)', () => {
  it('parameters: on by default where table_height is given (launch/params/fr3.yaml), off without it, switchable', () => {
    const base = (extra: string) =>
      `armguard:\n  ros__parameters:\n    robot_id: r\n    task: libero-spatial-pick-bowl\n${extra}`;
    const parse = (extra: string) => {
      const r = parseFrankaNodeConfig(base(extra), 'p.yaml');
      if (!r.ok) throw new Error(r.errors.map((e) => e.message).join('\n'));
      return r.config;
    };
    expect(parse('').warningBand).toBe(false);
    expect(parse('    table_height: 0.02\n').warningBand).toBe(true);
    expect(parse('    table_height: 0.02\n    warning_band: false\n').warningBand).toBe(false);
    expect(parse('    warning_band_run_on: 0.08\n').warningBandRunOn).toBe(0.08);
    const launch = parseFrankaNodeConfig(readFileSync('launch/params/fr3.yaml', 'utf8'), 'launch/params/fr3.yaml');
    expect(launch.ok && [launch.config.warningBand, launch.config.warningBandRunOn]).toEqual([true, FRANKA_RUN_ON]);
    const bad = parseFrankaNodeConfig(base('    warning_band: maybe\n'), 'p.yaml');
    expect(bad.ok).toBe(false);
  });

  it('lowering a grasped object: the trajectory is held from the first point predicted inside the slip band; the band is named in ~/chunk_result', () => {
    const s = setup({ warningBand: true, gateMode: 'gate' }, GRASPED);
    s.tick(50);
    expect(s.parts.pipeline.frame.get('gripper_contact')).toBe(1);
    s.propose('lower', LOWER);
    const r = s.results.at(-1)!;
    expect(r).toMatchObject({ verdict: 'filtered', band: { action: 'held', clause: 'stable_grasp_maintained' } });
    const band = r['band'] as { heldFrom: number; step: number };
    expect(band.heldFrom).toBe(band.step);
    expect(band.heldFrom).toBeGreaterThan(0);
    expect(r['reason']).toMatch(/warning band: arm held from step \d+ \(stable_grasp_maintained predicted margin/);
    const sent = s.toController.at(-1)!.points.map((p) => Array.from(p.positions));
    for (let k = 0; k < 20; k++) {
      const nominal = READY.map((q0, j) => q0 + ((Math.min(k, band.heldFrom - 1) + 1) / 20) * (LOWER[j]! - q0));
      sent[k]!.forEach((q, j) => expect(q).toBeCloseTo(nominal[j]!, 9));
    }
  });

  it('the same trajectory with the gripper open, or with warning_band false, reaches the controller unchanged', () => {
    for (const [overrides, width] of [
      [{ warningBand: true }, OPEN],
      [{ warningBand: false }, GRASPED],
    ] as const) {
      const s = setup({ ...overrides, gateMode: 'gate' }, width);
      s.tick(50);
      s.propose('lower', LOWER);
      expect(s.results.at(-1)).toMatchObject({ verdict: 'executed' });
      expect(s.results.at(-1)!['band']).toBeUndefined();
      expect(s.toController.at(-1)!.points.at(-1)!.positions[1]).toBeCloseTo(-0.6, 9);
    }
  });
});
