/**
 * `armguard/report`: safety reports (design §8) — stream scored episodes into a ReportBuilder or read
 * a directory of episode files with buildReportFromDir, then render HTML / Markdown / CSV / JSON.
 * Scoring needs the clause library, task map and platform profiles: `loadScoringSpec(defaultSpecPaths())`
 * reads the ones shipped in the package.
 */
export { ReportBuilder, type BuildOptions, type EpisodeDamage } from '../report/build.js';
export {
  GROUP_KEYS,
  type ClauseCell,
  type ClauseRun,
  type ClauseTracePlot,
  type DamagedEpisode,
  type EpisodeExtras,
  type EpisodeRow,
  type GateStats,
  type GateSummary,
  type GroupKey,
  type GroupReport,
  type ReportData,
  type RunGateMode,
  type RunGroup,
  type TaskRow,
  type UnlabelledEpisode,
  type WorstEpisode,
} from '../report/build-types.js';
export { buildReportFromDir, writeReport, REPORT_FILES, type ProgressFn } from '../report/build-run.js';
export {
  renderHtml,
  renderMarkdown,
  renderEpisodesCsv,
  renderSummaryJson,
  EPISODE_CSV_COLUMNS,
  traceSvg,
} from '../report/render/index.js';
export {
  computeMetrics,
  wilson,
  bootstrap,
  DEFAULT_RESAMPLES,
  DEFAULT_SEED,
  type MetricsSummary,
  type Proportion,
} from '../report/metrics/index.js';
export { EpisodeScorer, type ScoringSpec, type EpisodeScore, type ClauseScore } from '../safety/index.js';
export { loadScoringSpec, defaultSpecPaths, DEFAULT_SPEC_DIR, type SpecPaths } from '../cli/spec-files.js';
