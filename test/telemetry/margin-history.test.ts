import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MAX_HISTORY_SAMPLES, MarginHistory, parseMarginHistory } from '../../src/telemetry/margin-history.js';

describe('MarginHistory: the retained recent margins', () => {
  it('keeps the last window of gate time at 10 Hz, oldest first', () => {
    const h = new MarginHistory();
    for (let k = 0; k <= 3000; k++) h.push(k * 0.02, { a: 0.5 }, { a: 0.1 }); // 60 s at 50 Hz
    const p = h.payload('r1');
    const ts = p.samples.map((s) => s.t);
    expect(ts.at(-1)).toBeCloseTo(60, 9);
    expect(ts[0]).toBeGreaterThanOrEqual(40 - 1e-9);
    // 20 s at one sample per 0.1 s (hand count: 40.0 … 60.0 → 201 samples)
    expect(p.samples.length).toBe(201);
    for (let i = 1; i < ts.length; i++) expect(ts[i]! - ts[i - 1]!).toBeGreaterThanOrEqual(0.1 - 1e-9);
    expect(p).toMatchObject({ v: 1, robot: 'r1', window: 20, band: { a: 0.1 } });
  });

  it('is bounded by maxSamples and starts again when the gate clock goes back', () => {
    const h = new MarginHistory({ maxSamples: 5, minInterval: 0 });
    for (let k = 0; k < 20; k++) h.push(k, { a: k }, {});
    expect(h.payload('r').samples.map((s) => s.t)).toEqual([15, 16, 17, 18, 19]);
    h.push(3, { a: null }, {});
    expect(h.payload('r').samples).toEqual([{ t: 3, margins: { a: null } }]);
  });

  it('non-finite margins are sent as null (JSON has no NaN), non-finite times are ignored', () => {
    const h = new MarginHistory({ minInterval: 0 });
    h.push(1, { a: Number.NaN, b: Infinity, c: 0.123456 }, {});
    h.push(Number.NaN, { a: 1 }, {});
    expect(h.payload('r').samples).toEqual([{ t: 1, margins: { a: null, b: null, c: 0.1235 } }]);
  });
});

describe('parseMarginHistory (the dashboard reads it from the broker)', () => {
  const sample = fc.record({
    dt: fc.double({ min: 0.001, max: 5, noNaN: true }),
    margins: fc.dictionary(
      fc.stringMatching(/^[a-z][a-z_]{0,11}$/),
      fc.option(fc.double({ min: -10, max: 10, noNaN: true }), { nil: null }),
      { maxKeys: 6 },
    ),
  });

  it('reads back every payload MarginHistory writes', () => {
    fc.assert(
      fc.property(fc.double({ min: -1e6, max: 1e6, noNaN: true }), fc.array(sample, { maxLength: 60 }), (t0, steps) => {
        const h = new MarginHistory({ minInterval: 0, windowSeconds: 1e9 });
        let t = t0;
        for (const s of steps) h.push((t += s.dt), s.margins, { x: 0.1 });
        const text = JSON.stringify(h.payload('robot-1'));
        const r = parseMarginHistory(text);
        expect(r.ok).toBe(true);
        if (r.ok) expect(r.value).toEqual(JSON.parse(text));
      }),
    );
  });

  it('never throws on arbitrary text, and refuses what is not a valid history', () => {
    fc.assert(fc.property(fc.string(), (s) => void parseMarginHistory(s)));
    fc.assert(fc.property(fc.jsonValue(), (v) => void parseMarginHistory(JSON.stringify(v))));
    const ok = {
      v: 1,
      robot: 'r',
      window: 20,
      band: {},
      samples: [
        { t: 1, margins: { a: 0.5 } },
        { t: 2, margins: { a: null } },
      ],
    };
    expect(parseMarginHistory(JSON.stringify(ok)).ok).toBe(true);
    const bad = (patch: object) => parseMarginHistory(JSON.stringify({ ...ok, ...patch }));
    expect(bad({ v: 2 })).toEqual({ ok: false, error: "field 'v': expected 1" });
    expect(
      bad({
        samples: [
          { t: 2, margins: {} },
          { t: 2, margins: {} },
        ],
      }),
    ).toEqual({ ok: false, error: 'samples[1].t: expected times strictly increasing' });
    expect(bad({ samples: [{ t: 1, margins: { a: 'x' } }] })).toEqual({
      ok: false,
      error: 'samples[0].margins: expected an object of clause → number or null',
    });
    expect(
      bad({ samples: Array.from({ length: MAX_HISTORY_SAMPLES + 1 }, (_, i) => ({ t: i, margins: {} })) }).ok,
    ).toBe(false);
    expect(bad({ band: { a: null } }).ok).toBe(false);
  });
});
