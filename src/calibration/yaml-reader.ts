/**
 * Typed, positioned access to a parsed YAML document: every problem becomes an InputError naming
 * the file, the line and the dotted field, and reading continues so one pass reports all problems.
 */
import { LineCounter, isMap, isSeq, parseDocument, type Document, type Node } from 'yaml';
import { InputError } from '../util/errors.js';

export class YamlReader {
  readonly problems: InputError[] = [];
  private readonly doc: Document;
  private readonly lines = new LineCounter();

  constructor(readonly file: string, text: string) {
    this.doc = parseDocument(text, { lineCounter: this.lines, prettyErrors: false });
    for (const e of this.doc.errors) {
      const line = e.linePos?.[0]?.line ?? this.lineAt(e.pos[0]);
      this.problems.push(new InputError({ file, line }, `YAML syntax: ${e.message.split('\n')[0]}`));
    }
  }

  get ok(): boolean {
    return this.problems.length === 0;
  }

  private lineAt(offset: number): number {
    return this.lines.linePos(offset).line;
  }

  /** Line of the node at `path`, or of its nearest existing parent. */
  line(path: readonly (string | number)[]): number | undefined {
    for (let n = path.length; n >= 0; n--) {
      const node = this.doc.getIn(path.slice(0, n), true) as Node | undefined;
      if (node && typeof node === 'object' && 'range' in node && node.range) return this.lineAt(node.range[0]);
    }
    return undefined;
  }

  problem(path: readonly (string | number)[], reason: string): void {
    this.problems.push(new InputError({ file: this.file, line: this.line(path), field: fieldName(path) }, reason));
  }

  has(path: readonly (string | number)[]): boolean {
    return this.doc.hasIn(path);
  }

  raw(path: readonly (string | number)[]): unknown {
    const v = this.doc.getIn(path, false) as unknown;
    if (isMap(v) || isSeq(v)) return (v as { toJSON(): unknown }).toJSON();
    return v;
  }

  /** Keys of the mapping at `path` (empty, with a problem, if it is not a mapping). */
  keys(path: readonly (string | number)[]): string[] {
    const node = this.doc.getIn(path, true);
    if (!isMap(node)) {
      this.problem(path, node === undefined ? 'missing (expected a mapping)' : 'expected a mapping');
      return [];
    }
    return node.items.map((i) => String((i.key as { value?: unknown } | null)?.value ?? i.key));
  }

  /** Length of the sequence at `path` (0, with a problem, if it is not a sequence). */
  length(path: readonly (string | number)[]): number {
    const node = this.doc.getIn(path, true);
    if (!isSeq(node)) {
      this.problem(path, node === undefined ? 'missing (expected a list)' : 'expected a list');
      return 0;
    }
    return node.items.length;
  }

  number(path: readonly (string | number)[], opts: { min?: number; max?: number; integer?: boolean; optional?: number } = {}): number {
    const v = this.raw(path);
    if (v === undefined && opts.optional !== undefined) return opts.optional;
    const what = `${opts.integer ? 'an integer' : 'a number'}${rangeText(opts)}`;
    if (typeof v !== 'number' || !Number.isFinite(v) || (opts.integer && !Number.isInteger(v))) {
      this.problem(path, v === undefined ? `missing (expected ${what})` : `expected ${what}, got ${JSON.stringify(v)}`);
      return NaN;
    }
    if ((opts.min !== undefined && v < opts.min) || (opts.max !== undefined && v > opts.max)) {
      this.problem(path, `expected ${what}, got ${v}`);
    }
    return v;
  }

  string(path: readonly (string | number)[], opts: { oneOf?: readonly string[]; optional?: string } = {}): string {
    const v = this.raw(path);
    if (v === undefined && opts.optional !== undefined) return opts.optional;
    if (typeof v !== 'string' || v.trim() === '') {
      this.problem(path, v === undefined ? 'missing (expected a non-empty string)' : `expected a non-empty string, got ${JSON.stringify(v)}`);
      return '';
    }
    if (opts.oneOf && !opts.oneOf.includes(v)) this.problem(path, `expected one of ${opts.oneOf.join(', ')}, got '${v}'`);
    return v;
  }

  numbers(path: readonly (string | number)[], count?: number): number[] {
    const n = this.length(path);
    if (count !== undefined && n !== count && this.has(path)) this.problem(path, `expected ${count} numbers, got ${n}`);
    const out: number[] = [];
    for (let i = 0; i < n; i++) out.push(this.number([...path, i]));
    return out;
  }

  /** Report mapping keys at `path` not in `allowed` (catches typos). */
  noExtraKeys(path: readonly (string | number)[], allowed: readonly string[]): void {
    const node = this.doc.getIn(path, true);
    if (!isMap(node)) return;
    for (const item of node.items) {
      const k = String((item.key as { value?: unknown } | null)?.value ?? item.key);
      if (!allowed.includes(k)) this.problem([...path, k], `unknown field (expected one of ${allowed.join(', ')})`);
    }
  }
}

function fieldName(path: readonly (string | number)[]): string | undefined {
  if (path.length === 0) return undefined;
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

function rangeText(o: { min?: number; max?: number }): string {
  if (o.min !== undefined && o.max !== undefined) return ` in [${o.min}, ${o.max}]`;
  if (o.min !== undefined) return ` ≥ ${o.min}`;
  if (o.max !== undefined) return ` ≤ ${o.max}`;
  return '';
}
