/**
 * The fragile-obstacle scene (seeds/001 App. 0.D, Fig. A.8): the arm carries the cup (the
 * tabletop's target block, on its riser) into the box (the plate) while a fragile bottle — a free
 * cylinder with a glass bottle's mass and friction — stands on the direct path between them.
 * Built from an arm scene (SO-101 or Panda) by swapping its tabletop for this layout, so the arm
 * is exactly the scene's own. Placements are drawn per seed: cup and box ±5 cm in x and y, the
 * bottle ±5 cm along the cup→box line and ±1 cm across it (it stays on the direct path); the cup's
 * and the bottle's yaw ±15° come from the world's own seeded start perturbation.
 */
import { mulberry32, symmetric } from '../../../src/util/rng.js';
import { PANDA_LAYOUT, pandaScene } from './panda.js';
import { SO101_LAYOUT, so101Scene } from './so101.js';
import { tabletopSceneFields, tabletopXml, type TabletopLayout } from './tabletop.js';
import type { SceneSpec } from './types.js';

export type FragileArm = 'so101' | 'panda';

export interface BottleSpec {
  readonly body: string;
  readonly geom: string;
  readonly radius: number;
  readonly halfHeight: number;
  readonly mass: number;
  /** Sliding friction against the table (glass on a wooden top). */
  readonly friction: number;
}

/** Where one seed puts things (world frame, m). */
export interface FragilePlacement {
  readonly cup: readonly [number, number];
  readonly box: readonly [number, number];
  readonly bottle: readonly [number, number];
}

export interface FragileScene {
  readonly scene: SceneSpec;
  readonly bottle: BottleSpec;
  readonly placement: FragilePlacement;
  /** Height (m above the table) the scripted policy carries the cup's centre at. */
  readonly carryHeight: number;
}

interface ArmLayout {
  readonly base: () => SceneSpec;
  readonly baseLayout: TabletopLayout;
  readonly cup: readonly [number, number];
  readonly box: readonly [number, number];
  readonly bottle: BottleSpec;
  readonly carryHeight: number;
}

/** ±5 cm placements and ±15° yaw (issue 15). */
export const FRAGILE_PLACEMENT_XY = 0.05;
export const FRAGILE_YAW = (15 * Math.PI) / 180;
const BOTTLE_ACROSS = 0.01;

const ARMS: Readonly<Record<FragileArm, ArmLayout>> = {
  // A small glass bottle for the 30 cm arm: 3 cm across, 10 cm tall, 90 g.
  so101: {
    base: so101Scene,
    baseLayout: SO101_LAYOUT,
    cup: [0.19, -0.1],
    box: [0.19, 0.1],
    bottle: { body: 'bottle', geom: 'bys_bottle', radius: 0.015, halfHeight: 0.05, mass: 0.09, friction: 0.5 },
    carryHeight: 0.07,
  },
  // A wine-style bottle for the Panda: 6 cm across, 22 cm tall, 400 g (empty glass).
  panda: {
    base: pandaScene,
    baseLayout: PANDA_LAYOUT,
    cup: [0.5, -0.22],
    box: [0.5, 0.22],
    bottle: { body: 'bottle', geom: 'bys_bottle', radius: 0.03, halfHeight: 0.11, mass: 0.4, friction: 0.5 },
    carryHeight: 0.12,
  },
};

export function fragilePlacement(arm: FragileArm, seed: number): FragilePlacement {
  const a = ARMS[arm];
  // Its own stream (the world's reset draws the yaw from mulberry32(seed)).
  const rng = mulberry32((seed ^ 0x5eed_f4a6) >>> 0);
  const cup: [number, number] = [
    a.cup[0] + symmetric(rng, FRAGILE_PLACEMENT_XY),
    a.cup[1] + symmetric(rng, FRAGILE_PLACEMENT_XY),
  ];
  const box: [number, number] = [
    a.box[0] + symmetric(rng, FRAGILE_PLACEMENT_XY),
    a.box[1] + symmetric(rng, FRAGILE_PLACEMENT_XY),
  ];
  const dx = box[0] - cup[0];
  const dy = box[1] - cup[1];
  const len = Math.hypot(dx, dy);
  const ux = dx / len;
  const uy = dy / len;
  const along = len / 2 + symmetric(rng, FRAGILE_PLACEMENT_XY);
  const across = symmetric(rng, BOTTLE_ACROSS);
  const bottle: [number, number] = [cup[0] + ux * along - uy * across, cup[1] + uy * along + ux * across];
  return { cup, box, bottle };
}

export function fragileScene(arm: FragileArm, seed: number): FragileScene {
  const a = ARMS[arm];
  const base = a.base();
  const placement = fragilePlacement(arm, seed);
  const layout: TabletopLayout = {
    ...a.baseLayout,
    riser: { ...a.baseLayout.riser, center: placement.cup },
    bystanders: [],
    box: { ...a.baseLayout.box, center: placement.box },
  };
  const original = tabletopXml(a.baseLayout);
  if (!base.xml.includes(original))
    throw new Error(
      `scene ${base.id}: its tabletop is not the one its layout generates; cannot build the fragile-obstacle scene`,
    );
  const b = a.bottle;
  const f = (x: number): string => x.toFixed(5);
  const bottleXml = `<body name="${b.body}" pos="${f(placement.bottle[0])} ${f(placement.bottle[1])} ${f(b.halfHeight + 0.0005)}">
      <freejoint name="${b.body}_free"/>
      <geom name="${b.geom}" type="cylinder" size="${f(b.radius)} ${f(b.halfHeight)}" mass="${f(b.mass)}" friction="${f(b.friction)} 0.005 0.0001" rgba=".3 .75 .55 .8"/>
    </body>`;
  const xml = base.xml.replace(original, `${tabletopXml(layout)}\n    ${bottleXml}`);
  const scene: SceneSpec = {
    ...base,
    id: base.id,
    xml,
    ...tabletopSceneFields(layout),
    bystanderBodies: [b.body],
    // the sphere enclosing the bottle
    bystanderExtents: [Math.hypot(b.radius, b.halfHeight)],
    perturbation: { xy: 0, yaw: FRAGILE_YAW },
  };
  return { scene, bottle: b, placement, carryHeight: a.carryHeight };
}
