/**
 * The chunk CBF's barrier compiled from one robot description (issue 15), for the demo's cbf path
 * and the hardware rigs alike: the environment capsules against obstacle groups (tracked spheres,
 * planes, a workspace box), one self-collision pair (src/kinematics/self-collision-model.ts: link
 * pairs not on the description's allowed list), and the held object's tilt as a polygon of faces
 * about the end effector's TCP frame (TiltPolygonBarrier, switched by HeldTiltFilter from the
 * gripper command). Every distance pair is built at its clearance + the planning margin δ — give
 * the chunk filter the same δ as `planningMargin` so it refuses only inside the clearance itself.
 * Pure: no clock, no I/O.
 */
import { CapsuleModel, environmentOnly, type ArmModelSpec } from '../kinematics/capsules.js';
import { ForwardKinematics } from '../kinematics/chain.js';
import { armModel, endEffectorOf, type RobotDescription } from '../kinematics/description.js';
import type { ObstacleSet } from '../kinematics/obstacles.js';
import { selfCollisionModel } from '../kinematics/self-collision-model.js';
import { BarrierStack } from './barrier-stack.js';
import { CapsuleBarrier } from './capsule-barrier.js';
import type { BarrierModel } from './cbf-types.js';
import { tiltPlanning, toolTiltLimit } from './held-tilt.js';
import { TiltPolygonBarrier } from './orientation-barrier.js';

/**
 * Lever of the tilt faces (m) without a planning margin: h = L·(s − b·n). With a margin δ the
 * lever is δ's angle instead (TILT_PLANNING_MARGIN).
 */
export const TILT_LEVER = 10;

/**
 * The demo's tool tilt planned this far inside its limit (rad; 0.5°) with the filter's planning
 * margin δ, the faces' lever chosen so that δ is this angle (held-tilt.ts tiltPlanning): a
 * chunk's start up to 0.5° past where the last chunk planned the tool (servo tracking error) is
 * accepted, a tool past its limit is not. On the held object, with the demo's pivot gain of 2,
 * about 1° of the clause's 1.5° warning band.
 */
export const TILT_PLANNING_MARGIN = (0.5 * Math.PI) / 180;

export interface DescriptionBarrierOptions {
  /** Obstacle groups (obstacleGroups), one distance pair each; edited in place as objects move. */
  readonly groups: readonly ObstacleSet[];
  /** Clearance kept from obstacles (m). */
  readonly dSafe: number;
  /** Planning margin δ (m), added to every distance pair. */
  readonly planningMargin: number;
  /** Clearance kept between link pairs not on the allowed list (m); null: no self pair. */
  readonly selfClearance: number | null;
  /**
   * The held object's tilt limit (rad; its clause's τ − ε), how many times the tool's tilt the
   * object tilts in the fingers, and the faces of the polygon; null: no tilt pairs.
   */
  readonly heldTilt: {
    readonly objectLimit: number;
    readonly pivotGain: number;
    readonly faces: number;
    /**
     * Tool tilt (rad) planned inside the limit when planningMargin > 0 (TILT_PLANNING_MARGIN is the
     * demo's); default 0: the faces at the limit on TILT_LEVER.
     */
    readonly margin?: number;
  } | null;
  /**
   * The capsules kept clear of the obstacles when not the description's own (an arm whose
   * calibration measured its own capsules, drivers/so101/mapping.ts so101ModelFor); same chain.
   */
  readonly environment?: ArmModelSpec;
}

export interface DescriptionBarrier {
  /** All pairs: distance, then self, then tilt. */
  readonly barrier: BarrierModel;
  readonly distance: CapsuleBarrier;
  readonly self: CapsuleBarrier | null;
  /** Switch it with HeldTiltFilter (off until a grasp). */
  readonly tilt: TiltPolygonBarrier | null;
}

export function descriptionBarrier(
  desc: RobotDescription,
  endEffector: string,
  o: DescriptionBarrierOptions,
): DescriptionBarrier {
  if (!(o.planningMargin >= 0 && o.planningMargin < Infinity))
    throw new RangeError(`${desc.id}: planning margin must be finite and ≥ 0 m, got ${o.planningMargin}`);
  if (o.environment && o.environment.chain !== desc.chain)
    throw new RangeError(`${desc.id}: the environment capsules are on another chain (${o.environment.chain.name})`);
  // one forward kinematics for every model: they are evaluated in turn at the same q (BarrierStack)
  const fk = new ForwardKinematics(desc.chain);
  const distance = new CapsuleBarrier(
    new CapsuleModel(environmentOnly(o.environment ?? armModel(desc, endEffector)), fk),
    o.groups,
    o.dSafe + o.planningMargin,
  );
  const self =
    o.selfClearance === null
      ? null
      : new CapsuleBarrier(
          new CapsuleModel(selfCollisionModel(desc, endEffector), fk),
          [],
          o.selfClearance + o.planningMargin,
          { includeSelf: true },
        );
  let tilt: TiltPolygonBarrier | null = null;
  if (o.heldTilt !== null) {
    const t = o.heldTilt;
    const plan = tiltPlanning(
      toolTiltLimit(t.objectLimit, t.pivotGain),
      t.faces,
      o.planningMargin,
      t.margin ?? 0,
      TILT_LEVER,
    );
    tilt = new TiltPolygonBarrier(fk, endEffectorOf(desc, endEffector).tcp.frame, plan.maxTilt, plan.lever, t.faces);
  }
  const models: BarrierModel[] = [distance, ...(self ? [self] : []), ...(tilt ? [tilt] : [])];
  return { barrier: models.length === 1 ? distance : new BarrierStack(models), distance, self, tilt };
}
