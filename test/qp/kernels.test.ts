import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { multiplyRows } from '../../src/qp/kernels.js';
import { rowView } from '../../src/qp/structure.js';
import type { CscMatrix } from '../../src/qp/index.js';

/** CSC of a matrix given as rows of [column, value] entries (columns ascending within a row). */
function cscOfRows(rows: readonly (readonly [number, number])[][], cols: number): CscMatrix {
  const colPtr = [0];
  const rowIndex: number[] = [];
  const values: number[] = [];
  for (let j = 0; j < cols; j++) {
    rows.forEach((r, i) => {
      const e = r.find(([c]) => c === j);
      if (e) {
        rowIndex.push(i);
        values.push(e[1]);
      }
    });
    colPtr.push(rowIndex.length);
  }
  return {
    rows: rows.length,
    cols,
    colPtr: Int32Array.from(colPtr),
    rowIndex: Int32Array.from(rowIndex),
    values: Float64Array.from(values),
  };
}

describe('rowView: row groups', () => {
  it('groups runs of at least two rows of three or more entries over the same columns, nothing else', () => {
    const rows: [number, number][][] = [
      [
        [0, 1],
        [1, 1],
        [2, 1],
      ],
      [
        [0, 2],
        [1, 2],
        [2, 2],
      ],
      [
        [0, 3],
        [1, 3],
        [2, 3],
      ],
      [[1, 1]],
      [[1, 2]],
      [
        [3, 1],
        [4, 1],
        [5, 1],
      ],
      [
        [3, 1],
        [4, 1],
        [6, 1],
      ],
      [
        [3, 2],
        [4, 2],
        [6, 2],
      ],
      [
        [0, 1],
        [1, 1],
      ],
      [
        [0, 1],
        [1, 1],
      ],
    ];
    const v = rowView(cscOfRows(rows, 7));
    expect(Array.from(v.groupOfRow)).toEqual([0, 0, 0, -1, -1, -1, 1, 1, -1, -1]);
    expect(Array.from(v.groupFirst)).toEqual([0, 6]);
    expect(Array.from(v.groupEnd)).toEqual([3, 8]);
    expect(Array.from(v.groupWidth)).toEqual([3, 3]);
    expect(v.tallestGroup).toBe(3);
    expect(v.widestGroup).toBe(3);
  });
});

describe('multiplyRows', () => {
  // Rows in runs over one column set (groups, summed four rows at a time) and loose rows of any
  // length; each entry of A x must be that row's sum in column order, exactly: the grouped passes
  // keep every row's order, so the result is the same to the bit as one row at a time.
  const matrix = fc
    .record({
      cols: fc.integer({ min: 1, max: 14 }),
      runs: fc.array(
        fc.record({ height: fc.integer({ min: 1, max: 9 }), width: fc.integer({ min: 1, max: 14 }), seed: fc.nat() }),
        { minLength: 1, maxLength: 8 },
      ),
    })
    .chain(({ cols, runs }) =>
      fc.tuple(
        fc.constant(cols),
        fc.tuple(
          ...runs.map(({ height, width }) =>
            fc.tuple(
              fc.uniqueArray(fc.integer({ min: 0, max: cols - 1 }), {
                minLength: Math.min(width, cols),
                maxLength: Math.min(width, cols),
              }),
              fc.array(fc.array(fc.double({ min: -1e3, max: 1e3, noNaN: true }), { minLength: 14, maxLength: 14 }), {
                minLength: height,
                maxLength: height,
              }),
            ),
          ),
        ),
        fc.array(fc.double({ min: -1e3, max: 1e3, noNaN: true }), { minLength: cols, maxLength: cols }),
      ),
    );

  it('gives every row its sum in column order, bit for bit', () => {
    fc.assert(
      fc.property(matrix, ([cols, runs, x]) => {
        const rows: [number, number][][] = [];
        for (const [columns, values] of runs) {
          const sorted = [...columns].sort((a, b) => a - b);
          for (const vals of values) rows.push(sorted.map((c, t) => [c, vals[t] === 0 ? 0.5 : vals[t]!]));
        }
        const A = cscOfRows(rows, cols);
        const view = rowView(A);
        const rowValues = new Float64Array(view.cscIndex.length);
        for (let e = 0; e < rowValues.length; e++) rowValues[e] = A.values[view.cscIndex[e]!]!;
        const m = rows.length;
        const out = new Float64Array(m + 3).fill(NaN);
        multiplyRows(m, view, rowValues, Float64Array.from(x), out, 3);
        rows.forEach((r, i) => {
          let s = 0;
          for (const [c, v] of r) s += v * x[c]!;
          expect(Object.is(out[3 + i], s)).toBe(true);
        });
      }),
      { numRuns: 300 },
    );
  });
});
