import { InputError } from '../util/errors.js';
import type { CscMatrix, QpProblem, StageHint } from './types.js';

/**
 * Parses QP JSON in the format of `shared/qp/gen-chunk-qp.mjs` (OSQP form, CSC matrices):
 *   { "n", "m", "P": {"format":"csc","m","n","p","i","x"}, "q", "A": {...}, "l", "u", "meta"? }
 * or { "problems": [ ... ] }. Bounds may be numbers (|v| ≥ 1e20 means none) or null/"inf"/"-inf".
 * `meta.H` and `meta.n` (horizon, joints) become a chunk stage hint. Errors name the field.
 */
export function parseQpJson(text: string, file?: string): QpProblem[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new InputError({ file }, `not valid JSON: ${(e as Error).message}`);
  }
  if (isRecord(doc) && 'problems' in doc) {
    const list = doc['problems'];
    if (!Array.isArray(list)) throw new InputError({ file, field: 'problems' }, 'expected an array of problems');
    if (list.length === 0) throw new InputError({ file, field: 'problems' }, 'expected at least one problem');
    return list.map((p, k) => parseProblem(p, `problems[${k}]`, file));
  }
  return [parseProblem(doc, '', file)];
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function join(prefix: string, field: string): string {
  return prefix === '' ? field : `${prefix}.${field}`;
}

function parseProblem(doc: unknown, at: string, file: string | undefined): QpProblem {
  if (!isRecord(doc))
    throw new InputError({ file, field: at === '' ? undefined : at }, 'expected a QP object with n, m, P, q, A, l, u');
  const fail = (field: string, why: string): never => {
    throw new InputError({ file, field: join(at, field) }, why);
  };
  const count = (field: string): number => {
    const v = doc[field];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0)
      return fail(field, `expected a non-negative integer, got ${JSON.stringify(v)}`);
    return v;
  };
  const n = count('n');
  const m = count('m');
  const vector = (field: string, length: number): Float64Array => {
    const v = doc[field];
    if (!Array.isArray(v)) return fail(field, `expected an array of ${length} numbers`);
    if (v.length !== length) return fail(field, `expected ${length} entries, got ${v.length}`);
    const out = new Float64Array(length);
    for (let k = 0; k < length; k++) {
      const e: unknown = v[k];
      if (typeof e !== 'number' || !Number.isFinite(e))
        return fail(`${field}[${k}]`, `expected a finite number, got ${JSON.stringify(e)}`);
      out[k] = e;
    }
    return out;
  };
  const bounds = (field: string, sign: 1 | -1): Float64Array => {
    const v = doc[field];
    if (!Array.isArray(v)) return fail(field, `expected an array of ${m} bounds`);
    if (v.length !== m) return fail(field, `expected ${m} entries, got ${v.length}`);
    const out = new Float64Array(m);
    for (let k = 0; k < m; k++) {
      const e: unknown = v[k];
      if (typeof e === 'number' && !Number.isNaN(e)) out[k] = e;
      else if (e === null) out[k] = sign * Infinity;
      else if (e === 'inf' || e === 'Infinity' || e === '+inf') out[k] = Infinity;
      else if (e === '-inf' || e === '-Infinity') out[k] = -Infinity;
      else return fail(`${field}[${k}]`, `expected a number, null or "inf"/"-inf", got ${JSON.stringify(e)}`);
    }
    return out;
  };
  const P = parseCsc(doc['P'], n, n, join(at, 'P'), file, true);
  const A = parseCsc(doc['A'], m, n, join(at, 'A'), file, false);
  const q = vector('q', n);
  const l = bounds('l', -1);
  const u = bounds('u', 1);
  for (let k = 0; k < m; k++)
    if (l[k]! > u[k]!) fail(`l[${k}]`, `lower bound ${l[k]} exceeds upper bound u[${k}] = ${u[k]}`);
  const stageHint = chunkHint(doc['meta'], n);
  return stageHint === undefined ? { n, m, P, q, A, l, u } : { n, m, P, q, A, l, u, stageHint };
}

function chunkHint(meta: unknown, n: number): StageHint | undefined {
  if (!isRecord(meta)) return undefined;
  const H = meta['H'];
  const joints = meta['n'];
  if (typeof H !== 'number' || typeof joints !== 'number') return undefined;
  if (!Number.isInteger(H) || !Number.isInteger(joints) || H < 1 || joints < 1 || H * (joints + 1) !== n)
    return undefined;
  return { kind: 'chunk', horizon: H, joints };
}

function parseCsc(
  v: unknown,
  rows: number,
  cols: number,
  field: string,
  file: string | undefined,
  upper: boolean,
): CscMatrix {
  const fail = (sub: string, why: string): never => {
    throw new InputError({ file, field: sub === '' ? field : `${field}.${sub}` }, why);
  };
  if (!isRecord(v)) return fail('', `expected a CSC matrix object {"format":"csc","m","n","p","i","x"}`);
  if (v['format'] !== undefined && v['format'] !== 'csc')
    fail('format', `expected "csc", got ${JSON.stringify(v['format'])}`);
  if (v['m'] !== undefined && v['m'] !== rows) fail('m', `expected ${rows} rows, got ${JSON.stringify(v['m'])}`);
  if (v['n'] !== undefined && v['n'] !== cols) fail('n', `expected ${cols} columns, got ${JSON.stringify(v['n'])}`);
  const ints = (key: string): Int32Array => {
    const a = v[key];
    if (!Array.isArray(a)) return fail(key, 'expected an array of integers');
    const out = new Int32Array(a.length);
    for (let k = 0; k < a.length; k++) {
      const e: unknown = a[k];
      if (typeof e !== 'number' || !Number.isInteger(e) || e < 0 || e > 0x7fffffff)
        return fail(`${key}[${k}]`, `expected a non-negative integer, got ${JSON.stringify(e)}`);
      out[k] = e;
    }
    return out;
  };
  const colPtr = ints('p');
  if (colPtr.length !== cols + 1) fail('p', `expected ${cols + 1} column pointers, got ${colPtr.length}`);
  if (colPtr[0] !== 0) fail('p[0]', 'expected 0');
  for (let j = 0; j < cols; j++) {
    if (colPtr[j + 1]! < colPtr[j]!)
      fail(`p[${j + 1}]`, `column pointers must not decrease (${colPtr[j + 1]} < ${colPtr[j]})`);
  }
  const nnz = colPtr[cols]!;
  const rowIndex = ints('i');
  if (rowIndex.length !== nnz) fail('i', `expected ${nnz} row indices (p[${cols}]), got ${rowIndex.length}`);
  const xs = v['x'];
  if (!Array.isArray(xs)) return fail('x', 'expected an array of numbers');
  if (xs.length !== nnz) fail('x', `expected ${nnz} values (p[${cols}]), got ${xs.length}`);
  const values = new Float64Array(nnz);
  for (let k = 0; k < nnz; k++) {
    const e: unknown = xs[k];
    if (typeof e !== 'number' || !Number.isFinite(e))
      fail(`x[${k}]`, `expected a finite number, got ${JSON.stringify(e)}`);
    values[k] = e as number;
  }
  for (let j = 0; j < cols; j++) {
    let prev = -1;
    for (let t = colPtr[j]!; t < colPtr[j + 1]!; t++) {
      const i = rowIndex[t]!;
      if (i >= rows) fail(`i[${t}]`, `row index ${i} out of range (matrix has ${rows} rows)`);
      if (i <= prev) fail(`i[${t}]`, `row indices in column ${j} must be strictly ascending`);
      if (upper && i > j)
        fail(`i[${t}]`, `entry (${i},${j}) is below the diagonal; P must be given as its upper triangle`);
      prev = i;
    }
  }
  return { rows, cols, colPtr, rowIndex, values };
}
