/** The MuJoCo testbed (issue 9): scenes, world, signals, ports, scripted policies, episodes. */
export { loadMujoco, type Mujoco } from './mujoco.js';
export { SimWorld, type JointStepSample, type StepHook, type TickPeaks } from './world.js';
export { SimSignals, SIM_SOURCE_ID, SIM_TRACKING_SOURCE_ID, bodyZ, type TrackingModel } from './signals.js';
export { SimCommandSink, SimSignalSource, SimJointState } from './ports.js';
export { DlsIk, type TcpFrame, type IkResult } from './ik.js';
export { buildTrajectory, topDownFrame, graspOffset, PlanError, type Waypoint } from './plan.js';
export {
  POLICIES,
  CLAUSE_FAMILIES,
  CHUNK_HORIZON,
  ScriptedPolicy,
  planContext,
  policyByName,
  type ClauseFamily,
  type PolicyDefinition,
  type PolicyName,
  type PlanContext,
} from './policies.js';
export {
  runEpisode,
  simPorts,
  type ChunkGate,
  type TickMonitor,
  type EpisodeOptions,
  type EpisodeResult,
  type SimPorts,
} from './episode.js';
export { targetInBox, type TaskOutcome } from './task.js';
export { scoreEpisode, mainTier, violatedClauses, type ClauseScore, type Thresholds } from './score.js';
export { so101Scene, SO101_STALL_TORQUE, SO101_TORQUE_CEILING } from './scenes/so101.js';
export { pandaScene, PANDA_TORQUE_CEILING } from './scenes/panda.js';
export { Role, roleOfGeomName } from './scenes/naming.js';
export type { SceneSpec, GripperMap, Vec3 } from './scenes/types.js';
export { MujocoServoBridge, type ServoBridgeJoint } from './servo-bridge.js';
export {
  TWIN_SCENES,
  TwinObserver,
  boxRimCentre,
  handToActor,
  renderTopView,
  twinScene,
  type TopView,
  type TwinSceneId,
} from './twins.js';
export {
  fragileScene,
  fragilePlacement,
  FRAGILE_PLACEMENT_XY,
  FRAGILE_YAW,
  type FragileArm,
  type FragileScene,
  type FragilePlacement,
  type BottleSpec,
} from './scenes/fragile.js';
export { BottleObserver } from './bottle.js';
export { FragileCarryPolicy, fragileCarryPlan, FRAGILE_POLICY } from './fragile-policy.js';
