/**
 * The fragile-obstacle scene (seeds/001 App. 0.D, Fig. A.8): the arm carries the cup (the
 * tabletop's target block, on its riser) into the box (the plate) while a fragile bottle — a free
 * cylinder with a glass bottle's mass and friction — stands on the direct path between them.
 * Built from an arm scene (SO-101 or Panda) by swapping its tabletop for this layout, so the arm
 * is exactly the scene's own. Placements are drawn per seed: cup and box ±5 cm in x and y, the
 * bottle ±5 cm along the cup→box line from its middle and ±1 cm across it (it stays on the direct
 * path); the cup's and the bottle's yaw ±15° come from the world's own seeded start perturbation.
 * The bottle always stands on the bare table, its footprint at least the arm's `bottleGap` clear of
 * the riser and of the box: where the ±5 cm band along the line reaches into either, the draw is
 * confined to the part of the band that is clear, and a cup/box draw that leaves no clear spot is
 * drawn again. (A bottle placed into the box's wall or the riser is shoved out by MuJoCo's contact
 * solver while the world settles and topples with no arm anywhere near it.)
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
  /** How long the scripted policy takes for the carry from above the cup to above the box (s). */
  readonly carrySeconds: number;
}

interface ArmLayout {
  readonly base: () => SceneSpec;
  readonly baseLayout: TabletopLayout;
  readonly cup: readonly [number, number];
  readonly box: readonly [number, number];
  readonly bottle: BottleSpec;
  readonly carryHeight: number;
  readonly carrySeconds: number;
  /** Least clearance (m) between the bottle's footprint and the riser's or the box's. */
  readonly bottleGap: number;
  /** Height of the cup's riser (m); the base layout's when absent. */
  readonly riserHeight?: number;
}

/** ±5 cm placements and ±15° yaw (issue 15). */
export const FRAGILE_PLACEMENT_XY = 0.05;
export const FRAGILE_YAW = (15 * Math.PI) / 180;
const BOTTLE_ACROSS = 0.01;

const ARMS: Readonly<Record<FragileArm, ArmLayout>> = {
  // A small glass bottle for the 30 cm arm: 3 cm across, 10 cm tall, 90 g. The arm's home pose
  // holds the TCP 12 cm above (0.235, −0.01), right over the middle of a cup→box line across the
  // arm's front; so the scene lies to its right: cup and box on an arc 0.24 m from the pan axis at
  // −5° and −60°, the carry a 0.22 m chord whose middle (the bottle, ~0.21 m from the pan axis) is
  // 10–14 cm from the home TCP. The arm's links lie between the pan axis and the TCP, so a detour
  // outside the bottle would sweep the forearm over it; inside it, at ~0.14 m from the pan axis,
  // stays in top-down reach (0.12–0.28 m). Every plan of seeds 1–20 is within the joint limits.
  so101: {
    base: so101Scene,
    baseLayout: SO101_LAYOUT,
    cup: [0.278, -0.021],
    box: [0.159, -0.208],
    bottle: { body: 'bottle', geom: 'bys_bottle', radius: 0.015, halfHeight: 0.05, mass: 0.09, friction: 0.5 },
    // 8.5 cm: the cup (5 cm tall) then clears the box's 4 cm rim by 2 cm. At 7 cm it cleared it by
    // 3–5 mm, so a detour that came back 1.5 cm lower (the chunk CBF bends joints, not the cup's
    // height) dragged the cup and a finger pad against the box's near wall (up to 7.6 N) and
    // loaded the pan servo past joint_torque's 1.47 N·m. The cup still passes through the bottle's
    // top 4 cm: the direct path is blocked.
    carryHeight: 0.085,
    // 0.24 m in 3.3 s: at 2.2 s the detour's swerve loaded the servos past the joint_torque ceiling
    // (half the stall torque) and tipped the cup in the grip on most seeds
    carrySeconds: 3.3,
    // 5 cm: the arm leans in over the box's near side as it sets the cup down (the approach tilts
    // 0.5 rad outward); with 3 cm, 6 of 20 cbf episodes were held there by a present position a
    // fraction of a millimetre inside d_safe
    bottleGap: 0.05,
    // The cup starts 8 mm up, not on the tabletop's 3.5 cm riser: set down on the box floor (5 mm)
    // it would be 2.6 cm below where it was picked while still gripped, which stable_grasp_maintained
    // (obj_above_table > −2 cm while gripper_contact) reads as a slipped grasp and holds.
    riserHeight: 0.008,
  },
  // A wine-style bottle for the Panda: 6 cm across, 22 cm tall, 400 g (empty glass).
  panda: {
    base: pandaScene,
    baseLayout: PANDA_LAYOUT,
    cup: [0.5, -0.22],
    box: [0.5, 0.22],
    bottle: { body: 'bottle', geom: 'bys_bottle', radius: 0.03, halfHeight: 0.11, mass: 0.4, friction: 0.5 },
    carryHeight: 0.12,
    carrySeconds: 2.2,
    // the ±5 cm band never comes within 1 cm of the riser or the box on seeds 1–40: the placements
    // are the ones its figures were measured with
    bottleGap: 0.01,
  },
};

/** Distance (m) from a point to an axis-aligned square footprint (0 inside it). */
function toSquare(x: number, y: number, centre: readonly [number, number], half: number): number {
  const dx = Math.max(0, Math.abs(x - centre[0]) - half);
  const dy = Math.max(0, Math.abs(y - centre[1]) - half);
  return Math.hypot(dx, dy);
}

/** Cup/box draws before giving up on a seed (a layout that never leaves room is a scene error). */
const PLACEMENT_ATTEMPTS = 100;
/** Resolution of the search for the clear part of the bottle's band along the line (m). */
const ALONG_STEP = 0.0005;

export function fragilePlacement(arm: FragileArm, seed: number): FragilePlacement {
  const a = ARMS[arm];
  const riserHalf = a.baseLayout.riser.half;
  const boxHalf = a.baseLayout.box.innerHalf + a.baseLayout.box.wall;
  const clear = a.bottle.radius + a.bottleGap;
  // Its own stream (the world's reset draws the yaw from mulberry32(seed)).
  const rng = mulberry32((seed ^ 0x5eed_f4a6) >>> 0);
  for (let attempt = 0; attempt < PLACEMENT_ATTEMPTS; attempt++) {
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
    // Drawn in the order the placement has always drawn them (along, then across), so a layout
    // whose band is clear keeps its placements.
    const alongU = rng();
    const across = symmetric(rng, BOTTLE_ACROSS);
    const at = (along: number): [number, number] => [
      cup[0] + ux * along - uy * across,
      cup[1] + uy * along + ux * across,
    ];
    const isClear = (along: number): boolean => {
      const [x, y] = at(along);
      return toSquare(x, y, cup, riserHalf) >= clear && toSquare(x, y, box, boxHalf) >= clear;
    };
    // The clear stretch of the ±5 cm band around the middle (the footprints are convex, so the
    // clear points of the line between them form one interval).
    const start = len / 2 - FRAGILE_PLACEMENT_XY;
    const steps = Math.ceil((2 * FRAGILE_PLACEMENT_XY) / ALONG_STEP);
    let lo = Infinity;
    let hi = -Infinity;
    for (let k = 0; k <= steps; k++) {
      const s = start + (2 * FRAGILE_PLACEMENT_XY * k) / steps;
      if (!isClear(s)) continue;
      lo = Math.min(lo, s);
      hi = Math.max(hi, s);
    }
    if (lo > hi) continue;
    return { cup, box, bottle: at(lo + (hi - lo) * alongU) };
  }
  throw new RangeError(
    `${arm} fragile scene, seed ${seed}: no cup/box placement in ${PLACEMENT_ATTEMPTS} draws leaves the bottle ${a.bottleGap} m clear of the riser and the box`,
  );
}

export function fragileScene(arm: FragileArm, seed: number): FragileScene {
  const a = ARMS[arm];
  const base = a.base();
  const placement = fragilePlacement(arm, seed);
  const layout: TabletopLayout = {
    ...a.baseLayout,
    riser: { ...a.baseLayout.riser, center: placement.cup, height: a.riserHeight ?? a.baseLayout.riser.height },
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
  return { scene, bottle: b, placement, carryHeight: a.carryHeight, carrySeconds: a.carrySeconds };
}
