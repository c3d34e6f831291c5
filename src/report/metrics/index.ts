/** Pure metrics over scored episodes (design §8). */
export { wilson, Z95, type Proportion } from './wilson.js';
export { Xoshiro128 } from '../../util/rng.js';
export {
  bootstrap,
  bootstrapMean,
  bootstrapConditionalMean,
  bootstrapMeans,
  type MeanSpec,
  DEFAULT_RESAMPLES,
  DEFAULT_SEED,
  type BootstrapOptions,
  type Interval,
} from './bootstrap.js';
export { quantile, quantileSorted, median } from './quantile.js';
export {
  computeMetrics,
  metricsBy,
  type MetricsSummary,
  type ClauseMetrics,
  type Quadrants,
  type MetricsOptions,
} from './summary.js';
export {
  thresholdSensitivity,
  sensitivityRow,
  sustainedViolationRescore,
  sustainedMargin,
  type SensitivityRow,
} from './sensitivity.js';
