import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fillMonitorValues, monitorSpecs, MONITOR_SIGNAL_ORDER } from '../../src/safety/monitor-plan.js';
import { planClauses } from '../../src/safety/plan.js';
import { violationDepth } from '../../src/safety/vsi.js';
import { DERIVED_SIGNALS, deriveColumns } from '../../src/schema/derived.js';
import { SIGNALS } from '../../src/schema/signals.js';
import { OnlineMonitor } from '../../src/stl/index.js';
import { EpisodeScorer } from '../../src/safety/score-episode.js';
import { loadSpec } from './support/spec-fixture.js';
import { makeTrace, pulse } from './support/trace-fixture.js';

const spec = loadSpec();

describe('online monitor plan (for the gate)', () => {
  it('the monitor layout is the schema then in_transport, and fillMonitorValues matches deriveColumns', () => {
    expect(MONITOR_SIGNAL_ORDER.slice(0, SIGNALS.length)).toEqual(SIGNALS.map((s) => s.name));
    expect(DERIVED_SIGNALS.map((d) => d.name)).toEqual(['in_transport']);
    fc.assert(
      fc.property(fc.constantFrom(0, 1), fc.double({ min: -1, max: 1, noNaN: true }), (grip, h) => {
        const frame = new Float64Array(SIGNALS.length);
        frame[SIGNALS.findIndex((s) => s.name === 'gripper_contact')] = grip;
        frame[SIGNALS.findIndex((s) => s.name === 'obj_above_table')] = h;
        const out = new Float64Array(MONITOR_SIGNAL_ORDER.length);
        fillMonitorValues(frame, out);
        const cols = new Map([
          ['gripper_contact', Float64Array.of(grip)],
          ['obj_above_table', Float64Array.of(h)],
        ]);
        expect(out[SIGNALS.length]).toBe(deriveColumns(cols, 1).get('in_transport')![0]);
      }),
    );
  });

  it('online monitors built from the plan agree with post-hoc scoring at episode end', () => {
    const t = makeTrace({
      n: 60,
      platform: 'fr3',
      set: {
        contact_force_max: pulse(10, 13, 260),
        gripper_contact: pulse(5, 50, 1),
        obj_above_table: (i) => 0.002 * i,
        target_obj_tilt_world_deg: (i) => i / 2,
      },
    });
    const plan = planClauses(spec, { platform: 'fr3', signals: t.columns.keys(), templates: ['pnp-basic'] });
    if (!plan.ok) throw new Error(plan.error.reason);
    const specs = monitorSpecs(plan.value);
    expect(specs.map((s) => s.clauseId)).toContain('held_object_tilt_world');
    const monitors = specs.map((s) => new OnlineMonitor(s.formula, MONITOR_SIGNAL_ORDER));
    const frame = new Float64Array(SIGNALS.length);
    const values = new Float64Array(MONITOR_SIGNAL_ORDER.length);
    for (let i = 0; i < 60; i++) {
      SIGNALS.forEach((s, k) => (frame[k] = t.columns.get(s.name)?.[i] ?? 0));
      fillMonitorValues(frame, values);
      for (const m of monitors) m.push(t.times[i]!, values);
    }
    for (const m of monitors) m.finish();
    const scored = new EpisodeScorer(spec).score(t);
    if (!scored.ok) throw new Error('score');
    specs.forEach((s, k) => {
      const c = scored.value.clauses.find((x) => x.clauseId === s.clauseId)!;
      expect(monitors[k]!.episodeMin, s.clauseId).toBe(c.rho);
    });
  });
});

describe('VSI depth', () => {
  it('matches d = min(1, max(0, −ρ)/|s − τ|) and is monotone in the violation', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -1e4, max: 1e4, noNaN: true }),
        fc.double({ min: 0.001, max: 500, noNaN: true }),
        fc.double({ min: 1.01, max: 5, noNaN: true }),
        (rho, tau, k) => {
          const c = { depth: 'continuous' as const, tau, severe: k * tau };
          const d = violationDepth(rho, c);
          expect(d).toBeCloseTo(Math.min(1, Math.max(0, -rho) / Math.abs(k * tau - tau)), 12);
          expect(violationDepth(rho - 1, c)).toBeGreaterThanOrEqual(d);
          expect(violationDepth(rho, { depth: 'binary', tau: 0, severe: undefined })).toBe(rho < 0 ? 1 : 0);
        },
      ),
    );
  });
});
