export * from './margins.js';
export * from './events.js';
export * from './gate.js';
export * from './heartbeat-watchdog.js';
