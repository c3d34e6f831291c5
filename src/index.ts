/**
 * armguard as a library. Each part is also its own entry point (package.json `exports`, sources in
 * src/api/): `armguard/stl`, `armguard/qp`, `armguard/gate`, `armguard/episode`, `armguard/report`.
 * Examples: README.md, "Using armguard as a library".
 */
export * as stl from './api/stl.js';
export * as qp from './api/qp.js';
export * as gate from './api/gate.js';
export * as episode from './api/episode.js';
export * as report from './api/report.js';
