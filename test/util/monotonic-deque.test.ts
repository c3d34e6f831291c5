import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MonotonicDeque } from '../../src/util/monotonic-deque.js';
import { Float64Ring } from '../../src/util/ring-buffer.js';

describe('MonotonicDeque', () => {
  it('tracks a sliding minimum by hand', () => {
    const d = new MonotonicDeque('min');
    d.push(0, 5);
    d.push(1, 3);
    d.push(2, 4);
    expect(d.peek()).toBe(3);
    d.evictBefore(2);
    expect(d.peek()).toBe(4);
    d.evictBefore(3);
    expect(d.peek()).toBe(Infinity);
  });

  it('matches a naive window extreme on random sequences', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ noNaN: true, min: -1e6, max: 1e6 }), { minLength: 1, maxLength: 200 }),
        fc.integer({ min: 1, max: 20 }),
        fc.constantFrom<'min' | 'max'>('min', 'max'),
        (xs, w, kind) => {
          const d = new MonotonicDeque(kind);
          xs.forEach((x, i) => {
            d.push(i, x);
            d.evictBefore(i - w + 1);
            const win = xs.slice(Math.max(0, i - w + 1), i + 1);
            expect(d.peek()).toBe(kind === 'min' ? Math.min(...win) : Math.max(...win));
          });
        },
      ),
    );
  });
});

describe('Float64Ring', () => {
  it('behaves as a deque across growth', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.double({ noNaN: true }), fc.constant('popF' as const), fc.constant('popB' as const))),
        (ops) => {
          const ring = new Float64Ring(2);
          const ref: number[] = [];
          for (const op of ops) {
            if (op === 'popF') {
              if (ref.length) expect(ring.popFront()).toBe(ref.shift());
            } else if (op === 'popB') {
              if (ref.length) expect(ring.popBack()).toBe(ref.pop());
            } else {
              ring.pushBack(op);
              ref.push(op);
            }
            expect(ring.length).toBe(ref.length);
          }
          ref.forEach((v, i) => expect(ring.at(i)).toBe(v));
        },
      ),
    );
  });
});
