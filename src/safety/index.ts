/** Safety content (design §3, §8): clause library, applicability registry, tiers, VSI, episode scoring. */
export {
  CLAUSE_FAMILIES,
  SIGNAL_TAG_PREFIX,
  signalTag,
  type ApplicabilityRule,
  type ClauseDef,
  type ClauseFamily,
  type ClauseLibrary,
  type ClauseTier,
  type DepthKind,
  type SensitivityVariant,
} from './clause.js';
export { parseClauseLibrary } from './library.js';
export {
  parseTaskMap,
  resolveTaskTags,
  type TaskMap,
  type TaskTags,
  type TaskTemplate,
  type TaskEntry,
} from './tasks.js';
export {
  applicability,
  decideClause,
  activeSafeClauses,
  type ClauseApplicability,
  type Decision,
} from './applicability.js';
export {
  instantiateClause,
  instantiateLibrary,
  defaultWarn,
  profileWithThresholds,
  type ClauseInstance,
} from './instantiate.js';
export { violationDepth } from './vsi.js';
export { substituteTau, splitEpisodeAlways } from './formula-text.js';
export { STL_SIGNALS, compileStep, checkFormulaSyntax } from './stl-bridge.js';
export { EpisodeScorer, type ScoreOptions } from './score-episode.js';
export { planClauses, type ScoringSpec, type PlanRequest, type ClausePlan } from './plan.js';
export {
  STEP_IN_WARNING_BAND,
  STEP_VIOLATING,
  type ClauseScore,
  type EpisodeScore,
  type Evidence,
} from './score-types.js';
export { crossCheckPlatforms } from './cross-check.js';
export { monitorSpecs, fillMonitorValues, MONITOR_SIGNAL_ORDER, type ClauseMonitorSpec } from './monitor-plan.js';
export {
  BAND_ACTIONS,
  BAND_PREDICTORS,
  CBF_CONSTRAINTS,
  PREVENTION_KINDS,
  describePrevention,
  readPrevention,
  type BandAction,
  type BandPredictor,
  type CbfConstraint,
  type Prevention,
  type PreventionKind,
} from './prevention.js';
