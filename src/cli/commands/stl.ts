import { readFile } from 'node:fs/promises';
import {
  evaluateOfflineNs,
  parseDecimalSeconds,
  relativeNs,
  OnlineMonitor,
  parseFormula,
  parseSpecFile,
  printFormula,
  type Formula,
  type StlSignalDecl,
} from '../../stl/index.js';
import { EXIT, parseArgs, type CliIo, type Command } from '../command.js';

const HELP = `usage: armguard stl --spec <formula | @file.stl> --trace <file.csv> [--bool name,...] [--online] [--series]

Evaluates STL formulas (design §4) against a recorded trace and prints JSON: the robustness ρ at the
first sample of each formula (> 0 satisfied, < 0 violated, in the signal's unit).

  --spec     a formula, or @path to a spec file (.stl: 'real a, b' / 'bool g' declarations,
             'name := formula' lines, 'let name := formula' helpers, # comments)
  --trace    CSV with a header; first column time in seconds (strictly increasing), then one
             column per signal. Booleans as 0/1 or true/false.
  --bool     with an inline formula: CSV columns that are boolean signals (others are real)
  --online   also run the online monitor sample by sample and report its episode statistics
             (per-step margin minimum, first violation, longest violating run); its final
             value equals the offline one
  --series   include the per-sample robustness series [[t, ρ(t)], ...]

±∞ (boolean atoms, empty windows) are printed as the strings "Infinity" / "-Infinity".

examples:
  armguard stl --spec 'always (force < 200)' --trace episode.csv
  armguard stl --spec 'always (grip -> height > -0.02)' --bool grip --trace ep.csv --series
  armguard stl --spec @clauses.stl --trace ep.csv --online`;

interface Trace {
  header: string[];
  times: Float64Array;
  /** The times as written, exactly, in integer ns from the first sample (what the engine compares). */
  timesNs: Float64Array;
  columns: Map<string, Float64Array>;
}

/** Parse a numeric CSV trace; problems name the file, line and column. */
export function parseTraceCsv(path: string, text: string, booleans: ReadonlySet<string>): Trace {
  const lines = text.split(/\r?\n/);
  const headerLine = lines.findIndex((l) => l.trim().length > 0);
  if (headerLine < 0) throw new Error(`${path}: empty file (expected a header 'time,signal,...')`);
  const header = (lines[headerLine] ?? '').split(',').map((h) => h.trim());
  if (header.length < 2)
    throw new Error(`${path}:${headerLine + 1}: header needs a time column and at least one signal column`);
  const seen = new Set<string>();
  for (const h of header) {
    if (seen.has(h)) throw new Error(`${path}:${headerLine + 1}: column '${h}' appears twice`);
    seen.add(h);
  }
  const rows: number[][] = [];
  const timesNs: number[] = [];
  let originNs: bigint | undefined;
  for (let l = headerLine + 1; l < lines.length; l++) {
    const line = lines[l] ?? '';
    if (line.trim().length === 0) continue;
    const cells = line.split(',');
    if (cells.length !== header.length)
      throw new Error(`${path}:${l + 1}: ${cells.length} values, header has ${header.length} columns`);
    const exact = parseDecimalSeconds((cells[0] ?? '').trim());
    if (!exact)
      throw new Error(
        `${path}:${l + 1}: column '${header[0]}': '${(cells[0] ?? '').trim()}' is not a decimal number of seconds`,
      );
    originNs ??= exact.ns;
    const rel = relativeNs(exact.ns, originNs);
    if (rel === undefined)
      throw new Error(`${path}:${l + 1}: column '${header[0]}': more than 104 days after the first sample`);
    if (timesNs.length > 0 && !(rel > timesNs[timesNs.length - 1]!))
      throw new Error(
        `${path}: time '${header[0]}' must be strictly increasing: ${(cells[0] ?? '').trim()} does not follow the previous row (line ${l + 1})`,
      );
    timesNs.push(rel);
    rows.push(
      cells.map((cell, k) => {
        const c = cell.trim();
        const name = header[k] ?? '';
        if (booleans.has(name) && (c === 'true' || c === 'false')) return c === 'true' ? 1 : 0;
        const v = c.length === 0 ? NaN : Number(c);
        if (!Number.isFinite(v)) throw new Error(`${path}:${l + 1}: column '${name}': '${c}' is not a finite number`);
        if (booleans.has(name) && v !== 0 && v !== 1)
          throw new Error(`${path}:${l + 1}: column '${name}' is boolean: expected 0/1/true/false, found '${c}'`);
        return v;
      }),
    );
  }
  const times = Float64Array.from(rows, (r) => r[0] ?? NaN);
  const columns = new Map<string, Float64Array>();
  header.slice(1).forEach((name, k) =>
    columns.set(
      name,
      Float64Array.from(rows, (r) => r[k + 1] ?? NaN),
    ),
  );
  return { header, times, timesNs: Float64Array.from(timesNs), columns };
}

const jsonNumber = (v: number): number | string | null =>
  Number.isNaN(v) ? null : Number.isFinite(v) ? v : v > 0 ? 'Infinity' : '-Infinity';

function runOnline(f: Formula, trace: Trace, signals: readonly string[]): Record<string, unknown> {
  const m = new OnlineMonitor(f, signals);
  const cols = signals.map((s) => trace.columns.get(s) ?? new Float64Array(0));
  const row = new Float64Array(signals.length);
  for (let i = 0; i < trace.times.length; i++) {
    for (let k = 0; k < cols.length; k++) row[k] = cols[k]?.[i] ?? NaN;
    m.pushNs(trace.timesNs[i] ?? NaN, row);
  }
  m.finish();
  return {
    final: jsonNumber(m.final),
    episodeMinMargin: jsonNumber(m.episodeMin),
    // pushed as ns from the first sample: back to the trace's own clock
    firstViolationTime: jsonNumber(m.firstViolationTime + (trace.times[0] ?? 0)),
    longestViolation: m.longestViolation,
    decidedSamples: m.decidedSamples,
  };
}

export const stlCommand: Command = {
  name: 'stl',
  help: HELP,
  async run(args: string[], io: CliIo) {
    const parsed = parseArgs(args, { strings: ['spec', 'trace', 'bool'], booleans: ['online', 'series'] });
    if (!parsed.ok) {
      io.err(`armguard stl: ${parsed.error}`);
      return EXIT.usage;
    }
    const spec = parsed.options.get('spec');
    const tracePath = parsed.options.get('trace');
    if (typeof spec !== 'string' || typeof tracePath !== 'string') {
      io.err('armguard stl: --spec and --trace are required (see armguard stl --help)');
      return EXIT.usage;
    }
    if (parsed.positionals.length > 0) {
      io.err(
        `armguard stl: unexpected argument '${parsed.positionals[0]}' (quote the formula: --spec 'always (x < 1)')`,
      );
      return EXIT.usage;
    }
    const boolOpt = parsed.options.get('bool');
    const booleans = new Set(
      typeof boolOpt === 'string'
        ? boolOpt
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean)
        : [],
    );

    let formulas: { name: string; formula: Formula }[];
    let trace: Trace;
    try {
      if (spec.startsWith('@')) {
        const specPath = spec.slice(1);
        const text = await readFile(specPath, 'utf8');
        const r = parseSpecFile(text);
        if (!r.ok) {
          for (const e of r.errors) io.err(`${specPath}:${e.line}:${e.column}: ${e.message}`);
          return EXIT.failure;
        }
        for (const s of r.spec.signals) if (s.type === 'boolean') booleans.add(s.name);
        trace = parseTraceCsv(tracePath, await readFile(tracePath, 'utf8'), booleans);
        const missing = r.spec.signals.filter((s) => !trace.columns.has(s.name)).map((s) => s.name);
        if (missing.length > 0) {
          io.err(
            `${tracePath}: no column for declared signal(s) ${missing.join(', ')} (columns: ${trace.header.slice(1).join(', ')})`,
          );
          return EXIT.failure;
        }
        formulas = r.spec.formulas;
      } else {
        trace = parseTraceCsv(tracePath, await readFile(tracePath, 'utf8'), booleans);
        for (const b of booleans) {
          if (!trace.columns.has(b)) {
            io.err(
              `armguard stl: --bool names '${b}', which is not a column of ${tracePath} (columns: ${trace.header.slice(1).join(', ')})`,
            );
            return EXIT.usage;
          }
        }
        const signals: StlSignalDecl[] = trace.header
          .slice(1)
          .map((name) => ({ name, type: booleans.has(name) ? 'boolean' : 'real' }));
        const r = parseFormula(spec, signals);
        if (!r.ok) {
          io.err(
            `--spec:${r.error.line}:${r.error.column}: ${r.error.message}\n  ${spec.split('\n')[r.error.line - 1] ?? ''}\n  ${' '.repeat(r.error.column - 1)}^`,
          );
          return EXIT.failure;
        }
        formulas = [{ name: 'formula', formula: r.formula }];
      }
    } catch (e) {
      io.err(`armguard stl: ${(e as Error).message}`);
      return EXIT.failure;
    }

    const signalOrder = trace.header.slice(1);
    const results = formulas.map(({ name, formula }) => {
      const series = evaluateOfflineNs(formula, trace.timesNs, trace.columns);
      const rho = series.length > 0 ? (series[0] ?? NaN) : NaN;
      const result: Record<string, unknown> = {
        name,
        formula: printFormula(formula),
        robustness: jsonNumber(rho),
        satisfied: series.length > 0 ? rho > 0 : null,
      };
      if (parsed.options.has('online')) result['online'] = runOnline(formula, trace, signalOrder);
      if (parsed.options.has('series'))
        result['series'] = Array.from(series, (v, i) => [trace.times[i], jsonNumber(v)]);
      return result;
    });
    // one [t, ρ] pair per line keeps long series readable
    const json = JSON.stringify({ trace: tracePath, samples: trace.times.length, results }, null, 2);
    io.out(json.replace(/\[\n\s+([^[\]\n]+),\n\s+([^[\]\n]+)\n\s+\]/g, '[$1, $2]'));
    return EXIT.ok;
  },
};
