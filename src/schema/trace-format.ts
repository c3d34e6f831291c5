/**
 * Text formats for recorded traces (`armguard score`), documented in docs/trace-format.md:
 *
 * JSONL — line 1 a header object, then one JSON array per sample in `columns` order:
 *   {"format":"armguard-trace/1","episode":"ep-07","success":true,"platform":"so101",
 *    "task":"so101-pick-butter","templates":[],"objects":[],"manual":{"stable_grasp_maintained":"violated"},
 *    "columns":["t","contact_force_max","gripper_contact"]}
 *   [0.00, 1.2, 0]
 *   [0.05, 1.4, null]        ← null: the signal keeps its previous value (piecewise constant)
 *
 * CSV — line 1 `# armguard-trace/1 {header object without "columns"}`, line 2 the column names,
 * then one row per sample; an empty cell keeps the previous value; true/false are accepted.
 *
 * Pure: text in, an EpisodeTrace or every problem (file, line, field) out.
 */
import { InputError, type Result, closestMatch, err, ok } from '../util/index.js';
import { derivedSignal } from './derived.js';
import { SIGNALS, isSignalName } from './signals.js';
import { MANUAL_VERDICTS, type EpisodeMeta, type EpisodeTrace, type ManualVerdict } from './trace.js';
import { MAX_EXACT_NS, parseDecimalSeconds, relativeNs } from '../util/time.js';

export const TRACE_FORMAT = 'armguard-trace/1';
const HEADER_KEYS = [
  'format',
  'episode',
  'success',
  'platform',
  'task',
  'templates',
  'objects',
  'manual',
  'policy',
  'note',
  'columns',
];
const MAX_ERRORS = 20;

export function parseTraceText(text: string, file: string): Result<EpisodeTrace, InputError[]> {
  return /\.csv$/i.test(file) || text.startsWith('#') ? parseTraceCsv(text, file) : parseTraceJsonl(text, file);
}

export function parseTraceJsonl(text: string, file: string): Result<EpisodeTrace, InputError[]> {
  const lines = text.split('\n');
  const errors: InputError[] = [];
  const header = parseJson(lines[0] ?? '', file, 1, '(header)', errors);
  const meta = header === undefined ? undefined : readHeader(header, file, errors, true);
  if (!meta) return err(errors);
  const b = new ColumnBuilder(meta.columns, file, errors);
  for (let i = 1; i < lines.length && errors.length < MAX_ERRORS; i++) {
    const raw = lines[i]!.trim();
    if (raw === '') continue;
    const row = parseJson(raw, file, i + 1, '(sample)', errors);
    if (row === undefined) continue;
    if (!Array.isArray(row)) {
      errors.push(
        new InputError(
          { file, line: i + 1, field: '(sample)' },
          `expected a JSON array of ${meta.columns.length} values in columns order`,
        ),
      );
      continue;
    }
    // the time as written (JSON.parse would round it to a double): read exactly to ns
    b.addRow(row as unknown[], i + 1, /^\[\s*(-?[\d.eE+-]+)\s*[,\]]/.exec(raw)?.[1]);
  }
  return errors.length > 0 ? err(errors) : ok(b.finish(meta.meta));
}

export function parseTraceCsv(text: string, file: string): Result<EpisodeTrace, InputError[]> {
  const lines = text.split('\n').map((l) => l.replace(/\r$/, ''));
  const errors: InputError[] = [];
  const first = lines[0] ?? '';
  const m = /^#\s*(\S+)\s+(\{.*\})\s*$/.exec(first);
  if (!m || m[1] !== TRACE_FORMAT) {
    return err([
      new InputError({ file, line: 1, field: '(header)' }, `expected '# ${TRACE_FORMAT} {…episode metadata JSON…}'`),
    ]);
  }
  const header = parseJson(m[2]!, file, 1, '(header)', errors);
  const columns = (lines[1] ?? '').split(',').map((c) => c.trim());
  if (header === undefined) return err(errors);
  if (typeof header === 'object' && header !== null && !Array.isArray(header)) {
    (header as Record<string, unknown>).format = TRACE_FORMAT;
    (header as Record<string, unknown>).columns = columns;
  }
  const meta = readHeader(header, file, errors, false, 2);
  if (!meta) return err(errors);
  const b = new ColumnBuilder(meta.columns, file, errors);
  for (let i = 2; i < lines.length && errors.length < MAX_ERRORS; i++) {
    if (lines[i]!.trim() === '') continue;
    const texts = lines[i]!.split(',');
    const cells = texts.map((c): unknown => {
      const s = c.trim();
      if (s === '') return null;
      if (s === 'true') return true;
      if (s === 'false') return false;
      const v = Number(s);
      return Number.isNaN(v) && s !== 'NaN' ? s : v;
    });
    b.addRow(cells, i + 1, texts[0]?.trim());
  }
  return errors.length > 0 ? err(errors) : ok(b.finish(meta.meta));
}

function parseJson(text: string, file: string, line: number, field: string, errors: InputError[]): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    errors.push(new InputError({ file, line, field }, `invalid JSON: ${(e as Error).message}`));
    return undefined;
  }
}

function readHeader(
  h: unknown,
  file: string,
  errors: InputError[],
  jsonl: boolean,
  columnsLine = 1,
): { meta: EpisodeMeta; columns: string[] } | undefined {
  const fail = (field: string, reason: string, line = 1) => {
    errors.push(new InputError({ file, line, field }, reason));
  };
  if (typeof h !== 'object' || h === null || Array.isArray(h)) {
    fail('(header)', `line 1 must be the episode header object (format "${TRACE_FORMAT}")`);
    return undefined;
  }
  const o = h as Record<string, unknown>;
  const before = errors.length;
  for (const k of Object.keys(o)) {
    if (!HEADER_KEYS.includes(k)) {
      const hint = closestMatch(k, HEADER_KEYS);
      fail(k, `unknown header key '${k}'${hint ? ` (did you mean '${hint}'?)` : ''}`);
    }
  }
  if (o.format !== TRACE_FORMAT) fail('format', `expected "${TRACE_FORMAT}", got ${JSON.stringify(o.format)}`);
  const str = (k: string, required: boolean): string | undefined => {
    const v = o[k];
    if (v === undefined && !required) return undefined;
    if (typeof v !== 'string' || v.trim() === '')
      return void fail(k, `expected a non-empty string, got ${JSON.stringify(v)}`);
    return v;
  };
  const list = (k: string): string[] => {
    const v = o[k];
    if (v === undefined) return [];
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) {
      fail(k, `expected a list of strings, got ${JSON.stringify(v)}`);
      return [];
    }
    return v as string[];
  };
  const episodeId = str('episode', true);
  if (typeof o.success !== 'boolean')
    fail('success', `expected true or false (the episode's success label), got ${JSON.stringify(o.success)}`);
  const platform = str('platform', false);
  const task = str('task', false);
  const policy = str('policy', false);
  const note = str('note', false);
  const templates = list('templates');
  const objects = list('objects');
  const manual = new Map<string, ManualVerdict>();
  if (o.manual !== undefined) {
    if (typeof o.manual !== 'object' || o.manual === null || Array.isArray(o.manual)) {
      fail('manual', 'expected an object of clause id → "violated" | "satisfied" | "not_applicable"');
    } else {
      for (const [clause, v] of Object.entries(o.manual as Record<string, unknown>)) {
        if (typeof v === 'string' && (MANUAL_VERDICTS as readonly string[]).includes(v))
          manual.set(clause, v as ManualVerdict);
        else fail(`manual.${clause}`, `expected one of ${MANUAL_VERDICTS.join(', ')}, got ${JSON.stringify(v)}`);
      }
    }
  }
  const columns = Array.isArray(o.columns) ? (o.columns as unknown[]) : undefined;
  if (!columns || columns.some((c) => typeof c !== 'string')) {
    fail('columns', `expected the column names, "t" first then signal names${jsonl ? '' : ''}`, columnsLine);
  } else {
    if (columns[0] !== 't')
      fail('columns[0]', `the first column must be "t" (time, s), got ${JSON.stringify(columns[0])}`, columnsLine);
    const seen = new Set<string>();
    columns.slice(1).forEach((c, i) => {
      const name = c as string;
      if (seen.has(name)) fail(`columns[${i + 1}]`, `column '${name}' appears twice`, columnsLine);
      seen.add(name);
      if (!isSignalName(name)) {
        const hint = closestMatch(
          name,
          SIGNALS.map((s) => s.name),
        );
        const why = derivedSignal(name)
          ? 'is derived from other signals and must not be recorded'
          : 'is not a schema signal';
        fail(`columns[${i + 1}]`, `'${name}' ${why}${hint ? ` (did you mean '${hint}'?)` : ''}`, columnsLine);
      }
    });
  }
  if (errors.length > before || episodeId === undefined || typeof o.success !== 'boolean' || !columns) return undefined;
  const meta: EpisodeMeta = {
    episodeId,
    success: o.success,
    templates,
    objects,
    manual,
    ...(platform !== undefined ? { platform } : {}),
    ...(task !== undefined ? { task } : {}),
    ...(policy !== undefined ? { policy } : {}),
    ...(note !== undefined ? { note } : {}),
  };
  return { meta, columns: columns as string[] };
}

/** Accumulates sample rows into columns, holding the last value for null cells. */
class ColumnBuilder {
  private times: number[] = [];
  /** Exact times from the time text: ns since the first sample; dropped if a row has no such text. */
  private timesNs: number[] | undefined = [];
  private originNs: bigint | undefined;
  private readonly values: number[][];
  private readonly kinds: ('real' | 'boolean')[];

  constructor(
    private readonly columns: readonly string[],
    private readonly file: string,
    private readonly errors: InputError[],
  ) {
    this.values = columns.slice(1).map(() => []);
    this.kinds = columns.slice(1).map((c) => SIGNALS.find((s) => s.name === c)?.kind ?? 'real');
  }

  /** `tText`: the time as written, read exactly (decimal seconds → integer ns). */
  addRow(row: readonly unknown[], line: number, tText?: string): void {
    const fail = (field: string, reason: string): void => {
      this.errors.push(new InputError({ file: this.file, line, field }, reason));
    };
    if (row.length !== this.columns.length) {
      fail('(sample)', `expected ${this.columns.length} values (${this.columns.join(', ')}), got ${row.length}`);
      return;
    }
    const t = row[0];
    const prevT = this.times[this.times.length - 1];
    if (typeof t !== 'number' || !Number.isFinite(t))
      return fail('t', `expected a finite time in seconds, got ${JSON.stringify(t)}`);
    const exact = tText === undefined ? undefined : parseDecimalSeconds(tText);
    let tNs: number | undefined;
    if (exact && this.timesNs) {
      tNs = relativeNs(exact.ns, this.originNs ?? exact.ns);
      if (tNs === undefined)
        return fail(
          't',
          `${tText} s is more than ${Math.floor(MAX_EXACT_NS / 86_400e9)} days after the first sample: times are held as exact ns from the first sample`,
        );
    }
    // strictly increasing by the exact times when there are (two times a float cannot tell apart are still two)
    const prevNs = this.timesNs?.[this.timesNs.length - 1];
    if (tNs !== undefined && prevNs !== undefined ? !(tNs > prevNs) : prevT !== undefined && !(t > prevT)) {
      return fail('t', `times must increase strictly: ${tText ?? t} after ${prevT}`);
    }
    if (exact && this.originNs === undefined) this.originNs = exact.ns;
    const first = this.times.length === 0;
    for (let k = 1; k < row.length; k++) {
      const name = this.columns[k]!;
      let v = row[k];
      const col = this.values[k - 1]!;
      if (v === null) {
        if (first) return fail(name, 'the first sample must give every signal (null holds the previous value)');
        v = col[col.length - 1];
      } else if (typeof v === 'boolean') {
        v = v ? 1 : 0;
      }
      if (typeof v !== 'number' || !Number.isFinite(v))
        return fail(name, `expected a finite number, got ${JSON.stringify(row[k])}`);
      if (this.kinds[k - 1] === 'boolean' && v !== 0 && v !== 1)
        return fail(name, `boolean signal: expected 0, 1, true or false, got ${v}`);
    }
    this.times.push(t);
    if (tNs === undefined) this.timesNs = undefined;
    else this.timesNs?.push(tNs);
    for (let k = 1; k < row.length; k++) {
      const col = this.values[k - 1]!;
      const v = row[k];
      col.push(v === null ? col[col.length - 1]! : typeof v === 'boolean' ? (v ? 1 : 0) : (v as number));
    }
  }

  finish(meta: EpisodeMeta): EpisodeTrace {
    const columns = new Map<string, Float64Array>();
    this.columns.slice(1).forEach((name, k) => columns.set(name, Float64Array.from(this.values[k]!)));
    return {
      meta,
      times: Float64Array.from(this.times),
      ...(this.timesNs ? { timesNs: Float64Array.from(this.timesNs) } : {}),
      columns,
      file: this.file,
    };
  }
}
