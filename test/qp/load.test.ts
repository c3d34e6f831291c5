import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseQpJson } from '../../src/qp/index.js';
import { InputError } from '../../src/util/errors.js';
import { sharedDir } from '../support/paths.js';

const tiny = {
  n: 2,
  m: 2,
  P: { format: 'csc', m: 2, n: 2, p: [0, 1, 3], i: [0, 0, 1], x: [2, 0.5, 1] },
  q: [1, -1],
  A: { format: 'csc', m: 2, n: 2, p: [0, 1, 2], i: [0, 1], x: [1, 1] },
  l: [0, -1e30],
  u: [1e30, 3],
};

function messageOf(doc: unknown): string {
  try {
    parseQpJson(JSON.stringify(doc), 'bad.json');
  } catch (e) {
    expect(e).toBeInstanceOf(InputError);
    return (e as Error).message;
  }
  throw new Error('expected an InputError');
}

describe('parseQpJson', () => {
  it('reads the shared single-problem file with its chunk stage hint', () => {
    const file = join(sharedDir, 'qp', 'chunk_H50_n6.json');
    const [p, ...rest] = parseQpJson(readFileSync(file, 'utf8'), file);
    expect(rest).toHaveLength(0);
    expect(p!.n).toBe(350);
    expect(p!.m).toBe(750);
    expect(p!.P.colPtr[350]).toBe(594);
    expect(p!.A.colPtr[350]).toBe(1737);
    expect(p!.stageHint).toEqual({ kind: 'chunk', horizon: 50, joints: 6 });
    expect(p!.u[749]).toBe(1e30);
  });

  it('reads {"problems": [...]} and bounds given as null / "inf"', () => {
    const second = { ...tiny, l: [null, '-inf'], u: ['inf', 3] };
    const ps = parseQpJson(JSON.stringify({ problems: [tiny, second] }));
    expect(ps).toHaveLength(2);
    expect(Array.from(ps[1]!.l)).toEqual([-Infinity, -Infinity]);
    expect(Array.from(ps[1]!.u)).toEqual([Infinity, 3]);
    expect(ps[0]!.stageHint).toBeUndefined();
  });

  it('names the offending field', () => {
    expect(messageOf({ ...tiny, n: -1 })).toBe("bad.json field 'n': expected a non-negative integer, got -1");
    expect(messageOf({ ...tiny, q: [1] })).toBe("bad.json field 'q': expected 2 entries, got 1");
    expect(messageOf({ ...tiny, q: [1, 'x'] })).toBe('bad.json field \'q[1]\': expected a finite number, got "x"');
    expect(messageOf({ ...tiny, l: [0, 'low'] })).toContain("field 'l[1]'");
    expect(messageOf({ ...tiny, l: [5, 0], u: [1, 3] })).toContain("field 'l[0]': lower bound 5 exceeds upper bound");
    expect(messageOf({ ...tiny, P: { ...tiny.P, i: [0, 1, 1] } })).toContain(
      "field 'P.i[2]': row indices in column 1 must be strictly ascending",
    );
    expect(messageOf({ ...tiny, P: { ...tiny.P, p: [0, 3, 1] } })).toContain(
      "field 'P.p[2]': column pointers must not decrease",
    );
    expect(messageOf({ ...tiny, A: { ...tiny.A, i: [0, 7] } })).toContain("field 'A.i[1]': row index 7 out of range");
    expect(messageOf({ ...tiny, A: { ...tiny.A, x: [1] } })).toContain("field 'A.x': expected 2 values");
    expect(messageOf({ ...tiny, A: { ...tiny.A, format: 'csr' } })).toContain("field 'A.format'");
    expect(messageOf({ problems: [tiny, { ...tiny, u: [1] }] })).toContain("field 'problems[1].u': expected 2 entries");
    expect(messageOf({ problems: 3 })).toContain("field 'problems'");
    // a lower-triangle entry in P is refused (P is the upper triangle, OSQP convention)
    expect(messageOf({ ...tiny, P: { ...tiny.P, i: [0, 1, 1], p: [0, 2, 3] } })).toContain('below the diagonal');
  });

  it('rejects text that is not JSON with the file name', () => {
    expect(() => parseQpJson('{"n": 2,', 'broken.json')).toThrowError(/^broken\.json: not valid JSON/);
  });

  it('only ever throws InputError on mutated documents (fuzz)', () => {
    const text = JSON.stringify(tiny);
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: text.length - 1 }),
        fc.integer({ min: 0, max: text.length }),
        fc.string({ maxLength: 6 }),
        (at, len, insert) => {
          const mutated = text.slice(0, at) + insert + text.slice(Math.min(text.length, at + (len % 8)));
          try {
            const ps = parseQpJson(mutated);
            for (const p of ps) {
              expect(p.q.length).toBe(p.n);
              expect(p.l.length).toBe(p.m);
            }
          } catch (e) {
            expect(e).toBeInstanceOf(InputError);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
});
