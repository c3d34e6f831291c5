import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  ChunkScreen,
  chunkToMessage,
  describeRejection,
  parseChunkMessage,
  parseChunkText,
} from '../../src/gate/index.js';
import type { ChunkScreenConfig, GateChunk } from '../../src/gate/index.js';

const cfg: ChunkScreenConfig = {
  joints: 2,
  maxHorizon: 50,
  qmin: [-1, -2],
  qmax: [1, 2],
  maxAge: 0.2,
  futureTolerance: 0.05,
  minDt: 0.001,
  maxDt: 0.5,
  idMemory: 4,
};
const msg = (over: Record<string, unknown> = {}) => ({
  v: 1,
  id: 'c1',
  stamp: 10,
  horizon: 2,
  joints: 2,
  dt: 0.02,
  targets: [
    [0.1, 0.2],
    [0.2, 0.3],
  ],
  ...over,
});
const chunk = (id: string, stamp: number, targets = [0.1, 0.2, 0.2, 0.3], horizon = 2, joints = 2): GateChunk => ({
  id,
  stamp,
  horizon,
  joints,
  dt: 0.02,
  targets: Float64Array.from(targets),
});

describe('parseChunkMessage', () => {
  it('accepts the documented shape and round-trips through chunkToMessage', () => {
    const r = parseChunkMessage(msg());
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(Array.from(r.value.targets)).toEqual([0.1, 0.2, 0.2, 0.3]);
    expect(chunkToMessage(r.value)).toEqual(msg());
  });

  it.each([
    ['not an object', 42, '(payload)'],
    ['wrong version', msg({ v: 2 }), 'v'],
    ['empty id', msg({ id: '' }), 'id'],
    ['string stamp', msg({ stamp: '10' }), 'stamp'],
    ['fractional horizon', msg({ horizon: 1.5 }), 'horizon'],
    ['zero dt', msg({ dt: 0 }), 'dt'],
    ['targets not array', msg({ targets: 'x' }), 'targets'],
    ['row not array', msg({ targets: [[0, 0], 3] }), 'targets[1]'],
    [
      'string target',
      msg({
        targets: [
          [0, 'a'],
          [0, 0],
        ],
      }),
      'targets[0][1]',
    ],
  ])('rejects %s naming the field', (_name, value, field) => {
    const r = parseChunkMessage(value);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toMatchObject({ code: 'malformed', field });
    expect(describeRejection(r.error)).toContain(`'${field}'`);
  });

  it('rejects mis-sized rows and row counts with expected/got', () => {
    const rows = parseChunkMessage(msg({ horizon: 3 }));
    expect(!rows.ok && rows.error).toEqual({ code: 'mis-sized', field: 'targets', expected: 3, got: 2 });
    const cols = parseChunkMessage(
      msg({
        targets: [
          [0, 0],
          [0, 0, 0],
        ],
      }),
    );
    expect(!cols.ok && cols.error).toEqual({ code: 'mis-sized', field: 'targets[1]', expected: 2, got: 3 });
  });

  it('treats JSON null (how NaN serialises) as a non-finite target', () => {
    const r = parseChunkText(
      JSON.stringify(
        msg({
          targets: [
            [0, NaN],
            [0, 0],
          ],
        }),
      ),
    );
    expect(!r.ok && r.error).toEqual({ code: 'non-finite', step: 0, joint: 1 });
  });

  it('rejects bad JSON text with the parser message', () => {
    const r = parseChunkText('{"v":1,');
    expect(!r.ok && r.error.code).toBe('malformed');
  });

  it('never throws on arbitrary text or JSON values (fuzz)', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        parseChunkText(s);
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        parseChunkMessage(a);
        parseChunkMessage(msg({ targets: a, horizon: b }));
        parseChunkMessage(msg({ targets: [a, b] }));
      }),
      { numRuns: 500 },
    );
  });
});

describe('ChunkScreen', () => {
  it('passes a good chunk', () => {
    expect(new ChunkScreen(cfg).check(chunk('a', 10), 10.05)).toBeNull();
  });

  it('rejects a chunk for another arm size (H × n mismatch)', () => {
    const s = new ChunkScreen(cfg);
    expect(s.check(chunk('a', 10, [0, 0, 0], 1, 3), 10)).toEqual({
      code: 'mis-sized',
      field: 'joints',
      expected: 2,
      got: 3,
    });
    expect(s.check(chunk('b', 10, [0, 0, 0], 2, 2), 10)).toEqual({
      code: 'mis-sized',
      field: 'targets',
      expected: 4,
      got: 3,
    });
    expect(s.check(chunk('c', 10, new Array<number>(102).fill(0), 51, 2), 10)).toMatchObject({
      code: 'mis-sized',
      field: 'horizon',
    });
  });

  it('rejects stale and future-stamped chunks', () => {
    const s = new ChunkScreen(cfg);
    expect(s.check(chunk('a', 10), 10.25)).toMatchObject({ code: 'stale', maxAge: 0.2 });
    expect(s.check(chunk('b', 10.1), 10)).toMatchObject({ code: 'from-future', tolerance: 0.05 });
  });

  it('rejects a duplicated id even when the first one was accepted, and out-of-order stamps', () => {
    const s = new ChunkScreen(cfg);
    expect(s.check(chunk('a', 10), 10)).toBeNull();
    expect(s.check(chunk('a', 10.01), 10.02)).toEqual({ code: 'duplicate-id', id: 'a' });
    expect(s.check(chunk('b', 9.99), 10.02)).toEqual({ code: 'out-of-order', stamp: 9.99, lastStamp: 10 });
    expect(s.check(chunk('c', 10), 10.02)).toEqual({ code: 'out-of-order', stamp: 10, lastStamp: 10 });
    expect(s.check(chunk('d', 10.01), 10.02)).toBeNull();
  });

  it('forgets ids beyond its memory (bounded state)', () => {
    const s = new ChunkScreen(cfg);
    for (let i = 0; i < 5; i++) expect(s.check(chunk(`id${i}`, 10 + i * 0.01), 10 + i * 0.01)).toBeNull();
    expect(s.check(chunk('id0', 10.1), 10.1)).toBeNull(); // memory 4: id0 was evicted
    expect(s.check(chunk('id4', 10.11), 10.11)).toMatchObject({ code: 'duplicate-id' });
  });

  it('rejects NaN/∞ targets and targets beyond the joint limits', () => {
    const s = new ChunkScreen(cfg);
    expect(s.check(chunk('a', 10, [0, 0, Infinity, 0]), 10)).toEqual({ code: 'non-finite', step: 1, joint: 0 });
    expect(s.check(chunk('b', 10, [0, 2.5, 0, 0]), 10)).toEqual({
      code: 'beyond-limits',
      step: 0,
      joint: 1,
      value: 2.5,
      min: -2,
      max: 2,
    });
  });
});
