/**
 * Typed reading of a YAML document with every problem positioned (file, line, field). Pure: it
 * takes text, never reads files. Readers collect errors instead of throwing so one pass reports
 * every problem in a spec file.
 */
import { LineCounter, isMap, isScalar, isSeq, parseDocument, type Node, type YAMLMap } from 'yaml';
import { InputError, closestMatch } from '../util/index.js';

export type YamlNode = Node | null | undefined;

export class YamlReader {
  readonly errors: InputError[] = [];
  private readonly lines = new LineCounter();
  readonly root: YamlNode;

  constructor(
    readonly file: string,
    text: string,
  ) {
    const doc = parseDocument(text, { lineCounter: this.lines, prettyErrors: false, uniqueKeys: true });
    for (const e of doc.errors) {
      const pos = this.lines.linePos(e.pos[0]);
      this.errors.push(new InputError({ file, line: pos.line, column: pos.col }, `YAML syntax: ${e.message.split('\n')[0] ?? e.code}`));
    }
    this.root = doc.errors.length > 0 ? undefined : (doc.contents as YamlNode);
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
  map(node: YamlNode, field: string, allowed?: readonly string[]): Map<string, { key: YamlNode; value: YamlNode }> | undefined {
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
        this.fail(key, `${field}.${name}`, `unknown key '${name}'${hint ? ` (did you mean '${hint}'?)` : ''}; expected one of ${allowed.join(', ')}`);
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
    return this.fail(node, field, `expected one of ${options.join(', ')}, got '${s}'${hint ? ` (did you mean '${hint}'?)` : ''}`);
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
