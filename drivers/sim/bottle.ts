/**
 * The fragile bottle of the fragile-obstacle scene, seen two ways:
 * - BottleObserver (ground truth for scoring): every physics step, MuJoCo's contact list — any
 *   contact between the bottle and a geom that is not furniture (the arm, its fingers, the carried
 *   cup) is an obstacle contact — and the bottle's tilt (angle of its body z from world z). It has
 *   tipped once the tilt passes its static tipping angle atan(radius / half height): beyond it
 *   the centre of mass is outside the base and it falls.
 * - SimBottleTracker (what the gate sees, like motion capture on hardware): the tracked-position
 *   port, reporting points along the bottle's axis, one per barrier sphere, stamped with sim time.
 */
import type { Mujoco } from './mujoco.js';
import { Role, roleOfGeomName } from './scenes/naming.js';
import type { BottleSpec } from './scenes/fragile.js';
import { OBJ_BODY, OBJ_GEOM, type SimWorld } from './world.js';

export class BottleObserver {
  /** Physics steps with at least one obstacle contact. */
  contactSteps = 0;
  /** Sim time of the first obstacle contact (NaN: none). */
  firstContactT = NaN;
  /** Geoms that touched the bottle (names). */
  readonly touchedBy = new Set<string>();
  /** Largest tilt seen (rad). */
  maxTilt = 0;
  readonly tippingAngle: number;
  private readonly bodyId: number;
  private readonly geomId: number;
  private readonly furniture: Uint8Array;
  private readonly detach: () => void;

  constructor(
    private readonly mj: Mujoco,
    private readonly world: SimWorld,
    readonly bottle: BottleSpec,
  ) {
    const m = world.model;
    this.bodyId = mj.mj_name2id(m, OBJ_BODY, bottle.body);
    this.geomId = mj.mj_name2id(m, OBJ_GEOM, bottle.geom);
    if (this.bodyId < 0 || this.geomId < 0)
      throw new Error(`scene ${world.scene.id}: no bottle body '${bottle.body}' / geom '${bottle.geom}'`);
    this.furniture = new Uint8Array(m.ngeom);
    for (let g = 0; g < m.ngeom; g++)
      this.furniture[g] = roleOfGeomName(mj.mj_id2name(m, OBJ_GEOM, g) ?? '') === Role.Furniture ? 1 : 0;
    this.tippingAngle = Math.atan(bottle.radius / bottle.halfHeight);
    this.detach = world.onStep((s) => this.sample(s.t));
  }

  get contacted(): boolean {
    return this.contactSteps > 0;
  }

  get tipped(): boolean {
    return this.maxTilt > this.tippingAngle;
  }

  /** Present tilt (rad). */
  tilt(): number {
    const q = this.world.data.xquat as Float64Array;
    const o = 4 * this.bodyId;
    const x = q[o + 1] ?? 0;
    const y = q[o + 2] ?? 0;
    // body z in world: its z component is 1 − 2(x² + y²)
    return Math.acos(Math.max(-1, Math.min(1, 1 - 2 * (x * x + y * y))));
  }

  dispose(): void {
    this.detach();
  }

  private sample(t: number): void {
    const tilt = this.tilt();
    if (tilt > this.maxTilt) this.maxTilt = tilt;
    const d = this.world.data;
    const n = d.ncon;
    if (n === 0) return;
    const list = d.contact;
    let hit = false;
    for (let i = 0; i < n; i++) {
      const c = list.get(i);
      if (!c) continue;
      const g1 = c.geom1;
      const g2 = c.geom2;
      c.delete();
      const other = g1 === this.geomId ? g2 : g2 === this.geomId ? g1 : -1;
      if (other < 0 || this.furniture[other] === 1) continue;
      hit = true;
      this.touchedBy.add(this.mj.mj_id2name(this.world.model, OBJ_GEOM, other) ?? String(other));
    }
    list.delete();
    if (hit) {
      this.contactSteps++;
      if (Number.isNaN(this.firstContactT)) this.firstContactT = t;
    }
  }
}
