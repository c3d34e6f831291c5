import { describe, expect, it } from 'vitest';
import { detectStructure } from '../../src/qp/index.js';
import { toProblem } from './support/build.js';
import type { DenseQp } from './support/dense-reference.js';

/** chain x0 – x1 – x2 – x3 through P, plus rows given as lists of variables */
function chain(rowsOver: number[][]): DenseQp {
  const n = 4;
  const P = Array.from({ length: n }, (_, i) =>
    Array.from({ length: n }, (_, j) => (i === j ? 2 : Math.abs(i - j) === 1 ? -0.5 : 0)),
  );
  const A = rowsOver.map((vars) => Array.from({ length: n }, (_, j) => (vars.includes(j) ? 1 : 0)));
  return { n, P, q: [0, 0, 0, 0], A, l: A.map(() => -1), u: A.map(() => 1) };
}

describe('detectStructure', () => {
  it('accepts a stage hint the pattern respects', () => {
    const p = toProblem(
      chain([
        [0, 1],
        [2, 3],
      ]),
      { kind: 'stages', stageOfVariable: Int32Array.from([0, 0, 1, 1]) },
    );
    const s = detectStructure(p);
    expect(s.kind).toBe('stages');
    expect(s.stageCount).toBe(2);
    expect(Array.from(s.stageStart)).toEqual([0, 2, 4]);
  });

  it('rejects a hint a row violates, says why, and falls back to level sets', () => {
    const p = toProblem(chain([[0, 3]]), { kind: 'stages', stageOfVariable: Int32Array.from([0, 1, 2, 3]) });
    const s = detectStructure(p);
    expect(s.hintRejected).toBe('row 0 of A couples stages 0 and 3');
    // x0–x3 coupled by a row closes the chain into a ring: levels from a peripheral vertex
    expect(s.kind).toBe('levels');
    expect(s.maxBlockSize).toBe(2);
  });

  it('rejects a chunk hint whose layout does not match n', () => {
    const p = toProblem(chain([]), { kind: 'chunk', horizon: 3, joints: 1 });
    expect(detectStructure(p).hintRejected).toBe('chunk layout H·(n+1) = 6 does not match 4 variables');
  });

  it('finds one stage per variable on a path, few stages on cliques, one dense block on request', () => {
    const path = detectStructure(toProblem(chain([[0, 1]])));
    expect(path.kind).toBe('levels');
    expect(path.stageCount).toBe(4);
    const clique = detectStructure(toProblem(chain([[0, 1, 2, 3]])));
    expect(clique.kind).toBe('levels');
    expect(clique.stageCount).toBe(2);
    // a fully coupled P: the start vertex, then everything else (valid, effectively dense)
    const full = {
      ...chain([]),
      P: [
        [2, 1, 1, 1],
        [1, 2, 1, 1],
        [1, 1, 2, 1],
        [1, 1, 1, 2],
      ],
    };
    const levels = detectStructure(toProblem(full));
    expect(levels.stageCount).toBe(2);
    expect(levels.maxBlockSize).toBe(3);
    const dense = detectStructure(toProblem(full, { kind: 'stages', stageOfVariable: new Int32Array(4) }));
    expect(dense.kind).toBe('dense');
    expect(dense.stageCount).toBe(1);
  });

  it('every P entry and row spans at most two consecutive detected stages', () => {
    const p = toProblem(
      chain([
        [0, 2],
        [1, 3],
        [0, 1],
      ]),
    );
    const s = detectStructure(p);
    const st = (j: number) => s.stageOfPosition[s.positionOf[j]!]!;
    for (const [a, b] of [
      [0, 1],
      [1, 2],
      [2, 3],
      [0, 2],
      [1, 3],
    ] as const)
      expect(Math.abs(st(a) - st(b))).toBeLessThanOrEqual(1);
  });
});
