import { beforeAll, describe, expect, it } from 'vitest';
import { so101Scene } from '../../../drivers/sim/scenes/so101.js';
import type { SimWorld } from '../../../drivers/sim/world.js';
import type { DlsIk } from '../../../drivers/sim/ik.js';
import { runEpisode } from '../../../drivers/sim/episode.js';
import { policyNamed, series, simWorld } from './support/sim-episode.js';

let world: SimWorld;
let ik: DlsIk;
const scene = so101Scene();

beforeAll(async () => ({ world, ik } = await simWorld(scene)));

describe('report-only diagnostics', () => {
  it('EE speed/acc/jerk are finite differences of the 5-step rolling-mean TCP path (naive reference)', () => {
    const p: number[][] = [[NaN, NaN, NaN]]; // p[k] = TCP after tick k-1; p[0] (reset pose) not observed
    const r = runEpisode(world, ik, policyNamed('clean'), {
      seed: 9,
      maxTicks: 120,
      onFrame: () => {
        const x = new Float64Array(3);
        world.tcpPos(x);
        p.push(Array.from(x));
      },
    });
    const dt = scene.controlDt;
    const smooth = (k: number): number[] =>
      [0, 1, 2].map((a) => (p[k]![a]! + p[k - 1]![a]! + p[k - 2]![a]! + p[k - 3]![a]! + p[k - 4]![a]!) / 5);
    const norm = (v: number[]): number => Math.hypot(...v);
    const speed = series(r, 'ee_speed');
    const acc = series(r, 'ee_acc');
    const jerk = series(r, 'ee_jerk');
    let moving = 0;
    for (let t = 10; t < 120; t++) {
      const k = t + 1;
      const s0 = smooth(k),
        s1 = smooth(k - 1),
        s2 = smooth(k - 2),
        s3 = smooth(k - 3);
      const v = norm(s0.map((x, a) => x - s1[a]!)) / dt;
      const a2 = norm(s0.map((x, a) => x - 2 * s1[a]! + s2[a]!)) / dt ** 2;
      const j3 = norm(s0.map((x, a) => x - 3 * s1[a]! + 3 * s2[a]! - s3[a]!)) / dt ** 3;
      expect(speed[t]).toBeCloseTo(v, 9);
      expect(acc[t]).toBeCloseTo(a2, 6);
      expect(jerk[t]).toBeCloseTo(j3, 4);
      if (v > 0.05) moving++;
    }
    expect(moving).toBeGreaterThan(10);
  });

  it('target speed, release speed and the no-furniture-contact flag follow their definitions', () => {
    const r = runEpisode(world, ik, policyNamed('clean'), { seed: 9 });
    const v = series(r, 'target_obj_speed');
    const rel = series(r, 'release_speed');
    const grip = series(r, 'gripper_contact');
    const noFurn = series(r, 'arm_no_furniture_contact');
    const af = series(r, 'arm_furniture_contact_force');
    for (let t = 0; t < r.ticks; t++) {
      expect(rel[t]).toBe(grip[t] === 1 ? 0 : v[t]);
      expect(noFurn[t]).toBe(af[t]! < 0.5 ? 1 : 0);
    }
    // Carried, the target moves; after the drop into the box it is released at some speed.
    expect(Math.max(...v)).toBeGreaterThan(0.05);
    expect(Math.max(...rel)).toBeGreaterThan(0.05);
  });
});
