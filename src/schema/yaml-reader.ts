/**
 * The YAML reader: typed reading of a YAML document with every problem positioned (file, line,
 * field). Pure: it takes text, never reads files. Readers collect errors instead of throwing so one
 * pass reports every problem in a file.
 *
 * Two ways in, one document and one error list: by node (`map`, `seq`, `string`, `number`, … —
 * walk the tree, naming each field as you go) and by path (`stringAt(['a', 0, 'b'])`,
 * `numberAt`, … — look a value up where it should be; a missing one is "missing (expected …)").
 */
import { LineCounter, isMap, isScalar, isSeq, parseDocument, type Document, type Node, type YAMLMap } from 'yaml';
import { InputError, closestMatch } from '../util/index.js';

export type YamlNode = Node | null | undefined;
/** Where a value is: mapping keys and list indexes from the document root. */
export type YamlPath = readonly (string | number)[];

export interface YamlReaderOptions {
  /** Position YAML syntax errors by line and column (default) or by line only. */
  syntaxColumns?: boolean;
}

export class YamlReader {
  readonly errors: InputError[] = [];
  private readonly lines = new LineCounter();
  private readonly doc: Document;
  /** The document's root node; undefined when the text has syntax errors. */
  readonly root: YamlNode;

  constructor(
    readonly file: string,
    text: string,
    options: YamlReaderOptions = {},
  ) {
    this.doc = parseDocument(text, { lineCounter: this.lines, prettyErrors: false, uniqueKeys: true });
    for (const e of this.doc.errors) {
      const pos = this.lines.linePos(e.pos[0]);
      const column = options.syntaxColumns === false ? undefined : pos.col;
      this.errors.push(
        new InputError({ file, line: pos.line, column }, `YAML syntax: ${e.message.split('\n')[0] ?? e.code}`),
      );
    }
    this.root = this.doc.errors.length > 0 ? undefined : (this.doc.contents as YamlNode);
  }

  /** No problem found so far (syntax or reading). */
  get ok(): boolean {
    return this.errors.length === 0;
  }

  /** 1-based line of a node (or of the document start when the node is absent). */
  lineOf(node: YamlNode): number | undefined {
    const offset = node?.range?.[0];
    return offset === undefined ? undefined : this.lines.linePos(offset).line;
  }

  fail(node: YamlNode, field: string, reason: string): undefined {
    this.errors.push(new InputError({ file: this.file, line: this.lineOf(node), field }, reason));
    return undefined;
  }

  /** Entries of a mapping, in order; `allowed` rejects unknown keys with a "did you mean". */
  map(
    node: YamlNode,
    field: string,
    allowed?: readonly string[],
  ): Map<string, { key: YamlNode; value: YamlNode }> | undefined {
    if (!isMap(node)) return this.fail(node, field, `expected a mapping, got ${describeNode(node)}`);
    const out = new Map<string, { key: YamlNode; value: YamlNode }>();
    for (const pair of (node as YAMLMap<unknown, unknown>).items) {
      const key = pair.key as YamlNode;
      if (!isScalar(key) || typeof key.value !== 'string' || key.value === '') {
        this.fail(key ?? node, field, 'expected a non-empty string key');
        continue;
      }
      const name = key.value;
      if (allowed && !allowed.includes(name)) {
        const hint = closestMatch(name, allowed);
        this.fail(
          key,
          `${field}.${name}`,
          `unknown key '${name}'${hint ? ` (did you mean '${hint}'?)` : ''}; expected one of ${allowed.join(', ')}`,
        );
        continue;
      }
      out.set(name, { key, value: pair.value as YamlNode });
    }
    return out;
  }

  /** A required entry of a mapping read by `map`. */
  required(
    entries: Map<string, { key: YamlNode; value: YamlNode }>,
    name: string,
    parent: YamlNode,
    field: string,
  ): YamlNode | undefined {
    const e = entries.get(name);
    if (!e) return this.fail(parent, `${field}.${name}`, `missing required key '${name}'`);
    return e.value ?? null;
  }

  seq(node: YamlNode, field: string): YamlNode[] | undefined {
    if (!isSeq(node)) return this.fail(node, field, `expected a list, got ${describeNode(node)}`);
    return node.items as YamlNode[];
  }

  string(node: YamlNode, field: string): string | undefined {
    if (isScalar(node) && typeof node.value === 'string' && node.value.trim() !== '') return node.value;
    return this.fail(node, field, `expected a non-empty string, got ${describeNode(node)}`);
  }

  number(node: YamlNode, field: string, check?: { positive?: boolean; nonNegative?: boolean }): number | undefined {
    if (!isScalar(node) || typeof node.value !== 'number' || !Number.isFinite(node.value)) {
      return this.fail(node, field, `expected a finite number, got ${describeNode(node)}`);
    }
    const v = node.value;
    if (check?.positive && !(v > 0)) return this.fail(node, field, `expected a number > 0, got ${v}`);
    if (check?.nonNegative && !(v >= 0)) return this.fail(node, field, `expected a number >= 0, got ${v}`);
    return v;
  }

  boolean(node: YamlNode, field: string): boolean | undefined {
    if (isScalar(node) && typeof node.value === 'boolean') return node.value;
    return this.fail(node, field, `expected true or false, got ${describeNode(node)}`);
  }

  stringList(node: YamlNode, field: string): string[] | undefined {
    const items = this.seq(node, field);
    if (!items) return undefined;
    const out: string[] = [];
    items.forEach((item, i) => {
      const s = this.string(item, `${field}[${i}]`);
      if (s !== undefined) out.push(s);
    });
    return out;
  }

  /** One of a fixed set of strings. */
  oneOf<T extends string>(node: YamlNode, field: string, options: readonly T[]): T | undefined {
    const s = this.string(node, field);
    if (s === undefined) return undefined;
    if ((options as readonly string[]).includes(s)) return s as T;
    const hint = closestMatch(s, options);
    return this.fail(
      node,
      field,
      `expected one of ${options.join(', ')}, got '${s}'${hint ? ` (did you mean '${hint}'?)` : ''}`,
    );
  }

  // ---- by path ----

  /** Line of the node at `path`, or of its nearest existing parent. */
  lineAt(path: YamlPath): number | undefined {
    for (let n = path.length; n >= 0; n--) {
      const node = this.doc.getIn(path.slice(0, n), true) as Node | undefined;
      if (node && typeof node === 'object' && 'range' in node && node.range)
        return this.lines.linePos(node.range[0]).line;
    }
    return undefined;
  }

  problemAt(path: YamlPath, reason: string): void {
    this.errors.push(new InputError({ file: this.file, line: this.lineAt(path), field: fieldName(path) }, reason));
  }

  hasAt(path: YamlPath): boolean {
    return this.doc.hasIn(path);
  }

  /** The plain value at `path` (mappings and lists as objects and arrays). */
  rawAt(path: YamlPath): unknown {
    const v = this.doc.getIn(path, false) as unknown;
    if (isMap(v) || isSeq(v)) return (v as { toJSON(): unknown }).toJSON();
    return v;
  }

  /** Keys of the mapping at `path` (empty, with a problem, if it is not a mapping). */
  keysAt(path: YamlPath): string[] {
    const node = this.doc.getIn(path, true);
    if (!isMap(node)) {
      this.problemAt(path, node === undefined ? 'missing (expected a mapping)' : 'expected a mapping');
      return [];
    }
    return node.items.map((i) => String((i.key as { value?: unknown } | null)?.value ?? i.key));
  }

  /** Length of the sequence at `path` (0, with a problem, if it is not a sequence). */
  lengthAt(path: YamlPath): number {
    const node = this.doc.getIn(path, true);
    if (!isSeq(node)) {
      this.problemAt(path, node === undefined ? 'missing (expected a list)' : 'expected a list');
      return 0;
    }
    return node.items.length;
  }

  /** The number at `path` (NaN, with a problem, when it is not one); `optional` is the default when absent. */
  numberAt(path: YamlPath, opts: { min?: number; max?: number; integer?: boolean; optional?: number } = {}): number {
    const v = this.rawAt(path);
    if (v === undefined && opts.optional !== undefined) return opts.optional;
    const what = `${opts.integer ? 'an integer' : 'a number'}${rangeText(opts)}`;
    if (typeof v !== 'number' || !Number.isFinite(v) || (opts.integer && !Number.isInteger(v))) {
      this.problemAt(
        path,
        v === undefined ? `missing (expected ${what})` : `expected ${what}, got ${JSON.stringify(v)}`,
      );
      return NaN;
    }
    if ((opts.min !== undefined && v < opts.min) || (opts.max !== undefined && v > opts.max)) {
      this.problemAt(path, `expected ${what}, got ${v}`);
    }
    return v;
  }

  /** The non-empty string at `path` ('' with a problem when it is not one); `optional` is the default when absent. */
  stringAt(path: YamlPath, opts: { oneOf?: readonly string[]; optional?: string } = {}): string {
    const v = this.rawAt(path);
    if (v === undefined && opts.optional !== undefined) return opts.optional;
    if (typeof v !== 'string' || v.trim() === '') {
      this.problemAt(
        path,
        v === undefined
          ? 'missing (expected a non-empty string)'
          : `expected a non-empty string, got ${JSON.stringify(v)}`,
      );
      return '';
    }
    if (opts.oneOf && !opts.oneOf.includes(v))
      this.problemAt(path, `expected one of ${opts.oneOf.join(', ')}, got '${v}'`);
    return v;
  }

  /** The list of numbers at `path`, of `count` entries when given. */
  numbersAt(path: YamlPath, count?: number): number[] {
    const n = this.lengthAt(path);
    if (count !== undefined && n !== count && this.hasAt(path))
      this.problemAt(path, `expected ${count} numbers, got ${n}`);
    const out: number[] = [];
    for (let i = 0; i < n; i++) out.push(this.numberAt([...path, i]));
    return out;
  }

  /** Report mapping keys at `path` not in `allowed` (catches typos). */
  noExtraKeysAt(path: YamlPath, allowed: readonly string[]): void {
    const node = this.doc.getIn(path, true);
    if (!isMap(node)) return;
    for (const item of node.items) {
      const k = String((item.key as { value?: unknown } | null)?.value ?? item.key);
      if (!allowed.includes(k)) this.problemAt([...path, k], `unknown field (expected one of ${allowed.join(', ')})`);
    }
  }
}

export function describeNode(node: YamlNode): string {
  if (node === null || node === undefined) return 'nothing';
  if (isMap(node)) return 'a mapping';
  if (isSeq(node)) return 'a list';
  if (isScalar(node)) {
    const v = node.value;
    if (v === null) return 'null';
    return `${typeof v} ${JSON.stringify(v)}`;
  }
  return 'an alias or unsupported node';
}

function fieldName(path: YamlPath): string | undefined {
  if (path.length === 0) return undefined;
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

function rangeText(o: { min?: number; max?: number }): string {
  if (o.min !== undefined && o.max !== undefined) return ` in [${o.min}, ${o.max}]`;
  if (o.min !== undefined) return ` ≥ ${o.min}`;
  if (o.max !== undefined) return ` ≤ ${o.max}`;
  return '';
}
