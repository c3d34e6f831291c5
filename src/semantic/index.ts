/** The semantic gate (issue 18): stage events, judge port, gate, scheduler, lexicon, twin metrics. */
export * from './types.js';
export * from './stage-events.js';
export * from './semantic-gate.js';
export * from './judge-scheduler.js';
export * from './lexicon.js';
export * from './lexicon-judge.js';
export * from './task-semantics.js';
export * from './twin-metrics.js';
export * from './live-stages.js';
