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
import { CapsuleModel, type ArmModelSpec } from '../kinematics/capsules.js';
import { ForwardKinematics } from '../kinematics/chain.js';
import { armModel, endEffectorOf, type RobotDescription } from '../kinematics/description.js';
import type { ObstacleSet } from '../kinematics/obstacles.js';
import { selfCollisionModel } from '../kinematics/self-collision-model.js';
import { BarrierStack } from './barrier-stack.js';
import { CapsuleBarrier } from './capsule-barrier.js';
import type { BarrierModel } from './cbf-types.js';
import { toolTiltLimit } from './held-tilt.js';
import { TiltPolygonBarrier } from './orientation-barrier.js';

/**
 * Lever of the tilt faces (m): h = L·(s − b·n). 10 m makes a planning margin δ = 3 mm a tolerance
 * of 3·10⁻⁴ on the tilt's sine — under 0.02° — for the tool's tracking error at a chunk's start,
 * and puts the faces' values on the distance pairs' scale (L·s ≈ 0.8 at a 6.75° limit).
 */
export const TILT_LEVER = 10;

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
  readonly heldTilt: { readonly objectLimit: number; readonly pivotGain: number; readonly faces: number } | null;
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
    new CapsuleModel(o.environment ?? armModel(desc, endEffector), fk),
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
  const tilt =
    o.heldTilt === null
      ? null
      : new TiltPolygonBarrier(
          fk,
          endEffectorOf(desc, endEffector).tcp.frame,
          toolTiltLimit(o.heldTilt.objectLimit, o.heldTilt.pivotGain),
          TILT_LEVER,
          o.heldTilt.faces,
        );
  const models: BarrierModel[] = [distance, ...(self ? [self] : []), ...(tilt ? [tilt] : [])];
  return { barrier: models.length === 1 ? distance : new BarrierStack(models), distance, self, tilt };
}
