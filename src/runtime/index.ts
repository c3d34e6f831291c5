export * from './monitor-bank.js';
export * from './events.js';
export * from './chunk-executor.js';
export * from './pipeline.js';
export * from './chunk-transport.js';
export * from './chunk-server.js';
export * from './chunk-client.js';
export * from './gate-off-baseline.js';
