/** summary.json: every figure of the report (per-episode rows are in episodes.csv). */
import type { ReportData } from '../build-types.js';

/** JSON with typed arrays as plain arrays and non-finite numbers as null. */
export function renderSummaryJson(r: ReportData): string {
  const { rows: _rows, ...rest } = r;
  return `${JSON.stringify(
    rest,
    (_k, v: unknown) => {
      if (v instanceof Float64Array)
        return Array.from(v, (x) => (Number.isFinite(x) ? Math.round(x * 1e6) / 1e6 : null));
      if (v instanceof Map) return Object.fromEntries(v);
      return v;
    },
    2,
  )}\n`;
}
