// Hand-computed robustness per operator on an irregular trace (design §4), including windows whose
// edges fall between samples (the value in force at the window start counts) and the trace end.
import { describe, expect, it } from 'vitest';
import { bool, offline, real } from './support/formula.js';

const SIG = [...real('x', 'y'), ...bool('g')];
// pieces: [0,0.4) [0.4,1.0) [1.0,2.5) [2.5,2.6) [2.6,4.0) {4.0}
const times = [0, 0.4, 1.0, 2.5, 2.6, 4.0];
const cols = {
  x: [1, 5, 2, 7, 3, 0],
  y: [1, 2, -1, 3, 1, 1],
  g: [0, 1, 1, 0, 1, 0],
};
const rho = (text: string): number[] => offline(text, SIG, times, cols);
const INF = Infinity;

describe('atoms and connectives', () => {
  it('comparisons give the margin in the signal unit', () => {
    expect(rho('x < 6')).toEqual([5, 1, 4, -1, 3, 6]);
    expect(rho('x >= 2')).toEqual([-1, 3, 0, 5, 1, -2]);
    expect(rho('6 > x')).toEqual([5, 1, 4, -1, 3, 6]);
    expect(rho('x - y <= 1')).toEqual([1, -2, -2, -3, -1, 2]);
    expect(rho('abs(x - 3) < 1')).toEqual([-1, -1, 0, -3, 1, -2]);
    expect(rho('2 * x + 1 > 5')).toEqual([-2, 6, 0, 10, 2, -4]);
    expect(rho('x == 3')).toEqual([-2, -2, -1, -4, 0, -3]);
    expect(rho('x != 3')).toEqual([2, 2, 1, 4, 0, 3]);
  });
  it('boolean atoms are ±∞ and guards do not leak units', () => {
    expect(rho('g')).toEqual([-INF, INF, INF, -INF, INF, -INF]);
    expect(rho('not g')).toEqual([INF, -INF, -INF, INF, -INF, INF]);
    expect(rho('g -> x < 6')).toEqual([INF, 1, 4, INF, 3, INF]);
    expect(rho('g and x < 6')).toEqual([-INF, 1, 4, -INF, 3, -INF]);
    expect(rho('g or x < 6')).toEqual([5, INF, INF, -1, INF, 6]);
    expect(rho('true')).toEqual(Array(6).fill(INF));
  });
  it('not / and / or / -> on real margins', () => {
    expect(rho('not x < 6')).toEqual([-5, -1, -4, 1, -3, -6]);
    expect(rho('x < 6 and y > 0')).toEqual([1, 1, -1, -1, 1, 1]);
    expect(rho('x < 6 or y > 0')).toEqual([5, 2, 4, 3, 3, 6]);
    expect(rho('x > 4 -> y > 0')).toEqual([3, 2, 2, 3, 1, 4]);
  });
});

describe('future windows', () => {
  it('always[0:1]: pieces meeting [t, t+1], truncated at the trace end', () => {
    expect(rho('always[0:1] x < 6')).toEqual([1, 1, 4, -1, 3, 6]);
  });
  it('eventually[0.5:0.8]: the window start falls inside a piece, whose value counts; past the end gives −∞', () => {
    expect(rho('eventually[0.5:0.8] x > 4')).toEqual([1, 1, -2, -1, -1, -INF]);
  });
  it('always[0:0] is the value at t', () => {
    expect(rho('always[0:0] x < 6')).toEqual([5, 1, 4, -1, 3, 6]);
  });
  it('a window starting past the end is empty: +∞ for always', () => {
    expect(rho('always[2:3] x < 6')).toEqual([-1, -1, 3, INF, INF, INF]);
  });
  it('unbounded always/eventually: the rest of the episode', () => {
    expect(rho('always x < 6')).toEqual([-1, -1, -1, -1, 3, 6]);
    expect(rho('eventually x > 4')).toEqual([3, 3, 3, 3, -1, -4]);
  });
});

describe('past windows', () => {
  it('historically[0.5:1.5]: empty before the trace (+∞); the piece in force at t−b counts', () => {
    expect(rho('historically[0.5:1.5] x < 6')).toEqual([INF, INF, 1, 4, 4, -1]);
  });
  it('once[0:0.5]', () => {
    expect(rho('once[0:0.5] x > 4')).toEqual([-3, 1, 1, 3, 3, -1]);
  });
  it('unbounded historically/once: the whole past', () => {
    expect(rho('historically x < 6')).toEqual([5, 1, 1, -1, -1, -1]);
    expect(rho('once x > 4')).toEqual([-3, 1, 1, 3, 3, 3]);
  });
});

describe('until and since', () => {
  it('until[0.5:2]: φ must hold from t (not t+a); a window start inside a piece also requires φ there', () => {
    expect(rho('(y > 0) until[0.5:2] (x > 4)')).toEqual([1, 1, -1, -1, -1, -INF]);
  });
  it('until[0:0] is ψ at t', () => {
    expect(rho('(y > 0) until[0:0] (x > 4)')).toEqual([-3, 1, -2, 3, -1, -4]);
  });
  it('since[0.5:2]: witness in the past window, φ at every later sample up to t', () => {
    expect(rho('(y > 0) since[0.5:2] (x > 4)')).toEqual([-INF, -INF, -1, -1, -1, 1]);
  });
  it('unbounded since: max over the whole past', () => {
    // S(i) = max(ψ_i, min(φ_i, S(i−1)))
    const phi = [1, 2, -1, 3, 1, 1];
    const psi = [-3, 1, -2, 3, -1, -4];
    const expected: number[] = [];
    let s = -INF;
    for (let i = 0; i < 6; i++) expected.push((s = Math.max(psi[i]!, Math.min(phi[i]!, s))));
    expect(expected).toEqual([-3, 1, -1, 3, 1, 1]);
    expect(rho('(y > 0) since (x > 4)')).toEqual(expected);
  });
});

describe('nesting', () => {
  it('always[0:1] of a past formula, and a guarded clause', () => {
    // once[0:0.5] x > 4 = [-3, 1, 1, 3, 3, -1]; always[0:1] over pieces as in the window test
    expect(rho('always[0:1] (once[0:0.5] x > 4)')).toEqual([-3, 1, 1, 3, 3, -1]);
    expect(rho('always (g -> x < 6)')).toEqual([1, 1, 3, 3, 3, INF]);
  });
});
