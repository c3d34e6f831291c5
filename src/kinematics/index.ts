/**
 * Pure kinematics core: forward kinematics, link capsules, distances and the CBF barrier. No I/O;
 * every hot-path function writes into preallocated Float64Arrays.
 */
export {
  TF,
  length3,
  multiply,
  multiplyRotZ,
  setFromXyzRpy,
  setIdentity,
  transformPoint,
  transformPointAt,
} from './transform.js';
export {
  ForwardKinematics,
  originFromModifiedDH,
  type ChainSpec,
  type FixedFrameSpec,
  type JointSpec,
} from './chain.js';
export {
  capsuleCapsuleDistance,
  capsuleInsideBoxDistance,
  capsulePlaneDistance,
  capsuleSphereDistance,
  pointSegmentDistanceSq,
  pointSegmentParameter,
  segmentSegmentDistanceSq,
} from './distance.js';
export { CapsuleModel, environmentOnly, type ArmModelSpec, type CapsuleSpec } from './capsules.js';
export { selfCollisionModel } from './self-collision-model.js';
export {
  armModel,
  endEffectorOf,
  type AllowedCollision,
  type AllowedCollisionReason,
  type CollisionVolume,
  type EndEffectorDescription,
  type RobotDescription,
  type Vec3,
} from './description.js';
export { emptyObstacles, minimumClearance, type Clearance, type ClearanceKind, type ObstacleSet } from './obstacles.js';
export { ClearanceGradient } from './clearance-gradient.js';
export { Barrier } from './barrier.js';
export {
  SO101_CAPSULES,
  SO101_CHAIN,
  SO101_DESCRIPTION,
  SO101_FRAMES,
  SO101_JOINT_NAMES,
  SO101_MODEL,
  type So101JointName,
} from './so101.js';
export {
  FR3_CHAIN,
  FR3_DESCRIPTION,
  FR3_MODEL,
  FRANKA_CAPSULES,
  FRANKA_FRAMES,
  PANDA_CHAIN,
  PANDA_DESCRIPTION,
  PANDA_MODEL,
  type FrankaEndEffector,
} from './panda.js';
export { PointForceEstimator, solve3 } from './force.js';
export { SmoothedDerivatives } from './derivatives.js';
export { TcpMotion } from './tcp-motion.js';
