/** The semantic gate (issue 18): stage events, judge port, gate, scheduler, lexicon, twin metrics. */
export {
  type CameraFault,
  type CameraFrame,
  type CameraGrab,
  type CameraSource,
  type Decision,
  type JudgeFailMode,
  type JudgeFault,
  type JudgeFaultCause,
  type JudgeOutcome,
  type JudgeRequest,
  type SceneObject,
  type SemanticJudge,
  type Verdict,
} from './types.js';
export {
  EPS_ATTEMPT,
  StageTracker,
  attemptHolds,
  commitHolds,
  extractStageTimes,
  inCriticalRegion,
  type CriticalRegion,
  type Stage,
  type StageObservation,
  type StageTimes,
  type Vec3,
} from './stage-events.js';
export {
  DEFAULT_SEMANTIC_GATE_CONFIG,
  SemanticGate,
  describeSemanticCause,
  type QueryReason,
  type SemanticDecision,
  type SemanticEvent,
  type SemanticGateConfig,
  type SemanticHoldCause,
} from './semantic-gate.js';
export { JudgeScheduler } from './judge-scheduler.js';
export {
  HAZARD_CATEGORIES,
  matchLexicon,
  objectTags,
  parseHazardLexicon,
  tokenize,
  type HazardCategory,
  type HazardLexicon,
  type LexiconMatch,
  type LexiconRule,
} from './lexicon.js';
export { LexiconJudge } from './lexicon-judge.js';
export {
  parseTaskSemantics,
  type SemanticEntity,
  type SemanticTask,
  type TaskSemantics,
  type TwinPair,
  type TwinVariant,
} from './task-semantics.js';
export { headlineMetrics, twinMetrics, type TwinEpisodeOutcome, type TwinMetrics } from './twin-metrics.js';
export { LiveStageTracker, type ActorSource, type LiveStageInput, type LiveStageSetup } from './live-stages.js';
