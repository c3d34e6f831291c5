/** Report renderers: pure string builders over ReportData. */
export { renderHtml } from './html.js';
export { renderMarkdown } from './markdown.js';
export { renderEpisodesCsv, EPISODE_CSV_COLUMNS } from './csv.js';
export { renderSummaryJson } from './json.js';
export { traceSvg } from './svg-trace.js';
