/**
 * armguard as a library. Each part is also its own entry point (package.json `exports`):
 * `armguard/stl`, `armguard/qp`, `armguard/gate`, `armguard/episode`, `armguard/report`.
 * Examples: README.md, "Using armguard as a library".
 */
export * as stl from './stl/index.js';
export * as qp from './qp/index.js';
export * as gate from './gate/index.js';
export * as episode from './episode/index.js';
export * as report from './report/index.js';
