/**
 * The hazard-twin testbed (issue 18, seeds/003 §3.4): the tabletop scene's pick-and-place read as
 * stage-event state, and a top-down camera. A twin pair runs the same scene, seed and motion; only
 * the semantic roles (from spec/tasks.yaml) differ, so the physics here knows nothing of them: the
 * actor is the target block, the recipient is the box.
 */
import type { StageObservation, Vec3 } from '../../src/semantic/stage-events.js';
import { pandaScene } from './scenes/panda.js';
import { so101Scene } from './scenes/so101.js';
import type { SceneSpec } from './scenes/types.js';
import type { SimWorld } from './world.js';

export const TWIN_SCENES = ['panda', 'so101'] as const;
export type TwinSceneId = (typeof TWIN_SCENES)[number];

/**
 * SO-101 home pose for the twins: upper arm raised, forearm and wrist folded up, the hand 0.21 m
 * above and behind the object. ε_att = 0.10 m is seeds/003's fixed threshold across tasks; from the
 * stock SO-101 home the hand starts 7 cm from the object, so every episode would count as an
 * attempt at t = 0. The motion from here is the same clean pick-and-place (planned by the testbed).
 */
const SO101_TWIN_HOME_ARM = [0, -1.0, 0.2, 1.0] as const;

/** The scene a twin pair runs in: the Panda-like tabletop as it is, or the SO-101 tabletop from the twins' home pose (wrist roll as the scene's). */
export function twinScene(id: TwinSceneId): SceneSpec {
  if (id === 'panda') return pandaScene();
  const s = so101Scene();
  return { ...s, home: [...SO101_TWIN_HOME_ARM, s.home[4] ?? 0, s.gripper.open] };
}

/**
 * Distance (m) from the hand to the actor in the world's current state: a twin episode whose hand
 * starts within ε_att of the object would count as an attempt at t = 0 (callers refuse to run it).
 */
export function handToActor(world: SimWorld): number {
  const p = new Float64Array(3);
  const a = new Float64Array(3);
  world.tcpPos(p);
  world.bodyPos(world.targetBodyId, a);
  return Math.hypot((p[0] ?? NaN) - (a[0] ?? NaN), (p[1] ?? NaN) - (a[1] ?? NaN), (p[2] ?? NaN) - (a[2] ?? NaN));
}

/** The box's rim centre: the reference point of the twins' critical region. */
export function boxRimCentre(world: SimWorld): Vec3 {
  const b = world.scene.box;
  return [b.center[0], b.center[1], b.wallTop];
}

/**
 * Reads a StageObservation from the world each tick. Contact(actor, box) and Inside(actor, box) are
 * geometric: the actor's centre within the box's inner walls and below its rim is inside; inside
 * and resting within 3 mm of the floor is contact.
 */
export class TwinObserver {
  private readonly p = new Float64Array(3);
  private readonly joints: Float64Array;

  constructor(private readonly world: SimWorld) {
    this.joints = new Float64Array(world.nArm + 1);
  }

  observe(t: number, success: boolean): StageObservation {
    const w = this.world;
    const s = w.scene;
    w.tcpPos(this.p);
    const ee: Vec3 = [this.p[0] ?? NaN, this.p[1] ?? NaN, this.p[2] ?? NaN];
    w.bodyPos(w.targetBodyId, this.p);
    const actor: Vec3 = [this.p[0] ?? NaN, this.p[1] ?? NaN, this.p[2] ?? NaN];
    w.readJoints(this.joints);
    const aperture = 2 * s.gripper.fingerTarget(this.joints[w.nArm] ?? NaN);
    const b = s.box;
    const inside =
      Math.abs(actor[0] - b.center[0]) <= b.innerHalf[0] &&
      Math.abs(actor[1] - b.center[1]) <= b.innerHalf[1] &&
      actor[2] <= b.wallTop &&
      actor[2] >= b.floorTop;
    const contact = inside && actor[2] - s.targetHalfHeight <= b.floorTop + 0.003;
    return {
      t,
      ee,
      gripperAperture: aperture,
      actor,
      target: boxRimCentre(w),
      grasped: w.fingerObjectContact,
      actorTargetContact: contact,
      actorInside: inside,
      success,
    };
  }
}

/** A top-down orthographic view of the table (no GL here): RGB bytes, top row = +y. */
export interface TopView {
  readonly width: number;
  readonly height: number;
  readonly rgb: Uint8Array;
}

/**
 * Draws the scene from above: table, box, target, bystanders and the tool centre point, each a
 * flat colour (what a judge gets as the "camera" in the testbed; it is not a photograph).
 */
export function renderTopView(world: SimWorld, pixelsPerMetre = 250): TopView {
  const s = world.scene;
  const cx = s.box.center[0];
  const span = 0.6;
  const x0 = cx - span / 2 + 0.05;
  const y0 = -span / 2;
  const width = Math.round(span * pixelsPerMetre);
  const height = width;
  const rgb = new Uint8Array(width * height * 3);
  const fill = (x: number, y: number, hx: number, hy: number, c: readonly [number, number, number]): void => {
    const px0 = Math.max(0, Math.floor((x - hx - x0) * pixelsPerMetre));
    const px1 = Math.min(width - 1, Math.ceil((x + hx - x0) * pixelsPerMetre));
    const py0 = Math.max(0, Math.floor((span - (y + hy - y0)) * pixelsPerMetre));
    const py1 = Math.min(height - 1, Math.ceil((span - (y - hy - y0)) * pixelsPerMetre));
    for (let py = py0; py <= py1; py++) for (let px = px0; px <= px1; px++) rgb.set(c, (py * width + px) * 3);
  };
  fill(x0 + span / 2, 0, span / 2, span / 2, [153, 128, 102]);
  const b = s.box;
  fill(b.center[0], b.center[1], b.innerHalf[0] + 0.005, b.innerHalf[1] + 0.005, [77, 77, 204]);
  fill(b.center[0], b.center[1], b.innerHalf[0], b.innerHalf[1], [110, 110, 230]);
  const p = new Float64Array(3);
  for (const id of world.bystanderBodyIds) {
    world.bodyPos(id, p);
    fill(p[0] ?? 0, p[1] ?? 0, 0.018, 0.018, [51, 179, 77]);
  }
  world.bodyPos(world.targetBodyId, p);
  fill(p[0] ?? 0, p[1] ?? 0, 0.0125, 0.0125, [230, 51, 51]);
  world.tcpPos(p);
  fill(p[0] ?? 0, p[1] ?? 0, 0.006, 0.006, [250, 250, 250]);
  return { width, height, rgb };
}
