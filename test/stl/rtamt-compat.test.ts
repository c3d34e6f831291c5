// RTAMT compatibility (design §4): on uniformly sampled traces (period 1 s) with integer bounds the
// dialect is discrete-time STL. Expected values are hand-computed from RTAMT's discrete-time
// definitions, e.g. φ until[a,b] ψ at t = max_{t'∈[t+a,t+b]} min(ψ(t'), min_{t''∈[t,t'-1]} φ(t'')),
// φ since[a,b] ψ at t = max_{t'∈[t-b,t-a]} min(ψ(t'), min_{t''∈[t'+1,t]} φ(t'')).
// Entries whose future window runs past the trace end follow the SPEC truncation rule (marked).
import { describe, expect, it } from 'vitest';
import { offline, real } from './support/formula.js';

const SIG = real('x', 'y');
const times = [0, 1, 2, 3, 4, 5];
const cols = { x: [1, 4, 2, 5, 0, 3], y: [2, -1, 3, 0, 1, -2] };
const rho = (text: string): number[] => offline(text, SIG, times, cols);

describe('RTAMT discrete-time semantics on a 1 s uniform trace', () => {
  it('always[0,2] (x <= 3)', () => {
    // 3 − x = [2, −1, 1, −2, 3, 0]; t=4,5 truncated
    expect(rho('always[0:2] (x <= 3)')).toEqual([-1, -2, -2, -2, 0, 0]);
  });
  it('eventually[1,2] (y > 0)', () => {
    // t=4 truncated to y(5); t=5 window past the end: −∞
    expect(rho('eventually[1:2] (y > 0)')).toEqual([3, 3, 1, 1, -2, -Infinity]);
  });
  it('(x > 0) until[1,2] (y > 0)', () => {
    expect(rho('(x > 0) until[1:2] (y > 0)')).toEqual([1, 3, 1, 1, -2, -Infinity]);
  });
  it('(x > 0) since[1,2] (y > 0)', () => {
    expect(rho('(x > 0) since[1:2] (y > 0)')).toEqual([-Infinity, 2, 2, 3, 0, 1]);
  });
  it('historically[1,2] (x <= 3)', () => {
    expect(rho('historically[1:2] (x <= 3)')).toEqual([Infinity, 2, -1, -1, -2, -2]);
  });
  it('once[0,1] (abs(x - 2) < 1)', () => {
    expect(rho('once[0:1] (abs(x - 2) < 1)')).toEqual([0, 0, 1, 1, -1, 0]);
  });
  it('always[0,2] ((x <= 3) -> eventually[0,1] (y > 0))', () => {
    expect(rho('always[0:2] ((x <= 3) -> eventually[0:1] (y > 0))')).toEqual([2, 2, 1, 0, 0, 0]);
  });
});
