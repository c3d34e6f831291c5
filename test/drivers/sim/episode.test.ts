import { beforeAll, describe, expect, it } from 'vitest';
import { so101Scene } from '../../../drivers/sim/scenes/so101.js';
import type { SimWorld } from '../../../drivers/sim/world.js';
import type { DlsIk } from '../../../drivers/sim/ik.js';
import { CHUNK_HORIZON } from '../../../drivers/sim/policies.js';
import { runEpisode } from '../../../drivers/sim/episode.js';
import type { JointChunk } from '../../../src/ports/index.js';
import { policyNamed, series, simWorld } from './support/sim-episode.js';

let world: SimWorld;
let ik: DlsIk;
const scene = so101Scene();

beforeAll(async () => ({ world, ik } = await simWorld(scene)));

describe('episode hooks for the gate', () => {
  it('the chunk gate sees every 50-step chunk at 30 Hz; holding all of them leaves the task undone', () => {
    const seen: JointChunk[] = [];
    const r = runEpisode(world, ik, policyNamed('clean'), {
      seed: 2,
      gate: (chunk) => {
        seen.push(chunk);
        return null;
      },
    });
    expect(seen).toHaveLength(r.ticks / CHUNK_HORIZON);
    for (const c of seen) {
      expect(c.horizon).toBe(50);
      expect(c.joints).toBe(6);
      expect(c.dt).toBeCloseTo(1 / 30, 12);
    }
    expect(r.holds).toBe(seen.length);
    expect(r.outcome.success).toBe(false);
    expect(Math.max(...series(r, 'gripper_contact'))).toBe(0);
  });

  it('a per-tick monitor that holds (latched) on bystander displacement stops the shove mid-chunk', () => {
    const free = runEpisode(world, ik, policyNamed('shove_bystander'), { seed: 2 });
    let latched = false;
    const held = runEpisode(world, ik, policyNamed('shove_bystander'), {
      seed: 2,
      monitor: (frame) => {
        if (frame.get('non_target_disp_max') > 0.002) latched = true;
        return latched ? 'hold' : 'continue';
      },
      gate: (chunk) => (latched ? null : chunk),
    });
    expect(held.holds).toBeGreaterThan(0);
    const peakFree = Math.max(...series(free, 'non_target_disp_max'));
    const peakHeld = Math.max(...series(held, 'non_target_disp_max'));
    expect(peakFree).toBeGreaterThan(0.005);
    expect(peakHeld).toBeLessThan(peakFree / 2);
  });
});
