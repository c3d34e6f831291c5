/** Inline stylesheet of report.html (no external assets). */
export const REPORT_CSS = `
:root{--ink:#1f2933;--muted:#52606d;--line:#d9e2ec;--bg:#f5f7fa;--teal:#0f766e;--red:#c62828;--amber:#b45309}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:var(--ink);background:var(--bg)}
header{background:#102a43;color:#fff;padding:18px 32px}
header h1{margin:0 0 4px;font-size:22px;font-weight:600}
header .meta{color:#bcccdc;font-size:13px}
main{max-width:1180px;margin:0 auto;padding:16px 32px 48px}
section{background:#fff;border:1px solid var(--line);border-radius:6px;padding:14px 18px;margin:14px 0}
h2{font-size:16px;margin:0 0 10px;color:#102a43}
h3{font-size:14px;margin:12px 0 6px}
p.note{color:var(--muted);font-size:12.5px;margin:6px 0 0}
table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums}
th,td{padding:5px 8px;border-bottom:1px solid var(--line);text-align:right;white-space:nowrap}
th{background:#f0f4f8;font-weight:600;color:#334e68;white-space:normal;vertical-align:bottom}
.tw{overflow-x:auto}
#clause-table th,#clause-table td{padding:5px 6px;font-size:13px}
#headline-table td:last-child,#headline-table th:last-child{text-align:left;padding-left:24px}
th:first-child,td:first-child{text-align:left}
tr.all td{font-weight:600;border-top:2px solid #9fb3c8}
.bad{color:var(--red);font-weight:600}
td.good{color:var(--teal)}
.cards{display:grid;grid-template-columns:repeat(6,1fr);gap:10px;margin-bottom:12px}
.card{border:1px solid var(--line);border-radius:6px;padding:10px 12px;background:#fbfcfd}
.card .label{font-size:12px;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}
.card .value{font-size:24px;font-weight:650;margin:2px 0}
.card .ci{font-size:12px;color:var(--muted)}
.card.warn .value{color:var(--red)}
.card.ok .value{color:var(--teal)}
.quad{display:grid;grid-template-columns:110px 1fr 1fr;gap:6px;max-width:640px}
.quad div{padding:10px;border-radius:5px;text-align:center}
.quad .h{background:none;font-weight:600;color:var(--muted)}
.q-ss{background:#e6f4f1}.q-us{background:#fde2e2}.q-sf{background:#f0f4f8}.q-uf{background:#fff1e0}
.quad b{font-size:18px;display:block}
.banner{background:#fff4e5;border:1px solid #f0b429;color:#8d2b0b;padding:10px 14px;border-radius:6px;margin:14px 0}
.bar{display:flex;height:22px;border-radius:4px;overflow:hidden;border:1px solid var(--line);max-width:760px}
.bar span{display:block;height:100%}
.legend-row{display:flex;flex-wrap:wrap;gap:12px;font-size:12.5px;margin-top:6px}
.legend-row i{display:inline-block;width:11px;height:11px;border-radius:2px;margin-right:4px;vertical-align:-1px}
.plot{margin:10px 0 18px}
.plot .cap{font-size:13px;margin-bottom:4px}
svg.trace .tick{font-size:10.5px;fill:#52606d}
svg.trace .axis{font-size:11px;fill:#334e68}
svg.trace .legend{font-size:11px;fill:#52606d}
svg.trace .legend.hl{fill:#d62728;font-weight:600}
svg.trace .mark{font-size:11px;fill:#d62728}
.cmp td.diff{color:var(--muted)}
.manual{color:var(--amber);font-weight:600}
details summary{cursor:pointer;color:var(--muted)}
@media print{body{background:#fff}section{break-inside:avoid}}
`;
