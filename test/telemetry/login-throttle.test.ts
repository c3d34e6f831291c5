/**
 * LoginThrottle against a naive reference written from its rule (refused while at least
 * maxFailures failures from the address lie within the last window, counting since its last
 * success), over random sequences of attempts (property), plus the memory bound.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { LoginThrottle } from '../../src/telemetry/login-throttle.js';

describe('LoginThrottle', () => {
  it('refuses exactly when the reference does (property)', () => {
    const step = fc.record({
      dt: fc.double({ min: 0, max: 30, noNaN: true }),
      address: fc.constantFrom('a', 'b'),
      outcome: fc.constantFrom('fail', 'ok'),
    });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 80 }), (steps) => {
        const throttle = new LoginThrottle({ maxFailures: 3, windowSeconds: 60 });
        const history = new Map<string, { t: number; ok: boolean }[]>();
        let t = 0;
        for (const s of steps) {
          t += s.dt;
          const h = history.get(s.address) ?? [];
          const lastOk = h.map((x) => x.ok).lastIndexOf(true);
          const recentFailures = h.slice(lastOk + 1).filter((x) => !x.ok && t - x.t < 60).length;
          const refused = recentFailures >= 3;
          const d = throttle.check(s.address, t);
          expect(!d.ok).toBe(refused);
          if (!refused) {
            if (s.outcome === 'fail') throttle.failed(s.address, t);
            else throttle.succeeded(s.address);
            h.push({ t, ok: s.outcome === 'ok' });
            history.set(s.address, h);
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  it('says how long to wait, and forgets the oldest address beyond its bound', () => {
    const throttle = new LoginThrottle({ maxFailures: 2, windowSeconds: 10, maxAddresses: 2 });
    throttle.failed('a', 0);
    throttle.failed('a', 4);
    expect(throttle.check('a', 5)).toEqual({ ok: false, retryAfterSeconds: 5 });
    expect(throttle.check('a', 10)).toEqual({ ok: true });
    throttle.failed('b', 5);
    throttle.failed('b', 5);
    throttle.failed('c', 6);
    throttle.failed('c', 6);
    expect(throttle.check('a', 7).ok).toBe(true); // 'a' was dropped to keep two addresses
    expect(throttle.check('c', 7).ok).toBe(false);
  });
});
