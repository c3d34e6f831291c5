export { ArrayClauseMargins, NO_CLAUSES, type ClauseMargins } from './margins.js';
export {
  describeCause,
  type ActivityCause,
  type EStopLatch,
  type GateCause,
  type GateEvent,
  type GateListener,
  type GateState,
  type HoldCause,
} from './events.js';
export { DEFAULT_GATE_CONFIG, Gate, type GateConfig, type ReleaseResult } from './gate.js';
export { HeartbeatWatchdog, type HeartbeatStatus } from './heartbeat-watchdog.js';
export {
  describeRejection,
  toResultMessage,
  type ChunkMessage,
  type ChunkRejection,
  type ChunkResultMessage,
  type ChunkVerdict,
  type ExecutedChunk,
  type GateChunk,
} from './chunk.js';
export {
  MAX_CHUNK_BYTES,
  MAX_HORIZON,
  MAX_ID_LENGTH,
  MAX_JOINTS,
  chunkToMessage,
  parseChunkMessage,
  parseChunkText,
} from './chunk-parse.js';
export { ChunkScreen, type ChunkScreenConfig } from './chunk-screen.js';
export { type BarrierModel, type BoundQpSolver, type ChunkFilter, type QpSolverFactory } from './cbf-types.js';
export { ChunkQp, QP_INFINITY, type CbfWeights } from './cbf-qp.js';
export {
  ChunkCbfFilter,
  DEFAULT_CBF_BACK_OFF,
  DEFAULT_CBF_QP_TOLERANCE,
  DEFAULT_CBF_TOLERANCE,
  DEFAULT_CBF_WEIGHTS,
  type CbfFilterConfig,
  type CbfOutcome,
  type CbfStatus,
} from './cbf-filter.js';
export {
  ACCELERATION_ROW_TOLERANCE,
  newRecheck,
  recheckChunk,
  recheckScratch,
  type Recheck,
  type RecheckAcceleration,
  type RecheckBounds,
  type RecheckEvaluation,
  type RecheckScratch,
} from './chunk-recheck.js';
export { CapsuleBarrier, obstacleGroups } from './capsule-barrier.js';
export { interiorPointSolver, interiorPointSolverFactory } from './cbf-solver.js';
export {
  TrackedObstacles,
  type StaleObstacle,
  type TrackedObstacleSpec,
  type TrackedPositionSource,
} from './tracked-obstacles.js';
export { HoldOnlyFilter, type HoldOnlyConfig } from './hold-only-filter.js';
export { StepwiseCbfBaseline, type StepwiseCbfBaselineConfig } from './stepwise-filter.js';
export { OrientationBarrier, TiltPolygonBarrier } from './orientation-barrier.js';
export {
  TILT_LEVER,
  TILT_PLANNING_MARGIN,
  descriptionBarrier,
  type DescriptionBarrier,
  type DescriptionBarrierOptions,
} from './description-barrier.js';
export {
  HeldTiltFilter,
  commandsClosed,
  tiltPlanning,
  toolTiltLimit,
  type GripperCommand,
  type HeldObjectAxis,
} from './held-tilt.js';
export { BarrierStack } from './barrier-stack.js';
export {
  WarningBand,
  bandClauses,
  type ApproachModel,
  type BandClauseSpec,
  type BandOutcome,
  type BandState,
  type BandStatus,
  type ChunkMotionModel,
  type GripModel,
  type LoadModel,
  type MotionTrace,
  type WarningBandConfig,
} from './warning-band.js';
export { bandRecord, bandStateOf, describeBand, type ChunkBandRecord, type ChunkBandStage } from './band-stage.js';
export { KinematicChunkMotion, type GravityTorques, type KinematicMotionOptions } from './kinematic-motion.js';
