/**
 * The fragile-obstacle scene's placements (issue 15): the bottle stands on the bare table, on the
 * cup→box line, clear of the riser and the box — and, in real MuJoCo, it is still standing where it
 * was placed when the world has settled (a bottle placed into the box's wall was shoved out by the
 * contact solver during the settle and toppled with no arm near it: SO-101 seed 3 before the fix).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  BottleObserver,
  FRAGILE_PLACEMENT_XY,
  fragilePlacement,
  fragileScene,
  loadMujoco,
  SimWorld,
  type FragileArm,
  type Mujoco,
} from '../../../drivers/sim/index.js';
import { PANDA_LAYOUT } from '../../../drivers/sim/scenes/panda.js';
import { SO101_LAYOUT } from '../../../drivers/sim/scenes/so101.js';

/** Least gap the scene promises between the bottle's footprint and the riser's or the box's (m). */
const GAP: Readonly<Record<FragileArm, number>> = { so101: 0.05, panda: 0.01 };
const LAYOUT = { so101: SO101_LAYOUT, panda: PANDA_LAYOUT } as const;
const BOTTLE_RADIUS = { so101: 0.015, panda: 0.03 } as const;

/** Distance from a circle's centre to an axis-aligned square, sampled on the square's outline. */
function toSquareSampled(p: readonly [number, number], c: readonly [number, number], half: number): number {
  if (Math.abs(p[0] - c[0]) <= half && Math.abs(p[1] - c[1]) <= half) return 0;
  let best = Infinity;
  const n = 2000;
  for (let i = 0; i <= n; i++) {
    const s = -half + (2 * half * i) / n;
    for (const [x, y] of [
      [c[0] + s, c[1] - half],
      [c[0] + s, c[1] + half],
      [c[0] - half, c[1] + s],
      [c[0] + half, c[1] + s],
    ] as const)
      best = Math.min(best, Math.hypot(p[0] - x, p[1] - y));
  }
  return best;
}

describe('fragile-obstacle placements', () => {
  for (const arm of ['so101', 'panda'] as const) {
    it(`${arm}: on 100 seeds the bottle is on the cup→box line (±1 cm), within ±5 cm of its middle, and its footprint ${GAP[arm] * 100} cm clear of the riser and the box`, () => {
      const l = LAYOUT[arm];
      for (let seed = 1; seed <= 100; seed++) {
        const { cup, box, bottle } = fragilePlacement(arm, seed);
        const len = Math.hypot(box[0] - cup[0], box[1] - cup[1]);
        const ux = (box[0] - cup[0]) / len;
        const uy = (box[1] - cup[1]) / len;
        const along = (bottle[0] - cup[0]) * ux + (bottle[1] - cup[1]) * uy;
        const across = -(bottle[0] - cup[0]) * uy + (bottle[1] - cup[1]) * ux;
        expect(Math.abs(across)).toBeLessThanOrEqual(0.01 + 1e-12);
        expect(Math.abs(along - len / 2)).toBeLessThanOrEqual(FRAGILE_PLACEMENT_XY + 1e-12);
        const clear = BOTTLE_RADIUS[arm] + GAP[arm] - 1e-5; // the outline is sampled every ≤ 0.1 mm
        expect(toSquareSampled(bottle, cup, l.riser.half), `seed ${seed}: riser`).toBeGreaterThanOrEqual(clear);
        expect(toSquareSampled(bottle, box, l.box.innerHalf + l.box.wall), `seed ${seed}: box`).toBeGreaterThanOrEqual(
          clear,
        );
      }
    });
  }

  for (const arm of ['so101', 'panda'] as const) {
    it(`${arm}: the carry height holds the cup's bottom 1.5 cm over the box's rim and below the bottle's top`, () => {
      // At 7 cm the SO-101's cup cleared the rim by 5 mm: a detour that came back lower dragged it
      // along the box's wall (bench/RESULTS.md). Still below the bottle's top: the direct path is blocked.
      const fs = fragileScene(arm, 1);
      const bottom = fs.carryHeight - fs.scene.targetHalfHeight;
      expect(bottom - fs.scene.box.wallTop).toBeGreaterThanOrEqual(0.015);
      expect(bottom).toBeLessThan(2 * fs.bottle.halfHeight - 0.02);
    });
  }

  describe('in MuJoCo, after the world settles', () => {
    let mj: Mujoco;
    beforeAll(async () => {
      mj = await loadMujoco();
    });

    for (const arm of ['so101', 'panda'] as const) {
      it(`${arm}, seeds 1–20: the bottle stands upright where it was placed, and stays so with the arm at home`, () => {
        for (let seed = 1; seed <= 20; seed++) {
          const fs = fragileScene(arm, seed);
          const world = new SimWorld(mj, fs.scene);
          try {
            world.reset(seed);
            const observer = new BottleObserver(mj, world, fs.bottle);
            const pos = new Float64Array(3);
            world.bodyPos(world.bodyIdOf(fs.bottle.body), pos);
            expect(
              Math.hypot(pos[0]! - fs.placement.bottle[0], pos[1]! - fs.placement.bottle[1]),
              `seed ${seed}`,
            ).toBeLessThan(0.002);
            expect(observer.tilt(), `seed ${seed}`).toBeLessThan((1 * Math.PI) / 180);
            for (let k = 0; k < 15; k++) world.stepTick(); // half a second at the home pose
            expect(observer.maxTilt, `seed ${seed}`).toBeLessThan((1 * Math.PI) / 180);
            expect(observer.contacted, `seed ${seed}`).toBe(false);
            observer.dispose();
          } finally {
            world.dispose();
          }
        }
      }, 120_000);
    }
  });
});
