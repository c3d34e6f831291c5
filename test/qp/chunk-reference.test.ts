import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseQpJson, QpSolver } from '../../src/qp/index.js';
import { sharedDir } from '../support/paths.js';

const file = join(sharedDir, 'qp', 'chunk_H50_n6.json');
const reference = JSON.parse(readFileSync(join(sharedDir, 'qp', 'chunk_H50_n6.ref.json'), 'utf8')) as {
  obj: number;
  x: number[];
};

describe('chunk_H50_n6 against its OSQP (eps 1e-9, polished) reference', () => {
  const [problem] = parseQpJson(readFileSync(file, 'utf8'), file);
  const solver = new QpSolver(problem!);

  it('uses the chunk stage structure: 50 stages of 6 joints + 1 slack', () => {
    expect(solver.structure.kind).toBe('chunk');
    expect(solver.structure.stageCount).toBe(50);
    expect(solver.structure.maxBlockSize).toBe(7);
  });

  it('reaches the reference objective within 1e-6 relative with violation ≤ 1e-6 in ≤ 40 iterations', () => {
    const r = solver.solve(problem!, { maxIterations: 40 });
    expect(r.status).toBe('solved');
    expect(reference.obj).toBeCloseTo(-36.1870867688, 9);
    expect(Math.abs(r.objective - reference.obj) / Math.abs(reference.obj)).toBeLessThanOrEqual(1e-6);
    expect(r.maxViolation).toBeLessThanOrEqual(1e-6);
    expect(r.iterations).toBeLessThanOrEqual(40);
    let dx = 0;
    for (let j = 0; j < problem!.n; j++) dx = Math.max(dx, Math.abs(r.x[j]! - reference.x[j]!));
    expect(dx).toBeLessThanOrEqual(1e-5);
  });

  it('gives the same answer through the dense fallback (no stage hint, one block)', () => {
    const { stageHint: _unused, ...plain } = problem!;
    const dense = new QpSolver({
      ...plain,
      stageHint: { kind: 'stages', stageOfVariable: new Int32Array(problem!.n) },
    });
    expect(dense.structure.kind).toBe('dense');
    const r = dense.solve(problem!);
    expect(r.status).toBe('solved');
    expect(Math.abs(r.objective - reference.obj) / Math.abs(reference.obj)).toBeLessThanOrEqual(1e-6);
  });

  it('detects level-set stages when the hint is missing', () => {
    const { stageHint: _unused, ...plain } = problem!;
    const levels = new QpSolver(plain);
    expect(levels.structure.kind).toBe('levels');
    expect(levels.structure.stageCount).toBeGreaterThan(10);
    const r = levels.solve(plain);
    expect(r.status).toBe('solved');
    expect(Math.abs(r.objective - reference.obj) / Math.abs(reference.obj)).toBeLessThanOrEqual(1e-6);
  });
});
