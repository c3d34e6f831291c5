import { beforeAll, describe, expect, it } from 'vitest';
import { loadMujoco } from '../../../drivers/sim/mujoco.js';
import { so101Scene } from '../../../drivers/sim/scenes/so101.js';
import { SimWorld } from '../../../drivers/sim/world.js';
import { DlsIk } from '../../../drivers/sim/ik.js';
import { runEpisode } from '../../../drivers/sim/episode.js';
import { signalIndex } from '../../../src/schema/signals.js';
import { policyNamed, series } from './support/sim-episode.js';

let world: SimWorld;
let ik: DlsIk;
const scene = so101Scene();
const shove = policyNamed('shove_bystander');
const DISP = signalIndex('non_target_disp_max')!;

beforeAll(async () => {
  const mj = await loadMujoco();
  world = new SimWorld(mj, scene);
  ik = new DlsIk(mj, world);
});

describe('simulated bystander tracking', () => {
  it('latency shifts the displacement series by exactly that many ticks and stamps samples when they were taken', () => {
    const exact = series(runEpisode(world, ik, shove, { seed: 3, maxTicks: 120 }), 'non_target_disp_max');
    const lags: number[] = [];
    const late = runEpisode(world, ik, shove, {
      seed: 3,
      maxTicks: 120,
      tracking: { positionNoise: 0, latencyTicks: 3, seed: 1 },
      onFrame: (f) => {
        lags.push(f.t - f.stamps[DISP]!);
        expect(f.sources[DISP]).toBe('sim.tracking');
      },
    });
    const d = series(late, 'non_target_disp_max');
    expect(Math.max(...exact)).toBeGreaterThan(0.005);
    for (let t = 0; t < 120; t++) expect(d[t]).toBe(t >= 3 ? exact[t - 3] : 0);
    expect(lags[60]).toBeCloseTo(3 * scene.controlDt, 9);
  });

  it('position noise shows as small, seeded, varying displacement on untouched bystanders', () => {
    const run = (seed: number): Float64Array =>
      series(
        runEpisode(world, ik, policyNamed('clean'), {
          seed: 3,
          maxTicks: 40,
          tracking: { positionNoise: 0.001, latencyTicks: 0, seed },
        }),
        'non_target_disp_max',
      );
    const a = run(5);
    const b = run(5);
    const c = run(6);
    expect(Array.from(b)).toEqual(Array.from(a));
    expect(Array.from(c)).not.toEqual(Array.from(a));
    for (const x of a) {
      expect(x).toBeGreaterThan(0);
      expect(x).toBeLessThan(0.008);
    }
    expect(new Set(a).size).toBeGreaterThan(30);
  });
});
