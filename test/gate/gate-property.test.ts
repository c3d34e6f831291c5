import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ArrayClauseMargins, Gate } from '../../src/gate/index.js';
import type { GateEvent } from '../../src/gate/index.js';

type Ev =
  | { e: 'sample'; dt: number; margin: number }
  | { e: 'fault' }
  | { e: 'estop' }
  | { e: 'estop-clear' }
  | { e: 'solver' }
  | { e: 'chunk'; modified: boolean }
  | { e: 'release'; authorised: boolean };

const ev: fc.Arbitrary<Ev> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      e: fc.constant('sample' as const),
      dt: fc.constantFrom(0.01, 0.01, 0.01, 0.3, -0.01, 0.6),
      margin: fc.constantFrom(1, 1, 0.05, -0.1, NaN),
    }),
  },
  fc.constant({ e: 'fault' as const }),
  fc.constant({ e: 'estop' as const }),
  fc.constant({ e: 'estop-clear' as const }),
  fc.constant({ e: 'solver' as const }),
  fc.record({ e: fc.constant('chunk' as const), modified: fc.boolean() }),
  { weight: 3, arbitrary: fc.record({ e: fc.constant('release' as const), authorised: fc.boolean() }) },
);

describe('Gate (property)', () => {
  it('hold latches until an authorised release that no persisting cause refuses; events chain states', () => {
    fc.assert(
      fc.property(fc.array(ev, { maxLength: 60 }), (evs) => {
        const gate = new Gate({ requiredSignals: [], maxStepGap: 0.5, faultQuietPeriod: 0.2 });
        const events: GateEvent[] = [];
        gate.onEvent((x) => events.push(x));
        const m = new ArrayClauseMargins(['c'], 0.1);
        let t = 0;
        let sampled = false;
        for (const x of evs) {
          const wasHold = gate.holding;
          const n = events.length;
          switch (x.e) {
            case 'sample':
              t += x.dt;
              m.setFinal(0, x.margin);
              gate.evaluate(t, m, null);
              if (!(x.margin >= 0) || (sampled && (x.dt < 0 || x.dt > 0.5))) expect(gate.state).toBe('hold');
              sampled = true;
              break;
            case 'fault':
              gate.fault(t, { kind: 'timeout', source: 's', detail: 'no reply' });
              expect(gate.state).toBe('hold');
              break;
            case 'estop':
              gate.eStop(t, 'x');
              expect(gate.state).toBe('hold');
              break;
            case 'estop-clear':
              gate.resetEStop(t, { by: 'op', pressedBy: 'x', authorised: true });
              break;
            case 'solver':
              gate.solverFailed(t, 'c', 'infeasible');
              expect(gate.state).toBe('hold');
              break;
            case 'chunk':
              gate.chunkExecuted(t, 'c', x.modified);
              break;
            case 'release': {
              const r = gate.release(t, { by: 'op', authorised: x.authorised });
              if (r.ok) {
                expect(wasHold && x.authorised).toBe(true);
                expect(gate.state).toBe('armed');
              } else if (wasHold) expect(gate.state).toBe('hold');
              break;
            }
          }
          // leaving hold happens only through a granted release
          if (wasHold && !gate.holding) expect(x.e).toBe('release');
          // every event starts where the previous one ended, and nothing repeats a state except
          // an e-stop pressed or reset while holding (hold → hold: every e-stop is reported)
          for (let i = n; i < events.length; i++) {
            const prev = i === 0 ? 'armed' : events[i - 1]!.to;
            expect(events[i]!.from).toBe(prev);
            if (events[i]!.to === events[i]!.from)
              expect([events[i]!.to, events[i]!.cause.kind]).toEqual([
                'hold',
                x.e === 'estop' ? 'e-stop' : 'e-stop-reset',
              ]);
          }
          if (x.e === 'estop') expect(events.length).toBe(n + 1);
        }
        expect(events.at(-1)?.to ?? 'armed').toBe(gate.state);
      }),
      { numRuns: 500 },
    );
  });
});
