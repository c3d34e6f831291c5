/**
 * STL engine (design §4): parse, print, evaluate offline and monitor online.
 * Public API — other modules code against these names; add, don't rename.
 */
export type {
  StlType,
  StlSignalDecl,
  StlDiagnostic,
  Formula,
  Expr,
  CompareOp,
  Interval,
  UnaryTemporalKind,
  BinaryTemporalKind,
} from './ast.js';
export { signalsOf, futureHorizon, isEpisodeOperator, intervalNs } from './ast.js';
export { parseFormula, containsEpisodeOperator } from './parser.js';
export { parseSpecFile, type StlSpec, type SpecParseResult } from './spec-file.js';
export { printFormula, printExpr } from './printer.js';
export { evaluateOffline, evaluateOfflineNs } from './offline.js';
export {
  NS_PER_S,
  MAX_EXACT_NS,
  parseDecimalSeconds,
  parseDecimalSecondsNs,
  secondsToNs,
  nsToSeconds,
  relativeNs,
  formatNsAsSeconds,
} from '../util/time.js';
export { OnlineMonitor } from './online.js';
