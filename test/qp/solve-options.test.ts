import { describe, expect, it } from 'vitest';
import { reusableSolveOptions } from '../../src/qp/index.js';

/** Every field of QpSolveOptions (src/qp/types.ts), written out here. */
const FIELDS = [
  'deadline',
  'epsAbs',
  'epsRel',
  'maxIterations',
  'polish',
  'polishFromWarmStart',
  'resume',
  'warmStart',
  'warmStartDual',
];

describe('reusableSolveOptions', () => {
  it('has every option field from creation, in one order whatever it was given, and carries the values', () => {
    const deadline = (): boolean => false;
    const warm = new Float64Array(3);
    const a = reusableSolveOptions({ epsRel: 1e-6, maxIterations: 40 });
    const b = reusableSolveOptions({ resume: true, warmStart: warm, deadline, epsAbs: 1e-3, polish: false });
    expect([...Object.keys(a)].sort()).toEqual(FIELDS);
    expect(Object.keys(a)).toEqual(Object.keys(b));
    expect(a.epsRel).toBe(1e-6);
    expect(a.maxIterations).toBe(40);
    expect(a.deadline).toBeUndefined();
    expect(b.resume).toBe(true);
    expect(b.warmStart).toBe(warm);
    expect(b.deadline).toBe(deadline);
    expect(b.epsAbs).toBe(1e-3);
    expect(b.polish).toBe(false);
    // rewriting a field keeps the object's fields and order
    a.resume = true;
    a.warmStart = warm;
    expect(Object.keys(a)).toEqual(Object.keys(b));
  });
});
