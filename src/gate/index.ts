export * from './margins.js';
export * from './events.js';
export * from './gate.js';
export * from './heartbeat-watchdog.js';
export * from './chunk.js';
export * from './chunk-parse.js';
export * from './chunk-screen.js';
