export * from './errors.js';
export * from './result.js';
export * from './clock.js';
export * from './ring-buffer.js';
export * from './monotonic-deque.js';
export * from './levenshtein.js';
export * from './rng.js';
export * from './listeners.js';
